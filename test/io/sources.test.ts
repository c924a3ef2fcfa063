/**
 * fileSource reads a finished file into read buffers leased from the fast path's scan memory
 * (so the kernels scan chunks where they were read), one lease per reader while leases last,
 * then ordinary buffers; a lease comes back when its reader is done, early or not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_BUFFER_BYTES, scanMemory } from '../../src/io/fast-path/wasm/scan-memory.js';
import { fileSource } from '../../src/io/sources.js';
import type { SourceItem } from '../../src/io/watch-loop.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

async function firstChunk(source: AsyncGenerator<SourceItem>): Promise<Buffer> {
  const item = await source.next();
  if (item.done || item.value.kind !== 'data') throw new Error('no data');
  return item.value.chunk;
}

describe('fileSource', () => {
  const bytes = Buffer.alloc(READ_BUFFER_BYTES * 2 + 12345);
  for (let k = 0; k < bytes.length; k++) bytes[k] = k % 97 === 0 ? 10 : 0x41 + (k % 26);
  const path = file('big.log', bytes);

  it('yields the whole file, in order, whatever buffers it reads into', async () => {
    const chunks: Buffer[] = [];
    for await (const item of fileSource(path)) if (item.kind === 'data') chunks.push(Buffer.from(item.chunk));
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('reads into the scan memory while a lease is free, into its own buffers after that, and gives leases back', async () => {
    const readers = [fileSource(path), fileSource(path), fileSource(path)];
    const chunks = await Promise.all(readers.map(firstChunk));
    // Which two readers get the leases is up to which `open` ends first (a busy machine reorders them).
    expect(chunks.map((chunk) => scanMemory!.holds(chunk)).sort()).toEqual([false, true, true]);
    await Promise.all(readers.map((reader) => reader.return(undefined)));
    const again = [fileSource(path), fileSource(path)];
    expect((await Promise.all(again.map(firstChunk))).map((chunk) => scanMemory!.holds(chunk))).toEqual([true, true]);
    await Promise.all(again.map((reader) => reader.return(undefined)));
  });
});
