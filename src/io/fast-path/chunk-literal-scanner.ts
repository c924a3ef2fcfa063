/**
 * Finds the first line of a whole chunk of raw bytes that holds any of a set of literals, without
 * looking at the lines in between: the watch loop's way through a serving server's traffic once
 * a verdict is given (io/skip-after-verdict.ts).
 *
 * Long literals (7+ bytes) are found one aligned 4-byte word at a time: every occurrence of such
 * a literal wholly contains an aligned word, whichever its alignment, so for each of the four
 * alignments one word of the literal is hashed into a table (2^18 slots), and the chunk is probed with
 * one 32-bit load, a multiply and a table load per four bytes; a probe hit is confirmed with a
 * byte compare. Which word stands for an alignment is picked by how rare its 4-gram is in a
 * sample of the text (the speed depends on it, never which literals are found). Short literals:
 * short-literal-search.ts. In the kernels' memory (wasm/scan-memory.ts) one pass of the
 * find_block kernel does every search, 16 bytes a step: the same probe on the same table, the
 * short literals by pairs, and stamps by their colons (below); JavaScript confirms the
 * candidates of a block it stops at.
 *
 * With `stamps`, it finds clock stamps (`d:dd:dd`, as ByteLiteralScanner reads them) too: every
 * stamp wholly contains an aligned word of one of the shapes `d:dd`, `:dd:`, `dd:d` (a few
 * thousand words, flagged in the same table), confirmed by the bytes around the colon. The
 * find_block kernel does not use those words (they stop it at every NCCL line's
 * `node01:41200:41900`, and share slots with common words): it finds a colon with another 3
 * bytes on, and JavaScript checks the digits.
 *
 * A literal holds no line break, so the words that find it lie inside its line, and scanning
 * words left to right meets the lines that hold a literal in order. Searches are remembered for
 * the chunk: asked again further on, the scanner goes on from where it stopped.
 */
import { occursAt, stampFrom } from './byte-literal-scanner.js';
import { ShortLiteralSearch } from './short-literal-search.js';
import { scanMemory } from './wasm/scan-memory.js';
import { LITERAL_WORD_FLAG, WORD_HASH, WORD_TABLE_BITS } from './wasm/kernel-source.js';

/** Literals shorter than this cannot be found by a word probe at every alignment. */
const WORD_LITERAL_MIN = 7;
const WORD = 4;
/** Bytes the find_block kernel steps by. */
const BLOCK = 16;
const TABLE_BITS = WORD_TABLE_BITS;
const SHIFT = 32 - TABLE_BITS;
/** Fibonacci hashing: a multiply spreads the 4-gram over the table, the top bits pick the slot. */
const HASH = WORD_HASH;
const LF = 10;
/**
 * Bytes sampled to pick rare words and bytes, again after every RETUNE_BYTES scanned: a pipe's
 * chunk. 256 KiB took 8 to 10 ms of a start (2 to 3% of row h), counted before the code warmed.
 */
const SAMPLE_BYTES = 1 << 16;
const MIN_SAMPLE_BYTES = 1 << 14;
const RETUNE_BYTES = 1 << 28;
/** Not searched yet in this chunk (the cache below). */
const UNKNOWN = -2;
const LITERAL_WORD = LITERAL_WORD_FLAG;
const STAMP_WORD = 2;
const COLON = 0x3a;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Whether the whole line `chunk[start, end)` (`end`: its `\n`) may be passed over by the search
 * (see nextLine): -1 when not, else where the search goes on (`end + 1`, or past more lines like
 * it, before `limit`).
 */
export type PassLine = (chunk: Uint8Array, start: number, end: number, limit: number) => number;

export class ChunkLiteralScanner {
  private readonly long: Uint8Array[];
  private readonly short: ShortLiteralSearch;
  private readonly table = new Uint8Array(1 << TABLE_BITS);
  /** Changes with the table: the kernels' memory holds a copy of it. */
  private tableVersion = 0;
  /** Per table slot in use: [long literal index, offset of its probe word], flattened. */
  private readonly buckets = new Map<number, number[]>();
  /** Bytes to scan before the next sample (0: take one as soon as a chunk is big enough). */
  private untilTune = 0;
  // What was found in the chunk being scanned: where the next long literal begins, at or after
  // `searchedFrom` (-1: none up to `end`; UNKNOWN: not searched); the short ones' is kept by
  // `short`. Words are probed in order, so no line before the next long literal's holds a long
  // literal. In the kernels' memory `nextLong` is where the next literal of either kind begins.
  private chunk: Uint8Array | undefined;
  private end = 0;
  /** The last search was asked to pass lines over (see nextLine): what it found says nothing now. */
  private passing = false;
  /** The last search passed lines over itself (it ran in the kernels' memory). */
  private passed = false;
  private searchedFrom = 0;
  private nextLong = -1;
  /** The chunk lies in the kernels' memory (asked once per chunk: a Buffer's `buffer` is not free). */
  private inMemory = false;
  private readonly stamps: boolean;
  /** The aligned words of the chunk's searched range, from word `wordsFrom` of its buffer on. */
  private words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  private wordsFrom = 0;

  constructor(literals: readonly Uint8Array[], options: { stamps?: boolean } = {}) {
    if (literals.some((l) => l.length === 0)) throw new RangeError('ChunkLiteralScanner: empty literal');
    this.stamps = options.stamps === true;
    this.long = literals.filter((literal) => literal.length >= WORD_LITERAL_MIN);
    this.short = new ShortLiteralSearch(literals.filter((literal) => literal.length < WORD_LITERAL_MIN));
    this.index(() => 0);
  }

  /** Forgets what was found: the next `nextLine` searches afresh (new bytes in a reused buffer). */
  forget(): void {
    this.chunk = undefined;
  }

  /**
   * The start of the first line in `chunk[start, end)` that holds a literal (lines begin after
   * `\n`; the one at `start` begins there), or -1 when none does. Asked again for the same chunk
   * and end with a later `start`, it resumes. With `pass`, a line that holds a literal but that
   * `pass` accepts may be passed over (in the kernels' memory it is, without leaving the scan:
   * `passedLines` says so; elsewhere it is found like any other): a bar redrawn on lines of its
   * own, which the caller would pass over anyway, on every other line of a flood.
   */
  nextLine(chunk: Buffer, start: number, end: number, pass?: PassLine): number {
    // What `pass` accepts may change between searches (the caller reads lines): nothing is kept.
    if (pass !== undefined || this.passing) this.nextLong = UNKNOWN;
    this.passing = pass !== undefined;
    if (chunk !== this.chunk || end !== this.end || start < this.searchedFrom) {
      if (this.untilTune <= 0) this.tune(chunk, start, end);
      this.untilTune -= end - start;
      this.chunk = chunk;
      this.end = end;
      this.inMemory = scanMemory?.holds(chunk) === true;
      this.nextLong = UNKNOWN;
      this.short.forget();
      // One view of the range's aligned words per chunk, not one per search: asked again at
      // every line a literal is on (a shard bar each fifth line), a view each time cost 10 %.
      this.wordsFrom = Math.ceil((chunk.byteOffset + start) / WORD);
      const wordsTo = Math.floor((chunk.byteOffset + end) / WORD);
      this.words = new Uint32Array(chunk.buffer, this.wordsFrom * WORD, Math.max(0, wordsTo - this.wordsFrom));
    }
    this.searchedFrom = start;
    const inMemory = this.inMemory;
    // A cached occurrence before `start` was passed by the caller: search on from `start`.
    this.passed = inMemory && pass !== undefined;
    if (this.nextLong === UNKNOWN || (this.nextLong >= 0 && this.nextLong < start)) this.nextLong = inMemory ? this.findInMemory(chunk, start, end, pass) : this.findLong(chunk, start, end);
    const short = inMemory ? -1 : this.short.find(chunk, start, end);
    const first = this.nextLong === -1 || (short !== -1 && short < this.nextLong) ? short : this.nextLong;
    return first === -1 ? -1 : lineStart(chunk, start, first);
  }

  /** Whether the last `nextLine` passed over the lines `pass` accepts (else the caller does). */
  get passedLines(): boolean {
    return this.passed;
  }

  /** Where the first long literal in `chunk[start, end)` begins, or -1. */
  private findLong(chunk: Uint8Array, start: number, end: number): number {
    if (this.long.length === 0 && !this.stamps) return -1;
    // Words wholly inside [start, end), aligned in memory: the chunk's words from `start`'s on.
    const words = this.words;
    const base = this.wordsFrom * WORD - chunk.byteOffset;
    const table = this.table;
    const count = words.length;
    let w = Math.ceil((chunk.byteOffset + start) / WORD) - this.wordsFrom;
    if (w >= count) return -1;
    // Four words a turn: one branch for four probes, as almost every probe misses. The loop runs
    // to the view's own length (a bound computed otherwise measured 40 % slower in V8).
    for (const whole = count - ((count - w) % 4); w < whole; w += 4) {
      const any =
        table[Math.imul(words[w]!, HASH) >>> SHIFT]! |
        table[Math.imul(words[w + 1]!, HASH) >>> SHIFT]! |
        table[Math.imul(words[w + 2]!, HASH) >>> SHIFT]! |
        table[Math.imul(words[w + 3]!, HASH) >>> SHIFT]!;
      if (any === 0) continue;
      for (let k = w; k < w + 4; k++) {
        const flags = table[Math.imul(words[k]!, HASH) >>> SHIFT]!;
        if (flags === 0) continue;
        const at = flags === STAMP_WORD ? stampThrough(chunk, base + k * WORD, start, end) : this.probe(chunk, words[k]!, base + k * WORD, start, end);
        if (at !== -1) return at;
      }
    }
    for (; w < count; w++) {
      const at = this.probe(chunk, words[w]!, base + w * WORD, start, end);
      if (at !== -1) return at;
    }
    return -1;
  }

  /**
   * Where the first literal of either kind in `chunk[start, end)` begins, or -1, by find_block.
   * The blocks begin at the aligned word holding `start`: words and pairs partly outside the
   * range are confirmed against it like the others. Of the literals confirmed in one block the
   * first to begin is taken; one that begins before it but is found in a later block holds it
   * (no line break in between), so the line is the same. With `pass`, the start of the line.
   */
  private findInMemory(chunk: Uint8Array, start: number, end: number, pass: PassLine | undefined): number {
    const memory = scanMemory!;
    const table = memory.wordTable(this, this.tableVersion, this.table);
    const masks = memory.pairMasks(this.short, this.short.version, this.short.masks);
    // Addresses in the memory: a block may begin just before the chunk (offset -1 to -3).
    const base = chunk.byteOffset;
    const from = base + start - ((base + start) % WORD);
    const stamps = this.stamps;
    for (let address = memory.findBlock(table, masks, stamps, from, base + end); address !== -1; address = memory.findBlock(table, masks, stamps, address + BLOCK, base + end)) {
      const block = address - base;
      let found = -1;
      // A colon with another 3 bytes on: a stamp if the digits are there (it begins a byte before).
      for (let bits = memory.foundColons; bits !== 0; bits &= bits - 1) {
        const colon = block + 31 - Math.clz32(bits & -bits);
        if (stampFrom(chunk, colon, start, end) !== -1) {
          found = colon - 1;
          break;
        }
      }
      for (let bits = memory.found; bits !== 0; bits &= bits - 1) {
        const bit = 31 - Math.clz32(bits & -bits);
        let hit: number;
        if (bit >= BLOCK) {
          // A word whose slot has a literal: the probe looks up which.
          const at = (bit - BLOCK) * WORD;
          hit = this.probe(chunk, memory.wordAt(address + at), block + at, start, end);
        } else {
          hit = this.short.literalAt(chunk, block + bit, start, end);
        }
        if (hit !== -1 && (found === -1 || hit < found)) found = hit;
      }
      if (found === -1) continue;
      if (pass === undefined) return found;
      // A whole line that `pass` accepts is passed over here, the scan going on after it.
      const line = lineStart(chunk, start, found);
      const lf = chunk.indexOf(LF, found);
      const next = lf === -1 || lf >= end ? -1 : pass(chunk, line, lf, end);
      if (next === -1) return line;
      start = next;
      address = base + start - ((base + start) % WORD) - BLOCK;
    }
    return -1;
  }

  /** Where the long literal (or stamp) that the word at `wordAt` stands for begins, if it is there; else -1. */
  private probe(chunk: Uint8Array, word: number, wordAt: number, start: number, end: number): number {
    const slot = Math.imul(word, HASH) >>> SHIFT;
    const flags = this.table[slot]!;
    if (flags === 0) return -1;
    if (flags & STAMP_WORD) {
      const at = stampThrough(chunk, wordAt, start, end);
      if (at !== -1) return at;
    }
    if (!(flags & LITERAL_WORD)) return -1;
    const bucket = this.buckets.get(slot)!;
    for (let b = 0; b < bucket.length; b += 2) {
      const literal = this.long[bucket[b]!]!;
      const at = wordAt - bucket[b + 1]!;
      if (at >= start && at + literal.length <= end && occursAt(chunk, at, literal)) return at;
    }
    return -1;
  }

  /** Picks probe words and search bytes from the counts of a sample of the text. */
  private tune(chunk: Uint8Array, start: number, end: number): void {
    const stop = Math.min(end, start + SAMPLE_BYTES);
    // Too little text to count says little: the choice stands until a bigger chunk comes (a
    // pipe's are 64 KiB).
    if (stop - start < MIN_SAMPLE_BYTES) return;
    this.untilTune = RETUNE_BYTES;
    // Shared counts (tuning is synchronous): a scanner retunes every RETUNE_BYTES, and fresh
    // arrays each time were large garbage.
    const { grams, bytes, pairs } = COUNTS;
    grams.fill(0);
    bytes.fill(0);
    pairs.fill(0);
    // One pass: each byte, the pair it begins, the word it begins.
    for (let at = start; at < stop; at++) {
      bytes[chunk[at]!]++;
      if (at + 1 < stop) pairs[(chunk[at]! << 8) | chunk[at + 1]!]++;
      if (at + WORD <= stop) grams[slotOf(chunk, at)]++;
    }
    this.index((literal, at) => grams[slotOf(literal, at)]!);
    this.short.tune(
      (byte) => bytes[byte]!,
      (first, second) => pairs[(first << 8) | second]!,
    );
  }

  private index(wordCost: (literal: Uint8Array, at: number) => number): void {
    this.table.fill(0);
    this.buckets.clear();
    this.long.forEach((literal, index) => {
      for (let alignment = 0; alignment < WORD; alignment++) {
        // A literal starting at alignment `alignment` holds aligned words at these offsets.
        let best = -1;
        for (let at = (WORD - alignment) % WORD; at + WORD <= literal.length; at += WORD) {
          if (best === -1 || wordCost(literal, at) < wordCost(literal, best)) best = at;
        }
        const slot = slotOf(literal, best);
        this.table[slot]! |= LITERAL_WORD;
        const bucket = this.buckets.get(slot);
        if (bucket === undefined) this.buckets.set(slot, [index, best]);
        else if (!hasEntry(bucket, index, best)) bucket.push(index, best);
      }
    });
    if (this.stamps) for (const slot of STAMP_SLOTS) this.table[slot]! |= STAMP_WORD;
    this.tableVersion++;
    this.chunk = undefined;
  }
}

/** Counts of a sample, for tuning. */
const COUNTS = { grams: new Uint32Array(1 << TABLE_BITS), bytes: new Uint32Array(256), pairs: new Uint32Array(1 << 16) };

/** The aligned words a stamp `d:dd:dd` can hold whole: `d:dd`, `:dd:` and `dd:d`, every digit. */
function stampWords(): Uint8Array[] {
  const words: Uint8Array[] = [];
  const digit = (n: number): number => 0x30 + n;
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) {
      words.push(Uint8Array.of(COLON, digit(a), digit(b), COLON));
      for (let c = 0; c < 10; c++) words.push(Uint8Array.of(digit(a), COLON, digit(b), digit(c)), Uint8Array.of(digit(a), digit(b), COLON, digit(c)));
    }
  }
  return words;
}

/**
 * Where the stamp begins that wholly holds the word at `wordAt`, or -1. Such a word is `d:dd`,
 * `:dd:` or `dd:d`: its first colon at +1, +2 or 0 is the stamp's first colon (the second one
 * 3 on) or its second (the first 3 back). Looking there first matters: a stamp word's slot is
 * shared with other words (` INF` and `CL I` in an NCCL flood), and NCCL's `node01:41200:41900`
 * holds `1:41` on every line.
 */
function stampThrough(chunk: Uint8Array, wordAt: number, start: number, end: number): number {
  const colon = chunk[wordAt + 1] === COLON ? wordAt + 1 : chunk[wordAt + 2] === COLON ? wordAt + 2 : chunk[wordAt] === COLON ? wordAt : -1;
  if (colon === -1) return -1;
  if (chunk[colon - 3] === COLON && stampFrom(chunk, colon - 3, start, end) !== -1) return colon - 4;
  if (chunk[colon + 3] === COLON && stampFrom(chunk, colon, start, end) !== -1) return colon - 1;
  return -1;
}

/**
 * The start of the line holding `at`, not before `start`. A loop, not Buffer.lastIndexOf: asked
 * at every line the scan stops at (a shard bar each fifth line), where the literal is most often
 * near the line's start, and lastIndexOf's checks of its arguments cost more.
 */
function lineStart(chunk: Uint8Array, start: number, at: number): number {
  let k = at;
  while (k > start && chunk[k - 1] !== LF) k--;
  return k;
}

/** Table slot of the 4 bytes at `at`, read as the word probe reads them from memory. */
function slotOf(bytes: Uint8Array, at: number): number {
  const word = LITTLE_ENDIAN
    ? bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)
    : (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
  return Math.imul(word, HASH) >>> SHIFT;
}

function hasEntry(bucket: number[], index: number, offset: number): boolean {
  for (let b = 0; b < bucket.length; b += 2) if (bucket[b] === index && bucket[b + 1] === offset) return true;
  return false;
}

/** The table slots of the stamp words. */
const STAMP_SLOTS = [...new Set(stampWords().map((word) => slotOf(word, 0)))];
