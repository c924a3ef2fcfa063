/** One rule's match on a frame, the ways a kind runs its rules, and what explain says of a hit. */
import type { RuleKind } from './rule-kinds.js';

export type Groups = Record<string, string>;

export interface RuleHit<R> {
  rule: R;
  groups: Groups;
}

/** The first rule (in pack order) whose pattern matches `body`. */
export function firstHit<R extends { regex: RegExp }>(rules: readonly R[], body: string): RuleHit<R> | undefined {
  for (const rule of rules) {
    const match = rule.regex.exec(body);
    if (match) return { rule, groups: groupsOf(match) };
  }
  return undefined;
}

export function groupsOf(match: RegExpExecArray): Groups {
  const groups: Groups = {};
  if (match.groups) {
    for (const [name, value] of Object.entries(match.groups)) if (value !== undefined) groups[name] = value;
  }
  return groups;
}

/** What `explain` and `--coverage` call a hit: a rule kind, or an exception no rule names. */
export type HitKind = RuleKind | 'exception';

/** One annotation of a traced frame (replay/frame-hits.ts gathers them). */
export interface FrameHit {
  kind: HitKind;
  rule: string;
  /** For people: the stage, the cause, the bar position. */
  detail: string;
  groups: Groups;
}
