/**
 * Drives a classifier with time taken from the log itself (its timestamps and tqdm's elapsed
 * fields). Given wall-clock readings as well, it runs live: log time while lines catch up,
 * wall time across the silences in between. Pure: every clock reading is an argument.
 */
import type { BarClock, Classifier } from './classifier.js';
import type { ClassifierEvent } from './events.js';
import { cutGlued, guardFrame, guardFrames, gluedAfterBar, hasEscape } from './line-guard.js';
import { LogClock } from './log-clock.js';
import type { FrameMatch } from './match-frame.js';
import type { TimeParts } from './parse-line.js';
import { rankKey } from './follow-stages.js';
import { onlyKind } from './rule-kinds.js';

/** `# [... gap in source ...]`: text missing from a capture, not part of the log. */
export function isGapMarker(line: string): boolean {
  return line.startsWith('# [') && /^# \[\.\.\.? ?gap\b/i.test(line);
}

interface PushOptions {
  lineNo?: number;
  wall?: number;
  live?: boolean;
  /** The output the line was read from, when the log merges several (`run`: stdout and stderr). */
  stream?: string;
}

/** Log timestamps have one-second resolution. */
const CLOCK_RESOLUTION_MS = 1000;

export class Timeline implements BarClock {
  readonly clock = new LogClock();
  private lineNo = 0;
  private lastNow = 0;
  private anchor: { log: number; wall: number } | undefined;
  /** Log time set aside as clock steps seen live (DST, NTP): subtracted from later log times. */
  private skew = 0;
  private last: { log: number; wall: number } | undefined;
  private epoch = 0;
  /** The timestamp (rule and fields) the clock was last given, while nothing else moved it. */
  private epochTime: string | undefined;
  private timed: string | undefined;
  private repeatable = false;
  /**
   * The timestamp format (its prefix rule) that timed the physical line being read, the first of
   * its frames to carry one. A later frame of the line stamped by another format is a server's
   * line glued after a bar or a `\r` behind a collector's stamp (`2025-03-10T11:21:21Z 0%|..|
   * 0/23 [00:00<?, ?it/s][2025-03-10 16:21:21 TP1] ...`): the collector's stamp times the whole
   * line, and the server's, in its own zone, would move the clock hours on.
   */
  private lineFormat: string | undefined;

  constructor(readonly classifier: Classifier) {
    classifier.followClock(this);
  }

  /** Whether a frame of the bar `key` (its rank's) at `elapsedMs` would move the clock (Classifier.idleBarFrame). */
  moves(key: string, elapsedMs: number): boolean {
    return this.clock.barMoves(key, elapsedMs);
  }

  /**
   * The last line pushed was one progress-bar frame that, pushed again byte for byte, would
   * change nothing but the run's last line: a bar only (no other rule matched it), no timestamp,
   * an elapsed time other than 0 (a 0 restarts the bar's clock), so its position and time are
   * already taken and no event follows. tqdm prints such repeats by the thousand
   * (io/fast-path/quiet-lines.ts leaves them unread).
   */
  get repeatsLastLine(): boolean {
    return this.repeatable;
  }

  /**
   * Changes whenever the clock may have changed: a timestamp other than the last one, a
   * progress bar's elapsed time, a gap. Giving the clock the same timestamp again, read by the
   * same prefix rule, while this stays the same changes nothing.
   */
  get clockEpoch(): number {
    return this.epoch;
  }

  /**
   * When the last line pushed was one frame whose timestamp the clock took: the prefixes peeled
   * off it (`[2025-03-08 12:00:00 TP0] `). A line that begins with the same text and shows no
   * other timestamp reads the same timestamp with the same prefix rule, so while `clockEpoch`
   * stays the same it tells the clock nothing new (io/fast-path/quiet-lines.ts relies on this).
   */
  get timedPrefix(): string | undefined {
    return this.timed;
  }

  /** The time the classifier last saw. */
  get now(): number {
    return this.lastNow;
  }

  get lastLineNo(): number {
    return this.lineNo;
  }

  /**
   * Feeds one physical line; `wall` (ms) is given when running live, `live` when the line was
   * written after watching began (not read from a backlog), `stream` when the log merges several outputs.
   */
  push(raw: string, options: PushOptions = {}): ClassifierEvent[] {
    const lineNo = options.lineNo ?? this.lineNo + 1;
    // The reader may hand the frames of one physical line over one by one, with its number.
    if (lineNo !== this.lineNo) this.lineFormat = undefined;
    this.lineNo = lineNo;
    this.timed = undefined;
    this.repeatable = false;
    if (isGapMarker(raw)) {
      this.moveEpoch(undefined);
      this.clock.gap();
      return [];
    }
    const events: ClassifierEvent[] = [];
    if (raw.indexOf('\r') !== -1 && !hasEscape(raw)) {
      this.pushFrames(raw, options, events);
      return events;
    }
    const frames = guardFrames(raw);
    // A known bar's frame that moved only its counters, with a later frame in the line, changes nothing.
    for (let i = 0; i < frames.length - 1; i++) if (!this.classifier.idleBarFrame(frames[i]!, 0, frames[i]!.length)) this.pushFrame(frames[i]!, false, options, events);
    this.pushLastFrame(frames[frames.length - 1]!, frames.length === 1, options, events);
    return events;
  }

  /**
   * The `\r` frames of a physical line without colour codes, as guardFrames cuts them; a frame of
   * a known bar that may go unread (Classifier.idleBarFrame) is passed over where it lies, never
   * cut out of the line: tqdm writes a thousand of them to a line of a file.
   */
  private pushFrames(raw: string, options: PushOptions, events: ClassifierEvent[]): void {
    const end = raw.endsWith('\r\n') ? raw.length - 2 : raw.endsWith('\n') ? raw.length - 1 : raw.length;
    let frames = 0;
    // A frame is read once the next is found (whether it is the line's last decides what it may leave behind).
    let held: string | undefined;
    let passedFrom = -1;
    let passedTo = -1;
    /** The passed frame when it was the last piece of a frame cut after a bar (gluedAfterBar). */
    let passedPiece: string | undefined;
    for (let start = 0; start <= end; ) {
      let stop = raw.indexOf('\r', start);
      if (stop === -1 || stop > end) stop = end;
      if (stop > start) {
        const idle = held === undefined && this.classifier.idleBarFrame(raw, start, stop);
        let text = idle ? '' : guardFrame(raw.slice(start, stop));
        if (idle || text !== '') {
          frames++;
          if (held !== undefined) this.pushFrame(held, false, options, events);
          held = undefined;
          passedFrom = -1;
          passedPiece = undefined;
          if (!idle && gluedAfterBar(text) !== -1) {
            const pieces = cutGlued(text);
            frames += pieces.length - 1;
            text = pieces.pop()!;
            for (const piece of pieces) if (!this.classifier.idleBarFrame(piece, 0, piece.length)) this.pushFrame(piece, false, options, events);
            passedPiece = text;
          }
          if (idle || this.classifier.idleBarFrame(text, 0, text.length)) {
            passedFrom = start;
            passedTo = stop;
          } else {
            held = text;
          }
        }
      }
      start = stop + 1;
    }
    if (held !== undefined) this.pushFrame(held, frames === 1, options, events);
    else if (passedFrom !== -1) this.passFrame(passedPiece ?? raw.slice(passedFrom, passedTo).trimEnd(), frames === 1);
    else this.pushFrame('', true, options, events);
  }

  /** Reads the line's last guarded frame (`single`: its only one), unless it is a known bar's that may go unread. */
  private pushLastFrame(text: string, single: boolean, options: PushOptions, events: ClassifierEvent[]): void {
    if (this.classifier.idleBarFrame(text, 0, text.length)) this.passFrame(text, single);
    else this.pushFrame(text, single, options, events);
  }

  /** Reads one guarded frame of the line; `single`: the line's only one. */
  private pushFrame(text: string, single: boolean, options: PushOptions, events: ClassifierEvent[]): void {
    const match = this.classifier.read(text);
    const frame = match.frame;
    if (match.restart && this.classifier.verdict) {
      // The classifier is about to start a new run (a verdict was given): a clock of its own.
      this.clock.restart();
      this.moveEpoch(undefined);
    }
    const time = this.lineTime(frame.time);
    if (time) this.moveEpoch(timeKey(time));
    let logNow = this.clock.observe(time);
    if (match.progress?.elapsedMs !== undefined) {
      this.moveEpoch(undefined);
      logNow = this.clock.observeBar(rankKey(this.classifier.state, match.progress), match.progress.elapsedMs);
    }
    if (single && time && this.epochTime !== undefined) this.timed = text.slice(0, text.length - frame.body.length);
    this.repeatable = single && isBarOnly(match);
    const now = this.toNow(logNow, options.wall, options.live ?? false);
    events.push(...this.classifier.tick(now), ...this.classifier.feedMatch(match, now, this.lineNo, options.stream));
  }

  /** A frame's timestamp, unless another format timed its physical line already (see lineFormat). */
  private lineTime(time: TimeParts | undefined): TimeParts | undefined {
    if (time === undefined) return undefined;
    const format = time.source ?? '';
    this.lineFormat ??= format;
    return format === this.lineFormat ? time : undefined;
  }

  /**
   * A known bar's frame left unread was the line's last: it is the run's last line, and a repeat
   * of it changes nothing else either (the clock has not moved).
   */
  private passFrame(text: string, single: boolean): void {
    this.classifier.passBarFrame(text, this.lastNow, this.lineNo);
    this.timed = undefined;
    this.repeatable = single;
  }

  /** Lets time pass with no new line: `wall` when live, or `idleMs` of log time in replay. */
  tick(options: { wall?: number; idleMs?: number } = {}): ClassifierEvent[] {
    const now = options.wall !== undefined ? this.toNow(this.clock.now, options.wall, false) : this.lastNow + (options.idleMs ?? 0);
    this.lastNow = Math.max(this.lastNow, now);
    return this.classifier.tick(this.lastNow);
  }

  end(): ClassifierEvent[] {
    return this.classifier.end(this.lastNow);
  }

  /** `time`: the timestamp about to be observed; undefined: anything else that moves the clock. */
  private moveEpoch(time: string | undefined): void {
    if (time !== undefined && time === this.epochTime) return;
    this.epoch++;
    this.epochTime = time;
  }

  private toNow(rawLogNow: number, wall: number | undefined, live: boolean): number {
    if (wall === undefined) {
      this.lastNow = Math.max(this.lastNow, rawLogNow);
      return this.lastNow;
    }
    let logNow = rawLogNow - this.skew;
    // A line written live cannot be further ahead in log time than the wall time since the
    // last line (plus the timestamps' 1 s resolution): more is the host's clock stepping.
    if (live && this.last && logNow > this.last.log + (wall - this.last.wall) + CLOCK_RESOLUTION_MS) {
      const allowed = this.last.log + (wall - this.last.wall) + CLOCK_RESOLUTION_MS;
      this.skew += logNow - allowed;
      logNow = allowed;
    }
    if (!this.last || logNow >= this.last.log) this.last = { log: logNow, wall };
    // Live: the log's own time when it moves (a backlog read at once keeps its real gaps),
    // plus the wall time that passed since it last moved (real silence).
    if (!this.anchor || logNow > this.anchor.log) this.anchor = { log: logNow, wall };
    this.lastNow = Math.max(this.lastNow, this.anchor.log + (wall - this.anchor.wall));
    return this.lastNow;
  }
}

function isBarOnly(match: FrameMatch): boolean {
  const { progress } = match;
  if (!progress || (progress.elapsedMs !== undefined && progress.elapsedMs <= 0) || match.frame.time) return false;
  // The bar is all the frame matched.
  return onlyKind(match);
}

function timeKey(time: TimeParts): string {
  return `${time.source ?? ''}|${time.date ?? ''}|${time.md ?? ''}|${time.time ?? ''}|${time.frac ?? ''}`;
}
