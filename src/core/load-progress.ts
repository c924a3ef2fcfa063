/**
 * How far a silent weight load has got, from the bytes the server's processes read and the size of its
 * checkpoint: `read 210 GB of 547 GB, 1.2 GB/s, about 4m left`. Pure.
 */
import { formatDuration } from './duration.js';

export interface LoadProgress {
  /** Bytes the process tree read since the stage began. */
  readBytes: number;
  /** The checkpoint's size on disk, when known. */
  totalBytes?: number;
  /** Recent read rate. */
  bytesPerSecond?: number;
  /** Time left at that rate; only with a total. */
  etaMs?: number;
}

/** Decimal units, as disks and `du --si` count: a 547 GB checkpoint is what the model card says. */
const UNITS: Array<[number, string]> = [
  [1e12, 'TB'],
  [1e9, 'GB'],
  [1e6, 'MB'],
  [1e3, 'kB'],
];

/** The unit a person reads `bytes` in: `[1e9, 'GB']` for 547 GB. */
export function byteUnit(bytes: number): [number, string] {
  return UNITS.find(([size]) => bytes >= size) ?? [1, 'B'];
}

/** `bytes` in `unit` with three significant digits at most: 547, 1.2, 12. */
export function inUnit(bytes: number, size: number): number {
  const value = bytes / size;
  return value >= 10 ? Math.round(value) : Number(value.toFixed(1));
}

/** `547 GB`, `1.2 GB`, `830 MB`, `12 B`: three significant digits at most. */
export function formatBytes(bytes: number): string {
  const [size, unit] = byteUnit(bytes);
  return `${inUnit(bytes, size)} ${unit}`;
}

/** The progress from the bytes read, the size and the rate; the ETA counts what is left at that rate. */
export function loadProgress(readBytes: number, totalBytes: number | undefined, bytesPerSecond: number | undefined): LoadProgress {
  const progress: LoadProgress = { readBytes, totalBytes, bytesPerSecond };
  if (totalBytes !== undefined && bytesPerSecond !== undefined && bytesPerSecond > 0) {
    progress.etaMs = (Math.max(0, totalBytes - readBytes) / bytesPerSecond) * 1000;
  }
  return progress;
}

/** `read 210 GB of 547 GB, 1.2 GB/s, about 4m left`; without a size, the bytes and the rate only. */
export function describeLoadProgress(progress: LoadProgress): string {
  const { readBytes, totalBytes, bytesPerSecond, etaMs } = progress;
  const parts = [totalBytes !== undefined ? `read ${formatBytes(readBytes)} of ${formatBytes(totalBytes)}` : `read ${formatBytes(readBytes)}`];
  if (bytesPerSecond !== undefined) parts.push(`${formatBytes(bytesPerSecond)}/s`);
  // Past the size (a file read twice, a tokenizer too), there is no time left to tell.
  if (etaMs !== undefined && readBytes < (totalBytes ?? 0)) parts.push(`about ${aboutDuration(etaMs)} left`);
  return parts.join(', ');
}

/** An ETA is a guess: minutes for minutes (`4m`), seconds only under a minute. */
function aboutDuration(ms: number): string {
  if (ms < 60_000) return formatDuration(Math.max(1_000, Math.round(ms / 1000) * 1000));
  return formatDuration(Math.round(ms / 60_000) * 60_000).replace(/00s$/, '');
}
