/** Every rule of a pack source with where it sits, for lint and coverage (which read rules, not compiled regexes). */
import type { PackSource, RuleKind, RuleSource } from '../core/pack-types.js';
import { RULE_KINDS, ruleKind } from '../core/rule-kinds.js';

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
  /** How the fast path treats it (core/rule-kinds.ts): `none` when it is not matched frame by frame. */
  fastPath: 'every-frame' | 'gated' | 'none';
}

/** Rules in the order of the kinds (core/rule-kinds.ts): detect, prefixes, stages, the rest, the inference tables. */
export function packRules(pack: PackSource): RuleEntry[] {
  const entries: RuleEntry[] = [];
  const lists = pack as unknown as Record<string, unknown>;
  const add = (kind: RuleKind, rules: unknown, path: (string | number)[]): void => {
    ((rules as RuleSource[] | undefined) ?? []).forEach((rule, index) => entries.push({ kind, path: [...path, index], rule }));
  };
  for (const entry of RULE_KINDS) {
    const { kind, list } = entry;
    if ('nested' in entry) {
      ((lists[list] as Record<string, unknown>[] | undefined) ?? []).forEach((item, at) => add(kind, item[entry.nested], [list, at, entry.nested]));
    } else if ('tables' in entry) {
      const tables = (lists[list] as Record<string, unknown> | undefined) ?? {};
      for (const table of entry.tables) add(kind, tables[table], [list, table]);
    } else {
      add(kind, lists[list], [list]);
    }
  }
  return entries;
}

/** Path of the rule with this id inside a pack (`['failures', 3]`). */
export function findRulePath(pack: PackSource, ruleId: string): (string | number)[] | undefined {
  return packRules(pack).find((entry) => entry.rule.id === ruleId)?.path;
}

/** The rule's patterns: `pattern`, then the ones its kind holds `also` (a ready rule's `confirm` list, a failure's `in_frame`). */
export function rulePatterns(entry: RuleEntry): PatternEntry[] {
  const kind = ruleKind(entry.kind);
  const patterns: PatternEntry[] = [{ entry, path: [...entry.path, 'pattern'], field: 'pattern', source: entry.rule.pattern, fastPath: kind.fastPath }];
  for (const { field, fastPath } of 'also' in kind ? kind.also : []) {
    const value = (entry.rule as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string') patterns.push({ entry, path: [...entry.path, field], field, source: value, fastPath });
    if (Array.isArray(value)) value.forEach((source: string, index) => patterns.push({ entry, path: [...entry.path, field, index], field: `${field}[${index}]`, source, fastPath }));
  }
  return patterns;
}
