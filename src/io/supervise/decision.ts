/** What `run`'s supervision decides: a verdict and what gave it, or an interrupt. */
import type { Verdict } from '../../core/events.js';
import type { ChildExit } from '../child-process.js';
import type { ProbeResult } from '../health-probe.js';

/** What decided a verdict. */
/** `activity`: the log was silent and the process tree idle, or busy with no I/O (io/supervise/activity-watch.ts). */
export type DecidedBy = 'log' | 'process' | 'activity' | 'health' | 'timeout' | 'group';

export interface Decision {
  verdict: Verdict;
  by: DecidedBy;
  /** How the main process ended, when it had by then. */
  exit?: ChildExit;
  oomEvidence?: string[];
  /** The probe result that confirmed READY, or the last one seen. */
  health?: ProbeResult;
}

export type Outcome = { kind: 'decided'; decision: Decision } | { kind: 'interrupted' };
