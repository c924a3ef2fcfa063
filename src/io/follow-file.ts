import * as fs from 'node:fs';
import { HOLE_NOTICE } from './truncation-notice.js';
import { Socket } from 'node:net';
import { dirname } from 'node:path';
import { READ_BUFFER_BYTES, scanMemory } from './fast-path/wasm/scan-memory.js';
import { systemClock } from './wall-clock.js';

export type FollowNoticeType = 'waiting' | 'appeared' | 'rotated' | 'truncated' | 'deleted' | 'not-a-file' | 'unreadable';

/** Something that happened to the followed path, in stream order with the data. */
export interface FollowNotice {
  type: FollowNoticeType;
  path: string;
  detail?: string;
}

export type FollowItem = { kind: 'data'; chunk: Buffer } | { kind: 'notice'; notice: FollowNotice };

export interface FollowOptions {
  /** Start at the current end of a file that exists at start (a file that appears later is read whole). */
  fromEnd?: boolean;
  /** Fallback poll interval; `fs.watch` events wake the follower sooner. Default 100 ms. */
  pollMs?: number;
  /** Ends the iteration (quietly, without throwing) and releases fds, timers and watchers. */
  signal?: AbortSignal;
  /**
   * The consumer is done with a chunk when it asks for the next item (the watch loop's way): the
   * file is then read into one buffer of READ_BUFFER_BYTES, leased from the fast path's scan
   * memory if one is free, so a backlog is read in big chunks the kernels scan where they lie. Without it (or a
   * free lease) each chunk is a buffer of its own, of at most 64 KiB.
   */
  reuseBuffer?: boolean;
}

/** Each iteration follows afresh; breaking out of `for await` or aborting releases everything. */
export type FileFollower = AsyncIterable<FollowItem>;

const DEFAULT_POLL_MS = 100;
const READ_CHUNK_BYTES = 64 * 1024;
const REUSED_CHUNK_BYTES = READ_BUFFER_BYTES;
// A rename-and-recreate rotation briefly leaves no file; only a longer absence is a deletion.
const DELETE_GRACE_MS = 500;
const FIFO_HIGH_WATER_BYTES = 4 * 1024 * 1024;
// Each read of a file also rereads this many bytes just before the offset, to compare them with
// the ones read there before (see drain).
const CHECK_BYTES = 128;

interface Identity {
  dev: bigint;
  ino: bigint;
}

interface Problem {
  problem: 'missing' | 'not-a-file' | 'unreadable';
  detail?: string;
}

interface OpenFile {
  fd: number;
  id: Identity;
  size: number;
  offset: number;
  /** The last bytes read, those just before `offset` (at most CHECK_BYTES); null until known. */
  seen: Buffer | null;
  fifo: FifoQueue | null;
}

/**
 * Follows a file by name like `tail -F`: waits for it to appear, survives rename rotation,
 * copytruncate (also one the next write has already regrown past our offset: see drain),
 * deletion and symlink swaps, and reads FIFOs as streams.
 */
export function followFile(path: string, options: FollowOptions = {}): FileFollower {
  return {
    [Symbol.asyncIterator](): AsyncIterator<FollowItem, void, undefined> {
      const follower = new Follower(path, options);
      const run = follower.run();
      return {
        next: () => run.next(),
        // A generator queues return() behind a pending next(), which may wait for data
        // forever; stopping first makes that next() finish, so return() settles promptly.
        return: async () => {
          follower.stop();
          return run.return(undefined);
        },
      };
    },
  };
}

class Follower {
  readonly #path: string;
  readonly #signal: AbortSignal | undefined;
  readonly #fromEnd: boolean;
  readonly #pollMs: number;
  readonly #wake = new Wakeup();
  readonly #watchers: Watchers;
  readonly #notices: NoticeOnce;
  #cur: OpenFile | null = null;
  // Identity of the file read last, to tell a new file from the same one reopened.
  #last: Identity | null = null;
  #first = true;
  #missingSince: number | undefined;
  #stopped = false;
  readonly #buffer: ReadBuffer | undefined;

  constructor(path: string, options: FollowOptions) {
    this.#path = path;
    this.#signal = options.signal;
    this.#fromEnd = options.fromEnd ?? false;
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.#watchers = new Watchers(path, this.#wake.notify);
    this.#notices = new NoticeOnce(path);
    if (options.reuseBuffer) this.#buffer = ReadBuffer.lease();
  }

  stop(): void {
    this.#stopped = true;
    this.#wake.notify();
  }

  readonly #isStopped = (): boolean => this.#stopped || this.#signal?.aborted === true;

  async *run(): AsyncGenerator<FollowItem, void, undefined> {
    this.#signal?.addEventListener('abort', this.#wake.notify, { once: true });
    try {
      while (!this.#isStopped()) {
        const cur = this.#cur ?? (yield* this.#acquire());
        if (!cur) {
          await this.#wake.wait(this.#pollMs);
          continue;
        }
        yield* drain(cur, this.#path, this.#isStopped, this.#buffer);
        if (cur.fifo?.ended) {
          // Every writer closed the FIFO: reopen it by name to wait for the next one.
          const idle = cur.fifo.received === 0;
          await this.#release();
          if (idle) await this.#wake.wait(this.#pollMs);
          continue;
        }
        if (yield* this.#checkPath(cur)) continue;
        await this.#wake.wait(this.#pollMs);
      }
    } finally {
      this.#signal?.removeEventListener('abort', this.#wake.notify);
      this.#wake.cancel();
      this.#watchers.close();
      await this.#release();
      this.#buffer?.release();
    }
  }

  /** Opens the path when no file is open; reports why not otherwise. */
  async *#acquire(): AsyncGenerator<FollowItem, OpenFile | null> {
    const opened = await openPath(this.#path, this.#wake.notify);
    const atStart = this.#first;
    this.#first = false;
    if ('problem' in opened) {
      const type = opened.problem === 'missing' ? (this.#last ? 'deleted' : 'waiting') : opened.problem;
      const notice = this.#notices.report(type, opened.detail);
      if (notice) yield { kind: 'notice', notice };
      this.#watchers.watchDir();
      return null;
    }
    if (atStart && this.#fromEnd && !opened.fifo) opened.offset = opened.size;
    const arrival = this.#arrival(opened.id);
    this.#adopt(opened);
    if (arrival) yield noticeItem(arrival, this.#path);
    return opened;
  }

  /** Compares the path with the open file; returns true when it switched to a new file. */
  async *#checkPath(cur: OpenFile): AsyncGenerator<FollowItem, boolean> {
    const state = await probePath(this.#path, cur.id);
    if (state === 'same') {
      this.#notices.clear();
      this.#missingSince = undefined;
      return false;
    }
    if (state !== 'other') {
      if (state.problem === 'missing') this.#missingSince ??= systemClock.now();
      else this.#missingSince = undefined;
      yield* this.#report(state);
      return false;
    }
    // Bytes written to the old file just before the rename are still behind its fd.
    yield* drain(cur, this.#path, this.#isStopped, this.#buffer);
    const next = await openPath(this.#path, this.#wake.notify);
    if ('problem' in next) {
      yield* this.#report(next);
      return false;
    }
    if (sameId(next.id, cur.id)) {
      // The path went back to the file we hold: keep our offset rather than reread it.
      await closeFile(next);
      return false;
    }
    const arrival = this.#arrival(next.id) ?? 'rotated';
    await this.#release();
    this.#adopt(next);
    yield noticeItem(arrival, this.#path);
    return true;
  }

  /** After a reported problem a file "appeared"; a silent switch to another file is a rotation. */
  #arrival(id: Identity): FollowNoticeType | null {
    if (this.#notices.active) return 'appeared';
    return this.#last && !sameId(this.#last, id) ? 'rotated' : null;
  }

  #adopt(file: OpenFile): void {
    this.#cur = file;
    this.#last = file.id;
    this.#notices.clear();
    this.#missingSince = undefined;
    this.#watchers.watchFile();
  }

  async #release(): Promise<void> {
    const cur = this.#cur;
    this.#cur = null;
    if (cur) await closeFile(cur);
  }

  *#report(state: Problem): Generator<FollowItem> {
    const since = this.#missingSince;
    if (state.problem === 'missing' && (since === undefined || systemClock.now() - since < DELETE_GRACE_MS)) return;
    const notice = this.#notices.report(state.problem === 'missing' ? 'deleted' : state.problem, state.detail);
    if (notice) yield { kind: 'notice', notice };
  }
}

async function* drain(cur: OpenFile, path: string, stopped: () => boolean, reused: ReadBuffer | undefined): AsyncGenerator<FollowItem> {
  if (cur.fifo) {
    for (let chunk = cur.fifo.take(); chunk && !stopped(); chunk = cur.fifo.take()) {
      yield { kind: 'data', chunk };
    }
    return;
  }
  while (!stopped()) {
    const { size } = await fstatFd(cur.fd);
    const length = Number(size);
    if (length < cur.offset) {
      yield noticeItem('truncated', path, `size ${length} is below read offset ${cur.offset}`);
      cur.offset = 0;
      cur.seen = null;
    }
    // A copytruncate followed by a write longer than our offset, all before we look, leaves a
    // file that only grew. So every read starts `back` bytes early, in the same pread as the new
    // bytes: if those bytes are not the ones read there before, the file was cut and rewritten.
    const back = Math.min(cur.offset, CHECK_BYTES);
    const want = Math.max(0, Math.min(length - cur.offset, (reused ? REUSED_CHUNK_BYTES : READ_CHUNK_BYTES) - back));
    // Nothing new, unless the bytes before the offset are still to be learnt (a start at the end).
    if (want === 0 && (back === 0 || cur.seen)) return;
    const buffer = reused ? reused.bytes.subarray(0, back + want) : Buffer.allocUnsafe(back + want);
    const got = await readFd(cur.fd, buffer, cur.offset - back);
    const before = buffer.subarray(0, Math.min(got, back));
    if (cur.seen && back > 0 && !before.equals(cur.seen)) {
      if (got >= back && isAllZero(before)) {
        // A writer without O_APPEND went on at its own offset, past a hole where the file was
        // cut: nothing before our offset is new, so read on from it.
        yield noticeItem('truncated', path, `${HOLE_NOTICE} ${cur.offset}: the writer did not append`);
      } else {
        yield noticeItem('truncated', path, `the bytes before read offset ${cur.offset} changed (size ${length})`);
        cur.offset = 0;
        cur.seen = null;
        continue;
      }
    }
    if (got <= back) {
      if (got === back) cur.seen = Buffer.from(before);
      // Shorter than before: cut since the fstat; the next turn sees the size drop.
      if (got < back) continue;
      return;
    }
    cur.offset += got - back;
    cur.seen = Buffer.from(buffer.subarray(Math.max(0, got - Math.min(cur.offset, CHECK_BYTES)), got));
    yield { kind: 'data', chunk: back === 0 && got === want ? buffer : buffer.subarray(back, got) };
  }
}

function isAllZero(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0) return false;
  return true;
}

/**
 * The read buffer of the scan memory (see FollowOptions.reuseBuffer), while a lease is free:
 * the followers of a many-node group past the first two read as without it, rather than each
 * holding a read buffer of its own. One serves: the next read begins only when the consumer
 * asks for the next item.
 */
class ReadBuffer {
  private constructor(private readonly lease: { buffers: [Buffer, Buffer]; release: () => void }) {}

  static lease(): ReadBuffer | undefined {
    const lease = scanMemory?.leaseReadBuffers();
    return lease && new ReadBuffer(lease);
  }

  get bytes(): Buffer {
    return this.lease.buffers[0];
  }

  release(): void {
    this.lease.release();
  }
}

function noticeItem(type: FollowNoticeType, path: string, detail?: string): FollowItem {
  return { kind: 'notice', notice: detail === undefined ? { type, path } : { type, path, detail } };
}

function sameId(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function classifyError(err: unknown): Problem {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return { problem: 'missing' };
  // A UNIX socket cannot be opened as a file at all.
  if (e.code === 'ENXIO') return { problem: 'not-a-file', detail: 'socket' };
  return { problem: 'unreadable', detail: e.message };
}

function describeKind(st: fs.BigIntStats): string {
  if (st.isDirectory()) return 'directory';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  return 'not a regular file';
}

async function openPath(path: string, onFifoActivity: () => void): Promise<OpenFile | Problem> {
  let fd: number;
  try {
    // O_NONBLOCK so that opening a FIFO with no writer yet does not block a libuv thread.
    fd = await openFd(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    return classifyError(err);
  }
  try {
    const st = await fstatFd(fd);
    const id = { dev: st.dev, ino: st.ino };
    if (st.isFile()) return { fd, id, size: Number(st.size), offset: 0, seen: null, fifo: null };
    if (st.isFIFO()) {
      const fifoFd = await holdFifoOpen(path, fd, id);
      return { fd: fifoFd, id, size: 0, offset: 0, seen: null, fifo: new FifoQueue(fifoFd, onFifoActivity) };
    }
    fs.close(fd, () => {});
    return { problem: 'not-a-file', detail: describeKind(st) };
  } catch (err) {
    fs.close(fd, () => {});
    return classifyError(err);
  }
}

/**
 * Reopens a FIFO read-write (Linux allows it) so it never reaches EOF between writers: a
 * writer whose reader vanished for a moment would die of SIGPIPE. Falls back to `fd`.
 */
async function holdFifoOpen(path: string, fd: number, id: Identity): Promise<number> {
  let rw: number;
  try {
    rw = await openFd(path, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
  } catch {
    return fd;
  }
  const st = await fstatFd(rw).catch(() => undefined);
  const keep = st && sameId(st, id) ? rw : fd;
  fs.close(keep === rw ? fd : rw, () => {});
  return keep;
}

async function probePath(path: string, id: Identity): Promise<'same' | 'other' | Problem> {
  try {
    const st = await fs.promises.stat(path, { bigint: true });
    if (!st.isFile() && !st.isFIFO()) return { problem: 'not-a-file', detail: describeKind(st) };
    return sameId(id, st) ? 'same' : 'other';
  } catch (err) {
    return classifyError(err);
  }
}

async function closeFile(file: OpenFile): Promise<void> {
  // The socket owns a FIFO's fd and closes it itself.
  if (file.fifo) file.fifo.close();
  else await new Promise<void>((resolve) => fs.close(file.fd, () => resolve()));
}

function openFd(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => fs.open(path, flags, (err, fd) => (err ? reject(err) : resolve(fd))));
}

function fstatFd(fd: number): Promise<fs.BigIntStats> {
  return new Promise((resolve, reject) =>
    fs.fstat(fd, { bigint: true }, (err, st) => (err ? reject(err) : resolve(st))),
  );
}

function readFd(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.read(fd, buffer, 0, buffer.length, position, (err, n) => (err ? reject(err) : resolve(n))),
  );
}

/** Reads a FIFO through libuv's pipe handle, so a quiet pipe ties up no thread-pool read. */
class FifoQueue {
  readonly #socket: Socket;
  readonly #chunks: Buffer[] = [];
  #queued = 0;
  received = 0;
  ended = false;

  constructor(fd: number, onActivity: () => void) {
    this.#socket = new Socket({ fd, readable: true, writable: false, allowHalfOpen: true });
    this.#socket.on('data', (chunk: Buffer) => {
      this.#chunks.push(chunk);
      this.#queued += chunk.length;
      this.received += chunk.length;
      if (this.#queued >= FIFO_HIGH_WATER_BYTES) this.#socket.pause();
      onActivity();
    });
    const finish = (): void => {
      this.ended = true;
      onActivity();
    };
    this.#socket.on('end', finish);
    this.#socket.on('error', finish);
  }

  take(): Buffer | undefined {
    const chunk = this.#chunks.shift();
    if (chunk) this.#queued -= chunk.length;
    if (this.#queued < FIFO_HIGH_WATER_BYTES && this.#socket.isPaused()) this.#socket.resume();
    return chunk;
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** A wake-up that is not lost when it fires while nobody is waiting. */
class Wakeup {
  #pending = false;
  #release: (() => void) | null = null;

  readonly notify = (): void => {
    if (this.#release) this.#release();
    else this.#pending = true;
  };

  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#release?.(), ms);
      this.#release = () => {
        clearTimeout(timer);
        this.#release = null;
        resolve();
      };
    });
  }

  cancel(): void {
    this.#release?.();
    this.#pending = false;
  }
}

/** `fs.watch` is only a hint (it misses events on some filesystems), so errors just drop it. */
class Watchers {
  #dir: fs.FSWatcher | null = null;
  #file: fs.FSWatcher | null = null;

  constructor(
    private readonly path: string,
    private readonly onEvent: () => void,
  ) {}

  watchDir(): void {
    if (!this.#dir) this.#dir = this.#tryWatch(dirname(this.path), (w) => this.#dir === w && (this.#dir = null));
  }

  watchFile(): void {
    this.#file?.close();
    this.#file = this.#tryWatch(this.path, (w) => this.#file === w && (this.#file = null));
    this.watchDir();
  }

  close(): void {
    this.#dir?.close();
    this.#file?.close();
    this.#dir = this.#file = null;
  }

  #tryWatch(target: string, onDead: (w: fs.FSWatcher) => unknown): fs.FSWatcher | null {
    try {
      const watcher = fs.watch(target, { persistent: true }, this.onEvent);
      watcher.on('error', () => {
        watcher.close();
        onDead(watcher);
      });
      return watcher;
    } catch {
      return null;
    }
  }
}

/** Emits a notice once per state, so a path that stays missing does not repeat itself. */
class NoticeOnce {
  #key: string | null = null;

  constructor(private readonly path: string) {}

  get active(): boolean {
    return this.#key !== null;
  }

  report(type: FollowNoticeType, detail?: string): FollowNotice | null {
    const key = `${type}\0${detail ?? ''}`;
    if (key === this.#key) return null;
    this.#key = key;
    return detail === undefined ? { type, path: this.path } : { type, path: this.path, detail };
  }

  clear(): void {
    this.#key = null;
  }
}
