/**
 * What the fleet's Prometheus is asked, and how its answers become figures: per family and
 * model, the READY starts and each stage's p50/p95 over a window; for `history --from` also the
 * whole start's and the failure causes. The same expressions as the shipped recording rules
 * (examples/kubernetes/prometheusrule.yaml), on the raw series, so that a Prometheus without
 * the rules answers too and the window is the caller's. Pure: queries out, JSON in.
 *
 * Each spinup's histogram holds one start; `max_over_time` over the window is that start's
 * buckets (a series seen by many scrapes counts once), and the sum across series is the fleet.
 */
import { isStage, type Stage } from '../core/vocabulary.js';
import { START_HISTOGRAM, STAGE_HISTOGRAM } from '../status/startup-histograms.js';

export interface FleetStage {
  /** READY starts that passed through the stage. */
  starts: number;
  p50Ms: number;
  p95Ms: number;
}

export interface FleetModel {
  family: string;
  model: string;
  /** READY starts of the model (the most any of its stages was seen in). */
  starts: number;
  stages: Partial<Record<Stage, FleetStage>>;
  /** `history --from` only: the whole start, and every start by verdict and failure cause. */
  total?: { p50Ms: number; p95Ms: number };
  verdicts?: Record<string, number>;
  causes?: Record<string, number>;
}

export interface FleetFigures {
  /** The Prometheus asked (as given). */
  url: string;
  /** The window, in Prometheus's own words (`14d`). */
  window: string;
  models: FleetModel[];
}

/** Names the queries; `learn` needs the first three, `history --from` all of them. */
/** A start waits this long at most for the fleet before it goes on without it. */
export const FLEET_TIMEOUT_MS = 5_000;
export const FLEET_WINDOW = '14d';

export type QueryName = 'stage_p50' | 'stage_p95' | 'stage_starts' | 'start_p50' | 'start_p95' | 'verdicts' | 'causes';
export const LEARN_QUERIES: readonly QueryName[] = ['stage_p50', 'stage_p95', 'stage_starts'];
export const HISTORY_QUERIES: readonly QueryName[] = [...LEARN_QUERIES, 'start_p50', 'start_p95', 'verdicts', 'causes'];

export function fleetQuery(name: QueryName, window: string): string {
  const ready = (metric: string): string => `max_over_time(${metric}{verdict="ready"}[${window}])`;
  switch (name) {
    case 'stage_p50':
    case 'stage_p95':
      return `histogram_quantile(${name === 'stage_p50' ? '0.5' : '0.95'}, sum by (family, model, stage, le) (${ready(`${STAGE_HISTOGRAM}_bucket`)}))`;
    case 'stage_starts':
      return `sum by (family, model, stage) (${ready(`${STAGE_HISTOGRAM}_count`)})`;
    case 'start_p50':
    case 'start_p95':
      return `histogram_quantile(${name === 'start_p50' ? '0.5' : '0.95'}, sum by (family, model, le) (${ready(`${START_HISTOGRAM}_bucket`)}))`;
    case 'verdicts':
      return `sum by (family, model, verdict) (max_over_time(${START_HISTOGRAM}_count[${window}]))`;
    case 'causes':
      return `count by (family, model, cause) (max_over_time(spinup_start_failure_info[${window}]))`;
  }
}

/** Prometheus's `/api/v1/query` answer (instant vector), as far as it is used here. */
export interface VectorSample {
  metric: Record<string, string>;
  value: number;
}

/**
 * One query's answer body as samples; a string saying what was wrong otherwise (not JSON, an
 * error status, not a vector). NaN and infinite values (a quantile of nothing) are dropped.
 */
export function vectorOf(body: string): VectorSample[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the answer is not JSON (is the URL a Prometheus?)';
  }
  const answer = parsed as { status?: unknown; error?: unknown; data?: { resultType?: unknown; result?: unknown } };
  if (answer.status !== 'success') return `Prometheus answered ${JSON.stringify(answer.error ?? answer.status ?? 'no status')}`;
  if (answer.data?.resultType !== 'vector' || !Array.isArray(answer.data.result)) return 'the answer is not an instant vector';
  const samples: VectorSample[] = [];
  for (const item of answer.data.result as { metric?: Record<string, string>; value?: [number, string] }[]) {
    const value = Number(item.value?.[1]);
    if (item.metric && Number.isFinite(value)) samples.push({ metric: item.metric, value });
  }
  return samples;
}

/** The answers by query name, as figures per family and model (models with no READY start are kept for history). */
export function figuresFrom(answers: Partial<Record<QueryName, VectorSample[]>>, url: string, window: string): FleetFigures {
  const models = new Map<string, FleetModel>();
  const modelOf = (metric: Record<string, string>): FleetModel | undefined => {
    const { family, model } = metric;
    if (family === undefined || model === undefined) return undefined;
    const key = `${family}\u0000${model}`;
    let entry = models.get(key);
    if (!entry) models.set(key, (entry = { family, model, starts: 0, stages: {} }));
    return entry;
  };
  const stageOf = (sample: VectorSample): FleetStage | undefined => {
    const entry = modelOf(sample.metric);
    const stage = sample.metric.stage;
    if (!entry || !isStage(stage)) return undefined;
    return (entry.stages[stage] ??= { starts: 0, p50Ms: NaN, p95Ms: NaN });
  };
  for (const sample of answers.stage_starts ?? []) {
    const stage = stageOf(sample);
    if (stage) stage.starts = sample.value;
  }
  for (const [name, key] of [['stage_p50', 'p50Ms'], ['stage_p95', 'p95Ms']] as const) {
    for (const sample of answers[name] ?? []) {
      const stage = stageOf(sample);
      if (stage) stage[key] = Math.round(sample.value * 1000);
    }
  }
  for (const [name, key] of [['start_p50', 'p50Ms'], ['start_p95', 'p95Ms']] as const) {
    for (const sample of answers[name] ?? []) {
      const entry = modelOf(sample.metric);
      if (entry) (entry.total ??= { p50Ms: NaN, p95Ms: NaN })[key] = Math.round(sample.value * 1000);
    }
  }
  for (const [name, label, key] of [['verdicts', 'verdict', 'verdicts'], ['causes', 'cause', 'causes']] as const) {
    for (const sample of answers[name] ?? []) {
      const entry = modelOf(sample.metric);
      const value = sample.metric[label];
      if (entry && value !== undefined && sample.value > 0) (entry[key] ??= {})[value] = sample.value;
    }
  }
  for (const entry of models.values()) {
    // A stage with a count but no quantile (or the reverse) says nothing usable.
    for (const [stage, figures] of Object.entries(entry.stages) as [Stage, FleetStage][]) {
      if (!(figures.starts > 0) || Number.isNaN(figures.p50Ms) || Number.isNaN(figures.p95Ms)) delete entry.stages[stage];
    }
    entry.starts = Math.max(0, ...Object.values(entry.stages).map((s) => s!.starts), entry.verdicts?.ready ?? 0);
  }
  return { url, window, models: [...models.values()] };
}

/** The figures of one family and model, when the fleet has READY starts of it. */
export function fleetModel(figures: FleetFigures | undefined, family: string, model: string | undefined): FleetModel | undefined {
  if (!figures || model === undefined) return undefined;
  return figures.models.find((m) => m.family === family && m.model === model && Object.keys(m.stages).length > 0);
}
