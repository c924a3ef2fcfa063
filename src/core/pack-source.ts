// Generated from src/pack/schema.ts by src/pack/schema-types.ts (npm run schema): edit the schema, not this file.
// The shape of a rule pack as written in YAML; core/pack-types.ts compiles it.
import type { Cause, Stage } from './vocabulary.js';

export interface DetectRuleSource extends RuleSource {
  /** A clue, not proof: counted with the other clues, never decisive alone. */
  clue?: boolean;
}

export interface FailureRuleSource extends RuleSource {
  cause: Cause;
  /** `cause`: the line names what went wrong. `symptom`: it says the start is dead, the cause is elsewhere. */
  role?: 'cause' | 'symptom';
  /** False for lines that explain a failure when one happens but do not by themselves end the start. */
  fatal?: boolean;
  /** The server is exiting: no better root cause will follow. */
  final?: boolean;
  /** Only for a traceback whose innermost frame file matches this. */
  in_frame?: string;
  /** Only for a traceback with any frame file matching this. */
  in_traceback?: string;
  /** A catch-all: on a line a specific rule also names, the specific rule wins. */
  fallback?: boolean;
  /** For a wrapper: the cause it names when nothing went wrong before it (a bare `Killed`). */
  cause_when_first?: Cause;
  message: string;
  hint: string;
}

export interface HeartbeatRuleSource extends RuleSource {
  /** This many repeats with no progress between them is the server's own report of a hang. */
  stall_after?: number;
}

/** Matched against the exception line and its continuation lines. `source` names the catalog section it comes from. */
export interface InferenceRuleSource extends RuleSource {
  cause: Cause;
  message: string;
  hint: string;
}

/** The cause-inference layer: causes for exceptions no failure rule names (below rules, above a plain crash). */
export interface InferenceSource {
  words?: InferenceRuleSource[];
  fallback_words?: InferenceRuleSource[];
  classes?: InferenceRuleSource[];
  packages?: InferenceRuleSource[];
  /** Generic advice a server prints after an exception: not the words of the exception. */
  remedies?: RuleSource[];
  /** Classes of exceptions that only report another process dying (a launcher EOFError): ranked below a wrapper that names the cause. */
  symptoms?: RuleSource[];
}

export interface LaunchRuleSource extends RuleSource {}

export interface MarkerRuleSource extends RuleSource {
  /** This marker starts a new run of the server (a later run in the same file resets the state). */
  restart?: boolean;
  /** This marker may re-enter its (earlier) stage when the current stage is this one or later. */
  reenter_from?: Exclude<Stage, 'none'>;
}

export interface PackSource {
  /** The pack name: a server family, or a shared pack. */
  pack: string;
  description: string;
  /** Shared packs (file names without .yaml) this pack uses. */
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
  /** How `run` knows this family from its launch command: tried on the program name and a `python -m` module. */
  launch?: LaunchRuleSource[];
  /** Argument dumps that give a start's model and settings: the pattern finds where the list begins. */
  start_facts?: StartFactsRuleSource[];
  /** The cause-inference layer: causes for exceptions no failure rule names (below rules, above a plain crash). */
  inference?: InferenceSource;
}

export interface PrefixRuleSource extends RuleSource {
  /** This prefix is the server's own logger: a traceback under it was logged, not uncaught. */
  logger?: boolean;
}

export interface ProgressRuleSource extends RuleSource {
  /** Entering this stage if not already there or beyond (logs at WARNING level show only bars). */
  stage?: Exclude<Stage, 'none'>;
  /** What is being counted, for people: `shards`, `batches`. */
  unit?: string;
}

export interface ReadyRuleSource extends RuleSource {
  /** Hold the ready verdict this long: a retraction (a bind error) can still follow. */
  hold?: string;
  /** Lines that confirm a held ready at once (`Uvicorn running on`). */
  confirm?: string[];
}

export interface RuleSource {
  /** Stable id: `pack/rule-name`. */
  id: string;
  /** A JavaScript regular expression (single-quote it in YAML). */
  pattern: string;
  description: string;
  /** Adds the `i` flag. */
  ignore_case?: boolean;
  /** Fixtures that exercise or justify this rule. */
  fixtures?: string[];
  /** Where the message comes from upstream (file, version). */
  source?: string;
  /** Why no fixture exercises this rule yet (coverage accepts the rule when this is given). */
  untested?: string;
}

export interface StageSource {
  stage: Exclude<Stage, 'none'>;
  /** Longest silence (no progress, no new line but heartbeats) tolerated in this stage. */
  budget?: string;
  /** The least a learned budget may be here: this stage takes longer cold (weights read from disk or downloaded, empty compile or kernel caches) than any warm start shows. */
  cold_floor?: string;
  markers: MarkerRuleSource[];
}

export interface StartFactsRuleSource extends RuleSource {
  /** The character that ends the list; none = the rest of the line. */
  close?: string;
  /** Keys naming the model, first found wins. */
  model: string[];
  /** Keys giving the tensor-parallel size. */
  tp: string[];
  /** The TP size when the dump leaves it out. */
  tp_default?: number;
}

export interface TimingSource {
  /** Budget for stages that do not name one. */
  default_budget?: string;
  /** After a fatal line without a clear cause, how long to wait for the cause to show. */
  settle?: string;
}
