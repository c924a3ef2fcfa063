/**
 * pipeSource reads a real pipe (a FIFO written by a real `cat`) into two buffers in turn: every
 * byte in order, each chunk good until the next item is asked for even while the writer keeps
 * writing, what was read meanwhile given as one chunk, the scan memory's buffers while a lease
 * is free; a signal ends it while the pipe is silent; what is not a pipe is told apart.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, open, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { isPipe, pipeSource } from '../../src/io/pipe-source.js';
import { scanMemory } from '../../src/io/fast-path/wasm/scan-memory.js';
import type { SourceItem } from '../../src/io/watch-loop.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-pipe-source-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A FIFO with `command` (a shell line given the FIFO as $1) writing into it, and its read end as a descriptor. */
async function fifoFrom(name: string, command: string): Promise<number> {
  const fifo = join(dir, name);
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  // The writer's open waits for a reader, and the read end's open (on the thread pool) for a writer.
  children.push(spawn('sh', ['-c', command, 'sh', fifo], { stdio: 'ignore' }));
  return new Promise((resolve, reject) => open(fifo, 'r', (error, fd) => (error ? reject(error) : resolve(fd))));
}

function source(fd: number, signal?: AbortSignal): AsyncGenerator<SourceItem> {
  const made = pipeSource(fd, { signal });
  if (!made) throw new Error('not read as a pipe');
  return made;
}

describe('pipeSource', () => {
  const bytes = Buffer.alloc(5 * 1024 * 1024 + 777);
  for (let k = 0; k < bytes.length; k++) bytes[k] = k % 89 === 0 ? 10 : 0x30 + ((k * 7) % 43);
  const log = join(dir, 'big.log');
  writeFileSync(log, bytes);

  it('yields every byte in order; a chunk is good until the next item, while the writer writes on', async () => {
    const fd = await fifoFrom('fifo-1', `cat '${log}' > "$1"`);
    const chunks: Buffer[] = [];
    let items = 0;
    for await (const item of source(fd)) {
      if (item.kind !== 'data') continue;
      // Slow now and then: the writer fills the pipe meanwhile, and the reads go on into the
      // other buffer, not this chunk's.
      if (++items % 7 === 0) await sleep(5);
      chunks.push(Buffer.from(item.chunk));
    }
    expect(items).toBeGreaterThan(3);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    // What was read while the consumer was busy came as one chunk, more than the pipe's 64 KiB.
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeGreaterThan(64 * 1024);
  });

  it('reads into the scan memory while a lease is free, and gives it back at the end', async () => {
    if (!scanMemory) throw new Error('no WebAssembly SIMD here: the kernels are not built');
    const fd = await fifoFrom('fifo-2', `cat '${log}' > "$1"`);
    let inMemory = 0;
    for await (const item of source(fd)) if (item.kind === 'data' && scanMemory.holds(item.chunk)) inMemory++;
    expect(inMemory).toBeGreaterThan(0);
    const lease = scanMemory.leaseReadBuffers();
    expect(lease).toBeDefined();
    const other = scanMemory.leaseReadBuffers();
    expect(other).toBeDefined();
    lease!.release();
    other!.release();
  });

  it('says it is live from the first byte, then ends at once on its signal while the pipe is silent', async () => {
    // The writer holds the pipe open and writes one line, then nothing.
    const fd = await fifoFrom('fifo-3', 'exec 3>"$1"; echo hello >&3; sleep 30');
    const stop = new AbortController();
    const items: string[] = [];
    const started = Date.now();
    const done = (async () => {
      for await (const item of source(fd, stop.signal)) {
        items.push(item.kind === 'data' ? item.chunk.toString() : item.kind);
        if (item.kind === 'data') setTimeout(() => stop.abort(), 50);
      }
    })();
    await done;
    expect(items).toEqual(['caught-up', 'hello\n']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a writer that trickles (the pipe empty between its lines): every line, in order, each given as it comes', async () => {
    // Each line finds the pipe empty: the socket waits and reads it, then a read on the thread
    // pool finds it empty again (EAGAIN) and hands the waiting back to the socket.
    const fd = await fifoFrom('fifo-5', 'for i in 1 2 3 4 5 6; do echo "line $i"; sleep 0.05; done > "$1"');
    const chunks: string[] = [];
    for await (const item of source(fd)) if (item.kind === 'data') chunks.push(item.chunk.toString());
    expect(chunks.join('')).toBe('line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n');
    // Not held back to be given together: the lines came 50 ms apart.
    expect(chunks.length).toBeGreaterThanOrEqual(4);
  });

  it('a signal in the middle of a flood ends it there, with no read left on the descriptor it closes', async () => {
    const fd = await fifoFrom('fifo-6', `cat '${log}' '${log}' '${log}' > "$1"`);
    const stop = new AbortController();
    let given = 0;
    for await (const item of source(fd, stop.signal)) {
      if (item.kind !== 'data') continue;
      given += item.chunk.length;
      stop.abort();
    }
    expect(given).toBeGreaterThan(0);
    expect(given).toBeLessThan(3 * bytes.length);
  });

  it('tells a pipe from a file', async () => {
    const file = openSync(log, 'r');
    try {
      expect(isPipe(file)).toBe(false);
    } finally {
      closeSync(file);
    }
    const fd = await fifoFrom('fifo-4', `cat '${log}' > "$1"`);
    expect(isPipe(fd)).toBe(true);
    for await (const item of source(fd)) void item;
    expect(isPipe(-1)).toBe(false);
  });
});
