/** Option values shared by several commands, parsed with clear messages. */
import { parseDuration } from '../core/duration.js';
import type { CompiledPack } from '../core/pack-types.js';
import { FAMILIES, loadPack } from '../pack/load-pack.js';
import { packCacheDir } from '../pack/pack-cache.js';
import { UsageError } from './errors.js';

export function durationOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) throw new UsageError(`--${name} wants a duration like 90s, 5m or 1h30m, not "${value}"`);
  return ms;
}

/**
 * `--pack NAME|FILE`: that pack only (no detection); omitted: every shipped family, detected.
 * A pack of one's own is cached in the state dir `env` names (pack/pack-cache.ts).
 */
export function packsOption(value: string | undefined, env: Readonly<Record<string, string | undefined>> = {}): { packs: CompiledPack[]; family?: string } {
  if (value === undefined) return { packs: FAMILIES.map((f) => loadPack(f)) };
  const pack = loadPack(value, { cacheDir: packCacheDir(env) });
  return { packs: [pack], family: pack.name };
}
