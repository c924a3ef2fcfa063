/**
 * Samples a process tree at a bounded rate: at most once per `minIntervalMs`, and never more often than keeps
 * the sampling under 1% of one core (a host with thousands of processes makes each sample dearer, so the
 * interval grows with its cost).
 */
import { cpuUsage } from 'node:process';
import type { ProcessTree, TreeSample } from './process-tree.js';

/** A sample may cost at most this share of the time between samples. */
const COST_SHARE = 0.01;
export const DEFAULT_SAMPLE_MS = 1_000;

export class ActivitySampler {
  private lastAt: number | undefined;
  private intervalMs: number;

  constructor(
    private readonly tree: ProcessTree,
    private readonly minIntervalMs = DEFAULT_SAMPLE_MS,
  ) {
    this.intervalMs = minIntervalMs;
  }

  /** A new sample when one is due at `wall`, else undefined. */
  maybeSample(wall: number): TreeSample | undefined {
    if (this.lastAt !== undefined && wall - this.lastAt < this.intervalMs) return undefined;
    return this.sampleNow(wall);
  }

  /** A sample now, due or not (the last one, at a verdict). */
  sampleNow(wall: number): TreeSample {
    this.lastAt = wall;
    const before = cpuUsage();
    const sample = this.tree.sample(wall);
    const spent = cpuUsage(before);
    const costMs = (spent.user + spent.system) / 1000;
    this.intervalMs = Math.max(this.minIntervalMs, costMs / COST_SHARE);
    return sample;
  }
}
