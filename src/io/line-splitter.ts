/** One line (or one `\r` frame of a physical line) cut from a byte stream. */
export interface SplitLine {
  /** The line without its terminator, decoded as UTF-8 with U+FFFD for invalid bytes. */
  text: string;
  /** 1-based physical line number: counted by `\n` only, so all `\r` frames of a line share it. */
  lineNo: number;
  /** Bytes of this line dropped by the length cap (0 when the line was kept whole). */
  truncated: number;
}

/** Takes each line as soon as it is cut. */
export type LineSink = (line: SplitLine) => void;

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

  /** Number of the last line emitted or skipped (0 before any). */
  get lastLineNo(): number {
    return this.#lastLineNo;
  }

  /** Number the next physical line gets. */
  get nextLineNo(): number {
    return this.#lineNo;
  }

  /**
   * Nothing of a line or frame is held: the next byte pushed begins a physical line or, after a
   * `\r` frame, a frame of the same line.
   */
  get atFrameStart(): boolean {
    return this.#parts.length === 0 && this.#kept === 0 && this.#dropped === 0;
  }

  /** Nothing of a line is held: the next byte pushed begins a physical line. */
  get atLineStart(): boolean {
    return this.atFrameStart && !this.#lineHadCr && !this.#pendingCr;
  }

  /**
   * The bytes held of a line cut by the end of the last chunk, taken out of the splitter (which
   * is then at a line start, the line's number still to come), when they are plain text: no
   * `\r` met on the line and nothing cut by the cap. Undefined (and nothing taken) otherwise.
   * A reader that joins them to the rest of the line can read it as a whole line
   * (io/fast-path/fast-line-reader.ts).
   */
  takeCutLine(): Buffer | undefined {
    if (this.#kept === 0 || this.#dropped > 0 || this.#lineHadCr || this.#pendingCr) return undefined;
    const bytes = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#kept);
    this.#reset();
    return bytes;
  }

  /**
   * Counts `count` whole physical lines as passed without splitting them (a reader that leaves
   * lines unread: io/fast-path); only at a line start.
   */
  skipLines(count: number): void {
    if (count <= 0) return;
    this.#lineNo += count;
    this.#lastLineNo = Math.max(this.#lastLineNo, this.#lineNo - 1);
  }

  /**
   * Counts `\r` frames of the current physical line as cut and passed over by the caller (a
   * reader that leaves a known bar's frames undecoded: io/fast-path): the line has met a `\r`, as
   * if the splitter had cut them (`frames` of them not empty), and the next bytes pushed go on
   * the same line. Only at a frame start (`atFrameStart`); a `\r` that ended the last bytes
   * pushed is no `\r\n` then.
   */
  passFrames(frames: number): void {
    this.#lineHadCr = true;
    this.#pendingCr = false;
    if (frames > 0) this.#lastLineNo = Math.max(this.#lastLineNo, this.#lineNo);
  }

  /**
   * Counts the rest of the current physical line, up to and with its `\n`, as cut and passed over
   * by the caller (a reader that holds it unread: io/fast-path); the next bytes pushed begin the
   * next line. Only at a frame start (`atFrameStart`).
   */
  passRestOfLine(): void {
    this.#lastLineNo = Math.max(this.#lastLineNo, this.#lineNo);
    this.#pendingCr = false;
    this.#newPhysicalLine();
  }

  push(chunk: Buffer): SplitLine[] {
    const out: SplitLine[] = [];
    this.forEachLine(chunk, (line) => void out.push(line));
    return out;
  }

  /** Splits `chunk`, handing each line to `sink` as soon as it is cut. */
  forEachLine(chunk: Buffer, sink: LineSink): void {
    this.#split(chunk, (line) => {
      this.#lastLineNo = Math.max(this.#lastLineNo, line.lineNo);
      sink(line);
    });
  }

  #split(chunk: Buffer, out: LineSink): void {
    const len = chunk.length;
    if (len === 0) return;
    let pos = 0;
    if (this.#pendingCr) {
      this.#pendingCr = false;
      if (chunk[0] === LF) {
        if (this.#pendingBlank) out({ text: '', lineNo: this.#lineNo, truncated: 0 });
        this.#newPhysicalLine();
        pos = 1;
      }
    }
    // Cached so a chunk without `\r` (the common case) costs one failed scan, not one per line.
    let nextLf = chunk.indexOf(LF, pos);
    let nextCr = chunk.indexOf(CR, pos);
    while (pos < len) {
      if (nextLf !== -1 && nextLf < pos) nextLf = chunk.indexOf(LF, pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = chunk.indexOf(CR, pos);
      const isCr = nextCr !== -1 && (nextLf === -1 || nextCr < nextLf);
      const end = isCr ? nextCr : nextLf;
      if (end === -1) {
        this.#keep(chunk, pos, len);
        break;
      }
      if (!isCr) {
        this.#finish(out, chunk, pos, end, true);
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
    this.#pendingCr = false;
    if (this.#kept > 0 || this.#dropped > 0) {
      this.#finish((line) => {
        this.#lastLineNo = Math.max(this.#lastLineNo, line.lineNo);
        lines.push(line);
      }, undefined, 0, 0, false);
    }
    return lines;
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
  #finish(out: LineSink, chunk: Buffer | undefined, start: number, end: number, byLf: boolean): void {
    if (this.#parts.length === 0 && chunk !== undefined && end - start <= this.#max && (end > start || (byLf && !this.#lineHadCr))) {
      // The common case, a whole line inside this chunk and under the cap: decode it in place,
      // with no Buffer view allocated for it. (Decoding per line, not per chunk, keeps a line
      // kept as evidence from pinning the whole chunk's text in memory.)
      this.#reset();
      out({ text: chunk.toString('utf8', start, end), lineNo: this.#lineNo, truncated: 0 });
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
    out({ text: bytes.toString('utf8'), lineNo: this.#lineNo, truncated });
  }

  #reset(): void {
    this.#parts = [];
    this.#kept = 0;
    this.#dropped = 0;
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
