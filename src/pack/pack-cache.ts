/**
 * A foreign pack's checked data, pattern analysis and backtracking verdicts, kept in the state
 * dir (`$XDG_STATE_HOME/spinup/packs/`) so that a curator's pack starts as fast as a shipped one:
 * no YAML parse, schema check or regex analysis while its files are unchanged. Keyed by the
 * pack file's path; every file of the include walk is checked against the SHA-256 of its text.
 * Never required: a missing, stale, corrupt or unwritable cache means the pack is read the
 * careful way, and what that gives is exactly what the cache would have given.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PackSource } from '../core/pack-types.js';
import { defaultStateDir } from '../history/history-path.js';
import type { PatternFacts } from './pattern-analysis.js';
import { includedPackPath } from './shipped-rules.js';

/** Bump when what is cached, or how it is derived, changes. */
const PACK_CACHE_VERSION = 1;

export interface CachedPack {
  /** The family pack and its includes, in include order, as checked. */
  sources: PackSource[];
  /** By pattern key (`patternKey`): what its syntax tree says. */
  facts: Map<string, PatternFacts>;
  /** The patterns capped for polynomial backtracking (`capPolynomialPatterns` keys). */
  polynomial: string[];
}

interface CacheFile {
  version: string;
  files: { path: string; sha256: string; data: PackSource }[];
  facts: [string, PatternFacts][];
  polynomial: string[];
}

/** `$XDG_STATE_HOME/spinup/packs` (or under `~/.local/state`); undefined when `env` names no home. */
export function packCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const state = defaultStateDir(env);
  return state === undefined ? undefined : join(state, 'packs');
}

/** The cached pack for `file`, when every file of its include walk still has the text it was checked with. */
export function readPackCache(dir: string, file: string): CachedPack | undefined {
  let cached: CacheFile;
  try {
    cached = JSON.parse(readFileSync(cacheFile(dir, file), 'utf8')) as CacheFile;
  } catch {
    return undefined;
  }
  if (cached.version !== cacheVersion() || !Array.isArray(cached.files) || cached.files[0]?.path !== file) return undefined;
  for (const entry of cached.files) if (sha256Of(entry.path) !== entry.sha256) return undefined;
  // An include read from the shipped packs is read from beside the pack once a file of that name is put there.
  const walked = new Set(cached.files.map((entry) => entry.path));
  for (const entry of cached.files) for (const name of entry.data.include ?? []) if (!walked.has(includedPackPath(entry.path, name))) return undefined;
  return { sources: cached.files.map((entry) => entry.data), facts: new Map(cached.facts), polynomial: cached.polynomial };
}

/** Writes the cache for a pack just read from `files` (its include walk, family pack first); errors are ignored. */
export function writePackCache(dir: string, files: readonly { file: string; text: string; data: PackSource }[], facts: Map<string, PatternFacts>, polynomial: readonly string[]): void {
  const content: CacheFile = {
    version: cacheVersion(),
    files: files.map((f) => ({ path: f.file, sha256: sha256(f.text), data: f.data })),
    facts: [...facts],
    polynomial: [...polynomial],
  };
  try {
    mkdirSync(dir, { recursive: true });
    const target = cacheFile(dir, files[0]!.file);
    // Written aside, then renamed: a concurrent reader sees the old cache or the new, never half.
    const aside = `${target}.${process.pid}.tmp`;
    writeFileSync(aside, JSON.stringify(content));
    renameSync(aside, target);
  } catch {
    // A read-only or full state dir only costs the next start the careful read.
  }
}

function cacheFile(dir: string, file: string): string {
  return join(dir, `${sha256(file).slice(0, 32)}.json`);
}

function sha256Of(path: string): string | undefined {
  try {
    return sha256(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function sha256(text: string): string {
  // Required on first use: a watch of a shipped pack never hashes anything.
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

let version: string | undefined;

/** The cache format and the spinup release: another release may analyse patterns differently. */
function cacheVersion(): string {
  if (version === undefined) {
    let release = 'unknown';
    try {
      release = (JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json'), 'utf8')) as { version?: string }).version ?? release;
    } catch {
      // Running without a package.json: the format version alone.
    }
    version = `${PACK_CACHE_VERSION}/${release}`;
  }
  return version;
}
