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
import { FRAME_MAX_BYTES, FRAME_SLOT, FRAME_TABLE_BYTES, MAX_TABLE_FRAMES, RATE_CLASS_AT } from './wasm/pass-frames-kernel.js';
import { scanMemory } from './wasm/scan-memory.js';

/** Frames remembered at once: a burst's ranks (8 for TP=8), with room for a second bar each. */
const MAX_FRAMES = MAX_TABLE_FRAMES;
/** Where the table's first frame slot begins (its length, then at +16 its bytes: pass-frames-kernel.ts). */
const SLOTS_AT = 16;
const LF = 10;
const CR = 13;
const SPACE = 0x20;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const LT = 0x3c;
/** Whether this machine keeps words little-end first (how the table's Int32Array reads them). */
const NATIVE_ORDER = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class SameFrames {
  /**
   * How many frames are remembered. They live in the kernel's table alone (newest last), where
   * JavaScript reads them too: remembering one allocates nothing (a burst's 8 frames are noted
   * again after every line read that moved a bar).
   */
  private count = 0;
  private epoch = -1;
  /**
   * Where the frames first differ (-1: fewer than two, or one ends there), and per byte value
   * which frames (bit k: frame k) have it there: the 8 ranks' frames share `(Worker_TP` and
   * differ at the rank, so `has` compares a line with the one or two frames of its rank, not 16.
   */
  private splitAt = -1;
  private readonly byByte = new Uint16Array(256);
  /** A view of the memory the lines were last given in (a chunk's: asked for once per chunk, not per line). */
  private view: DataView | undefined;
  private viewOf: ArrayBufferLike | undefined;
  /** The frames as the pass_frames kernel reads them (pass-frames-kernel.ts), and its version. */
  private readonly table = newTable();
  private readonly tableWords = new DataView(this.table.buffer);
  /** The same as 32-bit words (every slot's bytes begin at a multiple of four). */
  private readonly tableInts = new Int32Array(this.table.buffer);
  private tableVersion = 0;
  /** What the last passCrFrames passed: how many frames, where the last began and ended (reused). */
  readonly passed = { frames: 0, last: -1, lastEnd: -1 };
  /** The same for the last passIdleCrFrames. */
  readonly walked = { frames: 0, last: -1, lastEnd: -1 };

  /** Forgets the frames unless core's answers are still those they were let go under (Skippable.idleEpoch). */
  forgetUnless(now: Skippable): void {
    if (now.idleEpoch === this.epoch) return;
    this.epoch = now.idleEpoch;
    if (this.count > 0) this.setCount(0);
    this.splitAt = -1;
  }

  /** Remembers the line `chunk[start, end)` that core just let go (a known bar's idle frame). */
  note(chunk: Uint8Array, start: number, end: number): void {
    const lt = elapsedLt(chunk, start, end);
    const length = lt + 1 - start;
    if (lt === -1 || length > FRAME_MAX_BYTES) return;
    const table = this.table;
    for (let k = 0; k < this.count; k++) if (this.lengthOf(k) === length && sameAsSlot(table, k, chunk, start, length)) return;
    // Full: the oldest goes, the others move down a slot.
    if (this.count >= MAX_FRAMES) {
      table.copyWithin(SLOTS_AT, SLOTS_AT + FRAME_SLOT, SLOTS_AT + MAX_FRAMES * FRAME_SLOT);
      this.count--;
    }
    const slot = SLOTS_AT + this.count * FRAME_SLOT;
    this.tableWords.setInt32(slot, length, true);
    for (let k = 0; k < length; k++) table[slot + 16 + k] = chunk[start + k]!;
    this.setCount(this.count + 1);
    this.indexByByte();
  }

  /** Finds where the frames first differ and which have each byte there (splitAt, byByte). */
  private indexByByte(): void {
    const table = this.table;
    const first = SLOTS_AT + 16;
    let split = this.count > 1 ? FRAME_MAX_BYTES : -1;
    for (let k = 1; k < this.count; k++) {
      const slot = SLOTS_AT + k * FRAME_SLOT + 16;
      let at = 0;
      while (at < split && table[slot + at] === table[first + at]) at++;
      split = at;
    }
    for (let k = 0; k < this.count && split >= 0; k++) if (this.lengthOf(k) <= split) split = -1;
    this.splitAt = split;
    if (split < 0) return;
    this.byByte.fill(0);
    for (let k = 0; k < this.count; k++) this.byByte[table[SLOTS_AT + k * FRAME_SLOT + 16 + split]!]! |= 1 << k;
  }

  /**
   * In the kernels' memory: from the `\r` frame at `from` on, passes over the frames remembered
   * (and empty ones) of the physical line that ends before `limit`, each but its last (the
   * kernel's part of passIdleCrFrames); returns where the first other frame begins, and
   * says in `passed` how many it passed and where the last of them lies. -1 elsewhere: then ask
   * `has` of each frame.
   */
  passCrFrames(chunk: Uint8Array, from: number, limit: number): number {
    const memory = scanMemory;
    if (this.count === 0 || !memory?.holds(chunk)) return -1;
    const at = memory.passFrames(memory.frameTable(this, this.tableVersion, this.table), chunk, from, limit, true);
    this.passed.frames = memory.passedFrames;
    this.passed.last = memory.lastPassed;
    this.passed.lastEnd = memory.lastPassedEnd;
    return at;
  }

  /**
   * The `\r` frames that begin the physical line at `pos` (up to `end`, just after its `\n`) and
   * that core lets go unread (`now.idleBar`: a known bar's frames that moved only their counters),
   * walked in bytes: those remembered by pass_frames in the kernels' memory, the others asked
   * about one by one (and remembered). A frame the splitter must judge (the line's last, one a
   * `\r` ends at `end` or before the `\n`, one over `max` bytes) stops the walk, as does one core
   * would read. Returns where the walk stopped; `walked` says how many frames it passed (empty
   * ones aside) and where the last of them began and ended (-1: none).
   */
  passIdleCrFrames(now: Skippable, chunk: Uint8Array, pos: number, end: number, max: number): number {
    this.forgetUnless(now);
    const walked = this.walked;
    walked.frames = 0;
    walked.last = -1;
    walked.lastEnd = -1;
    let at = pos;
    for (;;) {
      // In the kernels' memory, the frames remembered are passed there (pass_frames), up to the
      // first that is not; elsewhere each is asked `has` below.
      const passedTo = this.passCrFrames(chunk, at, end);
      if (passedTo !== -1 && this.passed.frames > 0) {
        walked.frames += this.passed.frames;
        walked.last = this.passed.last;
        walked.lastEnd = this.passed.lastEnd;
      }
      if (passedTo !== -1) at = passedTo;
      const cr = indexOfByte(chunk, CR, at, end);
      if (cr === -1 || cr + 1 >= end || chunk[cr + 1] === LF || cr - at > max) break;
      // An empty frame (tqdm begins each with `\r`) is none to the splitter either.
      if (cr > at) {
        // The same frame as one core let go under this answer is let go by its bytes.
        if (passedTo !== -1 || !this.has(chunk, at, cr)) {
          if (!now.idleBar(chunk, at, cr)) break;
          this.note(chunk, at, cr);
        }
        walked.last = at;
        walked.lastEnd = cr;
        walked.frames++;
      }
      at = cr + 1;
    }
    return at;
  }

  /**
   * Whether the frame `chunk[start, end)` (`end`: its `\r` or `\n`) is one remembered, then
   * tqdm's rest (the pass_frames kernel reads it the same way).
   */
  has(chunk: Uint8Array, start: number, end: number): boolean {
    if (this.count === 0) return false;
    const view = this.viewOfMemory(chunk);
    // Only the frames with the line's byte where frames differ can be it (all, when they do not).
    let candidates = (1 << this.count) - 1;
    if (this.splitAt >= 0) candidates = start + this.splitAt < end ? this.byByte[chunk[start + this.splitAt]!]! : 0;
    for (; candidates !== 0; candidates &= candidates - 1) {
      const k = 31 - Math.clz32(candidates & -candidates);
      const length = this.lengthOf(k);
      const from = start + length;
      if (from < end && this.sameWords(view, chunk.byteOffset + start, chunk, start, k, length) && isRestOfTail(chunk, from, end)) return true;
    }
    return false;
  }

  /**
   * From the line start `from` on, passes over the whole lines (each ending with a `\n` before
   * `limit`) that are frames remembered; returns where the first other line begins.
   */
  passFrom(chunk: Uint8Array, from: number, limit: number): number {
    if (this.count === 0 || !this.mayBegin(chunk, from, limit)) return from;
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

  /**
   * Whether a frame remembered may begin at `at`: its first four bytes are some frame's. The scan
   * asks at every line it stops at (an NCCL line holding a rule's literal, in row h one line in
   * ten); telling most of them no here spares a call into the kernel each.
   */
  private mayBegin(chunk: Uint8Array, at: number, limit: number): boolean {
    if (at + 4 > limit) return true;
    const first = this.viewOfMemory(chunk).getInt32(chunk.byteOffset + at, true);
    for (let k = 0; k < this.count; k++) if (this.lengthOf(k) < 4 || this.tableWords.getInt32(SLOTS_AT + k * FRAME_SLOT + 16, true) === first) return true;
    return false;
  }

  /** Frame k's length in bytes. */
  private lengthOf(k: number): number {
    return this.tableWords.getInt32(SLOTS_AT + k * FRAME_SLOT, true);
  }

  /**
   * Whether `chunk` holds frame k (`length` bytes) at `at` (`address`: the same place in the view
   * of its memory): compared four bytes a read, as a frame is asked about at every line of a burst.
   */
  private sameWords(view: DataView, address: number, chunk: Uint8Array, at: number, k: number, length: number): boolean {
    const ints = this.tableInts;
    const slot = SLOTS_AT + k * FRAME_SLOT + 16;
    const whole = length & ~3;
    for (let i = 0, word = slot >> 2; i < whole; i += 4, word++) if (view.getInt32(address + i, NATIVE_ORDER) !== ints[word]) return false;
    for (let i = whole; i < length; i++) if (chunk[at + i] !== this.table[slot + i]) return false;
    return true;
  }

  /** Sets how many frames the table holds: a new version of it. */
  private setCount(count: number): void {
    this.count = count;
    this.tableWords.setInt32(0, count, true);
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

/** Whether `chunk[start, start + length)` is the bytes of the table's frame k. */
function sameAsSlot(table: Uint8Array, k: number, chunk: Uint8Array, start: number, length: number): boolean {
  const slot = SLOTS_AT + k * FRAME_SLOT + 16;
  for (let i = 0; i < length; i++) if (chunk[start + i] !== table[slot + i]) return false;
  return true;
}

/** Where the first `byte` of `chunk[from, end)` is, or -1. */
function indexOfByte(chunk: Uint8Array, byte: number, from: number, end: number): number {
  const at = chunk.indexOf(byte, from);
  return at === -1 || at >= end ? -1 : at;
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
