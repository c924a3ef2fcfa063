/** Every rule of a pack source with where it sits, for lint and coverage (which read rules, not compiled regexes). */
import type { FailureRuleSource, PackSource, ReadyRuleSource, RuleKind, RuleSource } from '../core/pack-types.js';
import { RULE_KINDS } from '../core/rule-kinds.js';

export interface RuleEntry {
  kind: RuleKind;
  /** Path of the rule in the pack: `['stages', 3, 'markers', 0]`. */
  path: (string | number)[];
  rule: RuleSource;
}

/** One regular expression a rule holds: its `pattern`, a ready `confirm`, `in_frame` or `in_traceback`. */
export interface PatternEntry {
  entry: RuleEntry;
  /** Path of the pattern scalar. */
  path: (string | number)[];
  /** `pattern`, `confirm[0]`, `in_frame`, `in_traceback`. */
  field: string;
  source: string;
}

/** Rules in the order of the kinds (core/rule-kinds.ts): detect, prefixes, stages, the rest, the inference tables. */
export function packRules(pack: PackSource): RuleEntry[] {
  const entries: RuleEntry[] = [];
  for (const entry of RULE_KINDS) {
    const { kind, list } = entry;
    if (list === 'stages') {
      (pack.stages ?? []).forEach((stage, s) => {
        stage.markers.forEach((rule, index) => entries.push({ kind, path: ['stages', s, 'markers', index], rule }));
      });
    } else if (list === 'inference') {
      for (const table of 'tables' in entry ? entry.tables : []) {
        (pack.inference?.[table] ?? []).forEach((rule: RuleSource, index: number) => entries.push({ kind, path: ['inference', table, index], rule }));
      }
    } else {
      (pack[list] ?? []).forEach((rule: RuleSource, index: number) => entries.push({ kind, path: [list, index], rule }));
    }
  }
  return entries;
}

/** Path of the rule with this id inside a pack (`['failures', 3]`). */
export function findRulePath(pack: PackSource, ruleId: string): (string | number)[] | undefined {
  return packRules(pack).find((entry) => entry.rule.id === ruleId)?.path;
}

export function rulePatterns(entry: RuleEntry): PatternEntry[] {
  const patterns: PatternEntry[] = [{ entry, path: [...entry.path, 'pattern'], field: 'pattern', source: entry.rule.pattern }];
  if (entry.kind === 'ready') {
    ((entry.rule as ReadyRuleSource).confirm ?? []).forEach((source, index) =>
      patterns.push({ entry, path: [...entry.path, 'confirm', index], field: `confirm[${index}]`, source }),
    );
  }
  if (entry.kind === 'failure') {
    const failure = entry.rule as FailureRuleSource;
    if (failure.in_frame !== undefined) patterns.push({ entry, path: [...entry.path, 'in_frame'], field: 'in_frame', source: failure.in_frame });
    if (failure.in_traceback !== undefined) patterns.push({ entry, path: [...entry.path, 'in_traceback'], field: 'in_traceback', source: failure.in_traceback });
  }
  return patterns;
}
