/** What the classifier says: events while a start goes on, and the verdict that ends it. */
import type { Cause, Stage, VerdictKind } from './vocabulary.js';

/** One line of a log as the classifier saw it. */
export interface LogLine {
  lineNo: number;
  text: string;
  at: number;
}

export interface Evidence extends LogLine {
  rank?: string;
  proc?: string;
}

export type BudgetSource = 'pack' | 'override' | 'learned' | 'server';

export interface Budget {
  ms: number;
  source: BudgetSource;
  /** Where it came from, for people: `pack sglang stage cuda_graph`, `learned from 4 starts`. */
  detail: string;
}

export interface Verdict {
  verdict: VerdictKind;
  stage: Stage;
  /** Log time of the decision. */
  at: number;
  /** From the first line of this run to the decision. */
  elapsedMs: number;
  /** One sentence: why this verdict. */
  reason: string;
  /** The line that decided it. */
  decidedBy?: LogLine;
  // failed
  cause?: Cause;
  rule?: string;
  message?: string;
  hint?: string;
  /** Root-cause lines: the first fatal exception of the failing process, not the wrapper after it. */
  evidence: Evidence[];
  rank?: string;
  proc?: string;
  /** Lines set aside: wrappers and symptoms of the root cause. */
  symptoms: Evidence[];
  /**
   * Set when no family was known: `undecided`, the shared rules alone gave this verdict;
   * `no-evidence`, nothing in the input came from a known server, so there is no verdict.
   */
  familyUnknown?: 'undecided' | 'no-evidence';
  /** With `no-evidence`: how many lines were read. */
  linesRead?: number;
  /** `evidence` is only a wrapper saying the cause was printed before it (a tail of the log, another process's log). */
  causeElsewhere?: boolean;
  // stalled
  silentMs?: number;
  budget?: Budget;
  lastLine?: LogLine;
}

export interface ProgressInfo {
  rule: string;
  unit: string;
  current: number;
  total?: number;
  percent?: number;
  label?: string;
}

export type ClassifierEvent =
  | { type: 'stage'; stage: Stage; from: Stage; at: number; line: LogLine; rule: string; reentered: boolean }
  | { type: 'progress'; stage: Stage; at: number; line: LogLine; progress: ProgressInfo }
  | { type: 'warning'; at: number; line: LogLine; rule: string; message: string; cause?: Cause }
  | { type: 'restart'; at: number; line: LogLine; rule: string }
  | { type: 'after-ready-failure'; at: number; line: LogLine; rule: string; cause: Cause; message: string }
  | { type: 'verdict'; verdict: Verdict };
