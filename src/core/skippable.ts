/**
 * What core lets a reader leave unread right now: the one answer the io fast path asks for
 * (`Session.skippable()`, io/fast-path). Core never learns how the skipping is done; it only says
 * which lines could change nothing:
 *  - `scope`: a line holding none of the literals of the pack's rules in this scope
 *    (RulePrefilter.quietLiterals) matches no rule that can act now;
 *  - `clock`: a line must also tell the clock nothing new: `timedPrefix` and `epoch` say when a
 *    timestamped line reads the very timestamp the clock already took (Timeline.timedPrefix);
 *  - `lastLineNo`: whether the line just read set the run's last line (a blank one does not);
 *  - `repeatsLastLine`: a repeat of the line just read (a progress bar redrawn) sets the last
 *    line only: no activity, no event;
 *  - `quietText`: a line that holds a rule's literal may still match no rule that can act now:
 *    core says so;
 *  - `idleBar`: a frame of a bar already read that moved nothing but its counters, rate or
 *    elapsed time changes no more than a repeat (`repeatsLastLine`) does;
 *  - `barFrame`: a frame of a bar already read that is not idle moves the bar: it must be read,
 *    so nothing more is asked about it.
 */
import type { CompiledPack } from './pack-types.js';
import type { QuietScope } from './prefilter.js';

export interface Skippable {
  pack: CompiledPack;
  /**
   * Undefined: every line must be read now (a verdict waits on a timer, a traceback is open).
   * Before a verdict a skipped line must still be stood for by the last of its run (it sets the
   * last line and the time of the last activity).
   */
  scope: QuietScope | undefined;
  /** After a verdict only a new run or, after ready, a fatal failure can change the answer. */
  verdict: 'ready' | 'other' | undefined;
  clock: { run: object; epoch: number; timedPrefix: string | undefined };
  /** Line number of the run's last line read. */
  lastLineNo: number | undefined;
  /** The same line again, byte for byte, would change nothing but the last line (Timeline.repeatsLastLine). */
  repeatsLastLine: boolean;
  /**
   * For a line that holds a literal (before a verdict: but no traceback cue): whether reading it
   * would change no more than a line without literals (Classifier.quietText; it parses and
   * matches the line). Before a verdict it is asked of one frame; after one, of a whole physical
   * line (its `\r` frames and colour codes and all), which is quiet when it neither starts a new
   * run nor, after ready, is a fatal failure. While `scope` stays the same the answer depends on
   * the text alone (parsing and matching are pure), so a reader may remember it for a text it
   * meets again.
   */
  quietText: (text: string) => boolean;
  /**
   * Whether the line `source[start, end)` (its bytes without the newline, or a frame the splitter
   * cut) is a frame of a known bar that may go unread now (Classifier.idleBarFrame): read, it
   * would set the run's last line and nothing else; so of a run of such lines the last is read,
   * as of repeats. The answer holds until the next line read.
   */
  idleBar: (source: Uint8Array | string, start: number, end: number) => boolean;
  /**
   * Whether `source[start, end)` is a frame of a known bar at all (idle or not): one that
   * `idleBar` refuses moves its bar, and reading it acts (its progress), so a reader need not
   * ask `quietText` about it.
   */
  barFrame: (source: Uint8Array | string, start: number, end: number) => boolean;
  /**
   * Stays the same while every answer of `idleBar` does (Classifier.idleEpoch), across lines
   * read that changed nothing but the last line (a bar's unread frame read last): a reader may
   * remember `idleBar`'s answers by it. Unique among all classifiers.
   */
  idleEpoch: number;
}
