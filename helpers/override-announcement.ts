/**
 * The render controller's announcement of an override: the event OSImageURLOverridden on a rendered config whose
 * osImageURL is not the release's. How often it comes is a fact of the release (releases/table.ts `overrideEvent`):
 * up to 4.19 on every sync of the pool, from 4.20 once, when the rendered config is made (OCPBUGS-62493). Only a
 * repeat is judged: events expire (kube-apiserver's --event-ttl, 3 hours on OpenShift), so a missing one proves nothing.
 */
import { expect } from 'chai';
import type { Cluster } from './cluster.js';
import type { ReleaseRules } from './releases/rules.js';
import { attachText } from './report.js';

export const OVERRIDE_EVENT_REASON = 'OSImageURLOverridden';

/** How many times the override of `renderedName` was announced: the events' counts, summed (client-go aggregates repeats). */
export async function overrideAnnouncements(cluster: Cluster, renderedName: string): Promise<{ times: number; messages: string[] }> {
  const events = await cluster.eventsAbout({ kind: 'MachineConfig', name: renderedName }, OVERRIDE_EVENT_REASON);
  return { times: events.reduce((sum, e) => sum + (e.count ?? 1), 0), messages: [...new Set(events.map((e) => e.message ?? ''))] };
}

/** On a release that announces an override once, the rendered config's event must not have come again. */
export async function checkOverrideAnnouncedOnce(cluster: Cluster, renderedName: string, rules: ReleaseRules | undefined): Promise<void> {
  const { times, messages } = await overrideAnnouncements(cluster, renderedName);
  await attachText(`${OVERRIDE_EVENT_REASON} on ${renderedName}`, `${times} time(s)${messages.length ? `:\n${messages.join('\n')}` : ' (events expire after the API server\'s event TTL)'}`);
  if (rules?.render.overrideEvent !== 'once-per-rendered-config') return;
  expect(
    times,
    `the render controller announced the override of ${renderedName} ${times} times (event ${OVERRIDE_EVENT_REASON}); OpenShift ${rules.release} announces it once, when the rendered config is made (OCPBUGS-62493)`,
  ).to.be.at.most(1);
}
