/**
 * `watch --pid PID` / `--pid-of PATTERN` at the command line: the option, and the process watch beside the log
 * (io/process-watch.ts) with where it tells what it sees: notices, the status API, the start's record. A stall it
 * finds ends the watch loop the way Ctrl-C would (an abort), and `verdict` then holds it.
 */
import type { SilenceLimits } from '../core/activity.js';
import type { Verdict } from '../core/events.js';
import { describeLoadProgress, type LoadProgress } from '../core/load-progress.js';
import { trackerOf } from '../history/start-tracker.js';
import { checkpointBytes } from '../io/checkpoint-size.js';
import { isProcessAlive } from '../io/process-table.js';
import { ProcessWatch, type ProcessTarget } from '../io/process-watch.js';
import { systemClock } from '../io/wall-clock.js';
import { InputError, UsageError } from './errors.js';
import type { StartMemory } from './history-flags.js';
import type { Sinks } from './sinks/all-sinks.js';

export type { ProcessTarget } from '../io/process-watch.js';

/** A person reads a line of progress every half minute; the status API gets every sample. */
const PROGRESS_EVERY_MS = 30_000;

/** `--pid PID` (a live process, or exit 66) or `--pid-of PATTERN`; not both. */
export function processTargetOption(pid: string | undefined, pattern: string | undefined): ProcessTarget | undefined {
  if (pid !== undefined && pattern !== undefined) throw new UsageError('give --pid or --pid-of, not both');
  if (pattern !== undefined) {
    if (pattern.trim() === '') throw new UsageError("--pid-of wants a part of the server's command line, e.g. --pid-of sglang.launch_server");
    return { pattern };
  }
  if (pid === undefined) return undefined;
  if (!/^\d+$/.test(pid) || Number(pid) <= 0) throw new UsageError(`--pid wants a process id, not "${pid}"`);
  if (!isProcessAlive(Number(pid))) throw new InputError(`--pid ${pid}: no such process on this host`);
  return { pid: Number(pid) };
}

export interface WatchedProcess {
  /** The watch loop's decider. */
  decider: ProcessWatch;
  /** The loop's signal: the user's Ctrl-C, or a stall the processes show. */
  signal: AbortSignal;
  /** The stall the processes showed, once they did. */
  readonly verdict: Verdict | undefined;
  close(): void;
}

export function watchProcess(options: {
  target: ProcessTarget;
  silence: SilenceLimits;
  session: StartMemory['session'];
  sinks: Sinks;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal | undefined;
}): WatchedProcess {
  const { session, sinks } = options;
  const stalled = new AbortController();
  let verdict: Verdict | undefined;
  const decider = new ProcessWatch({
    target: options.target,
    session,
    limits: options.silence,
    startedAt: systemClock.now(),
    checkpointBytes: () => checkpointBytes(trackerOf(session)?.startFacts.model, options.env),
    onStall: (found) => {
      verdict = found;
      stalled.abort();
    },
    onProgress: progressSink(sinks, session),
    onNote: (detail) => sinks.notice({ type: 'process', detail }),
  });
  return {
    decider,
    signal: options.signal ? AbortSignal.any([options.signal, stalled.signal]) : stalled.signal,
    get verdict() {
      return verdict;
    },
    close: () => decider.close(),
  };
}

/** A silent load's progress to the status API and the start's record, and as notices: every 30 s, and its final count. */
function progressSink(sinks: Sinks, session: StartMemory['session']): (progress: LoadProgress, final: boolean) => void {
  let shownAt: number | undefined;
  return (progress, final) => {
    sinks.loadProgress(progress, final);
    trackerOf(session)?.noteLoad(progress);
    const now = systemClock.now();
    if (!final && shownAt !== undefined && now - shownAt < PROGRESS_EVERY_MS) return;
    shownAt = now;
    sinks.notice({ type: 'load_progress', detail: `load_weights: ${describeLoadProgress(progress)} (the server's processes, from /proc)` });
  };
}
