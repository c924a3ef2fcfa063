/**
 * Replays cases on worker threads (and on the main thread between their replies), handed out one
 * case at a time, and gives them back in the order they were discovered: a case is reported as
 * soon as every case before it is, so the output is the one-thread replay's, byte for byte. What waits to be reported is bounded (a window of
 * cases ahead of the oldest unreported one), so memory does not grow with the corpus.
 *
 * A case that throws (its expectation unreadable, its log unreadable, a bug) stops the replay at
 * that case: the cases before it are reported, then its error is thrown, as in one thread.
 */
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { pinYoungGeneration } from '../io/young-generation.js';
import { caseLog, caseTask, replayCase, type CaseTask, type CaseTools, type ReplayCase, type ReplayedCase } from './replay-case.js';
import { ReplayInterrupted } from './replay-interrupted.js';
import { rebuiltError } from './thread-error.js';
import type { WorkerReply, WorkerSetup, WorkerTask } from './worker-messages.js';

export interface WorkerReplayOptions {
  cases: readonly ReplayCase[];
  workers: number;
  packRefs?: string[];
  coverage: boolean;
  /** The main thread replays cases too, with these packs, between the workers' replies. */
  local?: CaseTools;
  /** Called for each case in discovery order; what it throws stops the replay. */
  onCase: (replayed: ReplayedCase) => void;
  signal?: AbortSignal;
  /** The worker module (default: replay-worker.js); tests give one that misbehaves. */
  workerEntry?: URL;
}

/** Cases sent ahead to one worker, so it never waits for the next. */
const IN_FLIGHT_PER_WORKER = 2;
/** Cases that may be done but not yet reported, per worker (one slow log holds back the rest). */
const WINDOW_PER_WORKER = 32;

/**
 * A worker's young generation: 1 MB semi-spaces (3 MB in all). Replay allocates fast and keeps
 * little, and each worker is a whole V8 heap more; with the main thread's 2 MB (bin.ts) a
 * replay of 1,000 fixture logs on two threads peaked ~4 MB higher at no gain in time. V8 takes
 * the larger of the process's --max-semi-space-size and the worker's limit, so both are set.
 */
const SEMI_SPACE_MB = 1;

type Outcome = { replayed: ReplayedCase } | { error: Error };

interface Slot {
  worker: Worker;
  inFlight: Set<number>;
  /** False once the worker failed or stopped: it is given nothing more. */
  alive: boolean;
}

export function replayOnWorkers(options: WorkerReplayOptions): Promise<void> {
  const { cases, onCase } = options;
  const setup: WorkerSetup = { packRefs: options.packRefs, coverage: options.coverage };
  const window = WINDOW_PER_WORKER * options.workers;
  const done = new Map<number, Outcome>();
  let next = 0;
  let reported = 0;
  /** The first case that failed: nothing from it on is handed out or reported. */
  let stopAt = cases.length;
  let settled = false;

  return new Promise<void>((resolve, reject) => {
    const slots: Slot[] = [];
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      void Promise.all(slots.map((slot) => slot.worker.terminate())).finally(() => (error ? reject(error) : resolve()));
    };
    const onAbort = (): void => finish(new ReplayInterrupted());
    options.signal?.addEventListener('abort', onAbort);

    const fail = (index: number, error: Error): void => {
      done.set(index, { error });
      stopAt = Math.min(stopAt, index);
      report();
    };
    const report = (): void => {
      while (!settled && done.has(reported)) {
        const outcome = done.get(reported)!;
        done.delete(reported);
        if ('error' in outcome) return finish(outcome.error);
        try {
          onCase(outcome.replayed);
        } catch (error) {
          return finish(error as Error);
        }
        reported++;
      }
      if (!settled && reported >= Math.min(stopAt, cases.length)) return finish();
      for (const slot of slots) handOut(slot);
      replayHere();
    };
    /** The next case due, with its expectation; undefined when none may be handed out now. */
    const take = (): { index: number; task: CaseTask } | undefined => {
      if (settled || next >= stopAt || next - reported >= window) return undefined;
      const index = next++;
      try {
        return { index, task: caseTask(cases[index]!) };
      } catch (error) {
        fail(index, error as Error);
        return undefined;
      }
    };
    let replayingHere = false;
    const replayHere = (): void => {
      const local = options.local;
      if (!local || replayingHere) return;
      const taken = take();
      if (!taken) return;
      replayingHere = true;
      // After the replies already waiting: the workers are given their next cases first.
      setImmediate(() => {
        replayCase(taken.task, local).then(
          (replayed) => done.set(taken.index, { replayed }),
          (error: unknown) => {
            done.set(taken.index, { error: error as Error });
            stopAt = Math.min(stopAt, taken.index);
          },
        ).finally(() => {
          replayingHere = false;
          report();
        });
      });
    };
    const handOut = (slot: Slot): void => {
      while (slot.alive && slot.inFlight.size < IN_FLIGHT_PER_WORKER) {
        const taken = take();
        if (!taken) return;
        slot.inFlight.add(taken.index);
        slot.worker.postMessage(taken satisfies WorkerTask);
      }
    };
    /** A worker that failed as a whole fails the first case it held (or the next one due). */
    const lost = (slot: Slot, error: Error): void => {
      if (settled || !slot.alive) return;
      slot.alive = false;
      const held = [...slot.inFlight];
      slot.inFlight.clear();
      fail(held.length > 0 ? Math.min(...held) : reported, error);
    };

    if (options.signal?.aborted) return onAbort();
    if (cases.length === 0) return finish();
    if (options.workers > 0) setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
    for (let i = 0; i < options.workers; i++) {
      const worker = new Worker(options.workerEntry ?? workerEntry(), {
        workerData: setup,
        resourceLimits: { maxYoungGenerationSizeMb: 3 * SEMI_SPACE_MB },
      });
      const slot: Slot = { worker, inFlight: new Set(), alive: true };
      slots.push(slot);
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'fatal') return lost(slot, rebuiltError(reply.error));
        slot.inFlight.delete(reply.index);
        if (reply.type === 'case-error') return fail(reply.index, rebuiltError(reply.error));
        done.set(reply.index, { replayed: reply.replayed });
        report();
      });
      // V8 configuring the worker's heap raised the process's growth factor back to 2.
      worker.on('online', () => pinYoungGeneration(setFlagsFromString));
      worker.on('error', (error) => lost(slot, error));
      worker.on('exit', (code) => {
        if (slot.inFlight.size > 0) lost(slot, new Error(`a replay worker thread stopped (exit code ${code}) while replaying ${caseLog(cases[Math.min(...slot.inFlight)]!)}`));
        slot.alive = false;
        // With no thread left to replay them, the cases still due would never come.
        if (!settled && !options.local && slots.every((other) => !other.alive)) fail(reported, new Error(`the replay worker threads stopped (exit code ${code}) before the replay ended`));
      });
    }
    for (const slot of slots) handOut(slot);
    replayHere();
  });
}

/** The built worker module beside this one; tests run these sources as TypeScript, which a worker thread cannot load, so they use the build. */
export function workerEntry(): URL {
  const dir = import.meta.url.endsWith('.ts') ? new URL('../../dist/replay/', import.meta.url) : new URL('./', import.meta.url);
  // The build's one-script bundle of the worker (scripts/bundle-bin.mjs) when there is one: an
  // ES module graph of ~60 files cost each worker about 6.5 MB more.
  const bundled = new URL('replay-worker.cjs', dir);
  return existsSync(bundled) ? bundled : new URL('replay-worker.js', dir);
}
