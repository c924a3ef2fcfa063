/**
 * Draws the starts of a report as HTML with inline SVG: one lane per start (per node of a
 * group start) on one shared time axis, a bar per stage (colour, a pattern and a text label,
 * so it reads without colour), progress curves, the verdict marker, the stall's silent
 * stretch and its budget, failures after ready, usual stage durations as faint bands.
 *
 * Pure functions from the model to a string. The live page runs the same functions in the
 * browser (their source is inlined), so they use no imports and no module constants: only
 * each other and their own locals.
 */
import type { Lane, ReportModel, StageBar, StartView, UsualStage, VerdictMark } from './report-model.js';

/** The body of the page: the time axis, then every start. */
export function drawStarts(model: ReportModel): string {
  const spanMs = niceSpan(Math.max(1000, ...model.starts.flatMap((s) => s.lanes.map((l) => l.endMs))));
  const starts = model.starts.map((start, index) => drawStart(start, index, model.usual[index] ?? {}, spanMs)).join('\n');
  const empty = model.starts.length === 0 ? '<p class="empty">No start to show yet.</p>' : '';
  return `<div class="axis">${drawAxis(spanMs)}</div>\n${empty}${starts}`;
}

/** The time axis ends on a round figure a little past the longest lane. */
function niceSpan(maxMs: number): number {
  const step = tickStep(maxMs);
  return Math.ceil((maxMs * 1.02) / step) * step;
}

function tickStep(spanMs: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);
  return steps.find((s) => spanMs / s <= 10) ?? 86_400_000;
}

/** x in the SVG's 1000-wide view box for a log time. */
function xOf(ms: number, spanMs: number): number {
  return Math.round((10 + (Math.max(0, ms) / spanMs) * 980) * 10) / 10;
}

function drawAxis(spanMs: number): string {
  const step = tickStep(spanMs);
  const ticks: string[] = [];
  for (let ms = 0; ms <= spanMs; ms += step) {
    const x = xOf(ms, spanMs);
    ticks.push(`<line x1="${x}" y1="14" x2="${x}" y2="22"/><text x="${x}" y="11" text-anchor="middle">${formatMs(ms).replace(/(\d)m00s$/, '$1m').replace(/(\d)h00m$/, '$1h')}</text>`);
  }
  return `<svg viewBox="0 0 1000 24" role="img" aria-label="time since the first line, 0 to ${formatMs(spanMs)}"><line x1="10" y1="22" x2="990" y2="22"/>${ticks.join('')}</svg>`;
}

function drawStart(start: StartView, index: number, usual: Record<string, UsualStage>, spanMs: number): string {
  const verdict = start.lanes.map((l) => l.verdict?.verdict ?? 'running').join(' ');
  const lanes = start.lanes.map((lane, laneIndex) => drawLane({ lane, id: `s${index}-l${laneIndex}`, usual, spanMs })).join('\n');
  const subtitle = start.subtitle ? `<p class="subtitle">${escapeHtml(start.subtitle)}</p>` : '';
  return `<section class="start" data-start="${index}" data-verdict="${verdict}">\n<h2>${escapeHtml(start.title)}</h2>${subtitle}\n${lanes}\n</section>`;
}

function drawLane(params: { lane: Lane; id: string; usual: Record<string, UsualStage>; spanMs: number }): string {
  const { lane, id, usual, spanMs } = params;
  const grid: string[] = [];
  const step = tickStep(spanMs);
  for (let ms = step; ms < spanMs; ms += step) grid.push(`<line class="grid" x1="${xOf(ms, spanMs)}" y1="16" x2="${xOf(ms, spanMs)}" y2="58"/>`);
  const bands = lane.stages.map((bar) => drawUsual(bar, usual[bar.stage], spanMs)).join('');
  const bars = lane.stages.map((bar, i) => drawBar(bar, `${id}-b${i}`, spanMs)).join('');
  const stall = lane.verdict?.silence ? drawSilence(lane.verdict, spanMs) : '';
  const after = lane.afterReady.map((mark) => `<path class="after-ready" d="M${xOf(mark.atMs, spanMs)} 16 l-5 -9 h10 z" data-at-ms="${mark.atMs}"><title>${escapeHtml(`after ready, at ${formatMs(mark.atMs)}: ${mark.cause} (${mark.rule}) ${mark.message}`)}</title></path>`).join('');
  const verdict = lane.verdict ? drawVerdictMark(lane.verdict, spanMs) : '';
  const node = lane.node !== undefined ? `<span class="node">node ${escapeHtml(lane.node)}</span> ` : '';
  const label = `${lane.node !== undefined ? `node ${lane.node}: ` : ''}${lane.stages.map((b) => `${b.stage} ${formatMs(b.endMs - b.startMs)}`).join(', ') || 'no stage marker seen'}`;
  return [
    `<div class="lane" data-lane="${id}"${lane.node !== undefined ? ` data-node="${escapeHtml(lane.node)}"` : ''}>`,
    `<p class="lane-head">${node}${drawVerdictText(lane)}</p>`,
    `<svg class="track" viewBox="0 0 1000 62" data-span-ms="${spanMs}" role="img" aria-label="${escapeHtml(label)}">${grid.join('')}${bands}${bars}${stall}${after}${verdict}</svg>`,
    `<p class="chips">${lane.stages.map((bar, i) => drawChip(bar, `${id}-b${i}`)).join(' ')}</p>`,
    lane.stages.map((bar, i) => drawBarDetail(bar, `${id}-b${i}`)).join(''),
    drawVerdictDetail(lane),
    '</div>',
  ].join('\n');
}

function drawBar(bar: StageBar, id: string, spanMs: number): string {
  const x = xOf(bar.startMs, spanMs);
  const width = Math.max(1.5, xOf(bar.endMs, spanMs) - x);
  const duration = formatMs(bar.endMs - bar.startMs);
  const full = `${bar.stage}${bar.reentered ? ' (again)' : ''} ${duration}`;
  // An SVG stretched to the page keeps its text legible at about 7 units a character.
  const shown = full.length * 7 + 6 <= width ? full : duration.length * 7 + 6 <= width ? duration : '';
  const text = shown ? `<text x="${x + 3}" y="36">${escapeHtml(shown)}</text>` : '';
  return [
    `<g class="bar stage-${bar.stage}${bar.open ? ' open' : ''}" data-detail="${id}" data-stage="${bar.stage}" data-start-ms="${bar.startMs}" data-end-ms="${bar.endMs}" tabindex="0" role="button">`,
    `<title>${escapeHtml(`${full}, from ${formatMs(bar.startMs)} (line ${bar.opened.line}); click for its lines`)}</title>`,
    `<rect x="${x}" y="20" width="${width}" height="24" class="fill"/><rect x="${x}" y="20" width="${width}" height="24" class="pattern" fill="url(#pattern-${bar.stage})"/>`,
    drawProgress(bar, spanMs),
    text,
    '</g>',
  ].join('');
}

/** The progress bars inside a stage (shards, capture batches) as a rising line across the bar. */
function drawProgress(bar: StageBar, spanMs: number): string {
  if (bar.progress.length === 0) return '';
  const every = Math.max(1, Math.ceil(bar.progress.length / 60));
  const samples = bar.progress.filter((_, i) => i % every === 0 || i === bar.progress.length - 1);
  const points = samples.map((p) => `${xOf(p.atMs, spanMs)},${Math.round((44 - p.fraction * 24) * 10) / 10}`).join(' ');
  const last = bar.progress[bar.progress.length - 1]!;
  return `<polyline class="progress" points="${points}" data-samples="${bar.progress.length}"><title>${escapeHtml(`${last.current}/${last.total} ${last.unit}`)}</title></polyline>`;
}

function drawUsual(bar: StageBar, usual: UsualStage | undefined, spanMs: number): string {
  if (!usual) return '';
  const x = xOf(bar.startMs, spanMs);
  const width = Math.max(1, xOf(bar.startMs + usual.medianMs, spanMs) - x);
  const title = `usual ${bar.stage}: ${formatMs(usual.medianMs)} (median of ${usual.starts} ready starts, ${formatMs(usual.minMs)} to ${formatMs(usual.maxMs)})`;
  return `<rect class="usual stage-${bar.stage}" x="${x}" y="47" width="${width}" height="6" data-stage="${bar.stage}" data-median-ms="${usual.medianMs}"><title>${escapeHtml(title)}</title></rect>`;
}

function drawSilence(verdict: VerdictMark, spanMs: number): string {
  const silence = verdict.silence!;
  const x = xOf(silence.fromMs, spanMs);
  const width = Math.max(1.5, xOf(silence.toMs, spanMs) - x);
  const title = `silent for ${formatMs(silence.toMs - silence.fromMs)} after line ${silence.lastLine?.line ?? '?'}`;
  const shade = `<rect class="silence" x="${x}" y="16" width="${width}" height="32" fill="url(#pattern-silence)" data-from-ms="${silence.fromMs}" data-to-ms="${silence.toMs}"><title>${escapeHtml(title)}</title></rect>`;
  if (!verdict.budget) return shade;
  const bx = xOf(silence.fromMs + verdict.budget.ms, spanMs);
  return `${shade}<line class="budget" x1="${bx}" y1="14" x2="${bx}" y2="56" data-budget-ms="${verdict.budget.ms}"><title>${escapeHtml(`stall budget ${formatMs(verdict.budget.ms)} (${verdict.budget.detail})`)}</title></line>`;
}

function drawVerdictMark(verdict: VerdictMark, spanMs: number): string {
  const x = xOf(verdict.atMs, spanMs);
  const word = { ready: 'READY', failed: 'FAILED', stalled: 'STALLED', incomplete: 'ENDED' }[verdict.verdict];
  const text = `${word}${verdict.cause ? ` ${verdict.cause}` : ''} ${formatMs(verdict.atMs)}`;
  const anchor = x > 700 ? 'end' : 'start';
  const tx = anchor === 'end' ? x - 4 : x + 4;
  return `<g class="verdict verdict-${verdict.verdict}" data-at-ms="${verdict.atMs}"><line x1="${x}" y1="2" x2="${x}" y2="60"/><text x="${tx}" y="12" text-anchor="${anchor}">${escapeHtml(text)}</text></g>`;
}

function drawChip(bar: StageBar, id: string): string {
  return `<button type="button" class="chip" data-detail="${id}"><svg width="14" height="10" aria-hidden="true"><rect width="14" height="10" class="fill stage-${bar.stage}"/><rect width="14" height="10" fill="url(#pattern-${bar.stage})"/></svg> ${escapeHtml(bar.stage)}${bar.reentered ? ' (again)' : ''} ${formatMs(bar.endMs - bar.startMs)}${bar.open ? '…' : ''}</button>`;
}

function drawBarDetail(bar: StageBar, id: string): string {
  const rows = [`<b>${escapeHtml(bar.stage)}</b>${bar.reentered ? ' (entered again)' : ''}: from ${formatMs(bar.startMs)} to ${formatMs(bar.endMs)}, ${formatMs(bar.endMs - bar.startMs)}${bar.open ? ' so far' : ''} · rule ${escapeHtml(bar.rule)}`];
  rows.push(`opened by ${drawLineRef(bar.opened)}`);
  rows.push(bar.closed ? `closed by ${drawLineRef(bar.closed)}` : 'still going on');
  const last = bar.progress[bar.progress.length - 1];
  if (last) rows.push(`progress: ${last.current}/${last.total} ${escapeHtml(last.unit)} (${bar.progress.length} samples)`);
  return `<div class="detail" id="${id}" hidden>${rows.map((r) => `<p>${r}</p>`).join('')}</div>`;
}

function drawLineRef(ref: { line: number; text?: string }): string {
  return `line ${ref.line}${ref.text !== undefined ? `: <code>${escapeHtml(ref.text)}</code>` : ''}`;
}

function drawVerdictText(lane: Lane): string {
  const v = lane.verdict;
  if (!v) return `<span class="verdict-word running">RUNNING</span> in ${escapeHtml(lane.stages[lane.stages.length - 1]?.stage ?? 'none')}, ${formatMs(lane.endMs)} so far`;
  const word = { ready: 'READY', failed: 'FAILED', stalled: 'STALLED', incomplete: 'ENDED WITHOUT A VERDICT' }[v.verdict];
  const cause = v.cause ? ` <b>${escapeHtml(v.cause)}</b>` : '';
  return `<span class="verdict-word ${v.verdict}">${word}</span>${cause} at ${formatMs(v.atMs)} in ${escapeHtml(v.stage)}${lane.earlierRuns > 0 ? ` · ${lane.earlierRuns} earlier run(s) in this log not drawn` : ''}${lane.fromRecord ? ' · stage order from the record (no lines kept)' : ''}`;
}

function drawVerdictDetail(lane: Lane): string {
  const v = lane.verdict;
  if (!v) return '';
  // A failure's reason repeats the rule's message: said once, on the rule's row.
  const rows: string[] = v.message && v.reason.includes(v.message) ? [] : [escapeHtml(v.reason)];
  if (v.rule) rows.push(`rule <code>${escapeHtml(v.rule)}</code>${v.message ? `: ${escapeHtml(v.message)}` : ''}`);
  for (const line of v.evidence) rows.push(`root cause: ${drawLineRef(line)}`);
  if (v.silence) rows.push(`silent for ${formatMs(v.silence.toMs - v.silence.fromMs)}${v.silence.lastLine ? ` after ${drawLineRef(v.silence.lastLine)}` : ''}`);
  if (v.budget) rows.push(`stall budget ${formatMs(v.budget.ms)} (${escapeHtml(v.budget.detail)})`);
  if (v.hint) rows.push(`hint: ${escapeHtml(v.hint)}`);
  for (const mark of lane.afterReady) rows.push(`after ready, at ${formatMs(mark.atMs)}: <b>${escapeHtml(mark.cause)}</b> ${escapeHtml(mark.message)} (${drawLineRef(mark.line)})`);
  return `<div class="verdict-detail verdict-${v.verdict}">${rows.map((r) => `<p>${r}</p>`).join('')}</div>`;
}

/** `850ms`, `42s`, `3m12s`, `1h05m`: core/duration.ts's format, kept here so the browser has it. */
export function formatMs(ms: number): string {
  const abs = Math.abs(ms);
  if (abs === 0) return '0s';
  if (abs < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(abs / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const sign = ms < 0 ? '-' : '';
  if (h > 0) return `${sign}${h}h${String(m).padStart(2, '0')}m`;
  return m > 0 ? `${sign}${m}m${String(s).padStart(2, '0')}s` : `${sign}${s}s`;
}

export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Source of the functions above, for the live page's inline script. */
export const DRAW_FUNCTIONS = [drawStarts, niceSpan, tickStep, xOf, drawAxis, drawStart, drawLane, drawBar, drawProgress, drawUsual, drawSilence, drawVerdictMark, drawChip, drawBarDetail, drawLineRef, drawVerdictText, drawVerdictDetail, formatMs, escapeHtml];
