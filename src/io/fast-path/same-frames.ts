/**
 * The frames of a bar that core just let go unread (Skippable.idleBar), remembered by their bytes
 * up to the elapsed time's `<`, so that the next frames of the same burst are passed over by a
 * byte compare instead of being recognised one by one (issue 26, rows h and i: 8 ranks draw
 * their bars at once, a hundred frames a second each, and all but a few say nothing new):
 *
 *   (Worker_TP3 pid=41203) Loading safetensors checkpoint shards:  12% Completed | 6/49 [00:03<00:25,  1.75it/s]
 *   ----------------------- the same bytes as a frame let go ------------------------------| tqdm's rest
 *
 * A line with the very bytes of such a frame up to its `<` shows the same bar, the same counters
 * and the same elapsed second; if what follows is tqdm's own `remaining, rate]` (known-bars.ts
 * readElapsed: its characters only, the `]` at most 48 bytes on, then blanks), core recognises it
 * exactly as it recognised the frame, and gives the same answer while nothing was read in
 * between. So the frames are forgotten whenever core's answers may have changed
 * (Skippable.idleEpoch: a line read that moved a bar, say, not the unread frame read as the last
 * line). In the kernels' memory the `pass_frames` kernel does the walk (pass-frames-kernel.ts).
 */
import { isRateUnit, MAX_AFTER_ELAPSED } from '../../core/known-bars.js';
import type { Skippable } from '../../core/skippable.js';
import { occursAt } from './byte-literal-scanner.js';
import { FRAME_MAX_BYTES, FRAME_SLOT, FRAME_TABLE_BYTES, MAX_TABLE_FRAMES, RATE_CLASS_AT } from './wasm/pass-frames-kernel.js';
import { scanMemory } from './wasm/scan-memory.js';

/** Frames remembered at once: a burst's ranks (8 for TP=8), with room for a second bar each. */
const MAX_FRAMES = MAX_TABLE_FRAMES;
const LF = 10;
const SPACE = 0x20;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const LT = 0x3c;

/** A frame's bytes up to and with its `<`, and the same as little-endian 32-bit words (the whole words only). */
interface Frame {
  readonly bytes: Buffer;
  readonly words: Int32Array;
}

export class SameFrames {
  /** The frames, newest last. */
  private frames: Frame[] = [];
  private epoch = -1;
  /** A view of the memory the lines were last given in (a chunk's: asked for once per chunk, not per line). */
  private view: DataView | undefined;
  private viewOf: ArrayBufferLike | undefined;
  /** The frames as the pass_frames kernel reads them (pass-frames-kernel.ts), and its version. */
  private readonly table = newTable();
  private readonly tableWords = new DataView(this.table.buffer);
  private tableVersion = 0;
  /** What the last passCrFrames passed: how many frames, where the last began and ended (reused). */
  readonly passed = { frames: 0, last: -1, lastEnd: -1 };

  /** Forgets the frames unless core's answers are still those they were let go under (Skippable.idleEpoch). */
  forgetUnless(now: Skippable): void {
    if (now.idleEpoch === this.epoch) return;
    this.epoch = now.idleEpoch;
    if (this.frames.length > 0) {
      this.frames = [];
      this.writeTable(0);
    }
  }

  /** Remembers the line `chunk[start, end)` that core just let go (a known bar's idle frame). */
  note(chunk: Uint8Array, start: number, end: number): void {
    const lt = elapsedLt(chunk, start, end);
    if (lt === -1 || lt + 1 - start > FRAME_MAX_BYTES) return;
    for (const { bytes } of this.frames) if (bytes.length === lt + 1 - start && occursAt(chunk, start, bytes)) return;
    const full = this.frames.length >= MAX_FRAMES;
    if (full) this.frames.shift();
    const bytes = Buffer.from(chunk.subarray(start, lt + 1));
    const words = new Int32Array(bytes.length >> 2);
    for (let k = 0; k < words.length; k++) words[k] = bytes.readInt32LE(k * 4);
    this.frames.push({ bytes, words });
    // Added last: only its slot and the count change, unless the oldest went.
    this.writeTable(full ? 0 : this.frames.length - 1);
  }

  /**
   * In the kernels' memory: from the `\r` frame at `from` on, passes over the frames remembered
   * (and empty ones) of the physical line that ends before `limit`, each but its last, as
   * fast-line-reader.ts passes idle frames; returns where the first other frame begins, and
   * says in `passed` how many it passed and where the last of them lies. -1 elsewhere: then ask
   * `has` of each frame.
   */
  passCrFrames(chunk: Uint8Array, from: number, limit: number): number {
    const memory = scanMemory;
    if (this.frames.length === 0 || !memory?.holds(chunk)) return -1;
    const at = memory.passFrames(memory.frameTable(this, this.tableVersion, this.table), chunk, from, limit, true);
    this.passed.frames = memory.passedFrames;
    this.passed.last = memory.lastPassed;
    this.passed.lastEnd = memory.lastPassedEnd;
    return at;
  }

  /**
   * Whether the frame `chunk[start, end)` (`end`: its `\r` or `\n`) is one remembered, then
   * tqdm's rest (the pass_frames kernel reads it the same way).
   */
  has(chunk: Uint8Array, start: number, end: number): boolean {
    const frames = this.frames;
    if (frames.length === 0) return false;
    const view = this.viewOfMemory(chunk);
    for (let k = frames.length - 1; k >= 0; k--) {
      const frame = frames[k]!;
      const from = start + frame.bytes.length;
      if (from < end && sameBytes(view, chunk.byteOffset + start, chunk, start, frame) && isRestOfTail(chunk, from, end)) return true;
    }
    return false;
  }

  /**
   * From the line start `from` on, passes over the whole lines (each ending with a `\n` before
   * `limit`) that are frames remembered; returns where the first other line begins.
   */
  passFrom(chunk: Uint8Array, from: number, limit: number): number {
    const frames = this.frames;
    if (frames.length === 0) return from;
    // In the kernels' memory the kernel walks the lines (16 bytes a compare, no call per line).
    if (scanMemory?.holds(chunk)) return scanMemory.passFrames(scanMemory.frameTable(this, this.tableVersion, this.table), chunk, from, limit, false);
    // Elsewhere each line is asked `has`, up to the first that is none of them.
    let at = from;
    for (;;) {
      const lf = chunk.indexOf(LF, at);
      if (lf === -1 || lf >= limit || !this.has(chunk, at, lf)) break;
      at = lf + 1;
    }
    return at;
  }

  /** The frames from `from` on into the kernel's table, and their count: a new version of it. */
  private writeTable(from: number): void {
    const table = this.table;
    const words = this.tableWords;
    words.setInt32(0, this.frames.length, true);
    for (let k = from; k < this.frames.length; k++) {
      const { bytes } = this.frames[k]!;
      words.setInt32(16 + k * FRAME_SLOT, bytes.length, true);
      table.set(bytes, 32 + k * FRAME_SLOT);
    }
    this.tableVersion++;
  }

  private viewOfMemory(chunk: Uint8Array): DataView {
    if (chunk.buffer !== this.viewOf) {
      this.viewOf = chunk.buffer;
      this.view = new DataView(chunk.buffer);
    }
    return this.view!;
  }
}

/**
 * Whether `chunk` holds `frame` at `at` (`address`: the same place in the view of its memory):
 * compared four bytes a read, as a frame is asked about at every line of a burst.
 */
function sameBytes(view: DataView, address: number, chunk: Uint8Array, at: number, frame: Frame): boolean {
  const words = frame.words;
  for (let k = 0; k < words.length; k++) if (view.getInt32(address + k * 4, true) !== words[k]) return false;
  const bytes = frame.bytes;
  for (let k = words.length * 4; k < bytes.length; k++) if (chunk[at + k] !== bytes[k]) return false;
  return true;
}

/** Whether `chunk[from, end)` (from the byte after a frame's `<` to its end) is tqdm's `remaining, rate]` and blanks. */
function isRestOfTail(chunk: Uint8Array, from: number, end: number): boolean {
  let last = end - 1;
  while (last >= from && chunk[last] === SPACE) last--;
  if (last < from || chunk[last] !== CLOSE || last - (from - 1) > MAX_AFTER_ELAPSED) return false;
  for (let at = from; at < last; at++) if (!isRateUnit(chunk[at]!)) return false;
  return true;
}

/** The `<` of the elapsed time in the frame `chunk[start, end)`: the first after its last `[`; -1 when there is none. */
function elapsedLt(chunk: Uint8Array, start: number, end: number): number {
  let open = end - 1;
  while (open >= start && chunk[open] !== OPEN) open--;
  if (open < start) return -1;
  for (let at = open + 1; at < end; at++) if (chunk[at] === LT) return at;
  return -1;
}

/** A kernel's table with no frames, its rate units marked. */
function newTable(): Uint8Array {
  const table = new Uint8Array(FRAME_TABLE_BYTES);
  for (let unit = 0; unit < 256; unit++) table[RATE_CLASS_AT + unit] = isRateUnit(unit) ? 1 : 0;
  return table;
}
