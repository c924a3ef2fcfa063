/** Runs a compiled pack's rules over one parsed frame. Pure: the same frame always matches the same way. */
import { parseTqdmElapsed } from './log-clock.js';
import type {
  CompiledFailure,
  CompiledHeartbeat,
  CompiledMarker,
  CompiledPack,
  CompiledProgress,
  CompiledReady,
  CompiledRule,
} from './pack-types.js';
import type { ParsedFrame } from './parse-line.js';
import type { RuleSet } from './prefilter.js';

export type Groups = Record<string, string>;

export interface RuleHit<R extends CompiledRule> {
  rule: R;
  groups: Groups;
}

export interface ProgressHit extends RuleHit<CompiledProgress> {
  current: number;
  total?: number;
  percent?: number;
  elapsedMs?: number;
  /** Identifies one bar among several (its rule, its description and its total). */
  key: string;
}

export interface FrameMatch {
  frame: ParsedFrame;
  benign?: RuleHit<CompiledRule>;
  failures: RuleHit<CompiledFailure>[];
  marker?: RuleHit<CompiledMarker>;
  progress?: ProgressHit;
  ready?: RuleHit<CompiledReady>;
  heartbeat?: RuleHit<CompiledHeartbeat>;
  /** A held ready verdict may be confirmed by this line. */
  confirmsReady: boolean;
}

/**
 * Matches one frame. The pack's prefilter picks the rules whose required literals occur in the
 * body (usually none), so the result is the same as running every rule, at a fraction of the cost.
 */
export function matchFrame(pack: CompiledPack, frame: ParsedFrame): FrameMatch {
  const body = frame.body;
  const result: FrameMatch = { frame, failures: [], confirmsReady: false };
  if (body === '') return result;
  return matchRules(pack.prefilter.select(body), result);
}

/** Runs every rule of the pack, unfiltered: the reference the prefilter must agree with. */
export function matchFrameUnfiltered(pack: CompiledPack, frame: ParsedFrame): FrameMatch {
  const result: FrameMatch = { frame, failures: [], confirmsReady: false };
  if (frame.body === '') return result;
  const confirm = pack.ready.flatMap((rule) => rule.confirm);
  return matchRules({ ...pack, confirm }, result);
}

function matchRules(rules: RuleSet, result: FrameMatch): FrameMatch {
  const body = result.frame.body;
  result.benign = first(rules.benign, body);
  if (!result.benign) {
    for (const rule of rules.failures) {
      const match = rule.regex.exec(body);
      if (match) result.failures.push({ rule, groups: groupsOf(match) });
    }
  }
  result.marker = first(rules.markers, body);
  const progress = first(rules.progress, body);
  if (progress) result.progress = toProgress(progress);
  result.ready = first(rules.ready, body);
  result.heartbeat = first(rules.heartbeats, body);
  result.confirmsReady = rules.confirm.some((regex) => regex.test(body));
  return result;
}

function first<R extends CompiledRule>(rules: readonly R[], body: string): RuleHit<R> | undefined {
  for (const rule of rules) {
    const match = rule.regex.exec(body);
    if (match) return { rule, groups: groupsOf(match) };
  }
  return undefined;
}

function groupsOf(match: RegExpExecArray): Groups {
  const groups: Groups = {};
  if (match.groups) {
    for (const [name, value] of Object.entries(match.groups)) if (value !== undefined) groups[name] = value;
  }
  return groups;
}

function toProgress(hit: RuleHit<CompiledProgress>): ProgressHit {
  const { groups } = hit;
  const current = groups.current !== undefined ? Number(groups.current) : Number(groups.percent ?? 0);
  const total = groups.total !== undefined ? Number(groups.total) : groups.percent !== undefined ? 100 : undefined;
  const percent = groups.percent !== undefined ? Number(groups.percent) : undefined;
  const elapsedMs = groups.elapsed !== undefined ? parseTqdmElapsed(groups.elapsed) : undefined;
  const key = `${hit.rule.id}|${groups.label ?? ''}|${total ?? ''}`;
  return { ...hit, current, total, percent, elapsedMs, key };
}
