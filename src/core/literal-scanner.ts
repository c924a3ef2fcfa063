/**
 * Finds which of many literals occur in a line. Almost every log line
 * contains none, so the scanner is built to reject fast: each literal of 3+
 * code units is represented by the two adjacent pairs of one 3-unit window,
 * and the line is probed only at every second position (one of the two pairs
 * always ends at an odd index) in a 64 Ki table of pairs; probe hits are
 * verified with `startsWith`. Measured in V8 on ~100 MB of log text with ~150
 * literals, this beat an Aho–Corasick DFA in typed arrays, a combined RegExp
 * of the escaped literals and indexOf over rare anchors.
 *
 * Its speed depends on picking windows whose pairs are rare in the text at
 * hand, which no fixed table knows (a static letter-frequency guess left 12%
 * of probes hitting on NCCL and request-log noise), so the scanner counts
 * the pairs of a sample of the lines it is given and re-picks its windows,
 * once it has scanned `FIRST_SAMPLE_AFTER` lines and again every
 * `RETUNE_EVERY` lines. Which literals are found never depends on
 * the windows; only the speed does. Pairs are hashed by their low bytes, so
 * non-ASCII text costs extra verifications, never a missed literal.
 */
import { cheapestWindow, codeUnits, staticWindow } from './probe-window.js';

export class LiteralScanner {
  readonly literals: readonly string[];
  /** 1 where some literal's probe pair hashes (made by `index`, in the constructor). */
  private table!: Uint8Array;
  /** Probe pair hash -> [literal index, offset of the pair's second unit in it], flattened. */
  private buckets!: Map<number, number[]>;
  /** Literals of 1 or 2 units have no 3-unit window; they are searched directly. */
  private readonly short: number[] = [];
  /**
   * Pair counts of the lines sampled since the last retune: there only while a sample is taken
   * (256 KiB a scanner, and a pack holds several in every thread).
   */
  private counts: Uint32Array | undefined;
  /** Lines until the next sampled one (1 while a sample is being taken). */
  private untilSample = FIRST_SAMPLE_AFTER;
  private sampled = 0;
  /** Per-literal stamp so `scan` dedupes without allocating per line. */
  private readonly seen: Uint32Array;
  private stamp = 0;

  constructor(literals: readonly string[]) {
    if (literals.some((l) => l.length === 0)) throw new RangeError('LiteralScanner: empty literal');
    this.literals = [...literals];
    this.seen = new Uint32Array(literals.length);
    this.literals.forEach((literal, index) => {
      if (literal.length < 3) this.short.push(index);
    });
    this.index(staticWindow);
  }

  /** True when at least one literal occurs in `text`. */
  hasAny(text: string): boolean {
    if (--this.untilSample === 0) this.sample(text);
    const { table, literals } = this;
    const length = text.length;
    for (let i = 1; i < length; i += 2) {
      const hash = ((text.charCodeAt(i - 1) & 0xff) << 8) | (text.charCodeAt(i) & 0xff);
      if (table[hash] === 0) continue;
      const bucket = this.buckets.get(hash)!;
      for (let b = 0; b < bucket.length; b += 2) {
        const start = i - bucket[b + 1]!;
        if (start >= 0 && text.startsWith(literals[bucket[b]!]!, start)) return true;
      }
    }
    return this.short.length > 0 && this.short.some((index) => text.includes(literals[index]!));
  }

  /** Indices (into the constructor's list) of the literals found in `text`, ascending; empty if none. */
  scan(text: string): readonly number[] {
    if (--this.untilSample === 0) this.sample(text);
    const { table } = this;
    const length = text.length;
    let i = 1;
    // The common case, no probe hit at all, allocates nothing.
    while (i < length && table[((text.charCodeAt(i - 1) & 0xff) << 8) | (text.charCodeAt(i) & 0xff)] === 0) i += 2;
    return i >= length && this.short.length === 0 ? NONE : this.collect(text, i);
  }

  private collect(text: string, from: number): number[] {
    const { table, literals, seen } = this;
    const stamp = this.nextStamp();
    const found: number[] = [];
    for (let i = from; i < text.length; i += 2) {
      const hash = ((text.charCodeAt(i - 1) & 0xff) << 8) | (text.charCodeAt(i) & 0xff);
      if (table[hash] === 0) continue;
      const bucket = this.buckets.get(hash)!;
      for (let b = 0; b < bucket.length; b += 2) {
        const index = bucket[b]!;
        const start = i - bucket[b + 1]!;
        if (seen[index] === stamp || start < 0 || !text.startsWith(literals[index]!, start)) continue;
        seen[index] = stamp;
        found.push(index);
      }
    }
    for (const index of this.short) if (text.includes(literals[index]!)) found.push(index);
    return found.length > 1 ? found.sort((a, b) => a - b) : found;
  }

  private sample(text: string): void {
    const counts = (this.counts ??= new Uint32Array(PAIRS));
    for (let i = 1; i < text.length; i++) counts[pairHash(text, i)]++;
    if (++this.sampled < SAMPLE_LINES) {
      this.untilSample = 1;
      return;
    }
    this.index((units, literal) => cheapestWindow(units, (at) => counts[pairHash(literal, at + 1)]! + counts[pairHash(literal, at + 2)]!));
    this.counts = undefined;
    this.sampled = 0;
    this.untilSample = RETUNE_EVERY;
  }

  /** Rebuilds the probe table from the window `choose` picks for each literal, given its code units. */
  private index(choose: (units: readonly number[], literal: string) => number): void {
    this.table = new Uint8Array(PAIRS);
    this.buckets = new Map();
    this.literals.forEach((literal, index) => {
      if (literal.length < 3) return;
      const at = choose(codeUnits(literal), literal);
      this.add(pairHash(literal, at + 1), index, at + 1);
      this.add(pairHash(literal, at + 2), index, at + 2);
    });
  }

  private add(hash: number, index: number, offset: number): void {
    this.table[hash] = 1;
    const bucket = this.buckets.get(hash);
    if (bucket === undefined) this.buckets.set(hash, [index, offset]);
    else bucket.push(index, offset);
  }

  private nextStamp(): number {
    if (this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

const PAIRS = 0x10000;
const NONE: readonly number[] = Object.freeze([]);
/**
 * Lines scanned with the static windows before the first sample. A retune costs about what 16 Ki
 * lines cost on the windows it improves: 7 to 10 ms, against 0.2 to 0.6 µs saved a line (the
 * sglang pack's 291 literals, on rank-bar and serving logs). A run that reads fewer lines through
 * the rules never earns one back: issue 26's rank-bar rows read about 1,700 and spent 17 ms
 * tuning at their 256th. A longer run pays at most one retune's worth for the wait, and samples
 * lines past the launch banner, more like the flood that follows.
 */
export const FIRST_SAMPLE_AFTER = 0x4000;
// Enough lines to see a log's high-volume shapes; few enough to cost nothing.
const SAMPLE_LINES = 256;
// Logs change character after startup (health checks, batch stats): look again.
const RETUNE_EVERY = 0x10000;

/** Hash of the pair of code units ending at `end`. */
function pairHash(text: string, end: number): number {
  return ((text.charCodeAt(end - 1) & 0xff) << 8) | (text.charCodeAt(end) & 0xff);
}
