/**
 * Draws a timeline model (timeline-model.ts) as one self-contained HTML page holding an inline SVG: no script, no
 * font, nothing fetched, so it shows the same in Allure's sandboxed attachment frame, from disk, or in any browser.
 * The clock is cluster time since the upgrade was requested, with the wall time of each tick beside it; every
 * segment carries a tooltip with what the recorded intervals said; broken invariants are red markers where their judge's
 * evidence says they broke.
 */
import { clockMap, type ClockMap } from '../monitor/clock-map.js';
import type { Break, Lane, TimelineModel, Tone } from './timeline-model.js';

const LABEL_WIDTH = 330;
const PLOT_WIDTH = 900;
const LANE_HEIGHT = 20;
const GROUP_GAP = 14;
const TOP = 72;
const RIGHT = 20;

const FILL: Record<Tone, string> = { ok: '#3f9b4f', busy: '#e0a526', bad: '#d23c3c', idle: '#9aa5b1', unknown: '#e4e7eb' };
const TONE_TEXT: Record<Tone, string> = { ok: 'healthy / done', busy: 'progressing / updating', bad: 'degraded / failing', idle: 'other', unknown: 'no change seen yet' };

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Cluster offset as "+1h02m03s" / "+12m30s" / "+45s". */
export function formatOffset(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h) return `+${h}h${String(m).padStart(2, '0')}m${String(s).padStart(2, '0')}s`;
  return m ? `+${m}m${String(s).padStart(2, '0')}s` : `+${s}s`;
}

type Clocks = Pick<TimelineModel, 'zeroWallMs' | 'timeFactor' | 'clockPoints'>;

const maps = new WeakMap<Clocks, ClockMap>();
function mapOf(model: Clocks): ClockMap {
  let map = maps.get(model);
  if (!map) maps.set(model, (map = clockMap(model.zeroWallMs, model.timeFactor, model.clockPoints ?? [])));
  return map;
}

/** Wall clock of a cluster offset, "08:36:50.7" (UTC). */
export function wallClock(model: Clocks, offsetMs: number): string {
  return new Date(mapOf(model).wallAt(offsetMs)).toISOString().slice(11, 21);
}

/** Both clocks for a point: "+12m30s cluster (08:36:50.7 wall)". */
export function bothClocks(model: Clocks, offsetMs: number): string {
  return model.timeFactor === 1 ? `${formatOffset(offsetMs)} (${wallClock(model, offsetMs)} UTC)` : `${formatOffset(offsetMs)} cluster (${wallClock(model, offsetMs)} wall UTC)`;
}

/** Wall ISO timestamps inside a text rewritten as points on the chart's clock, so a text reads in one time. */
export function inClusterTime(model: Clocks, text: string): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g, (iso) => bothClocks(model, mapOf(model).clusterAt(Date.parse(iso))));
}

/** A tick step in cluster ms giving 6 to 12 ticks over the span. */
function tickStep(spanMs: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200].map((s) => s * 1000);
  return steps.find((s) => spanMs / s <= 12) ?? 14_400_000;
}

interface Row {
  lane?: Lane;
  heading?: string;
  y: number;
}

function layout(lanes: Lane[]): { rows: Row[]; height: number } {
  const rows: Row[] = [];
  let y = TOP;
  let group: string | undefined;
  for (const lane of lanes) {
    if (lane.group !== group) {
      group = lane.group;
      y += GROUP_GAP;
      rows.push({ heading: group, y });
      y += LANE_HEIGHT;
    }
    rows.push({ lane, y });
    y += LANE_HEIGHT;
  }
  return { rows, height: y + 40 };
}

export function renderTimelineSvg(model: TimelineModel): string {
  const span = Math.max(model.end, 1000);
  const x = (ms: number) => LABEL_WIDTH + (Math.min(Math.max(ms, 0), span) / span) * PLOT_WIDTH;
  const { rows, height } = layout(model.lanes);
  const width = LABEL_WIDTH + PLOT_WIDTH + RIGHT;
  const laneY = new Map(rows.filter((r) => r.lane).map((r) => [r.lane!.name, r.y]));
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="100%" style="max-width:${width}px" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11" role="img" aria-label="${escapeXml(model.title)}" data-chart="upgrade-timeline">`);
  parts.push(`<title>${escapeXml(model.title)}</title>`);
  parts.push(`<text x="8" y="18" font-size="14" font-weight="bold">${escapeXml(model.title)}</text>`);
  parts.push(`<text x="8" y="36" fill="#52606d">cluster time since the upgrade was requested (time factor ${model.timeFactor}: ${model.timeFactor === 1 ? 'real time' : `${model.timeFactor} cluster s per wall s`}); wall time (UTC) under each tick</text>`);
  // ticks
  const step = tickStep(span);
  for (let t = 0; t <= span + 1; t += step) {
    parts.push(`<line x1="${x(t)}" y1="${TOP}" x2="${x(t)}" y2="${height - 34}" stroke="#e4e7eb"/>`);
    parts.push(`<text x="${x(t)}" y="${height - 20}" text-anchor="middle">${formatOffset(t)}</text>`);
    parts.push(`<text x="${x(t)}" y="${height - 7}" text-anchor="middle" fill="#7b8794" font-size="9">${wallClock(model, t)}</text>`);
  }
  for (const row of rows) {
    if (row.heading) {
      parts.push(`<text x="8" y="${row.y + 14}" font-weight="bold" fill="#323f4b">${escapeXml(row.heading)}</text>`);
      continue;
    }
    const lane = row.lane!;
    parts.push(`<text x="18" y="${row.y + 14}" data-lane="${escapeXml(lane.name)}">${escapeXml(lane.name.length > 52 ? `${lane.name.slice(0, 51)}…` : lane.name)}<title>${escapeXml(lane.name)}</title></text>`);
    for (const s of lane.segments) {
      const x1 = x(s.from);
      const w = Math.max(1, x(s.to) - x1);
      const tip = `${lane.name}: ${s.label}\n${bothClocks(model, s.from)} → ${bothClocks(model, s.to)}\n${s.detail}`;
      parts.push(`<rect x="${x1.toFixed(1)}" y="${row.y + 3}" width="${w.toFixed(1)}" height="${LANE_HEIGHT - 6}" fill="${FILL[s.tone]}" data-tone="${s.tone}"><title>${escapeXml(tip)}</title></rect>`);
      if (w > 60) parts.push(`<text x="${(x1 + 3).toFixed(1)}" y="${row.y + 14}" fill="${s.tone === 'unknown' ? '#7b8794' : '#fff'}" font-size="10" pointer-events="none">${escapeXml(s.label.slice(0, Math.floor(w / 6)))}</text>`);
    }
  }
  model.marks.forEach((mark, i) => {
    parts.push(`<line x1="${x(mark.at)}" y1="${TOP - 4}" x2="${x(mark.at)}" y2="${height - 34}" stroke="#1f4e9c" stroke-width="2" stroke-dasharray="4 3" data-mark="${escapeXml(mark.label)}"><title>${escapeXml(`${mark.label} at ${bothClocks(model, mark.at)}`)}</title></line>`);
    // Alternate rows, so two marks close in time keep readable labels.
    const late = x(mark.at) > LABEL_WIDTH + PLOT_WIDTH * 0.6; // near the right edge: the label ends at the line
    parts.push(`<text x="${x(mark.at) + (late ? -3 : 3)}" y="${TOP - 6 - (i % 2) * 13}" text-anchor="${late ? 'end' : 'start'}" fill="#1f4e9c" font-weight="bold">${escapeXml(mark.label)}</text>`);
  });
  model.breaks.forEach((b: Break, i) => {
    const y = b.lane !== undefined && laneY.has(b.lane) ? laneY.get(b.lane)! + LANE_HEIGHT / 2 : TOP + 8;
    const cx = x(b.at);
    parts.push(`<g data-invariant="${escapeXml(b.invariant)}" data-invariant-id="${escapeXml(b.id)}"><title>${escapeXml(`invariant broken at ${bothClocks(model, b.at)}: ${b.invariant}\n${inClusterTime(model, b.detail)}`)}</title>`);
    parts.push(`<path d="M${cx} ${y - 8} L${cx + 8} ${y} L${cx} ${y + 8} L${cx - 8} ${y} Z" fill="#fff" stroke="#b80000" stroke-width="2.5"/>`);
    parts.push(`<text x="${cx}" y="${y + 4}" text-anchor="middle" font-weight="bold" fill="#b80000" font-size="10">${i + 1}</text></g>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** The chart page: the SVG, a legend, and the broken invariants listed with their texts in cluster time. */
export function renderTimelineHtml(model: TimelineModel): string {
  const legend = (Object.keys(FILL) as Tone[]).map((t) => `<span class="key"><i style="background:${FILL[t]}"></i>${TONE_TEXT[t]}</span>`).join(' ');
  const marks = model.marks.map((m) => `<li>${escapeXml(m.label)}: ${escapeXml(bothClocks(model, m.at))}</li>`).join('');
  const breaks = model.breaks.length
    ? `<h2>Broken invariants</h2><ol class="breaks">${model.breaks.map((b) => `<li><b>${escapeXml(b.invariant)}</b> — broke at ${escapeXml(bothClocks(model, b.at))}${b.lane ? ` on ${escapeXml(b.lane)}` : ''}<br>${escapeXml(inClusterTime(model, b.detail))}</li>`).join('')}</ol>`
    : '<h2>Invariants</h2><p>none broken</p>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(model.title)}</title>
<style>
body{font-family:sans-serif;font-size:13px;margin:8px;color:#1f2933}
.key{margin-right:14px;white-space:nowrap}.key i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
h2{font-size:14px;margin:14px 0 6px}.breaks li{margin-bottom:6px;word-break:break-word}
.chart{min-width:720px}
</style></head>
<body>
<div class="chart">${renderTimelineSvg(model)}</div>
<p>${legend} <span class="key"><i style="border:2px solid #b80000;background:#fff;width:8px;height:8px"></i>invariant broken</span> <span class="key" style="color:#1f4e9c">┆ upgrade request / completion</span></p>
<ul>${marks}<li>recording ended: ${escapeXml(bothClocks(model, model.end))}</li></ul>
${breaks}
</body></html>
`;
}
