/**
 * The watch loop's reader: cuts each chunk into lines for the session, leaving unread the lines
 * core says could change nothing (Session.skippable, asked once per line read: nothing else
 * changes what it answers). Fast or plain is chosen once per chunk: a pack whose lines cannot be
 * proven quiet, or no session answer yet, and the whole chunk goes through the plain splitter.
 *
 * On the fast path, at each line start:
 *  - after a verdict, every line up to the next that can still matter is let go (DROP);
 *  - before one, every line up to the next that holds a literal, a stamp, a `\r` or a colour
 *    code is quiet (SKIP) and joins the run of quiet lines;
 *  - the line found is asked about alone (QuietLines.classify): FEED, SKIP or DROP.
 * A REPEAT (a repeat of the line read last, or a known bar's frame that moved only its counters:
 * Skippable.idleBar) joins the run too.
 * Of a run of SKIP lines only the last is read, just before the next line read or at the end of
 * the chunk (it sets the last line and the time of the last activity as all of them would), and
 * the one before it when it turns out blank, and so on. A line cut by a chunk's end is held by
 * the splitter, then joined to its rest at the head of the next chunk and read like any other
 * (when it is plain text: LineSplitter.takeCutLine). A line that holds a `\r` or is over the
 * length cap always goes through the splitter.
 */
import type { Session } from '../../core/session.js';
import type { Skippable } from '../../core/skippable.js';
import type { LineSplitter, SplitLine } from '../line-splitter.js';
import { countNewlines } from './count-newlines.js';
import { DROP, FEED, QuietLines, REPEAT, SKIP } from './quiet-lines.js';
import { scanMemory } from './wasm/scan-memory.js';

const LF = 10;
const CR = 13;
/**
 * The smallest chunk the fast path takes up at. Its first chunk builds the pack's literal tables
 * and the byte kernels, about 13 ms of a cold start (9.5 for the tables, 3.7 to assemble the
 * kernels), which a chunk of fewer lines never earns back: read plainly, its lines cost less.
 * Most real logs are smaller (the fixtures' median is 6 KB, three in four under 16 KB), and a
 * followed log's lines come a few at a time. Once taken up, the fast path reads chunks of any size.
 */
export const FAST_PATH_FIRST_CHUNK = 16 * 1024;

/** Takes one line (to the session). */
export type LineEmit = (line: SplitLine) => void;

/** A line of the chunk being read, held to be read later: `[start, end)`, its number. */
interface HeldLine {
  start: number;
  end: number;
  lineNo: number;
}

export class FastLineReader {
  readonly #quiet: QuietLines;
  readonly #max: number;
  #unread = 0;
  /** What core answered after the last line read. */
  #now: Skippable | undefined;
  // The held run of SKIP lines, all whole in the current chunk: bytes [#runStart, #runEnd), the
  // start of its last line, and its count.
  #runStart = 0;
  #runEnd = 0;
  #runLast = 0;
  #runLines = 0;
  #chunk: Buffer | undefined;
  /** A known bar's frame of the physical line being fed, left unread so far (#takeFrame). */
  #passed: SplitLine | undefined;
  /**
   * The rest of a physical line held before the run (QuietLines.quietLineTail): its last frame
   * and the quiet line glued to it, `#chunk[start, end)`, read only when no line of the run
   * after it sets the last line.
   */
  #head: HeldLine | undefined;

  /** The fast path read a chunk: it reads chunks of any size from now on (FAST_PATH_FIRST_CHUNK). */
  #takenUp = false;

  constructor(
    private readonly session: Session,
    private readonly splitter: LineSplitter,
    private readonly emit: LineEmit,
    maxLineBytes = 64 * 1024,
    private readonly firstChunk = FAST_PATH_FIRST_CHUNK,
  ) {
    this.#max = maxLineBytes;
    this.#quiet = new QuietLines(maxLineBytes);
  }

  /** Lines never handed to the session. */
  get unreadLines(): number {
    return this.#unread;
  }

  read(given: Buffer): void {
    // Asked first: #fastNow builds the pack's tables.
    const small = !this.#takenUp && given.length < this.firstChunk;
    if (small || !this.#fastNow()) {
      this.splitter.forEachLine(given, this.emit);
      return;
    }
    this.#takenUp = true;
    // The line the last chunk's end cut, joined to its rest, is read like any other: through a
    // pipe's 64 KiB chunks, feeding it to the session every time cost a line read per chunk.
    const lf = this.splitter.atLineStart ? -1 : given.indexOf(LF);
    const cut = lf === -1 || lf >= this.#max ? undefined : this.splitter.takeCutLine();
    if (cut === undefined) return this.#readChunk(given);
    if (cut.length + lf > this.#max) {
      // Over the cap together: given back, and the splitter cuts the line as it would have.
      this.splitter.forEachLine(cut, this.emit);
      return this.#readChunk(given);
    }
    // Best as one chunk, the cut line at its head (a copy of a pipe's chunk costs less than
    // a run of quiet lines ended there); else the line is a chunk of its own.
    const joined = scanMemory?.placeJoined(cut, given);
    if (joined) return this.#readChunk(joined);
    this.#readChunk(Buffer.concat([cut, given.subarray(0, lf + 1)]));
    if (lf + 1 === given.length) return;
    // The line read may have changed core's answer (another pack): asked again.
    if (this.#fastNow()) this.#readChunk(given.subarray(lf + 1));
    else this.splitter.forEachLine(given.subarray(lf + 1), this.emit);
  }

  /** Asks core what it answers now; whether the fast path can read the next chunk. */
  #fastNow(): boolean {
    this.#now = this.session.skippable();
    return this.#now !== undefined && this.#quiet.usable(this.#now.pack);
  }

  #readChunk(given: Buffer): void {
    // Scanned where the kernels can read it: a copy is read as the chunk itself (it is good
    // until the next read, like a source's reused buffer; the splitter copies what it keeps).
    const chunk = scanMemory?.place(given) ?? given;
    this.#quiet.newChunk();
    this.#chunk = chunk;
    let pos = 0;
    if (!this.splitter.atLineStart) pos = this.#feedLine(chunk, 0);
    const lastLf = chunk.lastIndexOf(LF);
    const wholeEnd = lastLf + 1;
    while (pos < wholeEnd) {
      const dropTo = this.#quiet.dropTo(this.#now, chunk, pos, chunk.length);
      if (dropTo > pos) {
        this.#release();
        this.#letGo(chunk, pos, dropTo);
        pos = dropTo;
        if (pos >= wholeEnd) break;
      }
      const quietTo = this.#quiet.quietTo(this.#now, chunk, pos, wholeEnd);
      if (quietTo > pos) {
        pos = this.#hold(chunk, pos, quietTo);
        if (pos >= wholeEnd) break;
      }
      const lf = chunk.indexOf(LF, pos);
      const asked = lf - pos <= this.#max && this.#quiet.nextCr(chunk, pos, lf) === -1;
      const how = asked ? this.#quiet.classify(this.#now, chunk, pos, lf) : FEED;
      if (how === SKIP || how === REPEAT) {
        this.#hold(chunk, pos, lf + 1);
        pos = lf + 1;
      } else if (how === DROP) {
        this.#release();
        this.splitter.skipLines(1);
        this.#unread++;
        pos = lf + 1;
      } else {
        this.#release();
        pos = this.#feedLine(chunk, pos);
      }
    }
    this.#release();
    this.#chunk = undefined;
    if (pos < chunk.length) this.splitter.forEachLine(chunk.subarray(pos), this.emit);
  }

  /**
   * Feeds the physical line that begins (or goes on) at `pos` through the splitter; returns
   * where the next one begins. Its `\r` frames that #passIdleFrames passes over are never cut:
   * between them, the splitter is given one frame at a time (a frame that moved its bar, read),
   * and the rest of the line once no frame can be passed.
   */
  #feedLine(chunk: Buffer, pos: number): number {
    const lf = chunk.indexOf(LF, pos);
    const end = lf === -1 ? chunk.length : lf + 1;
    let from = pos;
    let stuck = false;
    while (from < end) {
      const passed = this.splitter.atFrameStart ? this.#passIdleFrames(chunk, from, end) : from;
      // Twice nothing to pass over: the line's frames are no known bar's (a spinner), cut at once.
      const rest = passed === from && stuck;
      stuck = passed === from;
      from = passed;
      // After a frame read, the rest may be one core lets go with a quiet line glued to it: held.
      if (from > pos && lf !== -1 && this.splitter.atFrameStart && this.#quiet.quietLineTail(this.#now, chunk, from, lf)) {
        this.#head = { start: from, end: chunk[lf - 1] === CR ? lf - 1 : lf, lineNo: this.splitter.nextLineNo };
        this.splitter.passRestOfLine();
        this.#passed = undefined;
        this.#quiet.forgetRepeat();
        return end;
      }
      // One frame whose `\r` another frame follows on the line, else the rest of the line.
      const cr = rest ? -1 : this.#quiet.nextCr(chunk, from, end);
      const to = cr === -1 || cr + 1 >= end || chunk[cr + 1] === LF ? end : cr + 1;
      this.splitter.forEachLine(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to), this.#takeFrame);
      from = to;
    }
    // The line's last frame was a known bar's left unread: it is the last line, read as a repeat is.
    const passed = this.#passed;
    this.#passed = undefined;
    if (passed !== undefined) this.#take(passed);
    return end;
  }

  /**
   * The `\r` frames that begin the physical line at `pos` (up to `end`) and that #takeFrame would
   * hold unread (a known bar's frames that moved only their counters), passed over in bytes: not
   * cut, decoded, or asked about as text (issue 26, row i: tqdm's frames written to a file, a
   * burst of them to a line). Only the last is decoded, held as #takeFrame holds one. A frame
   * the splitter must judge (the line's last, one a `\r` ends at the chunk's end or before the
   * `\n`, one over the length cap) stops the walk. Returns where the splitter
   * takes the line up.
   */
  #passIdleFrames(chunk: Buffer, pos: number, end: number): number {
    const now = this.#now;
    if (now === undefined || this.#quiet.nextCr(chunk, pos, end) === -1) return pos;
    const same = this.#quiet.sameFrames;
    const at = same.passIdleCrFrames(now, chunk, pos, end, this.#max);
    if (at === pos) return pos;
    const { frames, last, lastEnd } = same.walked;
    if (last !== -1) this.#passed = { text: chunk.toString('utf8', last, lastEnd), lineNo: this.splitter.nextLineNo, truncated: 0 };
    this.splitter.passFrames(frames);
    return at;
  }

  /**
   * One `\r` frame (or line) of a physical line the splitter cuts: a frame of a known bar that
   * moved only its counters (Skippable.idleBar) is held, not read, as a REPEAT line is: of those
   * held, only one that no later frame of the line follows is read (#feedLine).
   */
  readonly #takeFrame = (line: SplitLine): void => {
    const text = line.text;
    if (line.truncated === 0 && this.#now !== undefined && this.#now.idleBar(text, 0, text.length)) {
      this.#passed = line;
      return;
    }
    // A blank frame sets no last line: the held one still does.
    const passed = this.#passed;
    this.#passed = undefined;
    if (passed !== undefined && text.trim() === '') this.#take(passed);
    this.#take(line);
  };

  /** Reads the whole line `#chunk[start, end)`, numbered `lineNo` (see #take). */
  #takeBytes({ start, end, lineNo }: HeldLine): boolean {
    return this.#take({ text: this.#chunk!.toString('utf8', start, end), lineNo, truncated: 0 });
  }

  /** Reads one line; false when it changed nothing in the run after all (see QuietLines.noteFed). */
  #take(line: SplitLine): boolean {
    this.emit(line);
    this.#now = this.session.skippable();
    return this.#quiet.noteFed(this.#now, line);
  }

  /**
   * Adds the whole lines of `chunk[start, end)` to the held run; a line over the cap ends the
   * range there (it is read whole by the splitter). Returns where the lines added end.
   */
  #hold(chunk: Buffer, start: number, end: number): number {
    if (this.#runLines === 0) this.#runStart = start;
    // Most often no line in the range can be over the cap: a line over it would wholly hold
    // one of the windows of max/2 bytes laid end to end from `start`, so a `\n` in each says
    // none is; then the lines are counted by the kernel, not walked one by one.
    if (end - start > 1 && !hasLongLine(chunk, start, end, this.#max)) {
      this.#runLast = chunk.lastIndexOf(LF, end - 2) + 1;
      if (this.#runLast < start) this.#runLast = start;
      this.#runLines += countNewlines(chunk, start, end);
      this.#runEnd = end;
      return end;
    }
    let at = start;
    while (at < end) {
      const lf = chunk.indexOf(LF, at);
      if (lf - at > this.#max) break;
      this.#runLast = at;
      this.#runLines++;
      at = lf + 1;
    }
    this.#runEnd = at;
    return at;
  }

  /**
   * Reads what stands for the held run: its last line, and the ones before it while they turn
   * out blank (a blank line changes nothing). A repeat of the line read last (REPEAT) sets the
   * last line but not the time of activity: when one is met first, the last quiet line before it
   * that is not blank is read first, then the repeat. The rest of a line held before the run
   * (#head) is read when no line of the run set the last line. Counts the rest as unread.
   */
  #release(): void {
    const count = this.#runLines;
    const head = this.#head;
    this.#head = undefined;
    if (count === 0) {
      if (head) this.#takeBytes(head);
      return;
    }
    this.#runLines = 0;
    const chunk = this.#chunk!;
    const firstNo = this.splitter.nextLineNo;
    this.splitter.skipLines(count);
    let read = 0;
    // Reading a line forgets the repeat it stood for: which lines are repeats is asked of the one held now.
    const reference = this.#quiet.repeatReference;
    // A known bar's frame that moved only its counters is held as a repeat is (QuietLines.classify).
    const now = this.#now;
    let repeat: HeldLine | undefined;
    let end = this.#runEnd - 1;
    let stood = false;
    for (let k = count - 1; k >= 0; k--) {
      const start = k === count - 1 ? this.#runLast : Math.max(this.#runStart, chunk.lastIndexOf(LF, end - 1) + 1);
      if (this.#quiet.isRepeat(chunk, start, end, reference) || this.#quiet.isIdleBar(now, chunk, start, end)) {
        repeat ??= { start, end, lineNo: firstNo + k };
        // A burst the scan passed as idle frames is stepped over at once, not line by line.
        const frames = this.#quiet.idleFramesFrom(start, end);
        if (frames !== -1 && frames < start) {
          const from = Math.max(frames, this.#runStart);
          k -= countNewlines(chunk, from, start);
          end = from - 1;
          continue;
        }
      } else {
        read++;
        stood = this.#takeBytes({ start, end, lineNo: firstNo + k });
        if (stood) break;
      }
      end = start - 1;
    }
    // No line of the run set the last line: the held rest of the line before it does.
    if (!stood && head) this.#takeBytes(head);
    if (repeat) {
      read++;
      this.#takeBytes(repeat);
    }
    this.#unread += count - read;
  }

  /** Counts the whole lines of `chunk[start, end)` (it ends just after a `\n`) as let go unread. */
  #letGo(chunk: Buffer, start: number, end: number): void {
    const count = countNewlines(chunk, start, end);
    this.splitter.skipLines(count);
    this.#unread += count;
  }
}

/**
 * Whether some line of `chunk[start, end)` may be over `max` bytes: one of the windows of max/2
 * bytes from `start` on holds no `\n` (a line over `max` wholly holds one; a window without one
 * may also lie in a shorter line, which only costs the slow count).
 */
function hasLongLine(chunk: Buffer, start: number, end: number, max: number): boolean {
  const window = Math.max(1, max >> 1);
  for (let from = start; from + window <= end; from += window) {
    const lf = chunk.indexOf(LF, from);
    if (lf === -1 || lf >= from + window) return true;
  }
  return false;
}
