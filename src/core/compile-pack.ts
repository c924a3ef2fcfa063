/** Compiles pack sources (the family file and the files it includes) into one ready-to-run pack. */
import { MessageIndex, type CatalogMessage } from './message-catalog.js';
import { parseDuration } from './duration.js';
import type {
  CompiledFailure,
  CompiledInference,
  CompiledMarker,
  CompiledPack,
  CompiledPrefix,
  CompiledRule,
  PackSource,
  RuleKind,
  RuleSource,
} from './pack-types.js';
import { RulePrefilter, type Gate, type LiteralsOf } from './prefilter.js';
import { LINE_KINDS } from './rule-kinds.js';
import { STAGES, type Stage } from './vocabulary.js';

const DEFAULT_BUDGET_MS = 30 * 60_000;
const DEFAULT_SETTLE_MS = 5_000;

/** A rule whose pattern does not compile; the loader turns this into a positioned diagnostic. */
export class RuleCompileError extends Error {
  constructor(
    readonly pack: string,
    readonly ruleId: string,
    readonly detail: string,
  ) {
    super(`${pack}: rule ${ruleId}: ${detail}`);
    this.name = 'RuleCompileError';
  }
}

export function compileRegex(pattern: string, ignoreCase = false, where?: { pack: string; id: string }): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new RuleCompileError(where?.pack ?? '?', where?.id ?? '?', detail);
  }
}

/** What the pack layer read from each pattern's syntax tree, handed in as data (the core parses no regex). */
export interface CompileOptions {
  /** Literals each pattern requires; omitted = every rule runs on every frame. */
  literalsOf?: LiteralsOf;
  /** The code units a prefix pattern's matches can begin with; omitted or null = any. */
  firstUnitsOf?: (pattern: string, ignoreCase: boolean) => string | null;
  /** Literals of 2+ units for a pattern `literalsOf` knows none for: they prove a line quiet (see `RulePrefilter.quietLiterals`). */
  shortLiteralsOf?: LiteralsOf;
  /**
   * Leave out the failure rules that name a cause (and those judged by frame), keeping only the
   * wrappers that say a start is dead: `family` in the family pack (its shared includes stay),
   * `all` in every pack, so the cause-inference layer alone names causes. A check of how far
   * the packs generalise; the default keeps every rule.
   */
  withoutCauseRules?: 'family' | 'all';
  /**
   * The servers' own messages (catalog/), which name causes before the inference tables do; left
   * out with `withoutCauseRules`, whose check is of how far the pack's own tables reach.
   */
  messages?: readonly CatalogMessage[];
}

/**
 * `sources[0]` is the family pack; the rest are its includes, in order. Family rules come first.
 * The includes alone are compiled too (`shared`): they classify a log whose family is not known.
 * That happens when `shared` is first read: a start that finds its family (nearly every one)
 * never needs it, and a watch loads every family. The includes were just compiled as part of
 * the family's pack, so no error of theirs can surface only then.
 */
export function compilePack(sources: PackSource[], options: CompileOptions = {}): CompiledPack {
  const pack = compileSources(sources, options);
  const included = sources.slice(1);
  if (included.length === 0) return pack;
  const name = included.map((source) => source.pack).join('+');
  let shared: CompiledPack | undefined;
  const compileShared = (): CompiledPack => ({ ...compileSources([{ pack: name, description: `the shared rules of ${sources[0]!.pack}` }, ...included], options), isShared: true });
  return Object.defineProperty({ ...pack }, 'shared', { enumerable: true, get: () => (shared ??= compileShared()) });
}

function compileSources(sources: PackSource[], options: CompileOptions): CompiledPack {
  const family = sources[0];
  if (!family) throw new Error('compilePack needs at least one pack source');
  let order = 0;
  // The prefilter's gate of every compiled pattern, keyed by the RegExp the rule runs.
  const gates = new Map<RegExp, Gate>();
  const regex = (pattern: string, ignoreCase: boolean | undefined, where: { pack: string; id: string }): RegExp => {
    const compiled = compileRegex(pattern, ignoreCase, where);
    const literals = options.literalsOf?.(pattern, ignoreCase ?? false) ?? null;
    const short = literals === null ? (options.shortLiteralsOf?.(pattern, ignoreCase ?? false) ?? null) : null;
    gates.set(compiled, { literals, ignoreCase: ignoreCase ?? false, short });
    return compiled;
  };
  const base = (source: RuleSource, kind: RuleKind, pack: string): CompiledRule => ({
    id: source.id,
    kind,
    regex: regex(source.pattern, source.ignore_case, { pack, id: source.id }),
    description: source.description,
    pack,
    order: order++,
  });

  const pack: Omit<CompiledPack, 'prefilter'> = {
    name: family.pack,
    files: sources.map((s) => s.pack),
    detect: [],
    prefixes: [],
    markers: [],
    progress: [],
    ready: [],
    heartbeats: [],
    benign: [],
    failures: [],
    frameFailures: [],
    inference: { messages: messageIndex(options.withoutCauseRules ? undefined : options.messages), words: [], classes: [], packages: [], fallback_words: [], remedies: [], symptoms: [] },
    budgets: {},
    coldFloors: {},
    stageRank: rankStages(family),
    defaultBudgetMs: DEFAULT_BUDGET_MS,
    settleMs: DEFAULT_SETTLE_MS,
    allRules: [],
    launch: [],
    startFacts: [],
  };

  for (const source of sources) {
    const name = source.pack;
    const timing = source.timing ?? {};
    // The family's own timing wins over shared defaults: apply includes first, family last.
    if (source !== family) applyTiming(pack, timing);
    for (const rule of source.detect ?? []) pack.detect.push({ ...base(rule, 'detect', name), clue: rule.clue ?? false });
    for (const rule of source.prefixes ?? []) {
      const prefix: CompiledPrefix = { ...base(rule, 'prefix', name), logger: rule.logger ?? false };
      const firstUnits = options.firstUnitsOf?.(rule.pattern, rule.ignore_case ?? false);
      if (firstUnits !== undefined && firstUnits !== null) prefix.firstUnits = firstUnits;
      pack.prefixes.push(prefix);
    }
    for (const stage of source.stages ?? []) {
      if (stage.budget !== undefined) pack.budgets[stage.stage] ??= requireDuration(stage.budget, name, `stage ${stage.stage}`);
      if (stage.cold_floor !== undefined) pack.coldFloors[stage.stage] ??= requireDuration(stage.cold_floor, name, `stage ${stage.stage} cold_floor`);
      for (const rule of stage.markers) pack.markers.push(marker(base(rule, 'stage', name), stage.stage, rule));
    }
    for (const rule of source.progress ?? []) {
      pack.progress.push({ ...base(rule, 'progress', name), stage: rule.stage, unit: rule.unit ?? 'steps' });
    }
    for (const rule of source.ready ?? []) {
      pack.ready.push({
        ...base(rule, 'ready', name),
        holdMs: rule.hold === undefined ? 0 : requireDuration(rule.hold, name, rule.id),
        confirm: (rule.confirm ?? []).map((p) => regex(p, rule.ignore_case, { pack: name, id: rule.id })),
      });
    }
    for (const rule of source.heartbeats ?? []) {
      pack.heartbeats.push({ ...base(rule, 'heartbeat', name), stallAfter: rule.stall_after });
    }
    for (const rule of source.benign ?? []) pack.benign.push(base(rule, 'benign', name));
    // Not line rules: no prefilter gate, not in allRules.
    const plain = (rule: RuleSource, kind: RuleKind): CompiledRule => ({ id: rule.id, kind, regex: compileRegex(rule.pattern, rule.ignore_case, { pack: name, id: rule.id }), description: rule.description, pack: name, order: -1 });
    if (source === family) for (const rule of source.launch ?? []) pack.launch.push(plain(rule, 'launch'));
    for (const rule of source.start_facts ?? []) {
      pack.startFacts.push({ ...plain(rule, 'start_facts'), close: rule.close, model: rule.model, tp: rule.tp, tpDefault: rule.tp_default });
    }
    for (const rule of source.failures ?? []) {
      const off = options.withoutCauseRules === 'all' || (options.withoutCauseRules === 'family' && source === family);
      if (off && !isBareWrapper(rule)) continue;
      const failure: CompiledFailure = {
        ...base(rule, 'failure', name),
        cause: rule.cause,
        role: rule.role ?? 'cause',
        fatal: rule.fatal ?? true,
        final: rule.final ?? false,
        fallback: rule.fallback ?? false,
        message: rule.message,
        hint: rule.hint,
      };
      if (rule.cause_when_first !== undefined && !off) failure.causeWhenFirst = rule.cause_when_first;
      if (rule.in_frame !== undefined || rule.in_traceback !== undefined) {
        if (rule.in_frame !== undefined) failure.inFrame = compileRegex(rule.in_frame, rule.ignore_case, { pack: name, id: rule.id });
        if (rule.in_traceback !== undefined) failure.inTraceback = compileRegex(rule.in_traceback, rule.ignore_case, { pack: name, id: rule.id });
        pack.frameFailures.push(failure);
      } else {
        pack.failures.push(failure);
      }
    }
    const inference = source.inference ?? {};
    for (const table of ['words', 'classes', 'packages', 'fallback_words'] as const) {
      for (const rule of inference[table] ?? []) {
        const entry: CompiledInference = { ...base(rule, 'inference', name), table, cause: rule.cause, message: rule.message, hint: rule.hint };
        pack.inference[table].push(entry);
      }
    }
    for (const rule of inference.remedies ?? []) pack.inference.remedies.push(base(rule, 'remedy', name));
    for (const rule of inference.symptoms ?? []) pack.inference.symptoms.push(base(rule, 'symptom', name));
  }
  applyTiming(pack, family.timing ?? {});
  pack.allRules = [
    ...pack.detect,
    ...pack.prefixes,
    ...pack.markers,
    ...pack.progress,
    ...pack.ready,
    ...pack.heartbeats,
    ...pack.benign,
    ...pack.failures,
    ...pack.frameFailures,
    ...pack.inference.words,
    ...pack.inference.classes,
    ...pack.inference.packages,
    ...pack.inference.fallback_words,
    ...pack.inference.remedies,
    ...pack.inference.symptoms,
  ].sort((a, b) => a.order - b.order);
  // The prefilter gates each line kind's rules (LINE_KINDS says which and how).
  const prefilter = new RulePrefilter(
    LINE_KINDS.map((kind) => kind.rules(pack)),
    (compiled) => gates.get(compiled) ?? ALWAYS,
    pack.inference.messages.lineLiterals,
  );
  return { ...pack, prefilter };
}

/** A wrapper that only says the start is dead: no cause of its own, not judged by frame. */
function isBareWrapper(rule: { role?: string; cause: string; in_frame?: string; in_traceback?: string }): boolean {
  return rule.role === 'symptom' && (rule.cause === 'crash' || rule.cause === 'unknown') && rule.in_frame === undefined && rule.in_traceback === undefined;
}

const ALWAYS: Gate = { literals: null, ignoreCase: false };

/** Stages in the family's own order; stages it does not list keep their place in the design's order. */
function rankStages(family: PackSource): Record<Stage, number> {
  const listed = (family.stages ?? []).map((s) => s.stage);
  const order: Stage[] = [...listed];
  for (const stage of STAGES) {
    if (stage === 'none' || stage === 'ready' || order.includes(stage)) continue;
    const before = STAGES.slice(0, STAGES.indexOf(stage)).reverse().find((s) => order.includes(s));
    order.splice(before ? order.indexOf(before) + 1 : 0, 0, stage);
  }
  const rank = { none: -1, ready: order.length } as Record<Stage, number>;
  order.forEach((stage, index) => (rank[stage] = index));
  return rank;
}

function marker(rule: CompiledRule, stage: Stage, source: { restart?: boolean; reenter_from?: Stage }): CompiledMarker {
  return { ...rule, stage, restart: source.restart ?? false, reenterFrom: source.reenter_from };
}

function applyTiming(pack: Pick<CompiledPack, 'name' | 'defaultBudgetMs' | 'settleMs'>, timing: { default_budget?: string; settle?: string }): void {
  if (timing.default_budget !== undefined) pack.defaultBudgetMs = requireDuration(timing.default_budget, pack.name, 'timing.default_budget');
  if (timing.settle !== undefined) pack.settleMs = requireDuration(timing.settle, pack.name, 'timing.settle');
}

function requireDuration(text: string, pack: string, where: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new RuleCompileError(pack, where, `unparsable duration "${text}"`);
  return ms;
}

const NO_MESSAGES: readonly CatalogMessage[] = [];
const indexes = new WeakMap<readonly CatalogMessage[], MessageIndex>();

/** One index per message list: a family pack and its shared rules use the same. */
function messageIndex(messages: readonly CatalogMessage[] = NO_MESSAGES): MessageIndex {
  let index = indexes.get(messages);
  if (index === undefined) indexes.set(messages, (index = new MessageIndex(messages)));
  return index;
}
