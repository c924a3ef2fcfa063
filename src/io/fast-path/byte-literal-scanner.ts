/**
 * Finds, in raw bytes that were never decoded, which groups of literals a line contains and
 * where its last clock stamp (`\d:\d\d:\d\d`, the shape of every timestamp a prefix rule reads)
 * ends. The same pair-table idea as LiteralScanner, on bytes: each literal of 3+ bytes is
 * represented by the two adjacent pairs of one 3-byte window, and the line is probed only at
 * every second position in a 64 Ki table of pairs (one of the two pairs always ends at a probed
 * position); a probe hit is confirmed with a byte compare. A 2-byte literal `XY` is found by its
 * own pair, or, when that pair ends at an unprobed position, by the probed pair `(?, X)`; a
 * 1-byte literal by any pair it is in, or as the range's last byte. A stamp's first colon always
 * sits in a probed `(digit, :)` or `(:, digit)` pair.
 *
 * Which literals are found never depends on the windows chosen; only the speed does, so the
 * windows are re-picked from the pair counts of a sample of the lines scanned (as in
 * LiteralScanner), once FIRST_SAMPLE_AFTER lines were scanned and again every RETUNE_EVERY.
 */
import { cheapestWindow, staticCost } from '../../core/probe-window.js';

export interface ByteLiteral {
  bytes: Uint8Array;
  /** Bits reported when the literal occurs (its group). */
  mask: number;
}

const PAIRS = 0x10000;
const LITERAL = 1;
const STAMP = 2;
const COLON = 0x3a;
const SAMPLE_LINES = 256;
const RETUNE_EVERY = 0x10000;
/**
 * Lines scanned before the first sample (as LiteralScanner's, which says why): a retune here costs
 * 5 to 7 ms and saves 0.1 to 0.15 µs a line, and issue 26's row i asks this scanner about 4,700
 * lines (the lines glued after bursts of frames among them).
 */
export const FIRST_SAMPLE_AFTER = 0x4000;

export class ByteLiteralScanner {
  /** Set by `scan`: offset from the range's start where its last clock stamp ends, -1 when it has none. */
  stampEnd = -1;
  private readonly literals: readonly ByteLiteral[];
  private table = new Uint8Array(PAIRS);
  /** Per probe pair: [literal index, offset of the pair's second byte in the literal], flattened. */
  private buckets: (number[] | undefined)[] = [];
  /** Per byte value: the masks of 1-byte literals (checked directly on a range's last byte). */
  private readonly single = new Uint8Array(256);
  private readonly counts = new Uint32Array(PAIRS);
  private untilSample = FIRST_SAMPLE_AFTER;
  private sampled = 0;

  constructor(literals: readonly ByteLiteral[]) {
    if (literals.some((l) => l.bytes.length === 0)) throw new RangeError('ByteLiteralScanner: empty literal');
    this.literals = literals;
    for (const { bytes, mask } of literals) if (bytes.length === 1) this.single[bytes[0]!]! |= mask;
    this.index(staticCost);
  }

  /**
   * The OR of the masks of the literals found in `bytes[start, end)`; stops at the first literal
   * whose mask meets `stopAt` (then `stampEnd` is not known: -1).
   */
  scan(bytes: Uint8Array, start: number, end: number, stopAt = 0): number {
    if (--this.untilSample === 0) this.sample(bytes, start, end);
    const table = this.table;
    let mask = 0;
    let stampEnd = -1;
    for (let i = start + 1; i < end; i += 2) {
      const flags = table[(bytes[i - 1]! << 8) | bytes[i]!]!;
      if (flags === 0) continue;
      if (flags & STAMP) {
        const stamp = stampFrom(bytes, bytes[i] === COLON ? i : i - 1, start, end);
        if (stamp > stampEnd) stampEnd = stamp;
      }
      if (flags & LITERAL) {
        mask |= this.confirm(bytes, i, start, end);
        if (mask & stopAt) {
          this.stampEnd = -1;
          return mask;
        }
      }
    }
    // An odd-length range's last byte ends no probed pair.
    if ((end - start) & 1) mask |= this.single[bytes[end - 1]!]!;
    this.stampEnd = stampEnd < 0 ? -1 : stampEnd - start;
    return mask;
  }

  private confirm(bytes: Uint8Array, i: number, start: number, end: number): number {
    const bucket = this.buckets[(bytes[i - 1]! << 8) | bytes[i]!]!;
    let mask = 0;
    for (let b = 0; b < bucket.length; b += 2) {
      const literal = this.literals[bucket[b]!]!;
      const at = i - bucket[b + 1]!;
      if (at >= start && at + literal.bytes.length <= end && occursAt(bytes, at, literal.bytes)) mask |= literal.mask;
    }
    return mask;
  }

  private sample(bytes: Uint8Array, start: number, end: number): void {
    const counts = this.counts;
    for (let i = start + 1; i < end; i++) counts[(bytes[i - 1]! << 8) | bytes[i]!]++;
    if (++this.sampled < SAMPLE_LINES) {
      this.untilSample = 1;
      return;
    }
    this.index((literal, at) => counts[pairAt(literal, at + 1)]! + counts[pairAt(literal, at + 2)]!);
    counts.fill(0);
    this.sampled = 0;
    this.untilSample = RETUNE_EVERY;
  }

  /** Rebuilds the probe table: stamp pairs, each literal's cheapest window, 2-byte literals. */
  private index(cost: (literal: Uint8Array, at: number) => number): void {
    this.table = new Uint8Array(PAIRS);
    this.buckets = new Array<number[] | undefined>(PAIRS).fill(undefined);
    for (let digit = 0x30; digit <= 0x39; digit++) {
      this.table[(digit << 8) | COLON] = STAMP;
      this.table[(COLON << 8) | digit] = STAMP;
    }
    this.literals.forEach(({ bytes }, index) => {
      if (bytes.length === 1) {
        for (let other = 0; other < 256; other++) {
          this.add((other << 8) | bytes[0]!, index, 0);
          this.add((bytes[0]! << 8) | other, index, 1);
        }
        return;
      }
      if (bytes.length === 2) {
        this.add(pairAt(bytes, 1), index, 1);
        for (let before = 0; before < 256; before++) this.add((before << 8) | bytes[0]!, index, 0);
        return;
      }
      const at = cheapestWindow(bytes, (at) => cost(bytes, at));
      this.add(pairAt(bytes, at + 1), index, at + 1);
      this.add(pairAt(bytes, at + 2), index, at + 2);
    });
  }

  private add(pair: number, index: number, offset: number): void {
    this.table[pair]! |= LITERAL;
    const bucket = this.buckets[pair];
    if (bucket === undefined) this.buckets[pair] = [index, offset];
    else bucket.push(index, offset);
  }
}

/** End of the stamp whose first colon is at `colon` (`d:dd:dd`) within `[start, end)`, or -1. */
export function stampFrom(bytes: Uint8Array, colon: number, start: number, end: number): number {
  if (colon - 1 < start || colon + 6 > end) return -1;
  const ok =
    isDigit(bytes[colon - 1]!) &&
    isDigit(bytes[colon + 1]!) &&
    isDigit(bytes[colon + 2]!) &&
    bytes[colon + 3] === COLON &&
    isDigit(bytes[colon + 4]!) &&
    isDigit(bytes[colon + 5]!);
  return ok ? colon + 6 : -1;
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

/** Whether `literal` occurs in `bytes` at `at` (the caller keeps it within bounds). */
export function occursAt(bytes: Uint8Array, at: number, literal: Uint8Array): boolean {
  for (let k = 0; k < literal.length; k++) if (bytes[at + k] !== literal[k]) return false;
  return true;
}

/** The pair of bytes ending at `end`. */
function pairAt(bytes: Uint8Array, end: number): number {
  return (bytes[end - 1]! << 8) | bytes[end]!;
}
