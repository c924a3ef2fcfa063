/**
 * A V8 code cache for the bundled CLI (issue 18 row g): compiling the bundle's functions took a
 * large part of a short run, and V8 can keep what it compiled for the next start. The cache of a
 * run is V8's `createCachedData` of the bundle's script, taken when the run is over, so it holds
 * every function that run compiled.
 *
 * V8 checks a cache against its own version and flags, but against the source only by length,
 * and (release builds) not its bytes at all: a cache is used only when its header names the
 * source by length and CRC-32 and its bytes match their CRC-32; anything else (a stale cache, a
 * truncated or damaged file, another file by that name) is ignored, the source compiled as if
 * there were none, and a fresh cache written. Caches are named by the node version, platform
 * and flags they were made under, so runs under different flags do not overwrite each other's.
 * When the build's cache serves, a damaged one of this machine's by the same name is removed.
 * A cache is only ever an optimisation: one that cannot be read or written changes nothing else.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import * as zlib from 'node:zlib';

/** Where caches are looked for: the one this machine wrote first, then the one the build shipped. */
export interface CacheDirs {
  /** This machine's ($XDG_STATE_HOME/spinup/code-cache), written after a run that had no valid cache; undefined without a home. */
  own: string | undefined;
  /** Shipped beside the bundle (made by the build for the node it ran on); only read. */
  shipped: string;
}

export interface CachedScript {
  script: Script;
  /** Whether V8 took a cache for this compile. */
  cached: boolean;
  /** After the run: writes this run's cache to `own` when the compile had none (or V8 refused it). */
  keep(): void;
}

// 'SPUC', a format number, the source's length and CRC-32, the cache's length and CRC-32.
const MAGIC = 0x43555053;
const FORMAT = 1;
const HEADER_BYTES = 24;
const SUFFIX = '.v8cache';
const KEEP = 4;

// zlib.crc32 came in Node 20.15: without it no cache can be checked, so none is used.
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/**
 * Compiles `source` (the bundle as bytes; it runs as `filename`) as a function of the CommonJS
 * wrapper's arguments, with a valid cache when one is found. `flags` names what this process
 * runs under (execArgv, NODE_OPTIONS) besides its node version and platform.
 */
export function compileCached({ source, filename, dirs, flags }: { source: Buffer; filename: string; dirs: CacheDirs; flags: string }): CachedScript {
  const code = `(function (exports, require, module, __filename, __dirname) {${source.toString('utf8')}\n})`;
  if (crc32 === undefined) return { script: new Script(code, { filename }), cached: false, keep: () => undefined };
  const check = { length: source.length, crc: crc32(source) };
  const name = cacheName(flags);
  const own = readCache(dirs.own, name, check);
  const found = own.data ?? readCache(dirs.shipped, name, check).data;
  const script = new Script(code, { filename, cachedData: found });
  const cached = found !== undefined && !script.cachedDataRejected;
  const keep = (): void => {
    if (dirs.own === undefined) return;
    if (!cached) writeCache(dirs.own, name, check, script.createCachedData());
    // The shipped one served: this machine's, which did not, would only be read and refused again.
    else if (own.data === undefined && own.present) removeQuietly(join(dirs.own, name));
  };
  return { script, cached, keep };
}

/** The cache file for this node, platform and `flags`. */
export function cacheName(flags: string): string {
  return `${process.version}-${process.platform}-${process.arch}-${(crc32?.(Buffer.from(flags)) ?? 0).toString(16)}${SUFFIX}`;
}

/** The cache bytes of `dir/name` when its header names this source and its bytes are whole; `present`: a file is there at all. */
function readCache(dir: string | undefined, name: string, source: { length: number; crc: number }): { data?: Buffer; present: boolean } {
  if (dir === undefined) return { present: false };
  let file: Buffer;
  try {
    file = readFileSync(join(dir, name));
  } catch {
    return { present: false };
  }
  const valid =
    file.length >= HEADER_BYTES &&
    file.readUInt32LE(0) === MAGIC &&
    file.readUInt32LE(4) === FORMAT &&
    file.readUInt32LE(8) === source.length &&
    file.readUInt32LE(12) === source.crc &&
    file.readUInt32LE(16) === file.length - HEADER_BYTES &&
    file.readUInt32LE(20) === crc32!(file.subarray(HEADER_BYTES));
  return { data: valid ? file.subarray(HEADER_BYTES) : undefined, present: true };
}

/**
 * Writes the cache under a temporary name and renames it into place, so a reader never sees half
 * of one (two runs writing at once: the last rename wins, each whole). The newest KEEP caches
 * stay (a machine may run two nodes, or the bin under two sets of flags); older ones go.
 */
function writeCache(dir: string, name: string, source: { length: number; crc: number }, data: Buffer): void {
  const temporary = join(dir, `.${name}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(FORMAT, 4);
    header.writeUInt32LE(source.length, 8);
    header.writeUInt32LE(source.crc, 12);
    header.writeUInt32LE(data.length, 16);
    header.writeUInt32LE(crc32!(data), 20);
    writeFileSync(temporary, Buffer.concat([header, data]));
    renameSync(temporary, join(dir, name));
    const caches = readdirSync(dir)
      .filter((other) => other.endsWith(SUFFIX))
      .map((other) => ({ file: join(dir, other), written: statSync(join(dir, other)).mtimeMs }))
      .sort((a, b) => b.written - a.written);
    for (const { file } of caches.slice(KEEP)) removeQuietly(file);
  } catch {
    // A read-only or full state dir: the next run compiles from source again, nothing else changes.
    removeQuietly(temporary);
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Left for the next write to replace.
  }
}
