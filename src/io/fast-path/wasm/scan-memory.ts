/**
 * The memory the byte kernels (kernel-source.ts) scan, and the way bytes get into it. A kernel
 * reads only its own WebAssembly memory, so a chunk is scanned there: a file read with
 * --no-follow is read straight into it (leased read buffers, io/sources.ts); a chunk from
 * anywhere else (a pipe, a followed file) is copied into the scratch region once, by the reader
 * (fast-line-reader.ts), and used from there as if it had been read so. The memory has a fixed
 * size, so Buffer views of it never go stale.
 *
 * Layout (every region a kernel scans has KERNEL_SLACK bytes of room after it):
 *   word tables   TABLE_SLOTS x 256 KiB   the probe tables of ChunkLiteralScanner, copied in
 *   pair masks    MASK_SLOTS x 64 bytes   Teddy masks, copied in
 *   out           12 bytes                what find_block found in its block, what pass_frames passed
 *   frame tables  FRAME_SLOTS x ~4.6 KiB  the frames of same-frames.ts, copied in (pass_frames)
 *   scratch       SCRATCH_BYTES           a copy of a chunk from elsewhere
 *   read buffers  READ_LEASES x 2 x READ_BUFFER_BYTES
 * Tables and masks are kept per owner (a scanner) and version, and copied in again only when a
 * slot was given to another owner meanwhile or the owner's bytes changed.
 *
 * The memory is made when this module loads (a reservation: no page is touched), the kernels
 * the first time one would scan a chunk (`holds`, `place`): assembling and compiling them is a
 * few milliseconds that a short log, which never reaches the fast path, does not pay.
 */
import { assembleWat } from './assemble-wat.js';
import { KERNEL_SLACK, KERNELS, WORD_TABLE_BITS } from './kernel-source.js';
import { FRAME_TABLE_BYTES } from './pass-frames-kernel.js';

export const TABLE_BYTES = 1 << WORD_TABLE_BITS;
export const MASK_BYTES = 64;
export const SCRATCH_BYTES = 1 << 20;
/**
 * 4 MiB: a read from the thread pool lands about when the kernels finish the chunk before it,
 * and each hand-over left the loop idle for a while. On the 980 MB serving log, 1 MiB reads left
 * it idle 120 ms and took 0.87 s; 4 MiB, 27 ms and 0.72 s (2 MiB: 0.77 s). Peak RSS rose from 77
 * to 84 MB; 8 MiB would leave too little room under 100 MB.
 */
export const READ_BUFFER_BYTES = 1 << 22;
const TABLE_SLOTS = 4;
const MASK_SLOTS = 16;
/**
 * Frame tables: one per SameFrames in use (one per reader, its quiet lines' and its `\r` frames'
 * at once); a table whose slot went to another is copied in again when next used.
 */
const FRAME_SLOTS = 4;
const READ_LEASES = 2;
const PAGE = 1 << 16;
/** Room after each region for a kernel's reads past its end (KERNEL_SLACK), keeping regions 64-byte aligned. */
const REGION_ROOM = 64;
/** A frame table's slot, 64-byte aligned. */
const FRAME_TABLE_SLOT = Math.ceil(FRAME_TABLE_BYTES / 64) * 64;

interface Kernels {
  count_lf(p: number, end: number): number;
  find_block(table: number, masks: number, out: number, p: number, end: number): number;
  find_block_stamps(table: number, masks: number, out: number, p: number, end: number): number;
  pass_frames(table: number, p: number, limit: number, cr: number, out: number): number;
}

interface Slot {
  owner: object | undefined;
  version: number;
}

class SlotPool {
  private readonly slots: Slot[];
  private nextVictim = 0;

  constructor(
    private readonly memory: Uint8Array,
    private readonly base: number,
    private readonly size: number,
    count: number,
  ) {
    this.slots = Array.from({ length: count }, () => ({ owner: undefined, version: -1 }));
  }

  /** The slot asked for last: most often asked for again (one scanner scans a whole file). */
  private last = 0;

  /** The address of a slot holding `bytes` for `owner` at `version`, copied in when it is not there yet. */
  resident(owner: object, version: number, bytes: Uint8Array): number {
    // Asked once per search (per line found: a shard bar each fifth line), so the slot asked for
    // last is looked at first.
    const last = this.slots[this.last]!;
    if (last.owner === owner && last.version === version) return this.base + this.last * this.size;
    let index = -1;
    for (let k = 0; k < this.slots.length; k++) if (this.slots[k]!.owner === owner) index = k;
    if (index === -1) {
      index = this.nextVictim;
      this.nextVictim = (this.nextVictim + 1) % this.slots.length;
    }
    this.last = index;
    const slot = this.slots[index]!;
    const address = this.base + index * this.size;
    if (slot.owner !== owner || slot.version !== version) {
      this.memory.set(bytes.subarray(0, this.size), address);
      slot.owner = owner;
      slot.version = version;
    }
    return address;
  }
}

export class ScanMemory {
  readonly bytes: Buffer;
  /** The same memory as 32-bit words (little-endian, as the memory is only used so). */
  private readonly words: Uint32Array;
  private readonly memory: WebAssembly.Memory;
  private readonly pages: number;
  /** Built on first need; null when they cannot be (no WebAssembly SIMD): then every scan is JavaScript's. */
  private kernels: Kernels | null | undefined;
  private readonly tables: SlotPool;
  private readonly masks: SlotPool;
  private readonly frameTables: SlotPool;
  private readonly scratch: number;
  private readonly out: number;
  /** What the last findBlock found in its block (see find_block): pair bits 0-15, a bit 16 + k for its word k. */
  found = 0;
  /** The stamp candidates of that block: bit k for a colon at its byte k with another 3 bytes on. */
  foundColons = 0;
  /** What the last passFrames with `cr` passed: how many frames, where the last began (in its chunk) and ended. */
  passedFrames = 0;
  lastPassed = -1;
  lastPassedEnd = -1;
  private readonly leases: { at: number; taken: boolean }[] = [];

  constructor() {
    const tables = 0;
    const masks = tables + TABLE_SLOTS * TABLE_BYTES + REGION_ROOM;
    this.out = masks + MASK_SLOTS * MASK_BYTES + REGION_ROOM;
    const frameTables = this.out + REGION_ROOM;
    this.scratch = frameTables + FRAME_SLOTS * FRAME_TABLE_SLOT;
    let end = this.scratch + SCRATCH_BYTES + REGION_ROOM;
    for (let k = 0; k < READ_LEASES; k++) {
      this.leases.push({ at: end, taken: false });
      end += 2 * (READ_BUFFER_BYTES + REGION_ROOM);
    }
    if (REGION_ROOM < KERNEL_SLACK) throw new Error('ScanMemory: regions leave too little room');
    this.pages = Math.ceil(end / PAGE);
    this.memory = new WebAssembly.Memory({ initial: this.pages, maximum: this.pages });
    this.bytes = Buffer.from(this.memory.buffer);
    this.words = new Uint32Array(this.memory.buffer);
    this.tables = new SlotPool(this.bytes, tables, TABLE_BYTES, TABLE_SLOTS);
    this.masks = new SlotPool(this.bytes, masks, MASK_BYTES, MASK_SLOTS);
    this.frameTables = new SlotPool(this.bytes, frameTables, FRAME_TABLE_SLOT, FRAME_SLOTS);
  }

  /** Whether `chunk` lies in this memory and the kernels can scan it where it is. */
  holds(chunk: Uint8Array): boolean {
    return chunk.buffer === this.bytes.buffer && this.ready();
  }

  /**
   * `chunk` itself when it lies in this memory; else a copy of it in the scratch region (good
   * until the next call), or undefined when it is too big for it (or there are no kernels).
   */
  place(chunk: Buffer): Buffer | undefined {
    if (this.holds(chunk)) return chunk;
    if (chunk.length > SCRATCH_BYTES || !this.ready()) return undefined;
    chunk.copy(this.bytes, this.scratch);
    return this.bytes.subarray(this.scratch, this.scratch + chunk.length);
  }

  /**
   * `head` then `chunk`, copied one after the other into the scratch region (good until the next
   * call), or undefined when they do not fit (or there are no kernels).
   */
  placeJoined(head: Buffer, chunk: Buffer): Buffer | undefined {
    const length = head.length + chunk.length;
    if (length > SCRATCH_BYTES || !this.ready()) return undefined;
    head.copy(this.bytes, this.scratch);
    chunk.copy(this.bytes, this.scratch + head.length);
    return this.bytes.subarray(this.scratch, this.scratch + length);
  }

  /** Two read buffers in this memory for one reader at a time, or undefined when every lease is out. */
  leaseReadBuffers(): { buffers: [Buffer, Buffer]; release: () => void } | undefined {
    const lease = this.leases.find((l) => !l.taken);
    if (!lease) return undefined;
    lease.taken = true;
    const second = lease.at + READ_BUFFER_BYTES + REGION_ROOM;
    return {
      buffers: [this.bytes.subarray(lease.at, lease.at + READ_BUFFER_BYTES), this.bytes.subarray(second, second + READ_BUFFER_BYTES)],
      release: () => void (lease.taken = false),
    };
  }

  /** The address of a word table (TABLE_BYTES) of `owner` (ChunkLiteralScanner), copied in if needed. */
  wordTable(owner: object, version: number, table: Uint8Array): number {
    return this.tables.resident(owner, version, table);
  }

  /** The address of the 64-byte Teddy masks of `owner`, copied in if needed. */
  pairMasks(owner: object, version: number, masks: Uint8Array): number {
    return this.masks.resident(owner, version, masks);
  }

  /** The address of a frame table (pass-frames-kernel.ts) of `owner` (a SameFrames), copied in if needed. */
  frameTable(owner: object, version: number, table: Uint8Array): number {
    return this.frameTables.resident(owner, version, table);
  }

  /**
   * Where the first line at or after `start` (a line start) begins that is none of the table's
   * frames with tqdm's rest (pass_frames), before `limit`; with `cr`, the first `\r` frame of a
   * physical line (`passedFrames`, `lastPassed` and `lastPassedEnd` then say what was passed).
   * `chunk` lies in this memory.
   */
  passFrames(table: number, chunk: Uint8Array, start: number, limit: number, cr: boolean): number {
    const base = chunk.byteOffset;
    const at = this.kernels!.pass_frames(table, base + start, base + limit, cr ? 1 : 0, this.out) - base;
    if (cr) {
      const words = this.out >> 2;
      this.passedFrames = this.words[words]!;
      this.lastPassed = (this.words[words + 1]! | 0) - base;
      this.lastPassedEnd = this.words[words + 2]! - base;
    }
    return at;
  }

  /** The `\n` bytes in `chunk[start, end)`; `chunk` lies in this memory (`holds` said so). */
  countLf(chunk: Uint8Array, start: number, end: number): number {
    return this.kernels!.count_lf(chunk.byteOffset + start, chunk.byteOffset + end);
  }

  /**
   * The address of the first 16-byte block at `from`, `from + 16`, ... (4-aligned addresses in
   * this memory) before `end` where the word probe, the pair search or (with `stamps`) the stamp
   * search has a candidate (find_block), and sets `found` and `foundColons`; -1 if none.
   */
  findBlock(table: number, masks: number, stamps: boolean, from: number, end: number): number {
    const kernels = this.kernels!;
    const at = stamps ? kernels.find_block_stamps(table, masks, this.out, from, end) : kernels.find_block(table, masks, this.out, from, end);
    if (at !== -1) {
      this.found = this.words[this.out >> 2]!;
      this.foundColons = this.words[(this.out >> 2) + 1]!;
    }
    return at;
  }

  /** The 4-byte word at a 4-aligned address of this memory, as the kernels read it. */
  wordAt(address: number): number {
    return this.words[address >> 2]!;
  }

  /** Whether the kernels are there, built now if this is the first time they are needed. */
  private ready(): boolean {
    if (this.kernels === undefined) {
      try {
        const module = new WebAssembly.Module(assembleWat({ pages: this.pages, functions: KERNELS }));
        this.kernels = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports as unknown as Kernels;
      } catch {
        this.kernels = null;
      }
    }
    return this.kernels !== null;
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * The one memory of this process, or null where WebAssembly is not there (`--jitless`) or words
 * would be read in another byte order than the probe tables were built for: then every scan is
 * JavaScript's, as it is where the kernels cannot be built (no WebAssembly SIMD).
 */
export const scanMemory: ScanMemory | null = (() => {
  if (!LITTLE_ENDIAN || typeof WebAssembly !== 'object') return null;
  try {
    return new ScanMemory();
  } catch {
    return null;
  }
})();
