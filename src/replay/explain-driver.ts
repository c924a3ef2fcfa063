/**
 * Replays a log like `Session` does, but keeps what happened to every frame: which rules
 * matched it, the log time it got, whether it closed a traceback, and which root-cause
 * candidates it added. `explain` and `replay --coverage` read this; the verdict is the one
 * replay gives, because the very same Timeline and Classifier run (only observed).
 */
import { Classifier, type FrameObserver } from '../core/classifier.js';
import { DETECT_LINES, FamilyDetector } from '../core/detect-family.js';
import type { ClassifierEvent, Verdict } from '../core/events.js';
import type { FrameMatch } from '../core/match-frame.js';
import type { CompiledPack } from '../core/pack-types.js';
import type { Candidate } from '../core/root-cause.js';
import { isGapMarker, Timeline } from '../core/timeline.js';
import { TracebackTracker, type TracebackRole } from '../core/traceback.js';
import { logLines } from './run-case.js';

export interface FrameTrace {
  match: FrameMatch;
  /** Log time the classifier was given for this frame. */
  at: number;
  /** What the frame was to the traceback reader; rules do not read `code` frames. */
  role: TracebackRole;
  /** The run already had its verdict: the frame only counts as a failure after ready. */
  afterVerdict: boolean;
  /** Root-cause candidates this frame added (rule hits, a rule judged by frame, an unnamed exception). */
  candidates: Candidate[];
  /** Prefix rules peeled off the frame, outermost first. */
  prefixes: string[];
}

export interface LineTrace {
  lineNo: number;
  raw: string;
  frames: FrameTrace[];
  events: ClassifierEvent[];
  /** `# [... gap` marker: not part of the log. */
  gap: boolean;
}

export interface LogTrace {
  pack: CompiledPack;
  family: string;
  detected: boolean;
  lines: LineTrace[];
  /** Events after the last line: the quiet time (`then_idle`) and the end of the input. */
  tail: ClassifierEvent[];
  verdict: Verdict;
  /** The final run's candidates, unranked. */
  candidates: readonly Candidate[];
}

export interface TraceOptions {
  packs: readonly CompiledPack[];
  family?: string;
  thenIdleMs?: number;
}

export function traceLog(text: string, options: TraceOptions): LogTrace {
  const raws = logLines(text);
  const { pack, detected } = pickPack(raws, options);
  let frames: FrameTrace[] = [];
  const classifier = new Classifier(pack, { observer: frameObserver(pack, (frame) => frames.push(frame)) });
  const timeline = new Timeline(classifier);
  const lines: LineTrace[] = raws.map((raw, index) => {
    frames = [];
    const events = timeline.push(raw);
    return { lineNo: index + 1, raw, frames, events, gap: isGapMarker(raw) };
  });
  const tail = [...(options.thenIdleMs ? timeline.tick({ idleMs: options.thenIdleMs }) : []), ...timeline.end()];
  let verdict: Verdict | undefined;
  for (const event of [...lines.flatMap((l) => l.events), ...tail]) {
    if (event.type === 'verdict') verdict = event.verdict;
    if (event.type === 'restart') verdict = undefined;
  }
  return { pack, family: pack.name, detected, lines, tail, verdict: verdict!, candidates: classifier.state.candidates };
}

/** The family as Session picks it: named, or decided within the first lines, else the shared rules. */
function pickPack(raws: readonly string[], options: TraceOptions): { pack: CompiledPack; detected: boolean } {
  if (options.family !== undefined) {
    const pack = options.packs.find((p) => p.name === options.family);
    if (!pack) throw new Error(`no pack named ${options.family}`);
    return { pack, detected: false };
  }
  const detector = new FamilyDetector(options.packs);
  for (const raw of raws.slice(0, DETECT_LINES)) if (detector.push(raw)) break;
  const first = options.packs[0]!;
  return { pack: detector.result ?? first.shared ?? first, detected: true };
}

/** Watches each frame go in through the classifier's observer hook; the classification is unchanged. */
function frameObserver(pack: CompiledPack, sink: (frame: FrameTrace) => void): FrameObserver {
  // The classifier stops reading tracebacks once it has a verdict; this one reads on, for the lines after it.
  const tracebacks = new TracebackTracker();
  return {
    fed: ({ match, now, lineNo, before, after, candidatesBefore, hadVerdict }) => {
      const restarted = after !== before;
      const blank = match.frame.body.trim() === '';
      if (!blank) tracebacks.push(match.frame, lineNo);
      const read = !blank && (restarted || !hadVerdict);
      sink({
        match,
        at: now,
        role: read ? after.tracebacks.role : blank ? 'outside' : tracebacks.role,
        afterVerdict: hadVerdict && !restarted,
        candidates: restarted ? [...after.candidates] : after.candidates.slice(candidatesBefore),
        prefixes: prefixIds(match.frame.text, pack),
      });
    },
  };
}

/** The prefix rules `parseFrame` peels off, in order (it keeps only what they captured). */
export function prefixIds(text: string, pack: CompiledPack): string[] {
  const ids: string[] = [];
  let body = text;
  for (let peel = 0; peel < 8 && body !== ''; peel++) {
    let length = 0;
    const hit = pack.prefixes.find((prefix) => {
      const match = prefix.regex.exec(body);
      if (match === null || match.index !== 0 || match[0].length === 0) return false;
      length = match[0].length;
      return true;
    });
    if (!hit) break;
    ids.push(hit.id);
    body = body.slice(length);
  }
  return ids;
}
