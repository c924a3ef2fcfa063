/**
 * stdin as a pipe (`tail -F server.log | spinup watch -`), read without Node's stream: libuv
 * reads straight into two buffers in turn, leased from the fast path's scan memory when one is
 * free (so the kernels scan a chunk where it was read, io/fast-path/wasm/scan-memory.ts).
 * Node's stream allocated a fresh 64 KiB buffer for every read of a pipe, and the reader then
 * copied it into the scan memory: on a 300 MB flood that was 4,600 buffers to collect and copy
 * (peak RSS 115 MB, 0.6x the speed of reading the same file).
 *
 * A chunk stays good until the consumer asks for the next item (as fileSource's do). While the
 * consumer is busy with one, reads go on into the other buffer, one after the other, and the
 * consumer is then given all they read as one chunk: a pipe holds 64 KiB, and on a flood
 * (`cat server.log | spinup watch -`) each chunk has a cost of its own (its run of quiet lines
 * ends at its end, a line is cut in two there). No read waits for more to come: a consumer that
 * waits is given each read at once, as a live log must be.
 */
import { fstatSync } from 'node:fs';
import { Socket, type SocketConstructorOpts } from 'node:net';
import { READ_BUFFER_BYTES, scanMemory } from './fast-path/wasm/scan-memory.js';
import { widenPipe } from './pipe-capacity.js';
import type { SourceItem } from './watch-loop.js';

/** Whether `fd` is a pipe or a socket (what pipeSource reads); false when it cannot be told. */
export function isPipe(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

function isFifo(fd: number): boolean {
  try {
    return fstatSync(fd).isFIFO();
  } catch {
    return false;
  }
}

/**
 * Reads the pipe `fd` to its end; the source takes the descriptor and closes it when done.
 * Undefined when Node cannot read `fd` as a stream (not a pipe or a stream socket): then read
 * it some other way. `signal` ends the source at once, even while the pipe is silent.
 */
export function pipeSource(fd: number, options: { signal?: AbortSignal } = {}): AsyncGenerator<SourceItem> | undefined {
  const lease = scanMemory?.leaseReadBuffers();
  const buffers = lease?.buffers ?? [Buffer.allocUnsafeSlow(READ_BUFFER_BYTES), Buffer.allocUnsafeSlow(READ_BUFFER_BYTES)];
  const state = new PipeState(buffers);
  let socket: Socket;
  try {
    // `onread` is in Node's documented options for new net.Socket (v15+), not yet in its types.
    socket = new Socket({
      fd,
      readable: true,
      writable: false,
      onread: {
        // Asked for the buffer of the next read after each read.
        buffer: () => state.readInto(),
        callback: (bytes: number, buffer: Uint8Array) => state.read(bytes, buffer),
      },
    } as SocketConstructorOpts);
  } catch {
    lease?.release();
    return undefined;
  }
  state.resume = () => socket.resume();
  // A pipe's 64 KiB made each read a turn with its writer; 1 MiB if Linux gives it (pipe-capacity.ts).
  if (isFifo(fd)) void widenPipe(fd);
  socket.on('end', () => state.end());
  socket.on('error', (error) => state.end(error));
  return chunks(socket, state, lease?.release, options.signal);
}

async function* chunks(socket: Socket, state: PipeState, release: (() => void) | undefined, signal: AbortSignal | undefined): AsyncGenerator<SourceItem> {
  const abort = (): void => state.end();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    yield { kind: 'caught-up' };
    for (;;) {
      // Asking for it says the consumer is done with the last chunk: its buffer is free.
      const chunk = await state.next();
      if (chunk === undefined || signal?.aborted) break;
      yield { kind: 'data', chunk };
    }
    if (state.failure && !signal?.aborted) throw state.failure;
  } finally {
    signal?.removeEventListener('abort', abort);
    socket.destroy();
    release?.();
  }
}

/** Less room than this left in the buffer being filled, and reading pauses until the consumer takes it. */
const MIN_READ_ROOM = 64 * 1024;

/**
 * The two buffers: the one the consumer holds (its last chunk, till it asks for the next), and
 * the one being filled, whose bytes [0, filled) are read and not yet given.
 */
class PipeState {
  failure: Error | undefined;
  resume: () => void = () => undefined;
  private filling = 0;
  private filled = 0;
  private paused = false;
  private ended = false;
  private wake: (() => void) | undefined;
  /** Where a read lands when the buffer being filled has no room (it is then copied in). */
  private readonly spare = Buffer.allocUnsafeSlow(MIN_READ_ROOM);

  constructor(private readonly buffers: readonly [Buffer, Buffer]) {}

  /** Where the next read goes: the room left in the buffer being filled. */
  readInto(): Buffer {
    const buffer = this.buffers[this.filling]!;
    return buffer.length - this.filled >= MIN_READ_ROOM ? buffer.subarray(this.filled) : this.spare;
  }

  /** A read of `bytes` landed in `into` (what readInto gave for it); false pauses reading. */
  read(bytes: number, into: Uint8Array): boolean {
    const buffer = this.buffers[this.filling]!;
    // A read given its buffer before a pause lands where readInto said then: not at `filled` of
    // the buffer being filled now. Rare (once a pause): copied in.
    if (into.buffer !== buffer.buffer || into.byteOffset !== buffer.byteOffset + this.filled) buffer.set(into.subarray(0, bytes), this.filled);
    this.filled += bytes;
    // Too little room for a read: wait till the consumer takes what is there.
    if (buffer.length - this.filled < MIN_READ_ROOM) this.paused = true;
    this.notify();
    return !this.paused;
  }

  end(failure?: Error): void {
    this.ended = true;
    this.failure ??= failure;
    this.notify();
  }

  /** Everything read and not yet given, as one chunk (the consumer is done with the last); undefined at the end. */
  async next(): Promise<Buffer | undefined> {
    while (this.filled === 0 && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.filled === 0) return undefined;
    const chunk = this.buffers[this.filling]!.subarray(0, this.filled);
    this.filling ^= 1;
    this.filled = 0;
    if (this.paused) {
      this.paused = false;
      this.resume();
    }
    return chunk;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
