/**
 * Every kind of rule a pack holds, declared once. `RULE_KINDS`: the YAML list each kind lives in
 * (rules `nested` in each item of it, or in `tables` of it), the patterns a rule holds `also`
 * (besides `pattern`), its label in `explain` and coverage, whether it classifies log lines
 * (coverage asks fixtures to exercise those), and how the fast path treats its patterns
 * (`gated`: a line kind's, run only on frames holding one of their literals; `every-frame`: run on
 * each frame; `none`: not matched frame by frame). The pack reader, lint, coverage, the rule
 * locator and the build-time pattern table derive from it.
 * `LINE_KINDS`: the kinds matched against every frame, each with all the code that knows it (its
 * match slot, how its rules run, its fast-path scope, where its hits go, how explain shows them);
 * matching (match-frame.ts), the prefilter, the classifier, the skippable answer and explain take
 * what they do from here. A new kind is its schema fragment (pack/schema.ts), its entry here and
 * its compile step (compile-pack.ts).
 */
import type { Budget, ClassifierEvent, LogLine, Verdict } from './events.js';
import { followMarker, followProgress, rankKey } from './follow-stages.js';
import { parseTqdmElapsed } from './log-clock.js';
import type {
  CompiledDetect,
  CompiledFactDump,
  CompiledFailure,
  CompiledHeartbeat,
  CompiledInferenceTables,
  CompiledMarker,
  CompiledPack,
  CompiledPrefix,
  CompiledProgress,
  CompiledReady,
  CompiledRule,
} from './pack-types.js';
import type { ParsedFrame } from './parse-line.js';
import type { QuietScope } from './prefilter.js';
import { firstHit, groupsOf, type FrameHit, type Groups, type RuleHit } from './rule-hit.js';
import type { RunState } from './run-state.js';
import type { TracebackException } from './traceback.js';
import { belowError } from './severity.js';
import { readyVerdict, stalledVerdict } from './verdicts.js';
import { weighFailures } from './weigh-failures.js';

export const RULE_KINDS = [
  { kind: 'detect', list: 'detect', label: 'detect', classifies: true, fastPath: 'every-frame' },
  { kind: 'prefix', list: 'prefixes', label: 'prefix', classifies: true, fastPath: 'every-frame' },
  { kind: 'stage', list: 'stages', nested: 'markers', label: 'stage', classifies: true, fastPath: 'gated' },
  { kind: 'progress', list: 'progress', label: 'progress', classifies: true, fastPath: 'gated' },
  { kind: 'ready', list: 'ready', also: [{ field: 'confirm', fastPath: 'gated' }], label: 'ready', classifies: true, fastPath: 'gated' },
  { kind: 'heartbeat', list: 'heartbeats', label: 'heartbeat', classifies: true, fastPath: 'gated' },
  { kind: 'benign', list: 'benign', label: 'benign', classifies: true, fastPath: 'gated' },
  {
    kind: 'failure',
    list: 'failures',
    also: [
      { field: 'in_frame', fastPath: 'none' },
      { field: 'in_traceback', fastPath: 'none' },
    ],
    label: 'failure',
    classifies: true,
    fastPath: 'gated',
  },
  // The cause-inference layer (`inference:`), tables of one object; read on exceptions no failure rule names.
  { kind: 'inference', list: 'inference', tables: ['words', 'classes', 'packages', 'fallback_words'], label: 'inference', classifies: true, fastPath: 'none' },
  { kind: 'remedy', list: 'inference', tables: ['remedies'], label: 'remedy', classifies: true, fastPath: 'none' },
  { kind: 'symptom', list: 'inference', tables: ['symptoms'], label: 'symptom', classifies: true, fastPath: 'none' },
  // Not line rules: `run` matches launch commands; start facts are read beside the classifier.
  { kind: 'launch', list: 'launch', label: 'launch', classifies: false, fastPath: 'none' },
  { kind: 'start_facts', list: 'start_facts', label: 'start facts', classifies: false, fastPath: 'none' },
] as const;

export type RuleKindEntry = (typeof RULE_KINDS)[number];
export type RuleKind = RuleKindEntry['kind'];
/** The YAML key of each kind's list (`stages` nests its rules under `markers`, `inference` under its tables). */
export type RuleList = RuleKindEntry['list'];

export function ruleKind(kind: RuleKind): RuleKindEntry {
  return RULE_KINDS.find((entry) => entry.kind === kind)!;
}

/** Each kind's compiled rules (part of CompiledPack; compile-pack.ts fills them). */
export interface CompiledKinds {
  detect: CompiledDetect[];
  prefixes: CompiledPrefix[];
  markers: CompiledMarker[];
  progress: CompiledProgress[];
  ready: CompiledReady[];
  heartbeats: CompiledHeartbeat[];
  benign: CompiledRule[];
  failures: CompiledFailure[];
  /** Failures judged by the frame an exception was raised in (see `in_frame`). */
  frameFailures: CompiledFailure[];
  /** Causes for exceptions no failure rule names (see `InferenceSource`). */
  inference: CompiledInferenceTables;
  /** The launch commands of this family (`run` reads them; the family's own file only). */
  launch: CompiledRule[];
  /** The argument dumps that give a start's facts (this pack's and its includes'). */
  startFacts: CompiledFactDump[];
}

export interface ProgressHit extends RuleHit<CompiledProgress> {
  current: number;
  total?: number;
  percent?: number;
  elapsedMs?: number;
  /** Identifies one bar among several, whatever rank draws it (its rule, its description and its total). */
  bar: string;
  /**
   * Identifies one rank's bar: `bar` and who draws it (the rank tag, the process tag, the tag
   * before the bar); `bar` alone for a frame that shows no one (see `anonymous`).
   */
  key: string;
  /** The frame names no rank: a frame that follows another on one line is the same rank's (follow-stages.ts rankKey). */
  anonymous: boolean;
  /** Where the bar's counters begin in the frame's text (after its description): see known-bars.ts. */
  countersAt: number;
}

/** What one frame matched: a slot per line kind, filled by the kind's `match`. */
export interface FrameMatch {
  frame: ParsedFrame;
  marker?: RuleHit<CompiledMarker>;
  progress?: ProgressHit;
  ready?: RuleHit<CompiledReady>;
  /** A held ready verdict may be confirmed by this line. */
  confirmsReady: boolean;
  heartbeat?: RuleHit<CompiledHeartbeat>;
  benign?: RuleHit<CompiledRule>;
  failures: readonly RuleHit<CompiledFailure>[];
  /** The marker that starts a new run of the server, when the frame matched one. */
  restart?: CompiledRule;
  /** The kinds that matched the frame, one bit each (RegisteredKind.bit; see `acts`, `onlyKind`, `redrawn`). */
  hits: number;
}

const NO_FAILURES: readonly RuleHit<CompiledFailure>[] = Object.freeze([]);

/** A frame's match before any rule ran: every slot, always in the same order (one object shape). */
export function emptyMatch(frame: ParsedFrame): FrameMatch {
  return { frame, marker: undefined, progress: undefined, ready: undefined, confirmsReady: false, heartbeat: undefined, benign: undefined, failures: NO_FAILURES, restart: undefined, hits: 0 };
}

/** What a kind's handler is given for one frame before a verdict (Classifier.apply). */
export interface FollowStep {
  run: RunState;
  pack: CompiledPack;
  match: FrameMatch;
  line: LogLine;
  now: number;
  /** The exception a traceback closed on this frame. */
  exception: TracebackException | undefined;
  /** Order of root-cause candidates across the whole log. */
  nextSeq: () => number;
  /** The frame's events, in order: handlers add theirs. */
  events: ClassifierEvent[];
}

export interface ExplainContext {
  pack: CompiledPack;
  /** The events of the line the frame is part of. */
  events: readonly ClassifierEvent[];
}

/** One line kind and all the code that knows it. `R`: one of its rules as the prefilter gates it. */
export interface LineKind<R = unknown> {
  kind: RuleKind;
  /** Its rules in pack order (read when a pack is compiled). */
  rules(pack: CompiledKinds): readonly R[];
  /** The pattern that gates a rule in the prefilter (its literals are looked for). */
  regexOf(rule: R): RegExp;
  /** Runs the rules the prefilter picked on the frame's body and fills the kind's slot; true on a hit. */
  match(rules: readonly R[], body: string, into: FrameMatch): boolean;
  /**
   * The fast path: from when on a line matching this rule can change the answer (a line without
   * any such literal may go unread: RulePrefilter.quietLiterals). Absent: a silent kind, whose hit
   * alone changes nothing (a benign rule only sets failures aside).
   */
  scope?(rule: R): QuietScope;
  /** The rule starts a new run: the only thing that matters after a failed or stalled verdict. */
  restarts?(rule: R): boolean;
  /** Its frames are redrawn in place many times over (a tqdm bar): the classifier remembers the last one's match. */
  redrawn?: true;
  /** Whether the hit is no sign of life (silence is measured across it). */
  idle?(match: FrameMatch, run: RunState): boolean;
  /** Where its hits go, before a verdict: the run and the events. Called on the frames it matched. */
  follow?(step: FollowStep): void;
  /** `follow` is called on every frame, matched or not. */
  everyFrame?: true;
  /** Where its hits go once the run has a verdict (on the frames it matched). */
  afterVerdict?(step: FollowStep): void;
  /**
   * Whether `afterVerdict` would do anything with this frame's hit after a verdict (`ready`:
   * the verdict was ready). Given with `afterVerdict`: without it every hit counts as acting.
   */
  actsAfterVerdict?(match: FrameMatch, ready: boolean): boolean;
  /** What explain and coverage say about its hit on this frame. */
  explain(match: FrameMatch, context: ExplainContext, hits: FrameHit[]): void;
}

/**
 * A start that moved (a new stage, a bar that advanced) clears the heartbeat counts and an
 * exception's wait, unless the very line that moved it is the suspect one (vLLM's `# GPU
 * blocks: 0` both enters kv_cache and dooms it).
 */
function moved(run: RunState, line: LogLine): void {
  run.heartbeats.clear();
  if (run.uncaught?.line.lineNo !== line.lineNo) run.uncaught = undefined;
  if (run.lastWords?.line.lineNo !== line.lineNo) run.lastWords = undefined;
}

const byRegex = (rule: CompiledRule): RegExp => rule.regex;

const stage: LineKind<CompiledMarker> = {
  kind: 'stage',
  rules: (pack) => pack.markers,
  regexOf: byRegex,
  match(rules, body, into) {
    const hit = firstHit(rules, body);
    if (hit === undefined) return false;
    into.marker = hit;
    if (hit.rule.restart) into.restart = hit.rule;
    return true;
  },
  scope: (rule) => (rule.restart ? 'always' : 'beforeVerdict'),
  restarts: (rule) => rule.restart,
  follow({ run, pack, match, line, events }) {
    if (match.marker && followMarker(run, pack, match.marker, line, events)) moved(run, line);
  },
  explain({ marker }, { events }, hits) {
    if (!marker) return;
    const { rule, groups } = marker;
    const entered = events.some((e) => e.type === 'stage' && e.rule === rule.id);
    hits.push({ kind: 'stage', rule: rule.id, detail: entered ? rule.stage : `${rule.stage} (no change)`, groups });
  },
};

const progress: LineKind<CompiledProgress> = {
  kind: 'progress',
  rules: (pack) => pack.progress,
  regexOf: byRegex,
  match(rules, body, into) {
    for (const rule of rules) {
      const found = rule.regex.exec(body);
      if (found) {
        into.progress = toProgress({ rule, groups: groupsOf(found) }, into.frame, found.index);
        return true;
      }
    }
    return false;
  },
  // A bar's elapsed time moves the log clock, after a verdict too.
  scope: () => 'always',
  redrawn: true,
  // A bar redrawn at the same position is no sign of life.
  idle: ({ progress }, run) => progress !== undefined && run.barPositions.get(rankKey(run, progress))?.current === progress.current,
  follow({ run, pack, match, line, events }) {
    if (match.progress && followProgress(run, pack, match.progress, line, events)) moved(run, line);
  },
  explain({ progress }, _context, hits) {
    if (!progress) return;
    const { rule, groups, current, total } = progress;
    hits.push({ kind: 'progress', rule: rule.id, detail: `${current}${total === undefined ? '' : `/${total}`} ${rule.unit}`, groups: withoutBarFields(groups) });
  },
};

const ready: LineKind<CompiledReady> = {
  kind: 'ready',
  rules: (pack) => pack.ready,
  regexOf: byRegex,
  match(rules, body, into) {
    const hit = firstHit(rules, body);
    if (hit === undefined) return false;
    into.ready = hit;
    return true;
  },
  scope: () => 'beforeVerdict',
  follow({ run, match, line, now, events }) {
    // A fatal line on the same frame retracted any held ready and stops this one.
    if (!match.ready || run.failing) return;
    const { rule } = match.ready;
    if (rule.holdMs > 0) {
      run.pendingReady ??= { at: now, holdMs: rule.holdMs, line, rule: rule.id };
    } else {
      events.push(verdictEvent(readyVerdict(run, now, line)));
    }
  },
  explain({ ready: hit }, _context, hits) {
    if (hit) hits.push({ kind: 'ready', rule: hit.rule.id, detail: hit.rule.holdMs > 0 ? 'ready (held for a retraction)' : 'ready', groups: hit.groups });
  },
};

/** The ready rules' `confirm` patterns: any one confirms a held ready (the ready kind follows them). */
const confirm: LineKind<RegExp> = {
  kind: 'ready',
  rules: (pack) => pack.ready.flatMap((rule) => rule.confirm),
  regexOf: (regex) => regex,
  match(rules, body, into) {
    for (const regex of rules) {
      if (regex.test(body)) return (into.confirmsReady = true);
    }
    return false;
  },
  scope: () => 'beforeVerdict',
  follow({ run, now, events }) {
    if (run.pendingReady) events.push(verdictEvent(readyVerdict(run, now, run.pendingReady.line)));
  },
  explain(match, { pack }, hits) {
    if (!match.confirmsReady) return;
    const rule = pack.ready.find((r) => r.confirm.some((regex) => regex.test(match.frame.body)));
    if (rule) hits.push({ kind: 'ready', rule: rule.id, detail: 'confirms a held ready', groups: {} });
  },
};

const heartbeat: LineKind<CompiledHeartbeat> = {
  kind: 'heartbeat',
  rules: (pack) => pack.heartbeats,
  regexOf: byRegex,
  match(rules, body, into) {
    const hit = firstHit(rules, body);
    if (hit === undefined) return false;
    into.heartbeat = hit;
    return true;
  },
  scope: () => 'beforeVerdict',
  idle: (match) => match.heartbeat !== undefined,
  follow({ run, match, line, now, events }) {
    if (!match.heartbeat || run.verdict) return;
    const { rule } = match.heartbeat;
    const count = (run.heartbeats.get(rule.id) ?? 0) + 1;
    run.heartbeats.set(rule.id, count);
    if (rule.stallAfter !== undefined && count >= rule.stallAfter) {
      const budget: Budget = { ms: 0, source: 'server', detail: `${rule.id}: the server reported it ${count} time(s) with no progress` };
      events.push(verdictEvent(stalledVerdict(run, now, budget, 'server', line)));
    }
  },
  explain({ heartbeat: hit }, _context, hits) {
    if (hit) hits.push({ kind: 'heartbeat', rule: hit.rule.id, detail: 'no progress', groups: hit.groups });
  },
};

const benign: LineKind<CompiledRule> = {
  kind: 'benign',
  rules: (pack) => pack.benign,
  regexOf: byRegex,
  match(rules, body, into) {
    const hit = firstHit(rules, body);
    if (hit === undefined) return false;
    into.benign = hit;
    return true;
  },
  explain(match, { pack }, hits) {
    if (!match.benign) return;
    const shadowed = pack.failures.filter((rule) => rule.regex.test(match.frame.body)).map((rule) => rule.id);
    const detail = shadowed.length > 0 ? `sets aside ${shadowed.join(', ')}` : 'harmless';
    hits.push({ kind: 'benign', rule: match.benign.rule.id, detail, groups: match.benign.groups });
  },
};

const failure: LineKind<CompiledFailure> = {
  kind: 'failure',
  rules: (pack) => pack.failures,
  regexOf: byRegex,
  match(rules, body, into) {
    // A benign hit sets the frame's failure rules aside (it is matched first).
    if (into.benign) return false;
    let hits: RuleHit<CompiledFailure>[] | undefined;
    for (const rule of rules) {
      const match = rule.regex.exec(body);
      if (match) (hits ??= []).push({ rule, groups: groupsOf(match) });
    }
    if (hits === undefined) return false;
    into.failures = hits;
    return true;
  },
  // A fatal failure after ready is the after-ready alarm.
  scope: (rule) => (rule.fatal ? 'afterReady' : 'beforeVerdict'),
  // An exception a traceback closed on the frame is weighed here too, with or without a failure rule's hit.
  everyFrame: true,
  follow(step) {
    weighFailures(step, step.match, step.line, step.exception, step.events);
  },
  afterVerdict({ run, match, line, events }) {
    if (run.verdict?.verdict !== 'ready' || belowError(match.frame.level)) return;
    const hit = match.failures.find(isFatal);
    if (hit) events.push({ type: 'after-ready-failure', at: line.at, line, rule: hit.rule.id, cause: hit.rule.cause, message: hit.rule.message });
  },
  actsAfterVerdict: (match, ready) => ready && !belowError(match.frame.level) && match.failures.some(isFatal),
  explain({ failures }, _context, hits) {
    for (const { rule, groups } of failures) hits.push({ kind: 'failure', rule: rule.id, detail: failureDetail(rule), groups });
  },
};

/** A line kind in the registry: `bit` marks its hits in FrameMatch.hits. */
export interface RegisteredKind extends LineKind {
  readonly bit: number;
}

const KINDS = [stage, progress, ready, confirm, heartbeat, benign, failure] as LineKind[];

/** The line kinds in the order they match a frame and explain shows their hits (benign before failures: it sets them aside). */
export const LINE_KINDS: readonly RegisteredKind[] = KINDS.map(
  // Every field spelled out, in one order: one object shape, so the per-frame loops read them fast.
  (kind, index): RegisteredKind => ({
    kind: kind.kind,
    rules: kind.rules,
    regexOf: kind.regexOf,
    match: kind.match,
    scope: kind.scope,
    restarts: kind.restarts,
    redrawn: kind.redrawn,
    idle: kind.idle,
    follow: kind.follow,
    everyFrame: kind.everyFrame,
    afterVerdict: kind.afterVerdict,
    actsAfterVerdict: kind.actsAfterVerdict,
    explain: kind.explain,
    bit: 1 << index,
  }),
);

const registered = (kind: object): RegisteredKind => LINE_KINDS[KINDS.indexOf(kind as LineKind)]!;

/**
 * The order their hits are followed before a verdict: failures first (a fatal line retracts a
 * held ready and stops a ready line on the same frame), then where the start is, then whether it
 * is up (a confirmation of a held ready before a new ready line) or hung. Once a handler gives a
 * verdict, the next ones do not run.
 */
export const FOLLOWERS: readonly RegisteredKind[] = [failure, stage, progress, confirm, ready, heartbeat].map(registered);
/** The kinds whose hits matter after a verdict. */
export const AFTER_VERDICT: readonly RegisteredKind[] = LINE_KINDS.filter((kind) => kind.afterVerdict !== undefined);
/** The kinds whose hits may be no sign of life. */
export const IDLE_KINDS: readonly RegisteredKind[] = LINE_KINDS.filter((kind) => kind.idle !== undefined);

const bits = (which: (kind: RegisteredKind) => boolean): number => LINE_KINDS.filter(which).reduce((mask, kind) => mask | kind.bit, 0);
const ACTING = bits((kind) => kind.scope !== undefined);
const REDRAWN = bits((kind) => kind.redrawn === true);

/** Whether the frame matched a kind that can change what a line does on its own (any but a silent one: benign). */
export function acts(match: FrameMatch): boolean {
  return (match.hits & ACTING) !== 0;
}

/**
 * Whether the frame, read after a verdict (`ready`: a ready one), changes what spinup reports:
 * it starts a new run (Classifier.apply), or a kind that follows hits after a verdict acts on it.
 */
export function actsAfterVerdict(match: FrameMatch, ready: boolean): boolean {
  if (match.restart !== undefined) return true;
  for (const kind of AFTER_VERDICT) if (match.hits & kind.bit && (kind.actsAfterVerdict?.(match, ready) ?? true)) return true;
  return false;
}

/** Whether one kind alone matched the frame. */
export function onlyKind(match: FrameMatch): boolean {
  return match.hits !== 0 && (match.hits & (match.hits - 1)) === 0;
}

/** The bar, when a bar is all an untimed frame matched: a frame the known-bars table may learn (known-bars.ts). */
export function loneBar(match: FrameMatch): ProgressHit | undefined {
  return match.progress !== undefined && onlyKind(match) && !match.frame.time ? match.progress : undefined;
}

/** Whether the frame is one that is redrawn in place (a bar). */
export function redrawn(match: FrameMatch): boolean {
  return (match.hits & REDRAWN) !== 0;
}

/** Where a line kind sits in LINE_KINDS (the index of its rules in a prefilter's rule set). */
export function lineKindIndex(kind: RuleKind): number {
  return LINE_KINDS.findIndex((entry) => entry.kind === kind);
}

/** For explain: a failure rule's cause and how it counts. */
export function failureDetail(rule: Pick<CompiledFailure, 'cause' | 'role' | 'fatal'>): string {
  const parts: string[] = [rule.cause];
  if (rule.role === 'symptom') parts.push('symptom');
  if (!rule.fatal) parts.push('not fatal');
  return parts.join(', ');
}

const isFatal = (hit: RuleHit<CompiledFailure>): boolean => hit.rule.fatal;

/** Text before a bar in its frame's body longer than this is no rank tag (a log line a frame was glued to). */
const MAX_LEAD_CHARS = 64;

/** One bracketed or parenthesised tag (`[TP3]`, `(Worker_TP3 pid=41203)`), else '': any other text glued before a bar names no rank. */
function tagOf(lead: string): string {
  return /^(?:\[[^[\]]{1,40}\]|\([^()]{1,60}\))$/.test(lead) ? lead : '';
}

/** A bar's hit: its numbers, which bar it is and which rank draws it (the pattern matched `body` at `index`). */
function toProgress(hit: RuleHit<CompiledProgress>, frame: ParsedFrame, index: number): ProgressHit {
  const { groups } = hit;
  const current = groups.current !== undefined ? Number(groups.current) : Number(groups.percent ?? 0);
  const total = groups.total !== undefined ? Number(groups.total) : groups.percent !== undefined ? 100 : undefined;
  const percent = groups.percent !== undefined ? Number(groups.percent) : undefined;
  const elapsedMs = groups.elapsed !== undefined ? parseTqdmElapsed(groups.elapsed) : undefined;
  const bar = `${hit.rule.id}|${groups.label ?? ''}|${total ?? ''}`;
  // Ranks draw the same bar at once: told apart by the tags peeled off the frame, or by what is
  // left before the bar (`[TP3] `, `(Worker_TP3 pid=41203) ` where the pack peels no such tag).
  const { body, text } = frame;
  const lead = index <= MAX_LEAD_CHARS ? tagOf(body.slice(0, index).trim()) : '';
  const anonymous = frame.rank === undefined && frame.proc === undefined && lead === '';
  const key = anonymous ? bar : `${bar}|${frame.rank ?? ''}|${frame.proc ?? ''}|${lead}`;
  const bodyAt = text.length - body.length;
  const labelAt = groups.label === undefined ? -1 : body.indexOf(groups.label, index);
  const countersAt = bodyAt + (labelAt === -1 ? index : labelAt + groups.label!.length);
  return { rule: hit.rule, groups, current, total, percent, elapsedMs, bar, key, anonymous, countersAt };
}

// The bar's own numbers are in the detail already.
function withoutBarFields(groups: Groups): Groups {
  const { current: _current, total: _total, percent: _percent, elapsed: _elapsed, ...rest } = groups;
  return rest;
}

function verdictEvent(verdict: Verdict): ClassifierEvent {
  return { type: 'verdict', verdict };
}
