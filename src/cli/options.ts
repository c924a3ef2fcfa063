/** Option values shared by several commands, parsed with clear messages. */
import { parseDuration } from '../core/duration.js';
import type { CompiledPack } from '../core/pack-types.js';
import { loadCheckedPack } from '../pack/checked-pack.js';
import type { LoadOptions } from '../pack/load-pack.js';
import { packCacheDir } from '../pack/pack-cache.js';
import { FAMILIES, resolvePackRef } from '../pack/shipped-rules.js';
import { parseListenAddress, type ListenAddress } from '../status/listen-address.js';
import { UsageError } from './errors.js';

/** `value` as a URL, or undefined when it is not one (the option's check then says what it wants). */
export function urlOption(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

export function durationOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === 0) throw new UsageError(`--${name} must be more than 0 (a duration like 90s, 5m or 1h30m)`);
  if (/^\s*-/.test(value)) throw new UsageError(`--${name} must be a positive duration (like 90s, 5m or 1h30m), not "${value}"`);
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

/**
 * `--pack NAME|FILE`: that pack only (no detection); omitted: every shipped family, detected.
 * A pack of one's own is cached in the state dir `env` names (pack/pack-cache.ts).
 */
export async function packsOption(value: string | undefined, env: Readonly<Record<string, string | undefined>> = {}): Promise<{ packs: CompiledPack[]; family?: string }> {
  if (value === undefined) {
    const packs: CompiledPack[] = [];
    for (const family of FAMILIES) packs.push(await cliPack(family, {}));
    return { packs };
  }
  const pack = await cliPack(packRefOption(value), { cacheDir: packCacheDir(env), isolate: true });
  return { packs: [pack], family: pack.name };
}

/**
 * A pack the build or the pack cache checked is compiled at once; the careful reader (YAML,
 * schema, regex analysis) is loaded only for another, so a start of a known pack never pays for it.
 */
async function cliPack(ref: string, options: LoadOptions): Promise<CompiledPack> {
  return loadCheckedPack(resolvePackRef(ref), options) ?? (await import('../pack/load-pack.js')).loadPack(ref, options);
}

/** `--listen ADDR` of `watch` and `run`. */
export function listenOption(value: string | undefined): ListenAddress | undefined {
  if (value === undefined) return undefined;
  const parsed = parseListenAddress(value);
  if (!parsed.ok) throw new UsageError(parsed.message);
  return parsed.address;
}

export const listenHelp = `  --listen ADDR       serve the status API over HTTP: /livez /startupz /readyz /v1/status
                      /v1/events (SSE) /metrics (Prometheus). ADDR: PORT (127.0.0.1:PORT),
                      HOST:PORT (0.0.0.0:9464 in a pod), [::1]:PORT, :0 (a free port; the
                      URL is printed on stderr). Exit 69 when the port is taken
  --no-state          no state file and no unix socket (so no 'spinup attach' to this one)`;
