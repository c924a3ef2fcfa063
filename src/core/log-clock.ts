/**
 * Time taken from the log itself, so replay applies stall budgets exactly as they act live.
 * Lines without a timestamp inherit the last one; time never runs backwards; a jump of more
 * than CLOCK_JUMP_MS either way is a clock change (or two formats disagreeing), not silence.
 */
import type { TimeParts } from './parse-line.js';

export const CLOCK_JUMP_MS = 6 * 3_600_000;
const DAY_MS = 86_400_000;
/** Year assumed for yearless timestamps until the log shows a full date. */
const DEFAULT_YEAR = 2000;

export class LogClock {
  /** Log time relative to the first timestamp seen (lines before it sit at 0). */
  private current = 0;
  /** Offset of the first timestamp format; a new format starts from it (same epoch, presumably). */
  private primaryOffset: number | undefined;
  /** Per timestamp format: formats may disagree (a day off, another time zone), each keeps its own offset. */
  private readonly offsets = new Map<string, { offset: number; generation: number }>();
  private generation = 0;
  private year = DEFAULT_YEAR;
  private month: number | undefined;
  private lastDate: { y: number; m: number; d: number } | undefined;
  private lastTimeOfDay: number | undefined;
  private readonly bars = new Map<string, number>();
  private firstStamp: number | undefined;

  /** The log time now, in ms since the first timestamp; 0 before any timestamp was seen. */
  get now(): number {
    return this.current;
  }

  /**
   * The first timestamp of the log as read (ms since 1970, UTC as written; year 2000 for
   * yearless formats until a date says otherwise): where log time 0 sits. The nodes of one start
   * are lined up by it (core/group-replay.ts). Undefined until a timestamp was seen.
   */
  get origin(): number | undefined {
    return this.firstStamp;
  }

  /** Advances the clock from a line's timestamp (if any) and returns the log time of the line. */
  observe(parts: TimeParts | undefined): number {
    if (!parts) return this.now;
    const raw = this.toMillis(parts);
    if (raw === undefined) return this.now;
    const key = parts.source ?? '';
    let source = this.offsets.get(key);
    if (!source) {
      this.primaryOffset ??= this.current - raw;
      this.firstStamp ??= raw - this.current;
      source = { offset: this.primaryOffset, generation: this.generation };
      this.offsets.set(key, source);
    }
    let at = raw + source.offset;
    if (source.generation < this.generation || Math.abs(at - this.current) > CLOCK_JUMP_MS) {
      // Rebase this format instead of counting the jump as elapsed time.
      source.offset += this.current - at;
      source.generation = this.generation;
      at = this.current;
    }
    return this.advanceTo(at);
  }

  /** Whether observeBar(key, elapsedMs) would change the clock (move it, or set the bar's start anew). */
  barMoves(key: string, elapsedMs: number): boolean {
    const start = this.bars.get(key);
    if (start === undefined) return true;
    return elapsedMs === 0 ? start !== this.now : start + elapsedMs > this.now;
  }

  /**
   * A tqdm bar reports its own elapsed time: frames that share one physical line (and so one
   * timestamp) still show the bar moving. `key` identifies the bar.
   */
  observeBar(key: string, elapsedMs: number): number {
    const start = this.bars.get(key);
    if (start === undefined || elapsedMs === 0) {
      this.bars.set(key, this.now - elapsedMs);
      return this.now;
    }
    const at = start + elapsedMs;
    return at > this.now ? this.advanceTo(at) : this.now;
  }

  /**
   * A new run begins after a verdict: from here on time is measured from its own lines only, as
   * if the log began here at the time already reached (formats, dates and bars are forgotten).
   * After a verdict not every line is read (io/fast-path/), so what the clock learned from
   * the lines in between must not shape the new run's times.
   */
  restart(): void {
    this.offsets.clear();
    this.primaryOffset = undefined;
    this.generation = 0;
    this.year = DEFAULT_YEAR;
    this.month = undefined;
    this.lastDate = undefined;
    this.lastTimeOfDay = undefined;
    this.bars.clear();
  }

  /** Text is missing from the capture here: the next jump in time is not silence. */
  gap(): void {
    this.generation += 1;
    this.bars.clear();
  }

  private advanceTo(at: number): number {
    if (at > this.current) this.current = at;
    return this.current;
  }

  private toMillis(parts: TimeParts): number | undefined {
    const tod = parts.time ? timeOfDay(parts.time, parts.frac) : undefined;
    let date = parts.date ? fullDate(parts.date) : undefined;
    if (date) {
      this.year = date.y;
      this.month = date.m;
    } else if (parts.md) {
      date = this.yearlessDate(parts.md);
    } else if (tod !== undefined && this.lastDate) {
      date = { ...this.lastDate };
      // A time-only log crossing midnight.
      if (this.lastTimeOfDay !== undefined && tod < this.lastTimeOfDay - DAY_MS / 2) date = nextDay(date);
    }
    if (!date && tod === undefined) return undefined;
    const day = date ?? this.lastDate ?? { y: DEFAULT_YEAR, m: 1, d: 1 };
    this.lastDate = day;
    if (tod !== undefined) this.lastTimeOfDay = tod;
    return Date.UTC(day.y, day.m - 1, day.d) + (tod ?? 0);
  }

  private yearlessDate(md: string): { y: number; m: number; d: number } | undefined {
    // Three digits: torch's c10 logger does not pad the month (`W208` is 8 February).
    const digits = md.replace(/\D/g, '').padStart(4, '0');
    if (digits.length !== 4) return undefined;
    const m = Number(digits.slice(0, 2));
    const d = Number(digits.slice(2));
    if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
    // December to January without a year in the log: the year turned.
    if (this.month !== undefined && m < this.month - 6) this.year += 1;
    this.month = m;
    return { y: this.year, m, d };
  }
}

function fullDate(text: string): { y: number; m: number; d: number } | undefined {
  const match = /^(\d{4})[-/](\d{2})[-/](\d{2})$/.exec(text);
  if (!match) return undefined;
  return { y: Number(match[1]), m: Number(match[2]), d: Number(match[3]) };
}

function timeOfDay(text: string, frac?: string): number | undefined {
  const match = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
  return ((Number(match[1]) * 60 + Number(match[2])) * 60 + Number(match[3])) * 1000 + ms;
}

function nextDay(date: { y: number; m: number; d: number }): { y: number; m: number; d: number } {
  const next = new Date(Date.UTC(date.y, date.m - 1, date.d) + DAY_MS);
  return { y: next.getUTCFullYear(), m: next.getUTCMonth() + 1, d: next.getUTCDate() };
}

/** `[01:09:28<` or `[05:20<`: tqdm's elapsed field, in ms. */
export function parseTqdmElapsed(text: string): number | undefined {
  const parts = text.split(':').map(Number);
  if (parts.some((n) => !Number.isFinite(n))) return undefined;
  let seconds = 0;
  for (const part of parts) seconds = seconds * 60 + part;
  return seconds * 1000;
}
