/**
 * One finished start, as the history keeps it: one JSON object per line. `v` is the schema
 * version; readers upgrade every older version they know and skip newer ones.
 */
import type { SpeculativeFacts, StartFacts } from '../core/start-facts.js';
import { isCause, isStage, isVerdictKind, type Cause, type Stage, type VerdictKind } from '../core/vocabulary.js';

export const RECORD_VERSION = 1;

export interface StartRecord {
  v: typeof RECORD_VERSION;
  /** Wall clock when the start ended (ISO 8601). */
  when: string;
  host: string;
  source: 'watch' | 'run' | 'replay';
  /** The log read: a path, or `-` for stdin. */
  log?: string;
  family: string;
  model?: string;
  /** `log-name`: no model in the log, the log's file name stands in for it (replayed fixtures). */
  model_from?: 'log' | 'log-name';
  tp?: number;
  quantization?: string;
  speculative?: SpeculativeFacts;
  verdict: VerdictKind;
  /** Last stage entered. */
  stage: Stage;
  cause?: Cause;
  total_ms: number;
  /** Time spent in each stage (log time; a re-entered stage adds up). */
  stages_ms: Partial<Record<Stage, number>>;
  /** Stalled: the budget that ran out. */
  budget?: { ms: number; source: string; detail: string };
  /** What the server's processes read in load_weights (Linux /proc: `run`, `watch --pid`), and the checkpoint's size. */
  load?: { read_bytes: number; total_bytes?: number };
}

export type Upgrade = { record: StartRecord } | { problem: string };

/** Any version this build knows, as the current one. */
export function upgradeRecord(raw: unknown): Upgrade {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'not a JSON object' };
  const object = raw as Record<string, unknown>;
  if (object.v === undefined) return fromV0(object);
  if (object.v === RECORD_VERSION) return checked({ ...object, stages_ms: stageTimes(object.stages_ms, 1) });
  if (typeof object.v === 'number' && object.v > RECORD_VERSION) return { problem: `written by a newer spinup (record version ${object.v})` };
  return { problem: `unknown record version ${JSON.stringify(object.v)}` };
}

/**
 * v0, the prototype's format: no `v`, times in seconds (`ts`, `elapsed_s`, `stages`), `result`
 * for the verdict, `tp_size`, `quant` and `hostname`.
 */
function fromV0(old: Record<string, unknown>): Upgrade {
  const when = typeof old.ts === 'number' ? new Date(old.ts * 1000).toISOString() : undefined;
  return checked({
    v: RECORD_VERSION,
    when,
    host: old.hostname,
    source: 'watch',
    family: old.family,
    model: old.model ?? undefined,
    model_from: old.model ? 'log' : undefined,
    tp: old.tp_size ?? undefined,
    quantization: old.quant ?? undefined,
    verdict: old.result,
    stage: old.stage,
    cause: old.cause ?? undefined,
    total_ms: typeof old.elapsed_s === 'number' ? Math.round(old.elapsed_s * 1000) : undefined,
    stages_ms: stageTimes(old.stages, 1000),
  });
}

function checked(object: Record<string, unknown>): Upgrade {
  const missing = ['when', 'host', 'family'].find((key) => typeof object[key] !== 'string');
  if (missing) return { problem: `no "${missing}"` };
  if (!isVerdictKind(object.verdict)) return { problem: `bad verdict ${JSON.stringify(object.verdict)}` };
  if (!isStage(object.stage)) return { problem: `bad stage ${JSON.stringify(object.stage)}` };
  if (typeof object.total_ms !== 'number' || !(object.total_ms >= 0)) return { problem: 'no "total_ms"' };
  if (object.cause !== undefined && !isCause(object.cause)) object.cause = 'unknown';
  if (object.tp !== undefined && typeof object.tp !== 'number') delete object.tp;
  if (object.model !== undefined && typeof object.model !== 'string') delete object.model;
  if (object.load !== undefined && !isLoad(object.load)) delete object.load;
  return { record: object as unknown as StartRecord };
}

function isLoad(raw: unknown): boolean {
  const load = raw as { read_bytes?: unknown; total_bytes?: unknown } | null;
  const bytes = (value: unknown): boolean => typeof value === 'number' && value >= 0;
  return typeof load === 'object' && load !== null && bytes(load.read_bytes) && (load.total_bytes === undefined || bytes(load.total_bytes));
}

/** Known stages with non-negative times, in ms; anything else is dropped. */
function stageTimes(raw: unknown, unitMs: number): Partial<Record<Stage, number>> {
  const times: Partial<Record<Stage, number>> = {};
  if (typeof raw !== 'object' || raw === null) return times;
  for (const [stage, value] of Object.entries(raw)) {
    if (isStage(stage) && typeof value === 'number' && value >= 0) times[stage] = Math.round(value * unitMs);
  }
  return times;
}

/** The facts a record states, for matching against the start going on. */
export function factsOf(record: StartRecord): StartFacts {
  const facts: StartFacts = {};
  if (record.model !== undefined) facts.model = record.model;
  if (record.tp !== undefined) facts.tp = record.tp;
  if (record.quantization !== undefined) facts.quantization = record.quantization;
  if (record.speculative !== undefined) facts.speculative = record.speculative;
  return facts;
}

/** Starts with the same key should take about as long: family, model and the settings that matter. */
export function setupKey(family: string, facts: StartFacts): string | undefined {
  if (facts.model === undefined) return undefined;
  const spec = facts.speculative;
  return [family, facts.model, `tp=${facts.tp ?? '?'}`, `q=${facts.quantization ?? ''}`, `spec=${spec ? `${spec.method ?? ''}/${spec.draft ?? ''}/${spec.tokens ?? ''}` : ''}`].join('|');
}
