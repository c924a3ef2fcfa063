/** `--idle` and `--spin`: how long a silent log may last, by what the server's processes do meanwhile. */
import { DEFAULT_SILENCE_LIMITS, type SilenceLimits } from '../core/activity.js';
import { formatDuration } from '../core/duration.js';
import { durationOption } from './options.js';

export const silenceParseOptions = {
  idle: { type: 'string' },
  spin: { type: 'string' },
} as const;

export function silenceLimits(values: { idle?: string; spin?: string }): SilenceLimits {
  return {
    idleMs: durationOption('idle', values.idle) ?? DEFAULT_SILENCE_LIMITS.idleMs,
    spinMs: durationOption('spin', values.spin) ?? DEFAULT_SILENCE_LIMITS.spinMs,
  };
}

/** `5m`, `15m`: a default as a person writes it on the command line. */
const shown = (ms: number): string => formatDuration(ms).replace(/m00s$/, 'm');

export const silenceHelp = `  --idle DURATION     a silent log while the server's processes read, write and compute
                      nothing: STALLED after this, in any stage (default ${shown(DEFAULT_SILENCE_LIMITS.idleMs)}; a node of
                      a multi-node start waits for the others in distributed_init as long
                      as the head lets a node join, --join-budget); a silent
                      log while they read or write is a slow stage, never a stall before
                      the stage's own budget (Linux /proc; elsewhere the log alone)
  --spin DURATION     a silent log while they burn CPU with no I/O (a hung collective):
                      STALLED after this (default ${shown(DEFAULT_SILENCE_LIMITS.spinMs)})`;
