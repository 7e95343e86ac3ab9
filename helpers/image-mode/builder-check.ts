/**
 * After an upgrade the build controller must run the new release's code (modern-mco.md §2.1 step 2): the operator
 * applies the `machine-os-builder` Deployment with its own image, so the builder's pods run the image the
 * machine-config-operator pod runs. Before OCPBUGS-56220's fix (MCO 3b58bc2ab) a running builder was never
 * updated and the old release's build controller built the pools' images after the upgrade; the MachineOSBuilds look
 * the same either way, so the builder's image is what tells.
 */
import type { KubeObject } from '../../lib/kube/client.js';
import { expectFact } from '../assertions.js';
import { fails, holds, type Fact } from '../facts/fact.js';
import type { FlowSession } from '../flows.js';
import { attachText, step } from '../report.js';
import { MCO_NAMESPACE } from './types.js';

const BUILDER = 'machine-os-builder';
const OPERATOR = 'machine-config-operator';

interface PodLike extends KubeObject {
  spec?: { containers?: Array<{ name: string; image?: string }> };
  status?: { phase?: string };
}

const imageOf = (containers: Array<{ name: string; image?: string }> | undefined, name: string): string | undefined =>
  (containers ?? []).find((c) => c.name === name)?.image ?? containers?.[0]?.image;

/**
 * The builder's live pods all run `operatorImage`. `build` names the MachineOSBuild made after the upgrade, which a
 * builder on another image made with the old release's code.
 */
export function builderRunsOperatorImage(pods: readonly PodLike[], operatorImage: string, release: string, build: string): Fact {
  const live = pods.filter((p) => p.metadata.labels?.['k8s-app'] === BUILDER && !p.metadata.deletionTimestamp && p.status?.phase === 'Running');
  if (live.length === 0) return fails(`no ${BUILDER} pod is running in ${MCO_NAMESPACE}, yet a pool has a MachineOSConfig`);
  const stale = live.filter((p) => imageOf(p.spec?.containers, BUILDER) !== operatorImage);
  if (stale.length === 0) return holds(`${BUILDER} (pod ${live.map((p) => p.metadata.name).join(', ')}) runs ${operatorImage}, the ${OPERATOR} image of ${release}`);
  const which = stale.map((p) => `pod ${p.metadata.name} runs ${imageOf(p.spec?.containers, BUILDER) ?? '(no image)'}`).join(', ');
  return fails(
    `${BUILDER} was not restarted on the upgrade to ${release}: ${which}, not ${operatorImage} (the ${OPERATOR} image of ${release}), ` +
      `so machineosbuild/${build} was made by the old release's build controller (OCPBUGS-56220, fixed by MCO 3b58bc2ab)`,
  );
}

/** Step: the build controller runs the operator's (the new release's) image; `build` is the post-upgrade build. */
export async function checkBuilderOnRelease(session: FlowSession, release: string, build: string): Promise<void> {
  await step(`${BUILDER} runs ${release}'s ${OPERATOR} image`, async () => {
    // the operator's running pod, not its Deployment: the suite may list pods there already (deploy/clusterrole.yaml)
    const operators = (await session.cluster.client.list<PodLike>('Pod', { namespace: MCO_NAMESPACE, labelSelector: `k8s-app=${OPERATOR}` })).items;
    const operator = operators.find((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running');
    if (!operator) throw new Error(`no ${OPERATOR} pod is running in ${MCO_NAMESPACE}: the suite cannot tell which image the build controller must run`);
    const operatorImage = imageOf(operator.spec?.containers, OPERATOR) ?? '';
    const pods = (await session.cluster.client.list<PodLike>('Pod', { namespace: MCO_NAMESPACE, labelSelector: `k8s-app=${BUILDER}` })).items;
    await attachText(`${OPERATOR} image`, operatorImage);
    await attachText(`${BUILDER} pods`, pods.map((p) => `${p.metadata.name}: ${imageOf(p.spec?.containers, BUILDER) ?? '?'} (${p.status?.phase ?? '?'})`).join('\n'));
    expectFact(builderRunsOperatorImage(pods, operatorImage, release, build));
  });
}
