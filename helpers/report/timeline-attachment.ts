/**
 * Attaches the upgrade timeline chart to the current Allure test: the monitor's recording drawn as lanes (an HTML
 * page with an inline SVG, nothing fetched), beside the YAML the monitor already attaches.
 */
import * as allure from 'allure-js-commons';
import { maskSecrets } from '../secrets.js';
import { renderTimelineHtml } from './timeline-chart.js';
import { buildTimelineModel, type RecordedChange, type RecordedInvariant } from './timeline-model.js';

export const TIMELINE_CHART_NAME = 'upgrade timeline (chart)';

export interface RecordedUpgrade {
  timeline: RecordedChange[];
  invariants: RecordedInvariant[];
  timeFactor: number;
  targetVersion?: string;
}

export function timelineChartHtml(recorded: RecordedUpgrade, stoppedWallMs = Date.now()): string {
  const model = buildTimelineModel({
    title: 'upgrade timeline',
    timeFactor: recorded.timeFactor,
    changes: recorded.timeline,
    invariants: recorded.invariants,
    targetVersion: recorded.targetVersion,
    stoppedWallMs,
  });
  return maskSecrets(renderTimelineHtml(model));
}

export async function attachTimelineChart(recorded: RecordedUpgrade): Promise<void> {
  await allure.attachment(TIMELINE_CHART_NAME, timelineChartHtml(recorded), { contentType: 'text/html', fileExtension: 'html' });
}
