/**
 * Progress bars already seen, each by the text before its counters (its head: the rank tag, the
 * description) and the shape of what follows: a later frame of the same bar is told apart from
 * any other line without the rule cascade, and its numbers are read in place, from a string or
 * from a line's raw bytes, allocating nothing. tqdm redraws a bar with a new elapsed time and
 * rate every time, so no two frames are the same text (issue 26); what a frame says is all in
 * its numbers:
 *
 *   (Worker_TP3 pid=41203) Loading safetensors checkpoint shards|:  12% Completed | 6/49 [00:03<00:25,  1.75it/s]
 *   ------------------- head -------------------------------- | tail: shape `:#%Completed|#/#`, then `[elapsed<`
 *
 * The shape is the tail's text up to the total with the digits, the blanks and every non-ASCII
 * byte left out (a bar's glyphs). Frames are read as bytes: a frame given as a string is
 * encoded once into a scratch buffer, so every loop below reads one kind of source. Whatever follows
 * the elapsed time must be a short `remaining, rate]`: text glued after a frame (a log line that
 * lost its newline) is no frame of the bar. A control character anywhere (raw bytes with a colour
 * code) and it is none either.
 */
import type { ProgressHit } from './rule-kinds.js';

/** One bar: how its frames look, and which of their numbers is what. */
export interface KnownBar {
  readonly head: string;
  readonly headBytes: Uint8Array;
  /** The head's bytes four at a time, as little-endian words (the whole words only). */
  readonly headWords: Int32Array;
  /** ProgressHit.key of the bar: one rank's, or the bar's own for a frame that names no rank. */
  readonly key: string;
  /** ProgressHit.bar: the bar whatever the rank. */
  readonly bar: string;
  readonly anonymous: boolean;
  /** The tail's numbers up to and including the total (for a bar of percentages, the percentage). */
  readonly numbers: number;
  readonly currentAt: number;
  /** The last of those numbers, always this value (the total; undefined for a bar of percentages). */
  readonly total: number | undefined;
  readonly shape: number;
}

/** What the last frame recognised shows; overwritten by the next call. */
export interface BarReading {
  current: number;
  /** The bar's elapsed time in whole seconds, -1 when the frame shows none. */
  elapsedS: number;
}

/** Bars remembered: the bars of a start (ranks times passes), not a log's every line. */
const MAX_BARS = 64;
/**
 * `remaining, rate]` after the elapsed time: `<00:25,  1.75it/s]` is 19; a postfix may add a
 * little. The `]` at most this many bytes after the `<` (io/fast-path/same-frames.ts and its
 * kernel hold frames to the same).
 */
export const MAX_AFTER_ELAPSED = 48;
const MAX_NUMBERS = 16;
const HASH_DIGITS = 0x23;
const WORD = 4;
/** A frame longer than this (as UTF-8) is no bar's: heads and tails are short. */
const MAX_FRAME_BYTES = 4096;
const utf8 = new TextEncoder();

const ZERO = 0x30;
const NINE = 0x39;
const SPACE = 0x20;
const COLON = 0x3a;
const LT = 0x3c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

export class KnownBars {
  private bars: KnownBar[] = [];
  private changes = 0;
  /** The numbers of the tail read last (reused: nothing is allocated per frame). */
  private readonly values = new Float64Array(MAX_NUMBERS);
  readonly reading: BarReading = { current: 0, elapsedS: -1 };
  private tailEnd = 0;
  /** How many units every head begins with alike (where a head is none: see recognize). */
  private sharedHead = 0;
  /** A view of the memory the last raw line lay in, and the bytes it was given in (see headEnd). */
  private view: DataView | undefined;
  private viewOf: Uint8Array | undefined;
  /** Where those bytes begin in the view. */
  private viewAt = 0;
  /** A string frame's bytes (see recognize). */
  private readonly scratch = new Uint8Array(MAX_FRAME_BYTES);
  private readonly scratchView = new DataView(this.scratch.buffer);

  get size(): number {
    return this.bars.length;
  }

  /** Changes whenever a bar is learned or forgotten. */
  get version(): number {
    return this.changes;
  }

  /**
   * Remembers the bar of a frame the rules matched (`text`: the guarded frame; `countersAt`:
   * where its counters begin in it). Left alone when its numbers cannot be placed (a custom
   * bar format): its frames then go through the rules as before.
   */
  learn(text: string, hit: ProgressHit, countersAt: number): void {
    if (countersAt > text.length) return;
    if (this.bars.some((bar) => bar.key === hit.key && text.startsWith(bar.head))) return;
    const head = text.slice(0, countersAt);
    const place = placeNumbers(text, countersAt, hit);
    const bytes = this.bytesOf(text);
    if (place === undefined || bytes < 0) return;
    const headBytes = Buffer.from(head);
    const shape = this.readTail(this.scratch, headBytes.length, bytes, place.numbers);
    if (shape === undefined) return;
    const bar: KnownBar = { head, headBytes, headWords: wordsOf(headBytes), key: hit.key, bar: hit.bar, anonymous: hit.anonymous, numbers: place.numbers, currentAt: place.currentAt, total: place.percentOnly ? undefined : hit.total, shape };
    if (this.recognizeAs(bar, this.scratch, 0, bytes) === undefined) return;
    // The newest first: a start draws its bars one stage after another.
    this.bars.unshift(bar);
    this.changes++;
    if (this.bars.length > MAX_BARS) this.bars.pop();
    this.sharedHead = sharedStart(this.bars);
  }

  /** Forgets every bar (a new run of the server). */
  clear(): void {
    if (this.bars.length > 0) this.bars = [];
    this.changes++;
    this.sharedHead = 0;
  }

  /**
   * The known bar that `source[start, end)` (a guarded frame, or a raw line's bytes without its
   * newline) is a frame of, its numbers in `reading`; undefined when it is none.
   */
  recognize(source: string | Uint8Array, start: number, end: number): KnownBar | undefined {
    if (this.bars.length === 0) return undefined;
    if (typeof source === 'string') {
      const bytes = this.bytesOf(start === 0 && end === source.length ? source : source.slice(start, end));
      return bytes < 0 ? undefined : this.recognizeBytes(this.scratch, 0, bytes);
    }
    return this.recognizeBytes(source, start, end);
  }

  private recognizeBytes(source: Uint8Array, start: number, end: number): KnownBar | undefined {
    // Heads share their start (`(Worker_TP`) and differ after it (the rank): one byte there
    // rules out the others before any is compared whole. The first byte rules out most lines
    // that are no frame at all (NCCL's `node01:41200:...` has a rank's digit at that byte).
    const at = this.sharedHead;
    const byte = start + at < end ? source[start + at]! : -1;
    const first = start < end ? source[start]! : -1;
    for (const bar of this.bars) {
      const head = bar.headBytes;
      if ((head.length > 0 && head[0] !== first) || (at < head.length && head[at] !== byte)) continue;
      const found = this.recognizeAs(bar, source, start, end);
      if (found) return found;
    }
    return undefined;
  }

  /** `text` encoded into `scratch`: its length in bytes, -1 when it does not fit (no bar's frame is that long). */
  private bytesOf(text: string): number {
    if (text.length > MAX_FRAME_BYTES) return -1;
    const { read, written } = utf8.encodeInto(text, this.scratch);
    return read === text.length ? written : -1;
  }

  private recognizeAs(bar: KnownBar, source: Uint8Array, start: number, end: number): KnownBar | undefined {
    const from = this.headEnd(source, start, end, bar);
    if (from < 0 || this.readTail(source, from, end, bar.numbers) !== bar.shape) return undefined;
    const values = this.values;
    if (bar.total !== undefined && values[bar.numbers - 1] !== bar.total) return undefined;
    const elapsedS = this.readElapsed(source, this.tailEnd, end);
    if (elapsedS === undefined) return undefined;
    this.reading.current = values[bar.currentAt]!;
    this.reading.elapsedS = elapsedS;
    return bar;
  }

  /**
   * Where `bar`'s head ends when the bytes `source[start, end)` begin with it, else -1. Compared
   * four bytes a read through a view of the source's memory (kept while the lines come from the
   * same bytes, a chunk: asking a chunk for its `buffer` at every frame cost as much as the
   * compare): asked at every frame of a flood, a head of 50 bytes compared one by one was a third
   * of the time recognition took.
   */
  private headEnd(source: Uint8Array, start: number, end: number, bar: KnownBar): number {
    const head = bar.headBytes;
    if (end - start < head.length) return -1;
    const scratch = source === this.scratch;
    if (!scratch && source !== this.viewOf) {
      this.viewOf = source;
      this.view = new DataView(source.buffer);
      this.viewAt = source.byteOffset;
    }
    const view = scratch ? this.scratchView : this.view!;
    const words = bar.headWords;
    const at = (scratch ? 0 : this.viewAt) + start;
    for (let i = 0; i < words.length; i++) if (view.getInt32(at + i * WORD, true) !== words[i]) return -1;
    for (let i = words.length * WORD; i < head.length; i++) if (source[start + i] !== head[i]) return -1;
    return start + head.length;
  }

  /**
   * Reads the first `count` numbers of `source[from, end)` into `values`; returns the shape of
   * the text up to the last of them (undefined when there are fewer), `tailEnd` just after it.
   */
  private readTail(source: Uint8Array, from: number, end: number, count: number): number | undefined {
    let hash = 17;
    let found = 0;
    let value = -1;
    for (let at = from; at < end; at++) {
      const unit = source[at]!;
      // A control character (a colour code's ESC in raw bytes) is in no frame the rules read as it is.
      if (unit < SPACE) return undefined;
      if (unit >= ZERO && unit <= NINE) {
        value = value < 0 ? unit - ZERO : value * 10 + (unit - ZERO);
        continue;
      }
      if (value >= 0) {
        this.values[found++] = value;
        value = -1;
        hash = (Math.imul(hash, 31) + HASH_DIGITS) | 0;
        if (found === count) {
          this.tailEnd = at;
          return hash;
        }
      }
      if (unit > SPACE && unit < 0x80) hash = (Math.imul(hash, 31) + unit) | 0;
    }
    if (value >= 0 && found + 1 === count) {
      this.values[found] = value;
      this.tailEnd = end;
      return (Math.imul(hash, 31) + HASH_DIGITS) | 0;
    }
    return undefined;
  }

  /**
   * After the total: ` [elapsed<remaining, rate]`, the elapsed time in seconds; -1 when nothing
   * but blanks follows; undefined when the rest is no tqdm tail.
   */
  private readElapsed(source: Uint8Array, from: number, end: number): number | undefined {
    let at = from;
    while (at < end && source[at]! === SPACE) at++;
    if (at === end) return -1;
    if (source[at]! !== OPEN) return undefined;
    let seconds = 0;
    let part = -1;
    for (at++; at < end; at++) {
      const unit = source[at]!;
      if (unit >= ZERO && unit <= NINE) part = part < 0 ? unit - ZERO : part * 10 + (unit - ZERO);
      else if (unit === COLON && part >= 0) {
        seconds = seconds * 60 + part;
        part = -1;
      } else break;
    }
    if (at === end || source[at]! !== LT || part < 0) return undefined;
    // The rest: `remaining, rate]` and blanks, short, of tqdm's own characters only (no words).
    let last = end - 1;
    while (last > at && source[last]! === SPACE) last--;
    if (source[last]! !== CLOSE || last - at > MAX_AFTER_ELAPSED) return undefined;
    for (let i = at + 1; i < last; i++) if (!isRateUnit(source[i]!)) return undefined;
    return seconds * 60 + part;
  }
}

/** `00:25,  1.75it/s`, `?, ?it/s`, `26.68s/it`: digits, blanks, `:?,./` and the letters of `it/s`. */
export function isRateUnit(unit: number): boolean {
  return (unit >= ZERO && unit <= COLON) || unit === SPACE || unit === 0x3f || unit === 0x2c || unit === 0x2e || unit === 0x2f || unit === 0x69 || unit === 0x74 || unit === 0x73;
}

/** The length in bytes of the start all the heads share (to the shortest). */
function sharedStart(bars: readonly KnownBar[]): number {
  if (bars.length < 2) return 0;
  const first = bars[0]!.headBytes;
  let shared = Math.min(...bars.map((bar) => bar.headBytes.length));
  for (const bar of bars) {
    let i = 0;
    while (i < shared && bar.headBytes[i] === first[i]) i++;
    shared = i;
  }
  return shared;
}

/** The whole little-endian 32-bit words of `bytes`, in order. */
function wordsOf(bytes: Buffer): Int32Array {
  const words = new Int32Array(Math.floor(bytes.length / WORD));
  for (let i = 0; i < words.length; i++) words[i] = bytes.readInt32LE(i * WORD);
  return words;
}

/**
 * Which of the tail's numbers are the current count and the total (`6/49`), or the percentage of
 * a bar that shows only one (`12%`): found by their values and the `/` or `%` beside them.
 */
function placeNumbers(text: string, from: number, hit: ProgressHit): { numbers: number; currentAt: number; percentOnly: boolean } | undefined {
  const numbers = [...text.slice(from).matchAll(/\d+/g)].slice(0, MAX_NUMBERS);
  const after = (i: number): string => text[from + numbers[i]!.index! + numbers[i]![0].length] ?? '';
  for (let i = 1; i < numbers.length; i++) {
    if (hit.total !== undefined && Number(numbers[i]![0]) === hit.total && Number(numbers[i - 1]![0]) === hit.current && after(i - 1) === '/') {
      return { numbers: i + 1, currentAt: i - 1, percentOnly: false };
    }
  }
  if (hit.percent === undefined) return undefined;
  const at = numbers.findIndex((n, i) => Number(n[0]) === hit.percent && after(i) === '%');
  return at === -1 ? undefined : { numbers: at + 1, currentAt: at, percentOnly: true };
}
