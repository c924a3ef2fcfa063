/**
 * The picture of a start, before it is drawn: stages with begin and end on the log's own
 * clock, the lines that opened and closed them, progress samples, the verdict, the stall's
 * silent stretch, failures after ready. Plain data (JSON-safe), so the live page can build and
 * draw the very same thing in the browser.
 */

/** A line of the log as the picture names it; `text` is absent when only the number is known (live events). */
export interface LineRef {
  line: number;
  text?: string;
}

export interface ProgressSample {
  atMs: number;
  /** 0..1 of the bar's total. */
  fraction: number;
  current: number;
  total: number;
  unit: string;
}

export interface StageBar {
  stage: string;
  startMs: number;
  endMs: number;
  /** Entered a second time (an EAGLE draft model loads and captures again). */
  reentered: boolean;
  rule: string;
  opened: LineRef;
  /** The line that ended it: the next stage's marker, the verdict's line; absent while it goes on. */
  closed?: LineRef;
  /** Still the current stage of a live start. */
  open: boolean;
  progress: ProgressSample[];
}

export interface VerdictMark {
  verdict: 'ready' | 'failed' | 'stalled' | 'incomplete';
  stage: string;
  atMs: number;
  reason: string;
  cause?: string;
  rule?: string;
  message?: string;
  hint?: string;
  /** The root-cause line(s). */
  evidence: LineRef[];
  decidedBy?: LineRef;
  /** Stalled: the silent stretch, from the last line to the verdict. */
  silence?: { fromMs: number; toMs: number; lastLine?: LineRef };
  /** Stalled: the budget that ran out. */
  budget?: { ms: number; detail: string };
}

export interface AfterReadyMark {
  atMs: number;
  cause: string;
  rule: string;
  message: string;
  line: LineRef;
}

/** One node's (or a single start's) timeline. */
export interface Lane {
  /** The node of a group (multi-node) start; absent for a single start. */
  node?: string;
  family?: string;
  stages: StageBar[];
  verdict?: VerdictMark;
  afterReady: AfterReadyMark[];
  /** Earlier runs in the same log (restarts) are not drawn; this says how many were set aside. */
  earlierRuns: number;
  /** The latest log time the lane knows of. */
  endMs: number;
  /** Stage times approximated from recorded durations (a history record has no lines). */
  fromRecord?: boolean;
}

export interface StartView {
  /** What the start is called on the page: the log's file name, or when and which model. */
  title: string;
  /** One more line under the title: model, settings, host. */
  subtitle?: string;
  lanes: Lane[];
}

/** How long a stage usually takes for this model on this host, from ready starts in the history. */
export interface UsualStage {
  medianMs: number;
  minMs: number;
  maxMs: number;
  starts: number;
}

export interface ReportModel {
  title: string;
  starts: StartView[];
  /** Per start index: usual durations per stage (from the history), drawn as faint bands. */
  usual: Record<string, UsualStage>[];
}
