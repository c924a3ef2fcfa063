/**
 * stdin as a pipe (`tail -F server.log | spinup watch -`), read without Node's stream into two
 * buffers in turn, leased from the fast path's scan memory when one is free (so the kernels scan
 * a chunk where it was read, io/fast-path/wasm/scan-memory.ts). Node's stream allocated a fresh
 * 64 KiB buffer for every read of a pipe, and the reader then copied it into the scan memory: on
 * a 300 MB flood that was 4,600 buffers to collect and copy (peak RSS 115 MB, 0.6x the speed of
 * reading the same file).
 *
 * While the pipe has data, it is read on the thread pool (fs.read of the descriptor, which the
 * socket below made non-blocking), as a file is: the copy out of the pipe then runs beside the
 * scan of the last chunk. Read on the event loop, each copy stopped the scan: on this project's
 * machine a pipe gives about 1 GB/s, and a 300 MB flood spent 150 ms of its 0.53 s waiting on
 * them (0.74x of the same file by name). When the pipe is empty (EAGAIN), a net.Socket on the
 * descriptor waits for it, and reads what comes first itself, on the loop, as a live log needs.
 *
 * A chunk stays good until the consumer asks for the next item (as fileSource's do). While the
 * consumer is busy with one, reads go on into the other buffer, one after the other, and the
 * consumer is then given all they read as one chunk: a pipe holds 64 KiB, and on a flood
 * (`cat server.log | spinup watch -`) each chunk has a cost of its own (its run of quiet lines
 * ends at its end, a line is cut in two there). No read waits for more to come: a consumer that
 * waits is given each read at once, as a live log must be.
 */
import { fstatSync, read as readOnPool } from 'node:fs';
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
  const state = new PipeState(buffers, fd);
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
  state.waitOnSocket = () => socket.resume();
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
    // Not while a read on the thread pool holds the descriptor: closed under it, its number could
    // be another file's by the time the read runs.
    await state.settled();
    socket.destroy();
    release?.();
  }
}

/** Less room than this left in the buffer being filled, and reading pauses until the consumer takes it. */
const MIN_READ_ROOM = 64 * 1024;

/** How the pipe is read now: on the thread pool while it has data, by the socket while it is empty. */
type Mode = 'pool' | 'socket';

/**
 * The two buffers: the one the consumer holds (its last chunk, till it asks for the next), and
 * the one being filled, whose bytes [0, filled) are read and not yet given. At most one read is
 * under way, and the consumer never takes the buffer a read on the pool is writing into.
 */
class PipeState {
  failure: Error | undefined;
  /** Lets the socket read again (it waits for data on the event loop, then reads it). */
  waitOnSocket: () => void = () => undefined;
  private mode: Mode = 'socket';
  // A read on the pool failed other than with EAGAIN: the socket reads from then on, as it would say why.
  private poolRefused = false;
  private onPool = false;
  private filling = 0;
  private filled = 0;
  private paused = false;
  private ended = false;
  private wake: (() => void) | undefined;
  /** Where a read lands when the buffer being filled has no room (it is then copied in). */
  private readonly spare = Buffer.allocUnsafeSlow(MIN_READ_ROOM);

  constructor(
    private readonly buffers: readonly [Buffer, Buffer],
    private readonly fd: number,
  ) {}

  /** Where the socket's next read goes: the room left in the buffer being filled. */
  readInto(): Buffer {
    const buffer = this.buffers[this.filling]!;
    return buffer.length - this.filled >= MIN_READ_ROOM ? buffer.subarray(this.filled) : this.spare;
  }

  /** The socket read `bytes` into `into` (what readInto gave for it); false pauses the socket. */
  read(bytes: number, into: Uint8Array): boolean {
    const buffer = this.buffers[this.filling]!;
    // A read given its buffer before a pause lands where readInto said then: not at `filled` of
    // the buffer being filled now. Rare (once a pause): copied in.
    if (into.buffer !== buffer.buffer || into.byteOffset !== buffer.byteOffset + this.filled) buffer.set(into.subarray(0, bytes), this.filled);
    this.filled += bytes;
    this.notify();
    if (!this.poolRefused) {
      // Data came: the rest is read on the pool, beside the consumer.
      this.mode = 'pool';
      this.readOnPool();
      return false;
    }
    // Too little room for a read: wait till the consumer takes what is there.
    if (buffer.length - this.filled < MIN_READ_ROOM) this.paused = true;
    return !this.paused;
  }

  end(failure?: Error): void {
    this.ended = true;
    this.failure ??= failure;
    this.notify();
  }

  /** Everything read and not yet given, as one chunk (the consumer is done with the last); undefined at the end. */
  async next(): Promise<Buffer | undefined> {
    while ((this.filled === 0 && !this.ended) || this.onPool) await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.filled === 0) return undefined;
    const chunk = this.buffers[this.filling]!.subarray(0, this.filled);
    this.filling ^= 1;
    this.filled = 0;
    if (this.mode === 'pool') this.readOnPool();
    else if (this.paused) {
      this.paused = false;
      this.waitOnSocket();
    }
    return chunk;
  }

  /** Resolves once no read on the pool is under way (the descriptor may then be closed). */
  async settled(): Promise<void> {
    while (this.onPool) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** One read on the thread pool into the room left, if there is room, and none is under way. */
  private readOnPool(): void {
    if (this.ended || this.onPool) return;
    const buffer = this.buffers[this.filling]!;
    const room = buffer.length - this.filled;
    // No room: next() reads on once the consumer takes the chunk.
    if (room < MIN_READ_ROOM) return;
    this.onPool = true;
    readOnPool(this.fd, buffer, this.filled, room, null, (error, bytes) => {
      this.onPool = false;
      if (this.ended) return this.notify();
      if (error) {
        // Empty for now: the socket waits for more (and reads it). Anything else: the socket reads
        // from now on, and says what is wrong if the pipe is.
        if (error.code !== 'EAGAIN' && error.code !== 'EWOULDBLOCK') this.poolRefused = true;
        this.mode = 'socket';
        this.notify();
        this.waitOnSocket();
        return;
      }
      if (bytes === 0) return this.end();
      this.filled += bytes;
      // A consumer waiting is given this read at once (next() reads on after it); else read on meanwhile.
      if (this.wake) this.notify();
      else this.readOnPool();
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
