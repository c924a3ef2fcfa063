/** Option values shared by several commands, parsed with clear messages. */
import { parseDuration } from '../core/duration.js';
import type { CompiledPack } from '../core/pack-types.js';
import { FAMILIES, loadPack } from '../pack/load-pack.js';
import { UsageError } from './errors.js';

export function durationOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === 0) throw new UsageError(`--${name} must be more than 0 (a duration like 90s, 5m or 1h30m)`);
  if (ms === undefined || ms < 0) throw new UsageError(`--${name} wants a duration like 90s, 5m or 1h30m, not "${value}"`);
  return ms;
}

/**
 * A `--pack` value that names no file (no slash, no .yaml) must be a shipped family; a typo
 * is a usage error that lists them, not a missing pack file.
 */
export function packRefOption(ref: string): string {
  const isFile = /[\\/]/.test(ref) || /\.ya?ml$/.test(ref);
  if (!isFile && !(FAMILIES as readonly string[]).includes(ref)) {
    throw new UsageError(`unknown pack "${ref}": the shipped packs are ${FAMILIES.join(', ')} (or name a pack FILE)`);
  }
  return ref;
}

/** `--pack NAME|FILE`: that pack only (no detection); omitted: every shipped family, detected. */
export function packsOption(value: string | undefined): { packs: CompiledPack[]; family?: string } {
  if (value === undefined) return { packs: FAMILIES.map((f) => loadPack(f)) };
  const pack = loadPack(packRefOption(value));
  return { packs: [pack], family: pack.name };
}
