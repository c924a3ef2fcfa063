/**
 * Drives a classifier with time taken from the log itself (its timestamps and tqdm's elapsed
 * fields). Given wall-clock readings as well, it runs live: log time while lines catch up,
 * wall time across the silences in between. Pure: every clock reading is an argument.
 */
import type { Classifier } from './classifier.js';
import type { ClassifierEvent } from './events.js';
import { guardFrames } from './line-guard.js';
import { LogClock } from './log-clock.js';
import type { FrameMatch } from './match-frame.js';
import type { TimeParts } from './parse-line.js';
import { onlyKind } from './rule-kinds.js';

/** `# [... gap in source ...]`: text missing from a capture, not part of the log. */
export function isGapMarker(line: string): boolean {
  return line.startsWith('# [') && /^# \[\.\.\.? ?gap\b/i.test(line);
}

/** Log timestamps have one-second resolution. */
const CLOCK_RESOLUTION_MS = 1000;

export class Timeline {
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

  constructor(readonly classifier: Classifier) {}

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
  push(raw: string, options: { lineNo?: number; wall?: number; live?: boolean; stream?: string } = {}): ClassifierEvent[] {
    this.lineNo = options.lineNo ?? this.lineNo + 1;
    this.timed = undefined;
    this.repeatable = false;
    if (isGapMarker(raw)) {
      this.moveEpoch(undefined);
      this.clock.gap();
      return [];
    }
    const events: ClassifierEvent[] = [];
    const frames = guardFrames(raw);
    for (const text of frames) {
      const match = this.classifier.read(text);
      const frame = match.frame;
      if (match.restart && this.classifier.verdict) {
        // The classifier is about to start a new run (a verdict was given): a clock of its own.
        this.clock.restart();
        this.moveEpoch(undefined);
      }
      if (frame.time) this.moveEpoch(timeKey(frame.time));
      let logNow = this.clock.observe(frame.time);
      if (match.progress?.elapsedMs !== undefined) {
        this.moveEpoch(undefined);
        logNow = this.clock.observeBar(match.progress.key, match.progress.elapsedMs);
      }
      if (frames.length === 1 && frame.time && this.epochTime !== undefined) this.timed = text.slice(0, text.length - frame.body.length);
      this.repeatable = frames.length === 1 && isBarOnly(match);
      const now = this.toNow(logNow, options.wall, options.live ?? false);
      events.push(...this.classifier.tick(now), ...this.classifier.feedMatch(match, now, this.lineNo, options.stream));
    }
    return events;
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
