/**
 * Lines already found quiet before a verdict, by their bytes: a flood repeats a few such lines
 * by the ten thousand (NCCL's `NVLS multicast support is not available on dev 0` from each of
 * 8 ranks holds a failure rule's literal), and telling one again by its bytes costs a hash and
 * a compare, where the line scanner, decoding it and looking its text up cost ten times more.
 * Only lines without a clock stamp are kept: for those the answer depends on nothing but the
 * bytes and the pack (QuietLines.classify). After a verdict, lines whose literal acts on nothing,
 * per pack and verdict (after-verdict.ts).
 */

/** Lines kept: a flood's few repeated shapes, not a log's variety. */
const MAX_LINES = 64;
/** Longer lines are not kept (a compare of them would cost what reading them does). */
const MAX_LINE_BYTES = 512;

/**
 * A cache in memory allocated once: a line's hash picks two slots, it is looked for in both and
 * kept in the one written longer ago (two lines of a flood that share one slot would otherwise
 * push each other out at every line). Keeping copies as Buffers in a Map, cleared when full, made a
 * flood of lines that each differ (NCCL's `comm 0x55d0a8cf9623 rank 1 ...`) allocate a copy per
 * line that lived long enough to be promoted: the old generation grew with the input until V8
 * collected it (issue 26, row j: 1 GB of a load held 5 to 7 MB more than 100 MB did).
 */
export class QuietBytes {
  private readonly mask: number;
  private readonly hashes: Uint32Array;
  /** Per slot: the kept line's length, -1 when the slot is empty. */
  private readonly lengths: Int32Array;
  /** Per slot: when it was written, by a count of lines kept. */
  private readonly written: Float64Array;
  private adds = 0;
  /** Per slot: MAX_LINE_BYTES bytes, the kept line's first. */
  private readonly bytes: Uint8Array;
  private owner: object | undefined;

  /** `maxLines`: slots (rounded up to a power of two). */
  constructor(maxLines = MAX_LINES) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(1, maxLines)));
    this.mask = slots - 1;
    this.hashes = new Uint32Array(slots);
    this.lengths = new Int32Array(slots).fill(-1);
    this.written = new Float64Array(slots);
    this.bytes = new Uint8Array(slots * MAX_LINE_BYTES);
  }

  /** Whether `chunk[start, end)` is a line kept for `owner` (the pack). */
  has(owner: object, chunk: Uint8Array, start: number, end: number): boolean {
    const length = end - start;
    if (owner !== this.owner || length > MAX_LINE_BYTES) return false;
    const hash = hashOf(chunk, start, end);
    return this.holds(hash & this.mask, hash, chunk, start, length) || this.holds(otherSlot(hash, this.mask), hash, chunk, start, length);
  }

  private holds(slot: number, hash: number, chunk: Uint8Array, start: number, length: number): boolean {
    if (this.lengths[slot] !== length || this.hashes[slot] !== hash) return false;
    const bytes = this.bytes;
    const at = slot * MAX_LINE_BYTES;
    for (let k = 0; k < length; k++) if (chunk[start + k] !== bytes[at + k]) return false;
    return true;
  }

  /** Keeps `chunk[start, end)` for `owner`, in the slot of its hash; another owner's lines are forgotten. */
  add(owner: object, chunk: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (length > MAX_LINE_BYTES) return;
    if (owner !== this.owner) {
      this.lengths.fill(-1);
      this.written.fill(0);
      this.owner = owner;
    }
    const hash = hashOf(chunk, start, end);
    const first = hash & this.mask;
    const second = otherSlot(hash, this.mask);
    const slot = this.written[first]! <= this.written[second]! ? first : second;
    this.written[slot] = ++this.adds;
    const bytes = this.bytes;
    const at = slot * MAX_LINE_BYTES;
    for (let k = 0; k < length; k++) bytes[at + k] = chunk[start + k]!;
    this.hashes[slot] = hash;
    this.lengths[slot] = length;
  }
}

/** A line's second slot: from the hash's high bits, which the first (its low bits) leaves unused. */
function otherSlot(hash: number, mask: number): number {
  return (hash >>> 16) & mask;
}

/** FNV-1a over the bytes (a collision only costs the compare, which tells the lines apart). */
function hashOf(chunk: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let k = start; k < end; k++) hash = Math.imul(hash ^ chunk[k]!, 0x01000193);
  return hash >>> 0;
}
