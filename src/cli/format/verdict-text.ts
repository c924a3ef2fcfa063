/** The verdict block people read: what happened, where, the line that proves it, and what to try. */
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { Evidence, LogLine, Verdict } from '../../core/events.js';
import { clip, shownText } from './shown-text.js';

type Colors = ReturnType<typeof pc.createColors>;

const MAX_LINE = 220;

export interface VerdictTextOptions {
  color: boolean;
  family?: string;
  /**
   * `spinup run` times everything from the launch, on the wall clock its process lines use (the
   * log's own clock starts later, at its first line, and runs fast in a replayed capture).
   */
  sinceLaunchMs?: number;
}

export function formatVerdict(given: Verdict, options: VerdictTextOptions): string {
  const c = pc.createColors(options.color);
  const origin = options.sinceLaunchMs === undefined ? 'start' : 'launch';
  const verdict = shownWords(options.sinceLaunchMs === undefined ? given : { ...given, elapsedMs: options.sinceLaunchMs });
  if (verdict.familyUnknown === 'no-evidence') return formatNoServer(c, verdict);
  // The shared rules' pack is no family: say what is not known instead of naming it.
  // `READY sglang  after 29s`; with no family to name, one space: `STALLED in stage none`.
  const family = options.family && !verdict.familyUnknown ? ` ${c.dim(options.family)} ` : '';
  return [formatKnown(c, verdict, family, origin), ...(verdict.familyUnknown === 'undecided' ? [UNDECIDED(c)] : [])].join('\n');
}

/** A message is filled from the log's own words, and a reason may quote them: both are shown safe. */
function shownWords(verdict: Verdict): Verdict {
  return { ...verdict, reason: shownText(verdict.reason), ...(verdict.message === undefined ? {} : { message: shownText(verdict.message) }) };
}

const UNDECIDED = (c: Colors): string =>
  row(c, 'family', 'not known: too few lines say which server this is, so only the shared rules (torch, CUDA, NCCL, Python) were used; --pack names it');

function formatNoServer(c: Colors, verdict: Verdict): string {
  return [
    `${c.bold(c.cyan('NO VERDICT'))}  ${verdict.reason}`,
    row(c, 'read', `${verdict.linesRead ?? 0} lines: no launch line, logger format, process tag, module path or message of either`),
    row(c, 'hint', 'If a server did write it, name the family: --pack sglang or --pack vllm.'),
  ].join('\n');
}

function formatKnown(c: Colors, verdict: Verdict, family: string, origin: 'start' | 'launch'): string {
  switch (verdict.verdict) {
    case 'ready':
      return [
        `${c.bold(c.green('READY'))}${family} after ${formatDuration(verdict.elapsedMs)}`,
        ...lineRow(c, 'decided by', verdict.decidedBy),
      ].join('\n');
    case 'failed':
      return formatFailed(c, verdict, family, origin);
    case 'stalled':
      return [
        `${c.bold(c.yellow('STALLED'))}${family} in stage ${c.bold(verdict.stage)}`,
        verdict.budget?.source === 'server'
          ? row(c, 'reported', `by the server itself (${verdict.budget.detail}); no progress for ${formatDuration(verdict.silentMs ?? 0)}`)
          : row(c, 'silent for', `${formatDuration(verdict.silentMs ?? 0)} (budget ${formatDuration(verdict.budget?.ms ?? 0)}: ${verdict.budget?.detail ?? '?'})`),
        row(c, 'why', verdict.reason),
        row(c, 'elapsed', origin === 'start' ? formatDuration(verdict.elapsedMs) : `${formatDuration(verdict.elapsedMs)} since launch`),
        ...lineRow(c, 'last line', verdict.lastLine),
      ].join('\n');
    case 'incomplete':
      return [
        `${c.bold(c.cyan('INCOMPLETE'))}${family} the input ended before any verdict (last stage: ${verdict.stage})`,
        ...lineRow(c, 'last line', verdict.lastLine),
      ].join('\n');
  }
}

function formatFailed(c: Colors, verdict: Verdict, family: string, origin: 'start' | 'launch'): string {
  const lines = [`${c.bold(c.red('FAILED'))}${family} ${c.bold(verdict.cause ?? 'unknown')}: ${verdict.message ?? verdict.reason}`];
  lines.push(row(c, 'stage', `${verdict.stage}, ${formatDuration(verdict.elapsedMs)} after ${origin}`));
  if (verdict.rule) lines.push(row(c, 'rule', verdict.rule));
  const where = [verdict.rank, verdict.proc].filter(Boolean).join(', ');
  if (where) lines.push(row(c, 'process', where));
  if (verdict.causeElsewhere) {
    // Only a wrapper ("See root cause above"): say where the cause is instead of quoting it as one.
    lines.push(row(c, 'root cause', "not in this input: the log says it was printed earlier (above the part given, or in another process's log)"));
    verdict.evidence.forEach((evidence, index) => lines.push(...lineRow(c, index === 0 ? 'wrapper' : '', evidence)));
  } else {
    verdict.evidence.forEach((evidence, index) => lines.push(...lineRow(c, index === 0 ? 'root cause' : '', evidence, c.red)));
  }
  if (verdict.symptoms.length > 0) {
    const first = verdict.symptoms[0]!;
    const more = verdict.symptoms.length > 1 ? ` (+${verdict.symptoms.length - 1} more)` : '';
    lines.push(row(c, 'set aside', `line ${first.lineNo}: ${clip(first.text.trim(), 120)}${more}`));
  }
  if (verdict.hint) lines.push(row(c, 'hint', verdict.hint));
  return lines.join('\n');
}

function row(c: Colors, label: string, value: string): string {
  return `  ${c.dim(label.padEnd(10))} ${value}`;
}

function lineRow(c: Colors, label: string, line: LogLine | Evidence | undefined, paint: (s: string) => string = (s) => s): string[] {
  if (!line) return [];
  return [row(c, label, `${c.dim(`line ${line.lineNo}:`)} ${paint(clip(line.text, MAX_LINE))}`)];
}
