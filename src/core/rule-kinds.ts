/**
 * Every kind of rule a pack holds, declared once: the YAML list it lives in, its label in
 * `explain` and coverage, whether it classifies log lines (coverage asks fixtures to exercise
 * those), and its fast-path scope (data the prefilter may read: `gated` rules run only on frames
 * holding one of their literals; `every-frame` rules run on each frame; `none`: not matched frame by
 * frame). The pack reader, lint,
 * coverage and the rule locator derive from this table; the schema and compiler name the kinds.
 */
export const RULE_KINDS = [
  { kind: 'detect', list: 'detect', label: 'detect', classifies: true, fastPath: 'every-frame' },
  { kind: 'prefix', list: 'prefixes', label: 'prefix', classifies: true, fastPath: 'every-frame' },
  { kind: 'stage', list: 'stages', label: 'stage', classifies: true, fastPath: 'gated' },
  { kind: 'progress', list: 'progress', label: 'progress', classifies: true, fastPath: 'gated' },
  { kind: 'ready', list: 'ready', label: 'ready', classifies: true, fastPath: 'gated' },
  { kind: 'heartbeat', list: 'heartbeats', label: 'heartbeat', classifies: true, fastPath: 'gated' },
  { kind: 'benign', list: 'benign', label: 'benign', classifies: true, fastPath: 'gated' },
  { kind: 'failure', list: 'failures', label: 'failure', classifies: true, fastPath: 'gated' },
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
