/**
 * ChunkLiteralScanner's short literals (under 7 bytes, too short for its word probe), searched
 * one of two ways:
 *  - in the kernels' memory (wasm/scan-memory.ts), by pairs: each literal is given one pair of
 *    adjacent bytes, its rarest in a sample of the text (a 1-byte literal: that byte and any
 *    after it), and the find_block kernel's Teddy masks find where a pair begins (up to eight
 *    literals exactly; more share buckets); `literalAt` confirms one position;
 *  - elsewhere (`find`), each literal with Buffer.indexOf (memchr) from its rarest byte, where
 *    the first begins remembered per literal for the chunk, so that asking again further on
 *    goes on from there.
 */
import { occursAt } from './byte-literal-scanner.js';
import { MASK_BYTES } from './wasm/scan-memory.js';

const BUCKETS = 8;
/** Not searched yet in this chunk. */
const UNKNOWN = -2;

interface ShortLiteral {
  bytes: Uint8Array;
  /** Offset of the byte an indexOf search starts from (the rarest), and the bytes from it on. */
  from: number;
  needle: Buffer;
  /** Offset of the pair the Teddy kernel finds. */
  pairAt: number;
  /** Its Teddy bucket (0-7). */
  bucket: number;
}

export class ShortLiteralSearch {
  private readonly literals: ShortLiteral[];
  /** The Teddy masks (see find_block in wasm/kernel-source.ts), and their version (the memory keeps a copy). */
  readonly masks = new Uint8Array(MASK_BYTES);
  version = 0;
  /** Per literal: where the next one begins, -1 none, UNKNOWN. */
  private next: number[];

  constructor(literals: readonly Uint8Array[]) {
    this.literals = literals.map((bytes) => ({ bytes, from: 0, needle: Buffer.from(bytes), pairAt: 0, bucket: 0 }));
    this.next = this.literals.map(() => UNKNOWN);
    this.buildMasks();
  }

  get empty(): boolean {
    return this.literals.length === 0;
  }

  /** The chunk or the range changed: nothing found is known any more. */
  forget(): void {
    this.next.fill(UNKNOWN);
  }

  /** Where the first short literal wholly in `chunk[start, end)` begins, or -1; resumes within one chunk (see forget). */
  find(chunk: Buffer, start: number, end: number): number {
    let first = -1;
    this.literals.forEach((literal, k) => {
      let next = this.next[k]!;
      if (next === UNKNOWN || (next >= 0 && next < start)) this.next[k] = next = findOne(literal, chunk, start, end);
      if (next !== -1 && (first === -1 || next < first)) first = next;
    });
    return first;
  }

  /** Picks the search byte and the pair of each literal by their counts in a sample. */
  tune(byteCount: (byte: number) => number, pairCount: (first: number, second: number) => number): void {
    for (const literal of this.literals) {
      const { bytes } = literal;
      let from = 0;
      for (let at = 1; at < bytes.length; at++) if (byteCount(bytes[at]!) < byteCount(bytes[from]!)) from = at;
      literal.from = from;
      literal.needle = Buffer.from(bytes.subarray(from));
      let pairAt = 0;
      for (let at = 1; at + 1 < bytes.length; at++) if (pairCount(bytes[at]!, bytes[at + 1]!) < pairCount(bytes[pairAt]!, bytes[pairAt + 1]!)) pairAt = at;
      literal.pairAt = pairAt;
    }
    this.buildMasks();
    this.forget();
  }

  /** Where a literal wholly in `chunk[start, end)` whose pair begins at `at` begins (the first such), or -1. */
  literalAt(chunk: Uint8Array, at: number, start: number, end: number): number {
    const masks = this.masks;
    const first = chunk[at]!;
    const second = chunk[at + 1] ?? 0;
    const buckets = masks[first & 15]! & masks[16 + (first >> 4)]! & masks[32 + (second & 15)]! & masks[48 + (second >> 4)]!;
    if (buckets === 0) return -1;
    let found = -1;
    for (const { bytes, pairAt, bucket } of this.literals) {
      const begin = at - pairAt;
      if (buckets & (1 << bucket) && begin >= start && begin + bytes.length <= end && (found === -1 || begin < found) && occursAt(chunk, begin, bytes)) found = begin;
    }
    return found;
  }

  /**
   * Teddy masks: low and high nibble tables of the pair's first byte, then of its second. A
   * bucket accepts every combination of the nibbles of its literals, so literals share buckets
   * (more than eight) where that adds the fewest: a 1-byte literal (any second byte) sharing a
   * bucket with `Xid ` would make every `]` followed by anything a candidate.
   */
  private buildMasks(): void {
    // Per literal its four nibble sets, and per bucket the union of its literals' (no arrays
    // made per step: done at every start and retune, for a few hundred literals, it took 7 ms).
    const count = this.literals.length;
    const sets = new Int32Array(count * 4);
    const widths = new Float64Array(count);
    this.literals.forEach(({ bytes, pairAt }, k) => {
      const first = bytes[pairAt]!;
      const second = bytes.length === 1 ? -1 : bytes[pairAt + 1]!;
      sets.set([1 << (first & 15), 1 << (first >> 4), second < 0 ? 0xffff : 1 << (second & 15), second < 0 ? 0xffff : 1 << (second >> 4)], k * 4);
      widths[k] = accepted(sets, k * 4);
    });
    const buckets = new Int32Array(BUCKETS * 4);
    const joined = new Int32Array(4);
    // The widest first, so that they get buckets of their own.
    const order = this.literals.map((_, k) => k).sort((a, b) => widths[b]! - widths[a]!);
    for (const k of order) {
      let best = 0;
      let bestCost = Infinity;
      for (let index = 0; index < BUCKETS; index++) {
        for (let table = 0; table < 4; table++) joined[table] = buckets[index * 4 + table]! | sets[k * 4 + table]!;
        const cost = accepted(joined, 0) - accepted(buckets, index * 4);
        if (cost < bestCost) {
          best = index;
          bestCost = cost;
        }
      }
      for (let table = 0; table < 4; table++) buckets[best * 4 + table]! |= sets[k * 4 + table]!;
      this.literals[k]!.bucket = best;
    }
    const masks = this.masks;
    masks.fill(0);
    for (let index = 0; index < BUCKETS; index++) {
      for (let table = 0; table < 4; table++) {
        const set = buckets[index * 4 + table]!;
        for (let nibble = 0; nibble < 16; nibble++) if (set & (1 << nibble)) masks[table * 16 + nibble]! |= 1 << index;
      }
    }
    this.version++;
  }
}

/** How many byte pairs a bucket with these nibble sets (low, high of each byte) accepts. */
function accepted(sets: Int32Array, at: number): number {
  return bitCount(sets[at]!) * bitCount(sets[at + 1]!) * bitCount(sets[at + 2]!) * bitCount(sets[at + 3]!);
}

function bitCount(set: number): number {
  let count = 0;
  for (let rest = set; rest !== 0; rest &= rest - 1) count++;
  return count;
}

function findOne(literal: ShortLiteral, chunk: Buffer, start: number, end: number): number {
  const { bytes, from, needle } = literal;
  for (let at = chunk.indexOf(needle, start + from); at !== -1; at = chunk.indexOf(needle, at + 1)) {
    const begin = at - from;
    if (begin + bytes.length > end) return -1;
    if (occursAt(chunk, begin, bytes)) return begin;
  }
  return -1;
}
