/**
 * `replay --jobs N`: how many threads replay the cases: the main thread (which also prints) and
 * N - 1 worker threads; 1 replays in the main thread alone, as replay always did. Left out: one
 * thread per idle core (at most MAX_AUTO_JOBS), except where a worker cannot pay for itself: one
 * idle core, or logs too few to outweigh a worker's memory (its own heap, modules and compiled
 * packs), counted in bytes of log.
 */
import { statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { ReplayCase } from '../replay/replay-case.js';
import { UsageError } from './errors.js';

/** More workers than this cost memory (each compiles the packs) for little time on a corpus of logs. */
export const MAX_AUTO_JOBS = 4;
/**
 * Below this many bytes of log in all, one thread. A worker is a whole V8 heap and Node
 * environment more, ~28 MB whatever it replays: a 10,000-log archive (178 MB of logs) peaks at
 * 83 MB on one thread and 111 MB on two, against the 100 MB every bench row keeps to (issue 26),
 * while two threads save only part of its ~7 s. A worker is started where one thread would take
 * long: 512 MB of logs, ~20 s for one thread on this 2-core machine (about 26 MB a second).
 */
export const MIN_WORKER_BYTES = 512 * 1024 * 1024;

/** `--jobs` as given: a whole number of 1 or more, or undefined (choose). */
export function jobsOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new UsageError(`--jobs wants a whole number of 1 or more (1: no worker threads), not "${value}"`);
  return Number(value);
}

/**
 * How many threads replay `cases`: the main thread, and one worker per thread more. Left to
 * choose, one per core the machine has idle (its load average of the last minute taken off its
 * cores, a core partly idle counted): a worker on a core already busy only shares that core, and
 * costs a whole heap more. Measured on this 2-core machine at load 4-5, a 10,000-log archive
 * (178 MB): two threads 10-11 s and 112 MB, one thread 9-10 s and 84 MB.
 */
export function replayThreads(params: { jobs: number | undefined; cases: readonly ReplayCase[]; cores?: number; load?: number }): number {
  const { jobs, cases } = params;
  if (jobs !== undefined) return Math.max(1, Math.min(jobs, cases.length));
  const cores = params.cores ?? availableParallelism();
  const idle = Math.ceil(cores - (params.load ?? loadavg()[0]!));
  if (cores < 2 || idle < 2 || cases.length < 2 || logBytes(cases) < MIN_WORKER_BYTES) return 1;
  return Math.min(cores, idle, MAX_AUTO_JOBS, cases.length);
}

function logBytes(cases: readonly ReplayCase[]): number {
  let total = 0;
  for (const c of cases) {
    const logs = c.kind === 'pair' ? [c.pair.log] : c.group.nodes.map((node) => node.log);
    for (const log of logs) total += sizeOf(log);
    // Enough is known once the threshold is passed.
    if (total >= MIN_WORKER_BYTES) return total;
  }
  return total;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    // Unreadable: the replay itself will say so, in its place among the cases.
    return 0;
  }
}
