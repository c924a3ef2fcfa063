/** One line (or one `\r` frame of a physical line) cut from a byte stream. */
export interface SplitLine {
  /** The line without its terminator, decoded as UTF-8 with U+FFFD for invalid bytes. */
  text: string;
  /** 1-based physical line number: counted by `\n` only, so all `\r` frames of a line share it. */
  lineNo: number;
  /** Bytes of this line dropped by the length cap (0 when the line was kept whole). */
  truncated: number;
}

/** How a line may be handled, as `LineHandler.quiet` says just before the line is due: read it. */
export const FEED = 0;
/** It changes nothing that a later line would not overwrite: of a run of SKIP lines only the last (non-blank) one is read. */
export const SKIP = 1;
/** It changes nothing at all: never read. */
export const DROP = 2;
export type Quiet = typeof FEED | typeof SKIP | typeof DROP;

export interface LineHandler {
  /**
   * Takes one line. Returning false says it changed nothing after all (its message was blank):
   * when it was the SKIP line read for a run of skipped ones, the one before it is read too.
   */
  emit(line: SplitLine): boolean | void;
  /**
   * Asked for each line that lies whole in one chunk, under the cap, with no `\r`, just before
   * it is due (every line before it was emitted, or skipped): its bytes are `chunk[start, end)`.
   */
  quiet?(chunk: Buffer, start: number, end: number): Quiet;
  /**
   * Asked at the start of each physical line (nothing of it held from an earlier chunk): where in
   * `chunk[start, end)` the next line begins that must be read; `start` or just after a `\n` in
   * the range. Every line before it is let go whole: counted, never decoded nor asked about.
   * `first` is true for the first question about a chunk (a reused buffer holds new bytes).
   */
  nextDue?(chunk: Buffer, start: number, end: number, first: boolean): number;
}

export interface LineSplitterOptions {
  /** Bytes kept per line; the rest of a longer line is counted, never buffered. Default 64 KiB. */
  maxLineBytes?: number;
}

const LF = 10;
const CR = 13;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024;

/**
 * Splits a byte stream into lines at `\n`, `\r\n` and lone `\r` (each tqdm frame is its own
 * line), with bounded memory: a line never holds more than `maxLineBytes` bytes.
 */
export class LineSplitter {
  readonly #max: number;
  // Bytes of a line that started in an earlier chunk, copied so callers may reuse their buffers.
  #parts: Buffer[] = [];
  #kept = 0;
  #dropped = 0;
  #totalDropped = 0;
  #lineNo = 1;
  // A lone `\r` was seen on this physical line, so an empty frame after it is an artefact.
  #lineHadCr = false;
  // The previous chunk ended in `\r`: the next byte decides whether it was `\r\n`.
  #pendingCr = false;
  // ...and the text before that `\r` was empty, so it is a blank line only if `\n` follows.
  #pendingBlank = false;
  #unread = 0;
  #lastLineNo = 0;

  constructor(options: LineSplitterOptions = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxLineBytes must be a positive integer, got ${max}`);
    this.#max = max;
  }

  /** Total bytes dropped by the length cap so far. */
  get truncatedBytes(): number {
    return this.#totalDropped;
  }

  /** Lines never emitted because `LineHandler.quiet` let them go. */
  get unreadLines(): number {
    return this.#unread;
  }

  /** Number of the last line emitted or let go (0 before any). */
  get lastLineNo(): number {
    return this.#lastLineNo;
  }

  push(chunk: Buffer): SplitLine[] {
    const out: SplitLine[] = [];
    this.forEachLine(chunk, { emit: (line) => void out.push(line) });
    return out;
  }

  /**
   * Splits `chunk`, handing each line to `handler.emit` as soon as it is cut. A line that
   * `handler.quiet` lets go is counted, not decoded: a DROP line at once; a run of SKIP lines
   * is held until a line that is not skipped is due, or the chunk ends, and then only its last
   * line is read (or, if that one says nothing, the last one that does).
   */
  forEachLine(chunk: Buffer, handler: LineHandler): void {
    const out = new Emitter(handler, (lineNo, unread) => this.#note(lineNo, unread));
    this.#split(chunk, out, handler.quiet?.bind(handler), handler.nextDue?.bind(handler));
    out.release();
  }

  #split(chunk: Buffer, out: Emitter, quiet: LineHandler['quiet'], nextDue: LineHandler['nextDue']): void {
    const len = chunk.length;
    if (len === 0) return;
    let pos = 0;
    if (this.#pendingCr) {
      this.#pendingCr = false;
      if (chunk[0] === LF) {
        if (this.#pendingBlank) out.push({ text: '', lineNo: this.#lineNo, truncated: 0 });
        this.#newPhysicalLine();
        pos = 1;
      }
    }
    // Cached so a chunk without `\r` (the common case) costs one failed scan, not one per line.
    let nextLf = chunk.indexOf(LF, pos);
    let nextCr = chunk.indexOf(CR, pos);
    let first = true;
    while (pos < len) {
      if (nextDue && this.#parts.length === 0 && !this.#lineHadCr) {
        const due = nextDue(chunk, pos, len, first);
        first = false;
        if (due > pos) {
          out.release();
          this.#letGo(chunk, pos, due);
          pos = due;
          if (pos >= len) break;
        }
      }
      if (nextLf !== -1 && nextLf < pos) nextLf = chunk.indexOf(LF, pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = chunk.indexOf(CR, pos);
      const isCr = nextCr !== -1 && (nextLf === -1 || nextCr < nextLf);
      const end = isCr ? nextCr : nextLf;
      if (end === -1) {
        this.#keep(chunk, pos, len);
        break;
      }
      if (!isCr) {
        const how = quiet && this.#parts.length === 0 && !this.#lineHadCr && end - pos <= this.#max ? quiet(chunk, pos, end) : FEED;
        if (how === FEED) this.#finish(out, chunk, pos, end, true);
        else out.letGo(how, chunk, pos, end, this.#lineNo);
        this.#newPhysicalLine();
        pos = end + 1;
      } else if (end + 1 < len && chunk[end + 1] === LF) {
        this.#finish(out, chunk, pos, end, true);
        this.#newPhysicalLine();
        pos = end + 2;
      } else if (end + 1 === len) {
        this.#pendingBlank = this.#isEmpty(pos, end) && !this.#lineHadCr;
        if (!this.#pendingBlank) this.#finish(out, chunk, pos, end, false);
        else this.#reset();
        this.#lineHadCr = true;
        this.#pendingCr = true;
        pos = len;
      } else {
        this.#finish(out, chunk, pos, end, false);
        this.#lineHadCr = true;
        pos = end + 1;
      }
    }
  }

  /**
   * The line (or `\r` frame) held so far with no terminator yet, without taking it: a writer that
   * went quiet in the middle of a line (a last line with no newline) has still said it.
   */
  pending(): SplitLine | undefined {
    if (this.#kept === 0) return undefined;
    const bytes = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#kept);
    return { text: bytes.subarray(0, utf8Boundary(bytes)).toString('utf8'), lineNo: this.#lineNo, truncated: this.#dropped };
  }

  /** Flushes a final line that had no terminator. */
  end(): SplitLine[] {
    const lines: SplitLine[] = [];
    const out = new Emitter({ emit: (line) => void lines.push(line) }, (lineNo, unread) => this.#note(lineNo, unread));
    this.#pendingCr = false;
    if (this.#kept > 0 || this.#dropped > 0) this.#finish(out, undefined, 0, 0, false);
    return lines;
  }

  #note(lineNo: number, unread: boolean): void {
    this.#lastLineNo = Math.max(this.#lastLineNo, lineNo);
    if (unread) this.#unread++;
  }

  /** Counts the whole lines of `chunk[start, end)` (it ends just after a `\n`) as let go unread. */
  #letGo(chunk: Buffer, start: number, end: number): void {
    let count = 0;
    for (let at = chunk.indexOf(LF, start); at !== -1 && at < end; at = chunk.indexOf(LF, at + 1)) count++;
    this.#lineNo += count;
    this.#unread += count;
    this.#lastLineNo = Math.max(this.#lastLineNo, this.#lineNo - 1);
  }

  #newPhysicalLine(): void {
    this.#lineNo++;
    this.#lineHadCr = false;
  }

  #isEmpty(start: number, end: number): boolean {
    return start === end && this.#kept === 0 && this.#dropped === 0;
  }

  #keep(chunk: Buffer, start: number, end: number): void {
    const room = this.#max - this.#kept;
    const take = Math.min(room, end - start);
    if (take > 0) {
      this.#parts.push(Buffer.from(chunk.subarray(start, start + take)));
      this.#kept += take;
    }
    this.#dropped += end - start - take;
  }

  /** Emits the line ending at `end`; `byLf` lines are emitted even when blank. */
  #finish(out: Emitter, chunk: Buffer | undefined, start: number, end: number, byLf: boolean): void {
    if (this.#parts.length === 0 && chunk !== undefined && end - start <= this.#max && (end > start || (byLf && !this.#lineHadCr))) {
      // The common case, a whole line inside this chunk and under the cap: decode it in place,
      // with no Buffer view allocated for it. (Decoding per line, not per chunk, keeps a line
      // kept as evidence from pinning the whole chunk's text in memory.)
      this.#reset();
      out.push({ text: chunk.toString('utf8', start, end), lineNo: this.#lineNo, truncated: 0 });
      return;
    }
    let bytes: Buffer;
    if (this.#parts.length === 0 && chunk !== undefined) {
      // Fast path: the whole line lies in this chunk, so no copy or concatenation.
      const take = Math.min(end - start, this.#max);
      this.#dropped = end - start - take;
      bytes = chunk.subarray(start, start + take);
    } else {
      if (chunk !== undefined) this.#keep(chunk, start, end);
      bytes = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#kept);
    }
    if (this.#dropped > 0) {
      const whole = utf8Boundary(bytes);
      this.#dropped += bytes.length - whole;
      bytes = bytes.subarray(0, whole);
    }
    const truncated = this.#dropped;
    this.#totalDropped += truncated;
    this.#reset();
    if (bytes.length === 0 && truncated === 0 && (!byLf || this.#lineHadCr)) return;
    out.push({ text: bytes.toString('utf8'), lineNo: this.#lineNo, truncated });
  }

  #reset(): void {
    this.#parts = [];
    this.#kept = 0;
    this.#dropped = 0;
  }
}

/** Hands lines to a handler, holding back a run of SKIP lines until a line that is not skipped is due. */
class Emitter {
  /** The held run, all in `#chunk`: start, end and line number of each line, oldest first. */
  readonly #run: number[] = [];
  #chunk: Buffer | undefined;

  constructor(
    private readonly handler: LineHandler,
    private readonly note: (lineNo: number, unread: boolean) => void,
  ) {}

  push(line: SplitLine): void {
    this.release();
    this.note(line.lineNo, false);
    this.handler.emit(line);
  }

  letGo(how: Quiet, chunk: Buffer, start: number, end: number, lineNo: number): void {
    if (how === DROP) {
      this.note(lineNo, true);
      return;
    }
    this.#chunk = chunk;
    this.#run.push(start, end, lineNo);
  }

  /** Reads the held run's last line, and the ones before it while they turn out blank; lets go of the rest. */
  release(): void {
    const run = this.#run;
    let at = run.length - 3;
    for (; at >= 0; at -= 3) {
      this.note(run[at + 2]!, false);
      const took = this.handler.emit({ text: this.#chunk!.toString('utf8', run[at]!, run[at + 1]!), lineNo: run[at + 2]!, truncated: 0 });
      if (took !== false) break;
    }
    for (let k = 0; k < at; k += 3) this.note(run[k + 2]!, true);
    run.length = 0;
    this.#chunk = undefined;
  }
}

/** Length of `bytes` without a trailing UTF-8 sequence that the cap cut short. */
function utf8Boundary(bytes: Buffer): number {
  const len = bytes.length;
  for (let back = 1; back <= Math.min(4, len); back++) {
    const byte = bytes[len - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? len - back : len;
  }
  return len;
}
