/**
 * A suspect start: something fatal-looking was seen (an exception a process printed, a line the
 * source makes fatal) but no rule that decides at once, so the verdict waits for a death sign
 * (the end of the input, the process's exit, the settle time without progress for an uncaught
 * exception), and a start that moves on (a new stage, progress) withdraws it. Status lines,
 * /v1/status and the events say so, with the candidate that would be the root cause.
 */
import type { ClassifierEvent, LogLine } from './events.js';
import { bestCandidate } from './root-cause.js';
import type { RunState } from './run-state.js';
import type { Cause } from './vocabulary.js';

export interface Suspect {
  cause: Cause;
  rule: string;
  message: string;
  /** The candidate's first line. */
  line?: LogLine;
  /** Log time since which the start is suspect. */
  since: number;
}

/** Whether the start is suspect now: cheap, for every frame (no candidate is weighed). */
export function isSuspect(run: Readonly<RunState>): boolean {
  return !run.verdict && !run.failing && (run.uncaught !== undefined || run.lastWords !== undefined);
}

export function suspectOf(run: Readonly<RunState>): Suspect | undefined {
  if (!isSuspect(run)) return undefined;
  const since = (run.uncaught ?? run.lastWords)!;
  const best = bestCandidate(run.candidates);
  if (!best) return undefined;
  return { cause: best.cause, rule: best.ruleId, message: best.message, line: best.evidence[0], since: since.at };
}

/** The start just became suspect (it was not before this line): one warning event names the candidate. */
export function sayWhenSuspect(run: Readonly<RunState>, line: LogLine, events: ClassifierEvent[]): void {
  const suspect = suspectOf(run);
  if (!suspect) return;
  const message = `suspect: ${suspect.message} (FAILED unless the start moves on)`;
  events.push({ type: 'warning', at: line.at, line: suspect.line ?? line, rule: suspect.rule, message, cause: suspect.cause });
}
