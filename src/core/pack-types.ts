/**
 * The shape of a rule pack: first as written in YAML (`*Source`), then compiled once at the edge
 * (`Compiled*`) so the classifier only ever runs prepared regular expressions.
 */
import type { RulePrefilter } from './prefilter.js';
import type { Cause, Stage } from './vocabulary.js';

export interface RuleSource {
  id: string;
  pattern: string;
  description: string;
  /** Adds the `i` flag. */
  ignore_case?: boolean;
  /** Fixtures or upstream source that justify the rule (provenance for rule owners). */
  fixtures?: string[];
  source?: string;
  /** Why no fixture exercises this rule yet (coverage accepts the rule when this is given). */
  untested?: string;
}

export interface DetectRuleSource extends RuleSource {
  /**
   * A clue, not proof: a line this family prints that another program could too (a logger
   * format, a module path). Clues count; one alone never decides (see core/detect-family.ts).
   */
  clue?: boolean;
}

export interface PrefixRuleSource extends RuleSource {
  /** True when this prefix is the server's own logger: a traceback under it was logged, not uncaught. */
  logger?: boolean;
}

export interface MarkerRuleSource extends RuleSource {
  /** This marker starts a new run of the server (a later run in the same file resets the state). */
  restart?: boolean;
  /** This marker may re-enter its (earlier) stage when the current stage is this one or later. */
  reenter_from?: Stage;
}

export interface StageSource {
  stage: Stage;
  /** Longest silence (no progress, no new line but heartbeats) tolerated in this stage. */
  budget?: string;
  /**
   * The least a budget learned from earlier starts may be: the stage's time depends on disk,
   * caches or the network, so warm starts say nothing about a cold one.
   */
  cold_floor?: string;
  markers: MarkerRuleSource[];
}

export interface ProgressRuleSource extends RuleSource {
  /** Entering this stage if not already there or beyond (logs at WARNING level show only bars). */
  stage?: Stage;
  /** What is being counted, for people: `shards`, `batches`. */
  unit?: string;
}

export interface ReadyRuleSource extends RuleSource {
  /** Hold the ready verdict this long: a retraction (a bind error) can still follow. */
  hold?: string;
  /** Lines that confirm a held ready at once (`Uvicorn running on`). */
  confirm?: string[];
}

export interface HeartbeatRuleSource extends RuleSource {
  /** This many repeats with no progress between them is the server's own report of a hang. */
  stall_after?: number;
}

export type FailureRole = 'cause' | 'symptom';

export interface FailureRuleSource extends RuleSource {
  cause: Cause;
  /** `cause`: the line names what went wrong. `symptom`: it says the start is dead, the cause is elsewhere. */
  role?: FailureRole;
  /** False for lines that explain a failure when one happens but do not by themselves end the start. */
  fatal?: boolean;
  /** The server is exiting: no better root cause will follow. */
  final?: boolean;
  /**
   * Only for the exception line that closes a traceback whose innermost frame's file matches
   * this pattern (an assertion inside a kernel library is a kernel error, whatever its text).
   */
  in_frame?: string;
  /** Like `in_frame`, but any frame of the traceback may match (an error inside the draft worker). */
  in_traceback?: string;
  /**
   * A catch-all (pydantic's `Value error`, "vLLM rejected the configuration"): on a line that a
   * specific rule also names, the specific rule wins.
   */
  fallback?: boolean;
  /**
   * For a wrapper (`role: symptom`): the cause it names when nothing went wrong before it in the
   * run (a bare `Killed` with no earlier error is the OOM killer; after one, the server's own kill).
   */
  cause_when_first?: Cause;
  message: string;
  hint: string;
}

/**
 * One entry of a cause-inference table: for an exception no failure rule names, its class, its
 * words or the package it was raised in still name a cause (`source` says where from).
 */
export interface InferenceRuleSource extends RuleSource {
  cause: Cause;
  message: string;
  hint: string;
}

/**
 * The cause-inference layer (ranked below explicit failure rules, above a plain `crash`). Each
 * table's patterns read one thing: `classes` the exception's class name, `words` the exception
 * line and its continuation lines, `packages` the file of the innermost traceback frame.
 * `remedies` are generic advice texts a server prints after an exception: they are not its words.
 * `symptoms` match the class of an exception that only reports another process's death (a
 * launcher's `EOFError` on a dead child's pipe): it ranks below a wrapper that names the cause.
 */
export interface InferenceSource {
  words?: InferenceRuleSource[];
  /** Words so common (`must be`, `invalid value`) that the class and the package are asked first. */
  fallback_words?: InferenceRuleSource[];
  classes?: InferenceRuleSource[];
  packages?: InferenceRuleSource[];
  remedies?: RuleSource[];
  symptoms?: RuleSource[];
}

export interface TimingSource {
  /** Budget for stages that do not name one. */
  default_budget?: string;
  /** After a fatal line without a clear cause, how long to wait for the cause to show. */
  settle?: string;
}

export interface PackSource {
  pack: string;
  description: string;
  include?: string[];
  timing?: TimingSource;
  detect?: DetectRuleSource[];
  prefixes?: PrefixRuleSource[];
  stages?: StageSource[];
  progress?: ProgressRuleSource[];
  ready?: ReadyRuleSource[];
  heartbeats?: HeartbeatRuleSource[];
  benign?: RuleSource[];
  failures?: FailureRuleSource[];
  inference?: InferenceSource;
}

export type InferenceTable = 'words' | 'classes' | 'packages' | 'fallback_words';

export type RuleKind = 'detect' | 'prefix' | 'stage' | 'progress' | 'ready' | 'heartbeat' | 'benign' | 'failure' | 'inference' | 'remedy' | 'symptom';

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

export interface CompiledInference extends CompiledRule {
  table: InferenceTable;
  cause: Cause;
  message: string;
  hint: string;
}

/** The inference tables in the order they are consulted: words, class, package, fallback words. */
export interface CompiledInferenceTables {
  words: CompiledInference[];
  fallback_words: CompiledInference[];
  classes: CompiledInference[];
  packages: CompiledInference[];
  remedies: CompiledRule[];
  symptoms: CompiledRule[];
}

export interface CompiledPack {
  name: string;
  /** Files the pack was built from, family file first. */
  files: string[];
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
  /** Every rule, for coverage and explain. */
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
