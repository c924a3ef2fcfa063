/** Every rule of a pack source with where it sits, for lint and coverage (which read rules, not compiled regexes). */
import type { FailureRuleSource, PackSource, ReadyRuleSource, RuleKind, RuleSource } from '../core/pack-types.js';

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

const LISTS = [
  ['detect', 'detect'],
  ['prefixes', 'prefix'],
  ['progress', 'progress'],
  ['ready', 'ready'],
  ['heartbeats', 'heartbeat'],
  ['benign', 'benign'],
  ['failures', 'failure'],
] as const;

const INFERENCE_TABLES = ['words', 'classes', 'packages', 'fallback_words', 'remedies', 'symptoms'] as const;
const TABLE_KIND = { words: 'inference', classes: 'inference', packages: 'inference', fallback_words: 'inference', remedies: 'remedy', symptoms: 'symptom' } as const;

/** Rules in file order of their lists: detect, prefixes, stages, then the rest, then the inference tables. */
export function packRules(pack: PackSource): RuleEntry[] {
  const entries: RuleEntry[] = [];
  const [detect, prefixes, ...rest] = LISTS;
  for (const [list, kind] of [detect, prefixes]) {
    (pack[list] ?? []).forEach((rule, index) => entries.push({ kind, path: [list, index], rule }));
  }
  (pack.stages ?? []).forEach((stage, s) => {
    stage.markers.forEach((rule, index) => entries.push({ kind: 'stage', path: ['stages', s, 'markers', index], rule }));
  });
  for (const [list, kind] of rest) {
    (pack[list] ?? []).forEach((rule, index) => entries.push({ kind, path: [list, index], rule }));
  }
  for (const table of INFERENCE_TABLES) {
    const kind = TABLE_KIND[table];
    (pack.inference?.[table] ?? []).forEach((rule, index) => entries.push({ kind, path: ['inference', table, index], rule }));
  }
  return entries;
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
