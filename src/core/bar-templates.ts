/**
 * A known bar's frame that moved only its elapsed time, matched without the rule cascade: the
 * match of the bar's last frame the rules read (its template), with the new time. tqdm's frames
 * of one bar differ in their numbers only, and what a frame says is all in its numbers
 * (known-bars.ts); a frame whose text is the template's up to the `[` of its elapsed time, whose
 * elapsed time has the template's shape (digits where it has digits, colons where it has colons)
 * and whose rest is tqdm's own `remaining, rate]`, matches as the template did, but for the time.
 * Issue 26: 8 ranks' bars each move their elapsed second every second, and such a frame was
 * read through every rule (10 us) three times out of four a bar was read at all.
 *
 *   (Worker_TP3 pid=41203) Loading safetensors checkpoint shards:  12% Completed | 6/49 [00:03<00:25,  1.75it/s]
 *   --------------------- the template's text up to here -----------------------------|time|- tqdm's rest -
 *
 * A template is kept only for a match of a lone progress hit (no other kind of line, no
 * timestamp: rule-kinds.ts loneBar) whose named groups are the bar's own and whose `elapsed`
 * group is the frame's very elapsed time.
 */
import type { KnownBar } from './known-bars.js';
import { parseTqdmElapsed } from './log-clock.js';
import type { FrameMatch } from './rule-kinds.js';

interface Template {
  /** The frame's text up to and with the `[` of its elapsed time. */
  readonly upToTime: string;
  /** The elapsed time as the frame shows it (`00:03`). */
  readonly time: string;
  readonly match: FrameMatch;
  /** Where the body begins in the text (after the prefixes the parser peeled). */
  readonly bodyAt: number;
}

/** The named groups a progress rule may have for its template to stand for another frame. */
const BAR_GROUPS = new Set(['label', 'percent', 'current', 'total', 'elapsed']);
const OPEN = '[';
const LT = '<';

export class BarTemplates {
  private readonly templates = new WeakMap<KnownBar, Template>();

  /** Keeps the match the rules gave `text`, a frame of `bar`, when it can stand for the bar's later frames. */
  remember(bar: KnownBar, text: string, match: FrameMatch): void {
    const progress = match.progress;
    const time = progress?.groups.elapsed;
    if (progress === undefined || time === undefined || progress.elapsedMs === undefined) return;
    if (Object.keys(progress.groups).some((name) => !BAR_GROUPS.has(name))) return;
    const open = text.lastIndexOf(OPEN);
    if (open === -1 || !text.startsWith(time, open + 1) || text[open + 1 + time.length] !== LT) return;
    this.templates.set(bar, { upToTime: text.slice(0, open + 1), time, match, bodyAt: text.length - match.frame.body.length });
  }

  /**
   * The match of `text`, a frame of `bar` (known-bars.ts recognised it: its rest after the time
   * is tqdm's), from the bar's template; undefined when the frame differs from it in more than
   * the digits of its elapsed time and its rest.
   */
  read(bar: KnownBar, text: string): FrameMatch | undefined {
    const template = this.templates.get(bar);
    if (template === undefined || !text.startsWith(template.upToTime)) return undefined;
    const from = template.upToTime.length;
    const time = template.time;
    if (text[from + time.length] !== LT || !sameShape(text, from, time)) return undefined;
    const elapsed = text.slice(from, from + time.length);
    const { match, bodyAt } = template;
    const progress = match.progress!;
    return {
      ...match,
      frame: { ...match.frame, text, body: text.slice(bodyAt) },
      progress: { ...progress, groups: { ...progress.groups, elapsed }, elapsedMs: parseTqdmElapsed(elapsed) },
    };
  }
}

/** Whether `text` at `from` has a digit wherever `time` has one and its colons where it has them. */
function sameShape(text: string, from: number, time: string): boolean {
  for (let k = 0; k < time.length; k++) {
    const unit = text.charCodeAt(from + k);
    if (time.charCodeAt(k) === 0x3a ? unit !== 0x3a : unit < 0x30 || unit > 0x39) return false;
  }
  return true;
}
