/**
 * The fast path of the watch loop: tells, from a line's raw bytes, that reading it would change
 * nothing, so the line is never decoded (SKIP and DROP; fast-line-reader.ts acts on them). A line
 * is quiet when
 *  1. it holds no literal of any rule that can still act (RulePrefilter.quietLiterals, by the
 *     scope core gives: Session.skippable), nor a cue of the traceback tracker, a colour code, or
 *     a gap marker's `# [`: no rule matches it and the line guard reads it as it is;
 *  2. core lets such lines be skipped now (`Skippable.scope`);
 *  3. it tells the clock nothing new: it has no clock stamp (`d:dd:dd`) at all, or it begins
 *     with the very prefixes of a line just read whose timestamp the clock took (same text, so
 *     the same prefix rule reads the same timestamp), has text after them but no stamp, and the
 *     clock has not moved since (Timeline.timedPrefix, clockEpoch).
 * (3) rests on two things checked here: every prefix rule that reads a date reads a time with
 * it, and a time is always a stamp, so a line without one reads no timestamp; and a prefix rule
 * decides by the text it matches (its delimiters), so a line that starts with the prefixes a
 * rule took off another line is peeled the same way.
 *
 * Before a verdict, whole runs of quiet lines are found at once by one scan of the chunk for the
 * same literals and for clock stamps (`quietTo`); once a verdict is given, whole runs of lines
 * are let go at once (`dropTo`, in after-verdict.ts).
 */
import { ByteLiteralScanner, occursAt, type ByteLiteral } from './byte-literal-scanner.js';
import type { CompiledPack, CompiledPrefix } from '../../core/pack-types.js';
import type { QuietScope } from '../../core/prefilter.js';
import type { Skippable } from '../../core/skippable.js';
import { gluedAfterBar, hasEscape, MAX_FRAME_CHARS } from '../../core/line-guard.js';
import { TRACEBACK_CUES } from '../../core/traceback.js';
import type { SplitLine } from '../line-splitter.js';
import { AfterVerdict, byteLiterals, ESCAPES } from './after-verdict.js';
import { ChunkLiteralScanner } from './chunk-literal-scanner.js';
import { QuietBytes } from './quiet-bytes.js';
import { SameFrames } from './same-frames.js';

/** How a line may be handled now: read it. */
export const FEED = 0;
/** It changes nothing that a later line would not overwrite: of a run of SKIP lines only the last (non-blank) one is read. */
export const SKIP = 1;
/** It changes nothing at all: never read. */
export const DROP = 2;
/**
 * The line read last, again byte for byte (a progress bar redrawn): like SKIP, but it sets only
 * the last line, not the time of the last activity (see FastLineReader's release).
 */
export const REPEAT = 3;
export type Quiet = typeof FEED | typeof SKIP | typeof DROP | typeof REPEAT;

const ALWAYS = 1;
const AFTER_READY = 2;
const BEFORE_VERDICT = 4;
/** The traceback tracker's cues. */
const CUES = 8;
/** Colour codes (the line guard strips them, which could join text into a literal). */
const CODES = 16;
const RELEVANT: Record<QuietScope, number> = { always: ALWAYS | CODES, afterReady: ALWAYS | CODES | AFTER_READY, beforeVerdict: ALWAYS | CODES | AFTER_READY | BEFORE_VERDICT | CUES };
/** Before a verdict a line with a cue or a code is read; one with only rules' literals core may still call quiet. */
const MUST_READ_BEFORE_VERDICT = CUES | CODES;
const RULES = ALWAYS | AFTER_READY | BEFORE_VERDICT;
const EVERY_GROUP = RULES | MUST_READ_BEFORE_VERDICT;
const GAP_MARKER = Buffer.from('# [');
const CR = 13;
const LF = 10;
/** Prefix shapes seen within one second: SGLang's ranked and unranked lines, uvicorn's, ... */
const MAX_REFERENCES = 8;
/** Lines whose quietText answer is remembered (quietStamped, loud): a flood's few repeated shapes. */
const MAX_ANSWERED_LINES = 256;
const TIME_GROUPS = ['(?<time>\\d{2}:\\d{2}:\\d{2})', '(?<time>\\d{1,2}:\\d{2}:\\d{2})'];

export class QuietLines {
  private refs: { text: string; bytes: Buffer }[] = [];
  private refRun: object | undefined;
  private refEpoch = -1;
  private readonly afterVerdict: AfterVerdict;
  /** `repeat`, when `quietTo` may take a line that repeats it as `classify` would (see noteFed). */
  private absorbable: Buffer | undefined;
  /** Lines without a stamp found quiet before a verdict, by their bytes. */
  private readonly quietBytes = new QuietBytes();
  /**
   * Stamped lines holding a rule's literal that core found quiet, by their bytes (see classify).
   * Remembered in memory of their own, as quietBytes: kept as strings in a Map cleared when full,
   * a flood of such lines each a little different promoted every one of them (issue 26, row j).
   */
  private readonly quietStamped = new QuietBytes(MAX_ANSWERED_LINES);
  /** Lines holding a rule's literal that core said must be read, by their bytes: not asked again. */
  private readonly loud = new QuietBytes(MAX_ANSWERED_LINES);
  /** The bytes of the line read last, while a repeat of it would change nothing but the last line. */
  private repeat: Buffer | undefined;
  /** What core answered, for `passable` (set by quietTo). */
  private passNow: Skippable | undefined;
  /**
   * Frames core let go under the answer it gives now, to pass the same again by their bytes:
   * `passable`'s and the reader's (FastLineReader walks the `\r` frames of a line read with them,
   * often the very frames passBurst walked before it found one that moved).
   */
  readonly sameFrames = new SameFrames();
  /** The last lines `passable` passed as idle frames, one after another: `[framesFrom, framesTo)`. */
  private framesFrom = -1;
  private framesTo = -1;
  /** The chunk nextCr searched last, from where, and the `\r` it found there (-1: none after). */
  private crChunk: Uint8Array | undefined;
  private crFrom = 0;
  private crAt = -1;

  /** `maxLineBytes`: the splitter's cap (a longer line is cut before it is read). */
  constructor(private readonly maxLineBytes = 64 * 1024) {
    this.afterVerdict = new AfterVerdict(maxLineBytes);
  }

  /** Whether this pack's lines can be proven quiet at all (else every line is read: the plain path). */
  usable(pack: CompiledPack): boolean {
    return scannersFor(pack) !== null;
  }

  /** A new chunk in a reused buffer: what was found in the last one is forgotten. */
  newChunk(): void {
    this.afterVerdict.newChunk();
    this.crChunk = undefined;
    this.framesFrom = -1;
    this.framesTo = -1;
    for (const scanners of seen) scanners.chunk.forget();
  }

  /** How the line `chunk[start, end)` may be handled now (a whole line, no `\r`, under the cap). */
  classify(now: Skippable | undefined, chunk: Buffer, start: number, end: number): Quiet {
    const scope = now?.scope;
    const scanners = now && scannersFor(now.pack);
    if (!scanners || !scope || startsWith(chunk, start, end, GAP_MARKER)) return FEED;
    if (scope === 'beforeVerdict' && this.isRepeat(chunk, start, end)) return REPEAT;
    const scanner = scanners.line;
    // A known bar's frame that moved only its counters: a repeat before a verdict, nothing after one.
    if (this.isIdleBar(now, chunk, start, end)) return scope === 'beforeVerdict' ? REPEAT : DROP;
    // One that moved is read: it acts (its progress), so core is not asked to parse it twice.
    if (scope === 'beforeVerdict' && now.barFrame(chunk, start, end)) return FEED;
    if (scope !== 'beforeVerdict') {
      const relevant = RELEVANT[scope];
      if (scanner.scan(chunk, start, end, relevant) & relevant) return FEED;
      if (scanner.stampEnd >= 0 && !this.sameTimestamp(now, chunk, start, end, scanner.stampEnd)) return FEED;
      return DROP;
    }
    if (this.quietBytes.has(now.pack, chunk, start, end)) return SKIP;
    const found = scanner.scan(chunk, start, end, MUST_READ_BEFORE_VERDICT);
    if (found & MUST_READ_BEFORE_VERDICT) return FEED;
    const stamped = scanner.stampEnd >= 0;
    if (stamped && !this.sameTimestamp(now, chunk, start, end, scanner.stampEnd)) return FEED;
    if (found & RULES) {
      // A rule's literal is no match: core parses the line and says whether any rule would act on
      // it. Its answer depends on nothing but the text and the pack (parsing and matching are
      // pure): a stamped line's bytes are remembered apart, and asked after only once its stamp
      // was found to be the clock's.
      const known = stamped && this.quietStamped.has(now.pack, chunk, start, end);
      if (!known) {
        if (this.loud.has(now.pack, chunk, start, end)) return FEED;
        if (!now.quietText(chunk.toString('utf8', start, end))) {
          this.loud.add(now.pack, chunk, start, end);
          return FEED;
        }
        if (stamped) this.quietStamped.add(now.pack, chunk, start, end);
      }
    }
    // Without a stamp, the same bytes get the same answer again (quiet-bytes.ts).
    if (!stamped) this.quietBytes.add(now.pack, chunk, start, end);
    // Before a verdict a quiet line still sets the last line and the time of the last activity.
    return SKIP;
  }

  /**
   * Before a verdict: where in `chunk[start, end)` (whole lines) the first line begins that holds
   * any literal that can act, a clock stamp, a `\r` or a colour code; every line before it is
   * SKIP. `start` when not before a verdict.
   */
  quietTo(now: Skippable | undefined, chunk: Buffer, start: number, end: number): number {
    if (now?.scope !== 'beforeVerdict' || now.verdict !== undefined) return start;
    const scanners = scannersFor(now.pack);
    if (!scanners) return start;
    this.passNow = now;
    for (let from = start; ; ) {
      // The scan passes over the lines `passable` accepts itself where it can; else they are passed here.
      const hit = scanners.chunk.nextLine(chunk, from, end, this.passable);
      if (hit === -1) return end;
      if (scanners.chunk.passedLines) return hit;
      const lf = chunk.indexOf(LF, hit);
      const next = lf === -1 || lf >= end ? -1 : this.passable(chunk, hit, lf, end);
      if (next === -1) return hit;
      from = next;
    }
  }

  /**
   * A line `quietTo` may pass over though it holds a literal, as `classify` would say REPEAT: a
   * bar redrawn on lines of its own holds its literal on each, a repeat of the line read last or
   * a known bar's frame that moved only its counters. After such a frame the lines that are
   * the same frame up to its elapsed time are passed over with it (same-frames.ts). Returns
   * where the search goes on, or -1.
   */
  private readonly passable = (chunk: Uint8Array, start: number, end: number, limit: number): number => {
    const repeat = this.absorbable;
    if (repeat !== undefined && end - start === repeat.length && occursAt(chunk, start, repeat)) return end + 1;
    const now = this.passNow;
    if (now === undefined) return -1;
    if (this.nextCr(chunk, start, end) !== -1) return this.passBurst(now, chunk as Buffer, start, end);
    const same = this.sameFrames;
    same.forgetUnless(now);
    const next = same.passFrom(chunk, start, limit);
    if (next > start) return this.passedFrames(start, next);
    // A line already found quiet by its bytes (no stamp) is SKIP to classify, unless it is a
    // known bar's frame (which classify asks about first): it joins the run here, and the scan
    // goes on without a round trip through the reader (row h: NCCL's `NVLS multicast support is
    // not available`, one line in ten, holds a failure rule's literal).
    if (this.quietBytes.has(now.pack, chunk, start, end) && !now.barFrame(chunk, start, end)) return end + 1;
    if (!now.idleBar(chunk, start, end)) return -1;
    same.note(chunk, start, end);
    return this.passedFrames(start, same.passFrom(chunk, end + 1, limit));
  };

  /** Remembers that the lines `[from, to)` were passed as idle frames (see idleFramesFrom); returns `to`. */
  private passedFrames(from: number, to: number): number {
    if (from !== this.framesTo) this.framesFrom = from;
    this.framesTo = to;
    return to;
  }

  /**
   * Where the lines begin that `passable` passed as a known bar's idle frames, on to the line
   * `chunk[start, end)` (its `\n` at `end`) of the chunk being read; -1 when it passed that line
   * otherwise, or not at all. Each of them is one `isIdleBar` calls idle under the answer
   * `quietTo` was given, so a reader that walks back over a run's idle frames (before any line
   * is read) may step over all of them at once.
   */
  idleFramesFrom(start: number, end: number): number {
    return start >= this.framesFrom && end < this.framesTo ? this.framesFrom : -1;
  }

  /**
   * A physical line of `\r` frames (`chunk[start, end)`, `end` its `\n`) that reads as a quiet
   * line would: every frame one core lets go unread, and a line glued after the last (tqdm writes
   * no newline, so the next line another process writes goes on from its last frame) that
   * `classify` calls SKIP. Core reads only the glued line of it (Timeline.pushFrames, cut by
   * line-guard.ts's gluedAfterBar) at the physical line's number, so it joins the run of quiet
   * lines as that line would (issue 26, row i: a burst of frames between two runs of NCCL lines
   * cost reading the line before it and the line glued to it). Returns `end + 1`, or -1.
   */
  private passBurst(now: Skippable, chunk: Buffer, start: number, end: number): number {
    const textEnd = chunk[end - 1] === CR ? end - 1 : end;
    if (textEnd - start > this.maxLineBytes) return -1;
    const last = this.sameFrames.passIdleCrFrames(now, chunk, start, end + 1, this.maxLineBytes);
    if (last === start && chunk[start] !== CR) return -1;
    if (this.nextCr(chunk, last, textEnd) !== -1) return -1;
    return this.quietTail(now, chunk, last, textEnd) ? end + 1 : -1;
  }

  /**
   * Before a verdict: whether the rest of a physical line, `chunk[start, end)` (`end` its `\n`;
   * `start` a frame's start after a frame of the line was read), is its last frame, one core
   * lets go unread, and a line glued after it that `classify` calls SKIP: read, it would set
   * the last line and the time of the last activity as a quiet line does, so it may stand at
   * the head of the run of quiet lines that follows (FastLineReader). Row i's bursts where one
   * rank's bar moved: the NCCL line glued after each was read, and the one ending the run after it.
   */
  quietLineTail(now: Skippable | undefined, chunk: Buffer, start: number, end: number): boolean {
    if (now?.scope !== 'beforeVerdict' || now.verdict !== undefined || !scannersFor(now.pack)) return false;
    const textEnd = chunk[end - 1] === CR ? end - 1 : end;
    if (textEnd - start > this.maxLineBytes || this.nextCr(chunk, start, textEnd) !== -1) return false;
    this.sameFrames.forgetUnless(now);
    return this.quietTail(now, chunk, start, textEnd);
  }

  /**
   * Whether `chunk[last, textEnd)`, a line's last `\r` frame (none in it), is a frame core lets
   * go unread with a line glued after it (tqdm writes no newline) that `classify` calls SKIP.
   */
  private quietTail(now: Skippable, chunk: Buffer, last: number, textEnd: number): boolean {
    // The last frame, as the line guard reads it: no colour codes, cut after the bar's tail.
    const text = chunk.toString('utf8', last, textEnd);
    if (text.length > MAX_FRAME_CHARS || hasEscape(text)) return false;
    const trimmed = text.trimEnd();
    // Cut, it is no known bar's frame as a whole (core asks that first): after a bar's `]`, a
    // frame holds only tqdm's rate characters up to a last `]` (known-bars.ts readElapsed).
    const cut = gluedAfterBar(trimmed);
    if (cut === -1) return false;
    // The frame's bytes are the text's up to the cut (no colour codes; blanks trimmed only after it).
    const glued = last + Buffer.byteLength(text.slice(0, cut));
    if (!(this.sameFrames.has(chunk, last, glued) || now.idleBar(chunk, last, glued)) || gluedAfterBar(trimmed.slice(cut)) !== -1) return false;
    return this.plainQuiet(now, chunk, glued, textEnd) || this.classify(now, chunk, glued, textEnd) === SKIP;
  }

  /**
   * The reader held the rest of a line unread where it would have read it (quietLineTail): as
   * after reading it (a glued line is no bar's frame), no later line repeats the line read last.
   */
  forgetRepeat(): void {
    this.repeat = undefined;
    this.absorbable = undefined;
  }

  /**
   * Before a verdict: whether `classify` would call the line `chunk[start, end)` SKIP for holding
   * nothing it looks for at all (no literal, cue, colour code or stamp; no gap marker, repeat, or
   * known bar's frame), told without remembering its bytes: the lines glued after bursts are
   * NCCL's, a different one each time, and each kept would only push out one met again.
   */
  private plainQuiet(now: Skippable, chunk: Buffer, start: number, end: number): boolean {
    const scanner = scannersFor(now.pack)?.line;
    if (!scanner || startsWith(chunk, start, end, GAP_MARKER) || this.isRepeat(chunk, start, end)) return false;
    return scanner.scan(chunk, start, end, EVERY_GROUP) === 0 && scanner.stampEnd < 0 && !now.barFrame(chunk, start, end);
  }

  /**
   * The first `\r` of `chunk[from, end)` (the chunk being read), or -1: the chunk is searched
   * once on from each `\r` (a flood without one, once). The reader asks it too.
   */
  nextCr(chunk: Uint8Array, from: number, end: number): number {
    if (chunk !== this.crChunk || (this.crAt !== -1 && this.crAt < from) || from < this.crFrom) {
      this.crChunk = chunk;
      this.crFrom = from;
      this.crAt = chunk.indexOf(CR, from);
    }
    return this.crAt === -1 || this.crAt >= end ? -1 : this.crAt;
  }

  /** After a verdict: where the next line starts that must be read (after-verdict.ts); `start` before one. */
  dropTo(now: Skippable | undefined, chunk: Buffer, start: number, end: number): number {
    if (!now?.verdict || !now.scope) return start;
    return this.afterVerdict.nextDue(now, chunk, start, end);
  }

  /**
   * Call after each line fed to the session, with what core says now: a line whose timestamp the
   * clock took becomes a reference. Returns false when the line changed nothing in the run (a
   * blank message sets no last line), so that a SKIP line before it must be read instead.
   */
  noteFed(now: Skippable | undefined, line: SplitLine): boolean {
    this.repeat = now?.repeatsLastLine && line.truncated === 0 ? Buffer.from(line.text) : undefined;
    // The fast-line reader asks `classify` only about lines without a `\r`; one at a gap marker's
    // start is FEED there: such a repeat is left to it.
    const repeat = this.repeat;
    this.absorbable = repeat !== undefined && !repeat.includes(CR) && !startsWith(repeat, 0, repeat.length, GAP_MARKER) ? repeat : undefined;
    if (!now) return true;
    const { run, epoch, timedPrefix } = now.clock;
    if (timedPrefix !== undefined) {
      if (run !== this.refRun || epoch !== this.refEpoch) {
        this.refs = [];
        this.refRun = run;
        this.refEpoch = epoch;
      }
      if (this.refs.length < MAX_REFERENCES && !this.refs.some((ref) => ref.text === timedPrefix)) this.refs.push({ text: timedPrefix, bytes: Buffer.from(timedPrefix) });
    }
    return now.verdict !== undefined || now.lastLineNo === line.lineNo;
  }

  /** The line a REPEAT repeats (undefined: none now). */
  get repeatReference(): Buffer | undefined {
    return this.repeat;
  }

  /** Whether `chunk[start, end)` is `repeat` (by default the line read last, while a repeat of it changes nothing but the last line). */
  isRepeat(chunk: Buffer, start: number, end: number, repeat = this.repeat): boolean {
    // A byte loop, not Buffer.compare: asked at every frame of a bar, whose checks of its offsets cost more than the bytes.
    return repeat !== undefined && end - start === repeat.length && occursAt(chunk, start, repeat);
  }

  /**
   * Whether `chunk[start, end)` is a frame of a known bar that may go unread now (Skippable.idleBar):
   * the same bytes as a frame core let go under this answer are by their bytes (same-frames.ts).
   * Asked of each frame that ends a run of held lines, walking back to the last line to read.
   */
  isIdleBar(now: Skippable | undefined, chunk: Buffer, start: number, end: number): boolean {
    if (now === undefined) return false;
    this.sameFrames.forgetUnless(now);
    return this.sameFrames.has(chunk, start, end) || now.idleBar(chunk, start, end);
  }

  private sameTimestamp(now: Skippable, chunk: Buffer, start: number, end: number, stampEnd: number): boolean {
    if (now.clock.run !== this.refRun || now.clock.epoch !== this.refEpoch) return false;
    for (const { bytes } of this.refs) {
      // Text must follow the prefixes: the line guard trims trailing blanks, and a prefix that
      // lost its trailing space is not peeled (an outer timestamp would be read instead).
      if (stampEnd <= bytes.length && startsWith(chunk, start, end, bytes) && hasText(chunk, start + bytes.length, end)) return true;
    }
    return false;
  }
}

/** Per pack: the line scanner, and the chunk scanner for the same literals before a verdict (with stamps, `\r`, gap markers). */
interface QuietScanners {
  line: ByteLiteralScanner;
  chunk: ChunkLiteralScanner;
}

const scanners = new WeakMap<CompiledPack, QuietScanners | null>();
/** Scanners in use, so a new chunk can make them forget the last one. */
const seen = new Set<QuietScanners>();

/** The pack's scanners, or null when no line can be proven quiet with them. */
function scannersFor(pack: CompiledPack): QuietScanners | null {
  // Asked about at every line the scan stops at: the last pack's answer without a map lookup.
  if (pack === lastPack) return lastScanners;
  let found = scanners.get(pack);
  if (found === undefined) {
    found = buildScanners(pack);
    scanners.set(pack, found);
    if (found) seen.add(found);
  }
  lastPack = pack;
  lastScanners = found;
  return found;
}
let lastPack: CompiledPack | undefined;
let lastScanners: QuietScanners | null = null;

function buildScanners(pack: CompiledPack): QuietScanners | null {
  const quiet = pack.prefilter.quietLiterals();
  if (!quiet || !pack.prefixes.every(readsTimeFromStamp)) return null;
  const groups: [readonly string[], number][] = [
    [quiet.always, ALWAYS],
    [ESCAPES, CODES],
    [quiet.afterReady, AFTER_READY],
    [quiet.beforeVerdict, BEFORE_VERDICT],
    [TRACEBACK_CUES, CUES],
  ];
  const literals: ByteLiteral[] = [];
  for (const [texts, mask] of groups) {
    const bytes = byteLiterals(texts);
    if (!bytes) return null;
    literals.push(...bytes.map((b) => ({ bytes: b, mask })));
  }
  // The chunk scan stops at every line the line scanner could call FEED: any literal, a stamp,
  // a `\r` (frames are the splitter's), a gap marker; that line is then asked about alone.
  const stops = [...literals.map((literal) => literal.bytes), GAP_MARKER, Buffer.from('\r')];
  return { line: new ByteLiteralScanner(literals), chunk: new ChunkLiteralScanner(stops, { stamps: true }) };
}

/**
 * A prefix rule reads a timestamp only from a stamp (its `time` group is `\d{2}:\d{2}:\d{2}`)
 * and never a date without a time: a `date` or `md` group is followed by the time group with
 * only plain text between. Checked on the pattern's text, conservatively: anything else and the
 * fast path stays off.
 */
function readsTimeFromStamp(prefix: CompiledPrefix): boolean {
  const source = prefix.regex.source;
  const time = source.indexOf('(?<time>');
  const dates = ['(?<date>', '(?<md>'].map((name) => source.indexOf(name)).filter((at) => at !== -1);
  if (time === -1) return dates.length === 0;
  const group = TIME_GROUPS.find((shape) => source.startsWith(shape, time));
  if (!group || /^[?*+{]/.test(source.slice(time + group.length))) return false;
  return dates.every((at) => {
    const close = source.indexOf(')', at);
    return close < time && !source.slice(at + 2, close).includes('(') && /^[^()|?*+{}[\]\\]*$/.test(source.slice(close + 1, time));
  });
}

/** Some printable ASCII byte in `chunk[start, end)` (whitespace is all below or above it). */
function hasText(chunk: Buffer, start: number, end: number): boolean {
  for (let at = start; at < end; at++) if (chunk[at]! > 0x20 && chunk[at]! < 0x7f) return true;
  return false;
}

function startsWith(chunk: Buffer, start: number, end: number, bytes: Uint8Array): boolean {
  return end - start >= bytes.length && occursAt(chunk, start, bytes);
}
