/**
 * stdin as a pipe (`tail -F server.log | spinup watch -`), read without Node's stream: libuv
 * reads straight into two buffers in turn, leased from the fast path's scan memory when one is
 * free (so the kernels scan a chunk where it was read, io/fast-path/wasm/scan-memory.ts).
 * Node's stream allocated a fresh 64 KiB buffer for every read of a pipe, and the reader then
 * copied it into the scan memory: on a 300 MB flood that was 4,600 buffers to collect and copy
 * (peak RSS 115 MB, 0.6x the speed of reading the same file).
 *
 * A chunk stays good until the consumer asks for the next item (as fileSource's do): the next
 * read goes into the other buffer, and reading pauses while both hold a chunk not yet taken.
 */
import { fstatSync } from 'node:fs';
import { Socket, type SocketConstructorOpts } from 'node:net';
import { READ_BUFFER_BYTES, scanMemory } from './fast-path/wasm/scan-memory.js';
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

/**
 * Reads the pipe `fd` to its end; the source takes the descriptor and closes it when done.
 * Undefined when Node cannot read `fd` as a stream (not a pipe or a stream socket): then read
 * it some other way. `signal` ends the source at once, even while the pipe is silent.
 */
export function pipeSource(fd: number, options: { signal?: AbortSignal } = {}): AsyncGenerator<SourceItem> | undefined {
  const lease = scanMemory?.leaseReadBuffers();
  const buffers = lease?.buffers ?? [Buffer.allocUnsafeSlow(READ_BUFFER_BYTES), Buffer.allocUnsafeSlow(READ_BUFFER_BYTES)];
  const state = new PipeState();
  let socket: Socket;
  try {
    // `onread` is in Node's documented options for new net.Socket (v15+), not yet in its types.
    socket = new Socket({
      fd,
      readable: true,
      writable: false,
      onread: {
        // Asked for the buffer of the next read after each read: the other one.
        buffer: () => buffers[state.nextBuffer]!,
        callback: (bytes: number, buffer: Uint8Array) => state.read(Buffer.from(buffer.buffer, buffer.byteOffset, bytes)),
      },
    } as SocketConstructorOpts);
  } catch {
    lease?.release();
    return undefined;
  }
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
      const chunk = await state.next();
      if (chunk === undefined || signal?.aborted) break;
      yield { kind: 'data', chunk };
      // Asked for the next item: the consumer is done with this chunk, its buffer is free.
      if (state.taken()) socket.resume();
    }
    if (state.failure && !signal?.aborted) throw state.failure;
  } finally {
    signal?.removeEventListener('abort', abort);
    socket.destroy();
    release?.();
  }
}

/** The chunks read and not yet taken, and whether reading must pause. */
class PipeState {
  nextBuffer = 0;
  failure: Error | undefined;
  private readonly ready: Buffer[] = [];
  /** Chunks read whose buffer is not free yet: in `ready`, or yielded and not yet done with. */
  private held = 0;
  private paused = false;
  private ended = false;
  private wake: (() => void) | undefined;

  /** A read landed; returns false to pause reading (both buffers hold a chunk). */
  read(chunk: Buffer): boolean {
    this.ready.push(chunk);
    this.held++;
    this.nextBuffer ^= 1;
    this.notify();
    this.paused = this.held >= 2;
    return !this.paused;
  }

  end(failure?: Error): void {
    this.ended = true;
    this.failure ??= failure;
    this.notify();
  }

  /** The next chunk read, or undefined at the end. */
  async next(): Promise<Buffer | undefined> {
    while (this.ready.length === 0 && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.ready.shift();
  }

  /** A yielded chunk's buffer is free again; true when reading was paused and may go on. */
  taken(): boolean {
    this.held--;
    if (!this.paused || this.held >= 2) return false;
    this.paused = false;
    return true;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
