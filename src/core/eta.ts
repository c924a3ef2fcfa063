/**
 * Rate and time left within a stage, from its progress bars: `41/163 shards, 2.2/s, ~55s left`.
 * tqdm prints its own smoothed rate and remaining time (`[00:02<00:05, 1.77it/s]`); when a
 * frame carries them they are used, otherwise the rate comes from the samples' log times.
 * Pure: time is the `at` of the events, or an argument.
 */
import { formatDuration } from './duration.js';
import type { ProgressInfo } from './events.js';
import type { SessionEvent } from './session.js';
import type { Stage } from './vocabulary.js';

export interface ProgressEstimate {
  stage: Stage;
  unit: string;
  label?: string;
  current: number;
  total?: number;
  /** Log time of the sample this estimate is for. */
  at: number;
  /** Units per second. */
  ratePerS?: number;
  /** Time left, as of `at`. */
  etaMs?: number;
  /** Counted down to a later time: by how much that time is past the ETA (then `etaMs` is 0). */
  overdueMs?: number;
  basis: 'tqdm' | 'samples';
}

interface Sample {
  at: number;
  current: number;
}

/** How far back the sample-based rate looks: long enough to smooth, short enough to follow a change. */
const RATE_WINDOW_MS = 120_000;
const MIN_SPAN_MS = 1_000;

export class ProgressTracker {
  private readonly bars = new Map<string, Sample[]>();
  private latest: ProgressEstimate | undefined;

  /** Takes any event; returns the estimate when it was a progress event. */
  observe(event: SessionEvent): ProgressEstimate | undefined {
    if (event.type === 'stage' || event.type === 'restart') {
      this.bars.clear();
      this.latest = undefined;
      return undefined;
    }
    if (event.type !== 'progress') return undefined;
    const { progress } = event;
    const count = normalized(progress);
    if (!count) return undefined;
    const key = `${progress.rule}\u0000${progress.label ?? ''}\u0000${count.total}`;
    let samples = this.bars.get(key);
    // A bar that starts over is a new pass (another rank, the draft model): its own rate.
    if (!samples || samples[samples.length - 1]!.current > count.current) {
      samples = [];
      this.bars.set(key, samples);
    }
    samples.push({ at: event.at, current: count.current });
    while (samples.length > 2 && samples[1]!.at < event.at - RATE_WINDOW_MS) samples.shift();
    const fromTqdm = tqdmFigures(event.line.text);
    const estimate: ProgressEstimate = {
      stage: event.stage,
      unit: count.percentOnly ? '%' : progress.unit,
      label: progress.label,
      current: count.current,
      total: count.total,
      at: event.at,
      basis: fromTqdm?.ratePerS !== undefined ? 'tqdm' : 'samples',
    };
    const rate = fromTqdm?.ratePerS ?? sampleRate(samples);
    if (rate !== undefined && !count.percentOnly) estimate.ratePerS = rate;
    const left = count.total - count.current;
    if (left <= 0) estimate.etaMs = 0;
    else if (fromTqdm?.remainingMs !== undefined && fromTqdm.ratePerS !== undefined) estimate.etaMs = fromTqdm.remainingMs;
    else if (rate !== undefined && rate > 0) estimate.etaMs = Math.round((left / rate) * 1000);
    this.latest = estimate;
    return estimate;
  }

  /** The latest estimate, its time left counted down to `now`. */
  estimate(now?: number): ProgressEstimate | undefined {
    const latest = this.latest;
    if (!latest || now === undefined || latest.etaMs === undefined) return latest;
    const left = latest.etaMs - Math.max(0, now - latest.at);
    return left >= 0 ? { ...latest, etaMs: left } : { ...latest, etaMs: 0, overdueMs: -left };
  }
}

/** `41/163 shards, 2.2/s, ~55s left`. */
export function formatProgress(estimate: ProgressEstimate): string {
  const count =
    estimate.unit === '%' ? `${estimate.current}%` : estimate.total !== undefined ? `${estimate.current}/${estimate.total} ${estimate.unit}` : `${estimate.current} ${estimate.unit}`;
  const parts = [count];
  if (estimate.ratePerS !== undefined && estimate.ratePerS > 0) parts.push(formatRate(estimate.ratePerS));
  if (estimate.etaMs !== undefined && estimate.total !== undefined && estimate.current < estimate.total) {
    parts.push(estimate.overdueMs ? `overdue by ${formatDuration(estimate.overdueMs)}` : `~${formatDuration(estimate.etaMs)} left`);
  }
  return parts.join(', ');
}

/** `12/s`, `2.2/s`, `2.3/min`, `1 per 3m20s`: whichever reads best. */
export function formatRate(perSecond: number): string {
  if (perSecond >= 10) return `${Math.round(perSecond)}/s`;
  if (perSecond >= 1) return `${perSecond.toFixed(1)}/s`;
  const perMinute = perSecond * 60;
  if (perMinute >= 1) return `${perMinute.toFixed(1)}/min`;
  return `1 per ${formatDuration(1000 / perSecond)}`;
}

/** tqdm's own figures from `[elapsed<remaining, rate]`, e.g. `[00:02<00:05,  1.77it/s]`, `[1:09:28<00:00, 26.68s/it]`. */
export function tqdmFigures(text: string): { elapsedMs: number; remainingMs?: number; ratePerS?: number } | undefined {
  const match = /\[((?:\d+:)?\d+:\d\d)<((?:\d+:)?\d+:\d\d|\?),\s*(?:(\d+(?:\.\d+)?)(it\/s|s\/it)|\?it\/s)/.exec(text);
  if (!match) return undefined;
  const figures: { elapsedMs: number; remainingMs?: number; ratePerS?: number } = { elapsedMs: clockMs(match[1]!) };
  if (match[2] !== '?') figures.remainingMs = clockMs(match[2]!);
  if (match[3] !== undefined) {
    const value = Number(match[3]);
    if (value > 0) figures.ratePerS = match[4] === 'it/s' ? value : 1 / value;
  }
  return figures;
}

function clockMs(text: string): number {
  return text.split(':').reduce((seconds, part) => seconds * 60 + Number(part), 0) * 1000;
}

/** Current and total in bar units; a bar that shows only a percentage counts percent. */
function normalized(progress: ProgressInfo): { current: number; total: number; percentOnly: boolean } | undefined {
  if (progress.total !== undefined && progress.total > 0) return { current: progress.current, total: progress.total, percentOnly: false };
  if (progress.percent !== undefined) return { current: progress.percent, total: 100, percentOnly: true };
  return undefined;
}

function sampleRate(samples: Sample[]): number | undefined {
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  const span = last.at - first.at;
  const done = last.current - first.current;
  if (span < MIN_SPAN_MS || done <= 0) return undefined;
  return done / (span / 1000);
}
