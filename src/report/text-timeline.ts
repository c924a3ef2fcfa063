/**
 * The report's picture as text bars for a terminal, 80 columns wide: one start stage by stage
 * (`explain --timeline`), or many starts one row each (`history --timeline`). Every stage is
 * named in words or by its letter, so colour (only on a TTY) adds nothing that is needed.
 */
import pc from 'picocolors';
import { formatMs } from './draw-starts.js';
import type { Lane } from './report-model.js';

export const TEXT_WIDTH = 80;

type Paint = (text: string) => string;

/** One letter per stage for the one-row-per-start view, and a colour each for a TTY. */
const STAGE_MARKS: Record<string, { letter: string; color: keyof ReturnType<typeof pc.createColors> }> = {
  none: { letter: '.', color: 'gray' },
  launch: { letter: 'L', color: 'white' },
  distributed_init: { letter: 'D', color: 'magenta' },
  load_weights: { letter: 'W', color: 'blue' },
  kv_cache: { letter: 'K', color: 'cyan' },
  compile: { letter: 'C', color: 'yellow' },
  cuda_graph: { letter: 'G', color: 'red' },
  http_server: { letter: 'H', color: 'white' },
  warmup: { letter: 'U', color: 'magenta' },
};

const WORDS: Record<string, string> = { ready: 'READY', failed: 'FAILED', stalled: 'STALLED', incomplete: 'ENDED' };

/** Cells [from, to) of `cells` for a time range on a span; a range always gets one cell. */
function cellRange(fromMs: number, toMs: number, spanMs: number, cells: number): [number, number] {
  const from = Math.min(cells - 1, Math.floor((fromMs / spanMs) * cells));
  const to = Math.max(from + 1, Math.min(cells, Math.round((toMs / spanMs) * cells)));
  return [from, to];
}

/** One start, a row per stage: `  load_weights   10m18s  ··········█████████`. */
export function laneTimelineText(lane: Lane, options: { color: boolean }): string {
  const c = pc.createColors(options.color);
  const cells = TEXT_WIDTH - 2 - 18 - 8 - 2;
  const spanMs = Math.max(1, lane.endMs);
  const rows: string[] = [c.dim(`  ${'stage'.padEnd(18)}${'lasted'.padStart(8)}  0${formatMs(spanMs).padStart(cells - 1)}`)];
  for (const bar of lane.stages) {
    const [from, to] = cellRange(bar.startMs, bar.endMs, spanMs, cells);
    const paint = c[STAGE_MARKS[bar.stage]?.color ?? 'white'] as Paint;
    const name = `${bar.stage}${bar.reentered ? ' again' : ''}`.slice(0, 17).padEnd(18);
    rows.push(`  ${name}${formatMs(bar.endMs - bar.startMs).padStart(8)}  ${' '.repeat(from)}${paint('█'.repeat(to - from))}`);
  }
  if (lane.stages.length === 0) rows.push('  no stage marker was seen');
  if (lane.earlierRuns > 0) rows.push(c.dim(`  (the last run only: ${lane.earlierRuns} earlier run(s) in this log are not drawn)`));
  const silence = lane.verdict?.silence;
  if (silence) {
    const [from, to] = cellRange(silence.fromMs, silence.toMs, spanMs, cells);
    const budget = lane.verdict?.budget ? `, budget ${formatMs(lane.verdict.budget.ms)}` : '';
    rows.push(`  ${'(silent)'.padEnd(18)}${formatMs(silence.toMs - silence.fromMs).padStart(8)}  ${' '.repeat(from)}${c.dim('░'.repeat(to - from))}`);
    rows.push(c.dim(`  ${''.padEnd(28)}the silence that made the stall${budget}`.slice(0, TEXT_WIDTH)));
  }
  if (lane.verdict) rows.push(verdictRow(lane, { spanMs, cells, c }));
  // A server that keeps dying after ready repeats itself: the first few say it.
  for (const mark of lane.afterReady.slice(0, 3)) {
    const [at] = cellRange(mark.atMs, mark.atMs, spanMs, cells);
    rows.push(`  ${c.red(`then ${mark.cause}`.slice(0, 17).padEnd(18))}${formatMs(mark.atMs).padStart(8)}  ${' '.repeat(at)}${c.red('!')}`);
  }
  if (lane.afterReady.length > 3) rows.push(c.dim(`  ${''.padEnd(28)}and ${lane.afterReady.length - 3} more failure(s) after ready`));
  return `${rows.join('\n')}\n`;
}

function verdictRow(lane: Lane, params: { spanMs: number; cells: number; c: ReturnType<typeof pc.createColors> }): string {
  const v = lane.verdict!;
  const [at] = cellRange(v.atMs, v.atMs, params.spanMs, params.cells);
  const paint = (v.verdict === 'ready' ? params.c.green : v.verdict === 'failed' ? params.c.red : params.c.yellow) as Paint;
  const word = `${WORDS[v.verdict]}${v.cause ? ` ${v.cause}` : ''}`.slice(0, 17).padEnd(18);
  return `  ${paint(word)}${formatMs(v.atMs).padStart(8)}  ${' '.repeat(Math.min(at, params.cells - 1))}${paint('^')}`;
}

/** Many starts on one axis, a row each, stages by letter: `  09-tp4…  29s  LLLLDWWWWKGGGHU|  READY`. */
export function startsTimelineText(rows: readonly { title: string; lane: Lane }[], options: { color: boolean }): string {
  const c = pc.createColors(options.color);
  const cells = TEXT_WIDTH - 2 - 27 - 7 - 2 - 1 - 7;
  const spanMs = Math.max(1, ...rows.map((r) => r.lane.endMs));
  const out: string[] = [c.dim(`  ${'start'.padEnd(27)}${'total'.padStart(7)}  0${formatMs(spanMs).padStart(cells - 1)}`)];
  for (const { title, lane } of rows) {
    const line = Array.from({ length: cells }, () => ' ');
    const paints: (Paint | undefined)[] = Array.from({ length: cells }, () => undefined);
    for (const bar of lane.stages) {
      const [from, to] = cellRange(bar.startMs, bar.endMs, spanMs, cells);
      const mark = STAGE_MARKS[bar.stage] ?? STAGE_MARKS.none!;
      for (let i = from; i < to; i++) {
        line[i] = mark.letter;
        paints[i] = c[mark.color] as Paint;
      }
    }
    const v = lane.verdict;
    const word = v ? `${WORDS[v.verdict]}` : 'RUNNING';
    const paint = (v?.verdict === 'ready' ? c.green : v?.verdict === 'failed' ? c.red : c.yellow) as Paint;
    const bar = line.map((ch, i) => (paints[i] ? paints[i]!(ch) : ch)).join('');
    const shownTitle = title.length > 26 ? `${title.slice(0, 25)}…` : title;
    out.push(`  ${shownTitle.padEnd(27)}${formatMs(v?.atMs ?? lane.endMs).padStart(7)}  ${bar} ${paint(word.padEnd(7))}`.trimEnd());
  }
  const legend = Object.entries(STAGE_MARKS).filter(([stage]) => stage !== 'none').map(([stage, m]) => `${m.letter} ${stage}`);
  out.push(...legendLines(legend).map((line) => c.dim(line)));
  return `${out.join('\n')}\n`;
}

function legendLines(items: string[]): string[] {
  const lines: string[] = [];
  let line = '  stages:';
  for (const [index, item] of items.entries()) {
    const piece = `${item}${index < items.length - 1 ? ',' : ''}`;
    if (line.length + 1 + piece.length > TEXT_WIDTH) {
      lines.push(line);
      line = '   ';
    }
    line = `${line} ${piece}`;
  }
  return [...lines, line];
}
