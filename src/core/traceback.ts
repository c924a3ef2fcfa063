/**
 * Follows Python tracebacks through a log, so the final exception line of each one can be
 * weighed as a root cause even when no rule names it. Interleaved lines from other processes
 * are tolerated: only a line shaped like `pkg.SomeError: message` closes a traceback.
 *
 * Several tracebacks can be open at once: one per stream (`run` reads stdout and stderr, whose
 * lines interleave) and per process tag (`(Worker_TP1 pid=123)`, `[... TP1]`), each read by a
 * reader of its own, so another source's lines neither close a traceback nor hide its end.
 */
import type { ParsedFrame } from './parse-line.js';

export interface TracebackException {
  /** The exception line as the log shows it (prefixes included). */
  text: string;
  /** Root-cause lines to report: the exception line, the failing source line when the message is empty. */
  evidence: string[];
  /** Printed by Python itself (no logger prefix, not a thread): the process that raised it is dying. */
  uncaught: boolean;
  /** `handling`: raised while handling an earlier exception, so it supersedes that one. */
  chained?: 'handling' | 'cause';
  /** The exception's class as printed (`torch.OutOfMemoryError`). */
  className: string;
  /** What follows the class and its colon (empty for a bare `AssertionError`). */
  message: string;
  /** The file of the innermost frame (where it was raised). */
  frameFile?: string;
  /** Every frame file of the traceback, outermost first. */
  frameFiles: string[];
  /**
   * The rank and process tags of the line that opened the traceback (`[... TP0] Scheduler hit an
   * exception: Traceback ...`): SGLang prints the rest of it bare, but it is that process's.
   */
  openedBy: { rank?: string; proc?: string };
}

const START = 'Traceback (most recent call last):';
/** Text that makes the tracker act on a line read outside a traceback (see `idle`). */
export const TRACEBACK_CUES: readonly string[] = [
  'Traceback (most recent call last)',
  'File "',
  'Exception in thread',
  'During handling of the above exception',
  'The above exception was the direct cause',
  // A source line that raises, when the traceback's header was lost (RAISE_LINE).
  '    raise ',
];
/** A frame's source line that raises: indented as Python prints it, quoting the message it raises. */
const RAISE_LINE = /^ {4,}raise [A-Za-z_]/;
const EXCEPTION = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?::(?:\s(.*))?)?$/;
// `INFO:     Started server process` is uvicorn, not an exception named INFO.
const LEVEL_WORDS = new Set(['INFO', 'WARNING', 'WARN', 'ERROR', 'DEBUG', 'CRITICAL', 'FATAL', 'NOTE', 'TRACE']);
/** Lines from other processes may interleave; give up on a traceback that never closes. */
const MAX_TRACEBACK_LINES = 400;
const MAX_FRAMES = 200;

/** What a frame is to the traceback being read. */
export type TracebackRole = 'start' | 'code' | 'exception' | 'outside';

/** One source's traceback (one stream, one process tag): the lines of one writer, in order. */
class TracebackReader {
  /** The role of the frame pushed last: rules skip `code` (a frame's source line quotes messages). */
  role: TracebackRole = 'outside';
  /** Physical line of the current traceback's first line. */
  startLine = 0;
  private inside = false;
  private uncaught = false;
  private chained: TracebackException['chained'];
  private pendingChain: TracebackException['chained'];
  private lastCode = '';
  private lastFile = '';
  private files: string[] = [];
  private openedBy: TracebackException['openedBy'] = {};
  private lines = 0;
  private previous = '';
  /** The tracker's count of frames when this reader was last fed (see TracebackTracker.sweep). */
  lastFed = 0;

  /**
   * Outside any traceback: a frame without any of `TRACEBACK_CUES` changes nothing here that a
   * later frame reads, but the last message seen (which the next non-blank frame replaces).
   */
  get idle(): boolean {
    return !this.inside;
  }

  /** Gives up on the open traceback: its writer went quiet without closing it. */
  abandon(): void {
    this.inside = false;
  }

  /** Feeds one frame; returns the exception that closes a traceback, if this frame is one. */
  push(frame: ParsedFrame, lineNo = 0): TracebackException | undefined {
    this.role = 'outside';
    const exception = this.read(frame, lineNo);
    if (exception) this.role = 'exception';
    return exception;
  }

  private begin(start: { uncaught: boolean; chained: TracebackException['chained']; role: TracebackRole; lineNo: number; frame: ParsedFrame }): void {
    this.inside = true;
    this.openedBy = { rank: start.frame.rank, proc: start.frame.proc };
    this.uncaught = start.uncaught;
    this.chained = start.chained;
    this.lastCode = '';
    this.lastFile = '';
    this.files = [];
    this.lines = 0;
    this.role = start.role;
    this.startLine = start.lineNo;
  }

  private read(frame: ParsedFrame, lineNo: number): TracebackException | undefined {
    const body = frame.body;
    const previous = this.previous;
    if (body.trim() !== '') this.previous = body;
    if (body.includes(START)) {
      const thread = /Exception in thread\b/.test(previous) || /Exception in thread\b/.test(body);
      this.begin({ uncaught: !frame.logged && !thread, chained: this.pendingChain, role: 'start', lineNo, frame });
      this.pendingChain = undefined;
      return undefined;
    }
    if (body.startsWith('During handling of the above exception')) this.pendingChain = 'handling';
    else if (body.startsWith('The above exception was the direct cause')) this.pendingChain = 'cause';
    if (!this.inside) {
      // A traceback whose header was lost (a paste, a gap in the capture) still shows its frames,
      // or at least the source line that raised (`    raise RuntimeError(f"NCCL error: ...")`).
      if (!body.startsWith('  File "') && !RAISE_LINE.test(body)) return undefined;
      this.begin({ uncaught: !frame.logged, chained: undefined, role: 'code', lineNo, frame });
      return undefined;
    }
    if (++this.lines > MAX_TRACEBACK_LINES) {
      this.inside = false;
      return undefined;
    }
    const trimmed = body.trimStart();
    if (trimmed.startsWith('File "')) {
      this.lastFile = trimmed.slice(6, trimmed.indexOf('"', 6));
      if (this.files.length < MAX_FRAMES) this.files.push(this.lastFile);
    }
    if (trimmed === '' || body !== trimmed || trimmed.startsWith('[Previous line repeated')) {
      if (trimmed !== '' && !trimmed.startsWith('File "') && !/^[\^~\s]+$/.test(trimmed)) this.lastCode = trimmed;
      if (trimmed !== '') this.role = 'code';
      return undefined;
    }
    const match = EXCEPTION.exec(trimmed);
    if (!match || !looksLikeExceptionName(match[1]!)) return undefined;
    this.inside = false;
    const evidence = match[2] === undefined && this.lastCode !== '' ? [this.lastCode, frame.text] : [frame.text];
    return { text: frame.text, className: match[1]!, message: match[2] ?? '', evidence, uncaught: this.uncaught, chained: this.chained, frameFile: this.lastFile || undefined, frameFiles: this.files, openedBy: this.openedBy };
  }
}

/** Readers kept before the idle ones are let go (process tags are many with Ray's `(pid=N)`). */
const MAX_READERS = 64;
/** How often, in frames, readers left open by a writer gone quiet are looked for. */
const SWEEP_EVERY = 64;

/**
 * The tracebacks of a log, a reader per source. A frame's source is its stream and its process
 * tag (the process tag, else the rank tag). An untagged frame while no untagged traceback is
 * open on its stream, and not written by a logger, continues the traceback last opened by a
 * tagged line of that stream: SGLang prints `[... TP0] Scheduler hit an exception: Traceback ...`
 * and the rest of it bare. A log with neither streams nor tags has a single reader, as before.
 */
export class TracebackTracker {
  private readonly readers = new Map<string, TracebackReader>();
  /** Per stream, the tagged reader whose traceback began last. */
  private readonly lastTagged = new Map<string, TracebackReader>();
  private current: TracebackReader;
  private frames = 0;

  constructor() {
    this.current = this.reader('', '');
  }

  /** The role of the frame pushed last: rules skip `code` (a frame's source line quotes messages). */
  get role(): TracebackRole {
    return this.current.role;
  }

  /** Physical line of the first line of the traceback the frame pushed last belongs to. */
  get startLine(): number {
    return this.current.startLine;
  }

  /** No traceback is open on any source (see TracebackReader.idle). */
  get idle(): boolean {
    for (const reader of this.readers.values()) if (!reader.idle) return false;
    return true;
  }

  /** Feeds one frame read from `stream` (omitted: the log has one); returns the exception that closes a traceback, if this frame is one. */
  push(frame: ParsedFrame, lineNo = 0, stream = ''): TracebackException | undefined {
    if (++this.frames % SWEEP_EVERY === 0) this.sweep();
    const tag = frame.proc ?? frame.rank;
    const reader = tag === undefined ? this.untaggedRoute(frame, stream) : this.reader(stream, tag);
    reader.lastFed = this.frames;
    this.current = reader;
    const wasIdle = reader.idle;
    const exception = reader.push(frame, lineNo);
    // A tagged line began a traceback (or began one anew): the bare lines after it are its own.
    if (tag !== undefined && !reader.idle && (wasIdle || reader.role === 'start')) this.lastTagged.set(stream, reader);
    return exception;
  }

  /** An untagged frame: its stream's untagged traceback, else the one a tagged line of its stream opened last (see the class). */
  private untaggedRoute(frame: ParsedFrame, stream: string): TracebackReader {
    const untagged = this.reader(stream, '');
    if (!untagged.idle || frame.logged) return untagged;
    const tagged = this.lastTagged.get(stream);
    return tagged !== undefined && !tagged.idle ? tagged : untagged;
  }

  private reader(stream: string, tag: string): TracebackReader {
    // The untagged reader of the unnamed stream (every line of a plain log) is found without a key built.
    const key = stream === '' && tag === '' ? '' : `${stream}\u0000${tag}`;
    let reader = this.readers.get(key);
    if (!reader) {
      reader = new TracebackReader();
      this.readers.set(key, reader);
    }
    return reader;
  }

  /**
   * A traceback whose writer has written nothing for as many frames as one traceback may hold
   * will not be closed by it: it is given up, as one reader gives up a traceback that never
   * closes. Idle readers beyond MAX_READERS are let go (their last line is all they keep).
   */
  private sweep(): void {
    if (this.readers.size === 1) return;
    for (const [key, reader] of this.readers) {
      if (!reader.idle && this.frames - reader.lastFed > MAX_TRACEBACK_LINES) reader.abandon();
      if (this.readers.size > MAX_READERS && reader.idle && key !== '' && reader !== this.current) this.readers.delete(key);
    }
  }
}

function looksLikeExceptionName(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (last === 'Traceback' || LEVEL_WORDS.has(name)) return false;
  return /^[A-Z]/.test(last) || /(?:Error|Exception)$/.test(last);
}
