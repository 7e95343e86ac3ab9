/**
 * Attaches the upgrade's recording to the current Allure test twice: as data (the JSON the monitor recorded, which
 * can be judged again: monitor/recording-file.ts) and as the timeline chart (an HTML page with an inline SVG, nothing
 * fetched) with the broken invariants placed.
 */
import * as allure from 'allure-js-commons';
import type { JudgedInvariant } from '../monitor/judge.js';
import type { UpgradeRecording } from '../monitor/recording.js';
import { maskSecrets } from '../secrets.js';
import { renderTimelineHtml } from './timeline-chart.js';
import { buildTimelineModel } from './timeline-model.js';

export const TIMELINE_CHART_NAME = 'upgrade timeline (chart)';
export const RECORDING_ATTACHMENT_NAME = 'upgrade recording';

export function timelineChartHtml(recording: UpgradeRecording, invariants: JudgedInvariant[], stoppedWallMs?: number): string {
  const model = buildTimelineModel({ title: 'upgrade timeline', recording, invariants, stoppedWallMs });
  return maskSecrets(renderTimelineHtml(model));
}

export async function attachRecording(recording: UpgradeRecording): Promise<void> {
  await allure.attachment(RECORDING_ATTACHMENT_NAME, maskSecrets(JSON.stringify(recording, null, 2)), { contentType: 'application/json', fileExtension: 'json' });
}

export async function attachTimelineChart(recording: UpgradeRecording, invariants: JudgedInvariant[]): Promise<void> {
  await allure.attachment(TIMELINE_CHART_NAME, timelineChartHtml(recording, invariants), { contentType: 'text/html', fileExtension: 'html' });
}
