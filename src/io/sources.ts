/** Byte sources for the watch loop: a finished file, stdin, or a file followed by name. */
import { close, open, read, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { followFile } from './follow-file.js';
import { READ_BUFFER_BYTES, scanMemory } from './fast-path/wasm/scan-memory.js';
import type { SourceItem } from './watch-loop.js';

// Small enough that chunks already split into lines die young (peak RSS stays flat on a 1 GB
// log), large enough that reading costs little next to classifying: each chunk is one turn of
// an async iterator (at 64 KiB that alone took 0.6 s per GB), and after a verdict the lines
// between two that matter are let go by one scan of the chunk.
const READ_CHUNK_BYTES = READ_BUFFER_BYTES;

/**
 * Reads a file once, to its end, into two buffers in turn: the next read runs while the chunk
 * just yielded is split. Reusing them matters: a fresh buffer per read made V8 run a full
 * collection every few dozen chunks to free them. A consumer is done with a chunk when it asks
 * for the next item (the watch loop splits it at once; LineSplitter copies what it keeps).
 * The buffers are leased from the fast path's scan memory when one is free: read straight into
 * the memory its kernels scan, a chunk is never copied (io/fast-path/wasm/scan-memory.ts).
 */
export async function* fileSource(path: string): AsyncGenerator<SourceItem> {
  const fd = await call<number>((done) => open(path, 'r', done));
  const lease = scanMemory?.leaseReadBuffers();
  const buffers = lease?.buffers ?? [Buffer.allocUnsafeSlow(READ_CHUNK_BYTES), Buffer.allocUnsafeSlow(READ_CHUNK_BYTES)];
  let turn = 0;
  const readInto = (buffer: Buffer): Promise<number> => call<number>((done) => read(fd, buffer, 0, READ_CHUNK_BYTES, null, done));
  let pending = readInto(buffers[turn]!);
  try {
    for (;;) {
      const bytesRead = await pending;
      if (bytesRead === 0) return;
      const chunk = buffers[turn]!.subarray(0, bytesRead);
      turn ^= 1;
      pending = readInto(buffers[turn]!);
      yield { kind: 'data', chunk };
    }
  } finally {
    // Left early (a verdict, an interrupt): the read in flight must land before the file closes.
    await pending.catch(() => undefined);
    lease?.release();
    await call<void>((done) => close(fd, done));
  }
}

/**
 * A callback of node:fs as a promise. node:fs's callbacks, not node:fs/promises: a start that
 * reads a file loads nothing more (fs/promises cost a cold start about 1.5 ms).
 */
function call<T>(start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}

/** A pipe: everything is live from the first byte. */
export async function* streamSource(stream: Readable): AsyncGenerator<SourceItem> {
  yield { kind: 'caught-up' };
  for await (const chunk of stream) yield { kind: 'data', chunk: typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer) };
}

/**
 * Follows a file by name (tail -F). Lines already in the file are a backlog (earlier runs
 * included): `caught-up` marks the moment the follower reached what was there at the start.
 */
export async function* followSource(path: string, options: { fromEnd: boolean; signal?: AbortSignal }): AsyncGenerator<SourceItem> {
  let backlog = 0;
  if (!options.fromEnd) {
    try {
      backlog = statSync(path).size;
    } catch {
      backlog = 0;
    }
  }
  let read = 0;
  let caughtUp = false;
  if (backlog === 0) {
    caughtUp = true;
    yield { kind: 'caught-up' };
  }
  for await (const item of followFile(path, { fromEnd: options.fromEnd, signal: options.signal, reuseBuffer: true })) {
    if (item.kind === 'data') {
      yield { kind: 'data', chunk: item.chunk };
      read += item.chunk.length;
    } else {
      if (item.notice.type === 'rotated' || item.notice.type === 'truncated') yield { kind: 'flush' };
      yield { kind: 'notice', notice: item.notice };
    }
    if (!caughtUp && (read >= backlog || item.kind === 'notice')) {
      caughtUp = true;
      yield { kind: 'caught-up' };
    }
  }
}
