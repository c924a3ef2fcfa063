/**
 * The shape of a rule pack: as written in YAML (`*Source`, generated from the schema into
 * pack-source.ts), then compiled once at the edge (`Compiled*`) so the classifier only ever runs
 * prepared regular expressions.
 */
import type { MessageIndex } from './message-catalog.js';
import type { RulePrefilter } from './prefilter.js';
import type { CompiledKinds, RuleKind } from './rule-kinds.js';
import type { Cause, Stage } from './vocabulary.js';

// The pack as written: generated from the JSON Schema (src/pack/schema.ts), its one definition.
export type {
  DetectRuleSource,
  FailureRuleSource,
  HeartbeatRuleSource,
  InferenceRuleSource,
  InferenceSource,
  LaunchRuleSource,
  MarkerRuleSource,
  PackSource,
  PrefixRuleSource,
  ProgressRuleSource,
  ReadyRuleSource,
  RuleSource,
  StageSource,
  StartFactsRuleSource,
  TimingSource,
} from './pack-source.js';

export type FailureRole = 'cause' | 'symptom';

export type { RuleKind } from './rule-kinds.js';

export type InferenceTable = 'words' | 'classes' | 'packages' | 'fallback_words';

export interface CompiledRule {
  id: string;
  kind: RuleKind;
  regex: RegExp;
  description: string;
  /** Which pack file defined it (for diagnostics and coverage). */
  pack: string;
  /** Order within the merged pack: earlier rules win ties. */
  order: number;
}

export interface CompiledDetect extends CompiledRule {
  clue: boolean;
}

export interface CompiledPrefix extends CompiledRule {
  logger: boolean;
  /** The code units a non-empty match can begin with (from the pattern's syntax tree); undefined = any. */
  firstUnits?: string;
}

export interface CompiledMarker extends CompiledRule {
  stage: Stage;
  restart: boolean;
  reenterFrom?: Stage;
}

export interface CompiledProgress extends CompiledRule {
  stage?: Stage;
  unit: string;
}

export interface CompiledReady extends CompiledRule {
  holdMs: number;
  confirm: RegExp[];
}

export interface CompiledHeartbeat extends CompiledRule {
  stallAfter?: number;
}

export interface CompiledFailure extends CompiledRule {
  cause: Cause;
  role: FailureRole;
  fatal: boolean;
  final: boolean;
  inFrame?: RegExp;
  inTraceback?: RegExp;
  fallback: boolean;
  causeWhenFirst?: Cause;
  message: string;
  hint: string;
}

export interface CompiledFactDump extends CompiledRule {
  close?: string;
  model: string[];
  tp: string[];
  tpDefault?: number;
}

export interface CompiledInference extends CompiledRule {
  table: InferenceTable;
  cause: Cause;
  message: string;
  hint: string;
}

/** The inference tables in the order they are consulted: words, class, package, fallback words. */
export interface CompiledInferenceTables {
  /** The servers' own messages (catalog/): consulted before every table below. */
  messages: MessageIndex;
  words: CompiledInference[];
  fallback_words: CompiledInference[];
  classes: CompiledInference[];
  packages: CompiledInference[];
  remedies: CompiledRule[];
  symptoms: CompiledRule[];
}

/** A compiled pack; each kind's compiled rules (CompiledKinds) are declared with the kinds, in rule-kinds.ts. */
export interface CompiledPack extends CompiledKinds {
  name: string;
  /** Files the pack was built from, family file first. */
  files: string[];
  budgets: Partial<Record<Stage, number>>;
  /** Per stage, the least a learned budget may be (`cold_floor`). */
  coldFloors: Partial<Record<Stage, number>>;
  /**
   * Startup order of this family, from the order of its `stages` list (vLLM compiles before
   * it sizes the KV cache; SGLang the other way round). `none` is -1, `ready` is last.
   */
  stageRank: Record<Stage, number>;
  defaultBudgetMs: number;
  settleMs: number;
  /** Every rule that classifies lines, for coverage and explain. */
  allRules: CompiledRule[];
  /** Picks the rules that may match a frame (from the literals each pattern requires). */
  prefilter: RulePrefilter;
  /**
   * The rules of the packs this one includes, without the family's own: what classifies a log
   * whose family is not known, so no family-specific cause or hint is given on a guess.
   */
  shared?: CompiledPack;
  /** True for a `shared` pack: it speaks for no family. */
  isShared?: boolean;
}
