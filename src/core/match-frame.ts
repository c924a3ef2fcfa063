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

export function matchFrame(pack: CompiledPack, frame: ParsedFrame): FrameMatch {
  const body = frame.body;
  const result: FrameMatch = { frame, failures: [], confirmsReady: false };
  if (body === '') return result;
  result.benign = first(pack.benign, body);
  if (!result.benign) {
    for (const rule of pack.failures) {
      const match = rule.regex.exec(body);
      if (match) result.failures.push({ rule, groups: groupsOf(match) });
    }
  }
  result.marker = first(pack.markers, body);
  const progress = first(pack.progress, body);
  if (progress) result.progress = toProgress(progress);
  result.ready = first(pack.ready, body);
  result.heartbeat = first(pack.heartbeats, body);
  result.confirmsReady = pack.ready.some((rule) => rule.confirm.some((regex) => regex.test(body)));
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
