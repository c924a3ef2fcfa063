/** The shape of `/v1/status` (`"schema": "spinup.status/v1"`) and of the `status` in a run's state file. */
import type { Budget } from '../core/events.js';
import type { Stage } from '../core/vocabulary.js';
import type { LearnedJson } from '../history/learned-basis.js';
import type { GroupStatus } from './group-status.js';

export const STATUS_SCHEMA = 'spinup.status/v1';

/** `pending` until a verdict; the verdicts are the fixed vocabulary's. */
export type StatusVerdict = 'pending' | 'ready' | 'failed' | 'stalled' | 'incomplete';
export const STATUS_VERDICTS: readonly StatusVerdict[] = ['pending', 'ready', 'failed', 'stalled', 'incomplete'];

export interface StatusLine {
  line: number;
  text: string;
  rank?: string;
  proc?: string;
}

export interface StatusSnapshot {
  schema: typeof STATUS_SCHEMA;
  /** Who serves it: `watch` or `run`. */
  command: string;
  family: string | null;
  model: string | null;
  verdict: StatusVerdict;
  stage: Stage;
  /** Time in the current stage (frozen at the verdict), on the log's clock. */
  stage_elapsed_ms: number;
  /** From the first line of this run (frozen at the verdict). */
  elapsed_ms: number;
  /** Log time (ms) of the run's first line; null before any line. */
  started_at_ms: number | null;
  progress: { unit: string; current: number; total: number | null; ratio: number | null; rate_per_s: number | null; eta_ms: number | null; label: string | null } | null;
  /**
   * What the learned budgets and ETA rest on: the fleet's Prometheus (`--learn-from`), this
   * host's history, both, or neither (the pack's). Null where no history is kept (`--no-history`).
   */
  learned: LearnedJson | null;
  /** Time left to READY by the learned medians of this stage and the ones after it; null when unknown or decided. */
  eta_ready_ms: number | null;
  /**
   * A weight load the log is silent about, from the bytes the server's processes read (Linux /proc, under
   * `run` or `watch --pid`): null in other stages, after the verdict, or without access to the processes.
   */
  load_progress: { read_bytes: number; total_bytes: number | null; bytes_per_second: number | null; eta_ms: number | null; text: string } | null;
  /** The stall budget of the current stage and where it came from (pack, --stall, learned, server). */
  budget: Budget | null;
  /** Stages left behind, with the time spent in each (re-entries add up). */
  stages: { stage: Stage; duration_ms: number }[];
  reason: string | null;
  cause: string | null;
  rule: string | null;
  message: string | null;
  hint: string | null;
  /** The root-cause line(s) of a failure: log lines, which may hold secrets (tokens in URLs). */
  root_cause: StatusLine[];
  /**
   * Before a verdict: an exception or fatal line was seen and the verdict waits for a death sign
   * (core/suspect.ts); the cause and line it would report. Null when nothing is pending.
   */
  suspect: { cause: string; rule: string; message: string; line: number | null; since_ms: number } | null;
  /** A fatal line after READY (the start had succeeded; the server then broke). */
  after_ready_failure: { cause: string; rule: string; message: string; line: number } | null;
  last_line: StatusLine | null;
  /** Lines the classifier has read (the number of the latest one). */
  lines: number;
  /** The id of the latest event on /v1/events. */
  last_event_id: number;
  log: string | null;
  pid: number;
  /** `run` only: the server it launched. */
  server_pid: number | null;
  host: string;
  version: string;
  /**
   * A multi-node head only: the group (the verdict above is then the group's). Absent for one
   * node, so a single start's status is as it always was.
   */
  group?: GroupStatus;
}
