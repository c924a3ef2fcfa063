/** What the main thread and a replay worker say to each other (structured-cloned data only). */
import type { CaseTask, ReplayedCase } from './replay-case.js';
import type { ThreadError } from './thread-error.js';

/** Given once, as the worker's `workerData`. */
export interface WorkerSetup {
  packRefs?: string[];
  /** Measure coverage too (loads the inference packs). */
  coverage: boolean;
}

/** Main to worker: replay this case; `index` is its place in the discovery order. */
export interface WorkerTask {
  index: number;
  task: CaseTask;
}

export type WorkerReply =
  | { type: 'case'; index: number; replayed: ReplayedCase }
  | { type: 'case-error'; index: number; error: ThreadError }
  /** The worker could not start (its packs did not load); it replays nothing. */
  | { type: 'fatal'; error: ThreadError };
