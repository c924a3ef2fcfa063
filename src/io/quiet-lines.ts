/**
 * The fast path of the watch loop: tells, from a line's raw bytes, that reading it would change
 * nothing, so the line is never decoded (LineSplitter's SKIP and DROP). A line is quiet when
 *  1. it holds no literal of any rule that can still act (RulePrefilter.quietLiterals, by the
 *     scope the classifier gives), nor a cue of the traceback tracker, a colour code, or a gap
 *     marker's `# [`: no rule matches it and the line guard reads it as it is;
 *  2. the classifier can skip it now (Classifier.quietScope);
 *  3. it tells the clock nothing new: it has no clock stamp (`d:dd:dd`) at all, or it begins
 *     with the very prefixes of a line just read whose timestamp the clock took (same text, so
 *     the same prefix rule reads the same timestamp), has text after them but no stamp, and the
 *     clock has not moved since (Timeline.timedPrefix, clockEpoch).
 * (3) rests on two things checked here: every prefix rule that reads a date reads a time with
 * it, and a time is always a stamp, so a line without one reads no timestamp; and a prefix rule
 * decides by the text it matches (its delimiters), so a line that starts with the prefixes a
 * rule took off another line is peeled the same way.
 *
 * Once a verdict is given, whole runs of lines are let go at once (`nextDue`, in
 * io/skip-after-verdict.ts).
 */
import { ByteLiteralScanner, type ByteLiteral } from '../core/byte-literal-scanner.js';
import type { CompiledPack, CompiledPrefix } from '../core/pack-types.js';
import type { QuietScope } from '../core/prefilter.js';
import type { Session } from '../core/session.js';
import type { Timeline } from '../core/timeline.js';
import { TRACEBACK_CUES } from '../core/traceback.js';
import { DROP, FEED, SKIP, type Quiet } from './line-splitter.js';
import { AfterVerdict, byteLiterals, ESCAPES } from './skip-after-verdict.js';

const ALWAYS = 1;
const AFTER_READY = 2;
const BEFORE_VERDICT = 4;
const RELEVANT: Record<QuietScope, number> = { always: ALWAYS, afterReady: ALWAYS | AFTER_READY, beforeVerdict: ALWAYS | AFTER_READY | BEFORE_VERDICT };
const GAP_MARKER = Buffer.from('# [');
/** Prefix shapes seen within one second: SGLang's ranked and unranked lines, uvicorn's, ... */
const MAX_REFERENCES = 8;
const TIME_GROUPS = ['(?<time>\\d{2}:\\d{2}:\\d{2})', '(?<time>\\d{1,2}:\\d{2}:\\d{2})'];

export class QuietLines {
  private refs: { text: string; bytes: Buffer }[] = [];
  private refTimeline: Timeline | undefined;
  private refEpoch = -1;
  private readonly afterVerdict = new AfterVerdict();

  constructor(private readonly session: Session) {}

  /** How the line `chunk[start, end)` may be handled now (LineHandler.quiet). */
  classify(chunk: Buffer, start: number, end: number): Quiet {
    const timeline = this.session.currentTimeline;
    if (!timeline) return FEED;
    const scanner = scannerFor(timeline.classifier.pack);
    const scope = scanner && timeline.classifier.quietScope();
    if (!scanner || !scope || startsWith(chunk, start, end, GAP_MARKER)) return FEED;
    const relevant = RELEVANT[scope];
    if (scanner.scan(chunk, start, end, relevant) & relevant) return FEED;
    if (scanner.stampEnd >= 0 && !this.sameTimestamp(timeline, chunk, start, end, scanner.stampEnd)) return FEED;
    // Before a verdict a quiet line still sets the last line and the time of the last activity.
    return scope === 'beforeVerdict' ? SKIP : DROP;
  }

  /** Where in `chunk[start, end)` the next line starts that must be read (LineHandler.nextDue; AfterVerdict). */
  nextDue(chunk: Buffer, start: number, end: number, first: boolean): number {
    const classifier = this.session.currentTimeline?.classifier;
    return this.afterVerdict.nextDue(classifier, chunk, start, end, first);
  }

  /**
   * Call after each line fed to the session: a line whose timestamp the clock took becomes a
   * reference. Returns false when the line changed nothing in the run (a blank message sets no
   * last line), so that a SKIP line before it must be read instead (LineHandler.emit).
   */
  noteFed(lineNo: number): boolean {
    const timeline = this.session.currentTimeline;
    if (!timeline) return true;
    const prefix = timeline.timedPrefix;
    if (prefix !== undefined) {
      if (timeline !== this.refTimeline || timeline.clockEpoch !== this.refEpoch) {
        this.refs = [];
        this.refTimeline = timeline;
        this.refEpoch = timeline.clockEpoch;
      }
      if (this.refs.length < MAX_REFERENCES && !this.refs.some((ref) => ref.text === prefix)) this.refs.push({ text: prefix, bytes: Buffer.from(prefix) });
    }
    const { state } = timeline.classifier;
    return state.verdict !== undefined || state.lastLine?.lineNo === lineNo;
  }

  private sameTimestamp(timeline: Timeline, chunk: Buffer, start: number, end: number, stampEnd: number): boolean {
    if (timeline !== this.refTimeline || timeline.clockEpoch !== this.refEpoch) return false;
    for (const { bytes } of this.refs) {
      // Text must follow the prefixes: the line guard trims trailing blanks, and a prefix that
      // lost its trailing space is not peeled (an outer timestamp would be read instead).
      if (stampEnd <= bytes.length && startsWith(chunk, start, end, bytes) && hasText(chunk, start + bytes.length, end)) return true;
    }
    return false;
  }
}

const scanners = new WeakMap<CompiledPack, ByteLiteralScanner | null>();

/** The pack's scanner, or null when no line can be proven quiet with it. */
function scannerFor(pack: CompiledPack): ByteLiteralScanner | null {
  let scanner = scanners.get(pack);
  if (scanner === undefined) {
    scanner = buildScanner(pack);
    scanners.set(pack, scanner);
  }
  return scanner;
}

function buildScanner(pack: CompiledPack): ByteLiteralScanner | null {
  const quiet = pack.prefilter.quietLiterals();
  if (!quiet || !pack.prefixes.every(readsTimeFromStamp)) return null;
  const groups: [readonly string[], number][] = [
    [[...quiet.always, ...ESCAPES], ALWAYS],
    [quiet.afterReady, AFTER_READY],
    [[...quiet.beforeVerdict, ...TRACEBACK_CUES], BEFORE_VERDICT],
  ];
  const literals: ByteLiteral[] = [];
  for (const [texts, mask] of groups) {
    const bytes = byteLiterals(texts);
    if (!bytes) return null;
    literals.push(...bytes.map((b) => ({ bytes: b, mask })));
  }
  return new ByteLiteralScanner(literals);
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
  if (end - start < bytes.length) return false;
  for (let k = 0; k < bytes.length; k++) if (chunk[start + k] !== bytes[k]) return false;
  return true;
}
