/** Byte sources for the watch loop: a finished file, stdin, or a file followed by name. */
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { followFile } from './follow-file.js';
import type { SourceItem } from './watch-loop.js';

// Small enough that chunks already split into lines die young (peak RSS stays flat on a 1 GB
// log), large enough that reading costs little next to classifying.
const READ_CHUNK_BYTES = 1 << 16;

/** Reads a file once, to its end. */
export async function* fileSource(path: string): AsyncGenerator<SourceItem> {
  for await (const chunk of createReadStream(path, { highWaterMark: READ_CHUNK_BYTES })) yield { kind: 'data', chunk: chunk as Buffer };
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
  for await (const item of followFile(path, { fromEnd: options.fromEnd, signal: options.signal })) {
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
