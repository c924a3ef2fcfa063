/** Everything the classifier knows about the current run of the server. Reset when a new run starts. */
import type { Evidence, LogLine, ProgressInfo, Verdict } from './events.js';
import type { InferenceInput } from './infer-cause.js';
import type { Candidate } from './root-cause.js';
import { TracebackTracker } from './traceback.js';
import type { Stage } from './vocabulary.js';

export interface RunState {
  stage: Stage;
  stageSince: number;
  /** Log time of the run's first line. */
  startedAt: number | undefined;
  /** Last line that was not a heartbeat: silence is measured from here. */
  lastActivityAt: number | undefined;
  lastLine: LogLine | undefined;
  /** Something past the launch happened: a restart marker now means a new run. */
  progressed: boolean;
  progress: ProgressInfo | undefined;
  /** Each rank's bar (ProgressHit.key): where it was last read. */
  barPositions: Map<string, BarPosition>;
  /** Each bar's (ProgressHit.bar) last rank that named itself: a frame that names no one is its (follow-stages.ts rankKey). */
  barRanks: Map<string, string>;
  /** Counts the progress hits applied: changes whenever barPositions or barRanks may have (Classifier.idleEpoch). */
  barMoves: number;
  heartbeats: Map<string, number>;
  candidates: Candidate[];
  symptoms: Evidence[];
  /** A fatal line was seen; the verdict waits (briefly) for the root cause to show. */
  failing: { at: number; line: LogLine; final: boolean } | undefined;
  /** An exception Python printed itself: the process is dying unless the start carries on. */
  uncaught: { at: number; line: LogLine } | undefined;
  /**
   * An exception a process logged (not Python's own uncaught print), with no progress since: a
   * finished input that ends here ends on it, and that end is its death sign (Classifier.end).
   */
  lastWords: { at: number; line: LogLine } | undefined;
  pendingReady: { at: number; holdMs: number; line: LogLine; rule: string } | undefined;
  verdict: Verdict | undefined;
  tracebacks: TracebackTracker;
  /** Index into candidates of the last exception no rule named (for chained tracebacks). */
  lastGenericIndex: number | undefined;
  /** The last wrapper that carried a cause: a traceback it opens explains it. */
  lastSymptom: { candidate: Candidate; lineNo: number; used?: boolean } | undefined;
  /** Frames still to attach to the last candidate (an exception message wrapped over lines). */
  continuation:
    | {
        candidate: Candidate;
        left: number;
        /** Who logged the exception line (undefined: printed raw); its continuation lines are logged alike. */
        logger: string | undefined;
        /** Words read so far, for an exception the inference tables may still name. */
        reinfer?: { input: InferenceInput; text: string };
      }
    | undefined;
  /** The last few error-level native lines (glog E/F) no rule claimed: the words of an opaque exception. */
  nativeErrors: Evidence[];
  /** Processes that raised an exception: a warning from another one does not explain the failure. */
  failingProcesses: Set<string>;
  /** A failure rule, an exception or a wrapper was seen (warnings aside): a bare `Killed` is not alone. */
  somethingWrong: boolean;
}

/** Where one rank's bar was last read (follow-stages.ts); updated in place. */
export interface BarPosition {
  /** The bar whatever the rank (ProgressHit.bar): the ranks of one bar make one stage's progress. */
  readonly bar: string;
  current: number;
  /** Its elapsed time in whole seconds, -1 when its frames show none (see known-bars.ts). */
  elapsedS: number;
  /** Frames of it read within that second (Classifier.idleBarFrame). */
  reads: number;
}

export function newRun(): RunState {
  return {
    stage: 'none',
    stageSince: 0,
    startedAt: undefined,
    lastActivityAt: undefined,
    lastLine: undefined,
    progressed: false,
    progress: undefined,
    barPositions: new Map(),
    barRanks: new Map(),
    barMoves: 0,
    heartbeats: new Map(),
    candidates: [],
    symptoms: [],
    failing: undefined,
    uncaught: undefined,
    lastWords: undefined,
    pendingReady: undefined,
    verdict: undefined,
    tracebacks: new TracebackTracker(),
    lastGenericIndex: undefined,
    continuation: undefined,
    lastSymptom: undefined,
    nativeErrors: [],
    failingProcesses: new Set(),
    somethingWrong: false,
  };
}
