/** `spinup explain` for people: the annotated log, the stage timeline, the verdict and why. */
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { Mismatch } from '../../replay/compare.js';
import type { LineTrace, LogTrace } from '../../replay/explain-driver.js';
import { lineHits, type FrameHit, type HitKind } from '../../replay/frame-hits.js';
import { formatVerdict } from './verdict-text.js';
import { clip, shownText } from './shown-text.js';
import { allEvents, reasoning, type Colors } from './explain-reasons.js';


export interface ExplainView {
  file: string;
  color: boolean;
  onlyMatches: boolean;
  thenIdleMs?: number;
  /** Where the family came from: `detected`, `--pack`, `from NAME.expect.yaml`. */
  familyFrom: string;
  /** Where the quiet time came from, when not from a flag. */
  idleFrom?: string;
  /** The expectation file the verdict is checked against. */
  expectFile?: string;
  /** Set when an expectation was read: empty means the verdict matches it. */
  mismatches?: Mismatch[];
}

const MAX_TEXT = 240;

export function formatExplain(trace: LogTrace, view: ExplainView): string {
  const c = pc.createColors(view.color);
  const out: string[] = [header(trace, view, c), ''];
  out.push(...annotatedLog(trace, view, c), '');
  out.push(c.bold('Stages, on the log\'s own clock:'), ...timeline(trace, c), '');
  out.push(c.bold('Verdict:'), formatVerdict(trace.verdict, { color: view.color, family: trace.family }), '');
  out.push(c.bold('Why:'), ...reasoning(trace, c));
  if (view.mismatches) {
    out.push('', c.bold(`Expectation (${view.expectFile}):`));
    if (view.mismatches.length === 0) out.push(`  ${c.green('matches')}`);
    for (const m of view.mismatches) out.push(`  ${c.red(m.field)}: expected ${m.expected}, got ${shownText(m.actual)}`);
  }
  return `${out.join('\n')}\n`;
}

function header(trace: LogTrace, view: ExplainView, c: Colors): string {
  const idle = view.thenIdleMs ? `, then ${formatDuration(view.thenIdleMs)} of quiet${view.idleFrom ? ` (${view.idleFrom})` : ''}` : '';
  return `${c.bold(view.file)}: pack ${trace.family} (${view.familyFrom}), ${trace.lines.length} lines${idle}`;
}

function annotatedLog(trace: LogTrace, view: ExplainView, c: Colors): string[] {
  const width = String(trace.lines.length).length;
  const out: string[] = [];
  let dividerShown = false;
  for (const line of trace.lines) {
    const { hits, read, afterVerdict } = lineHits(line, trace.pack);
    if (view.onlyMatches && hits.length === 0) continue;
    if (afterVerdict && !dividerShown) {
      dividerShown = true;
      const matter = trace.verdict.verdict === 'ready' ? 'as a failure after ready, or if a new run starts' : 'if a new run starts';
      out.push(c.dim(`${' '.repeat(width)}  ---- the ${trace.verdict.verdict} verdict was reached above; later lines only matter ${matter} ----`));
    }
    out.push(`${c.dim(String(line.lineNo).padStart(width))}  ${lineText(line, c)}`);
    const pad = ' '.repeat(width + 2);
    for (const hit of hits) out.push(`${pad}${c.dim('↳')} ${formatHit(hit, c)}${read ? '' : c.dim('  (traceback source line: not read)')}`);
  }
  if (out.length === 0) out.push(c.dim('  no rule matched any line'));
  return out;
}

function lineText(line: LineTrace, c: Colors): string {
  if (line.gap) return c.dim(`${clip(line.raw, MAX_TEXT)}  (gap marker: not part of the log)`);
  const last = line.frames[line.frames.length - 1];
  const text = last ? last.match.frame.text : line.raw;
  const frames = line.frames.length > 1 ? c.dim(`  [${line.frames.length} frames, last shown]`) : '';
  return `${clip(text, MAX_TEXT)}${frames}`;
}

/** A kind without a colour here is shown bold. */
const KIND_COLOR: Partial<Record<HitKind, keyof Colors>> = {
  stage: 'blue',
  progress: 'cyan',
  ready: 'green',
  heartbeat: 'yellow',
  benign: 'green',
  failure: 'red',
  exception: 'magenta',
  inference: 'magenta',
  remedy: 'dim',
  symptom: 'dim',
};

function formatHit(hit: FrameHit, c: Colors): string {
  const paint = c[KIND_COLOR[hit.kind] ?? 'bold'] as (s: string) => string;
  const groups = Object.entries(hit.groups).map(([k, v]) => `${k}=${JSON.stringify(clip(v, 80))}`);
  const captured = groups.length > 0 ? c.dim(`  {${groups.join(', ')}}`) : '';
  return `${paint(hit.kind.padEnd(9))} ${c.bold(hit.rule)}  ${hit.detail}${captured}`;
}

export interface StageRow {
  stage: string;
  lineNo: number;
  at: number;
  rule: string;
  /** Until the next stage (or the verdict, for the last one). */
  durationMs?: number;
  reentered: boolean;
  restart: boolean;
}

/** Stage entries (and restarts) in log order, each with how long the log stayed in it. */
export function stageRows(trace: LogTrace): StageRow[] {
  const rows: StageRow[] = [];
  for (const event of allEvents(trace)) {
    if (event.type === 'stage') rows.push({ stage: event.stage, lineNo: event.line.lineNo, at: event.at, rule: event.rule, reentered: event.reentered, restart: false });
    if (event.type === 'restart') rows.push({ stage: 'restart', lineNo: event.line.lineNo, at: event.at, rule: event.rule, reentered: false, restart: true });
  }
  rows.forEach((row, index) => {
    const next = rows[index + 1];
    if (!row.restart) row.durationMs = (next ? next.at : Math.max(row.at, trace.verdict.at)) - row.at;
  });
  return rows;
}

function timeline(trace: LogTrace, c: Colors): string[] {
  const rows = stageRows(trace);
  if (rows.length === 0) return ['  no stage marker was seen'];
  const width = Math.max(5, ...rows.map((r) => r.stage.length + (r.reentered ? 8 : 0)));
  const lines = [c.dim(`  ${'stage'.padEnd(width)}  ${'line'.padStart(6)}  ${'entered'.padEnd(8)}  lasted`)];
  rows.forEach((row, index) => {
    if (row.restart) {
      lines.push(c.yellow(`  -- a new run starts at line ${row.lineNo} (${row.rule}) --`));
      return;
    }
    const name = row.reentered ? `${row.stage} (again)` : row.stage;
    const until = index === rows.length - 1 ? c.dim(` (until the ${trace.verdict.verdict} verdict)`) : '';
    lines.push(`  ${name.padEnd(width)}  ${String(row.lineNo).padStart(6)}  ${formatDuration(row.at).padEnd(8)}  ${formatDuration(row.durationMs ?? 0)}${until}`);
  });
  return lines;
}
