/**
 * Issue 28: the fleet teaches like this host's same-model starts, p95 in the place of the
 * slowest, with the same safety rules; it merges with local history; a start whose model the
 * fleet does not know says so once and learns from this host.
 */
import { describe, expect, it } from 'vitest';
import type { StartFacts } from '../../src/core/start-facts.js';
import type { FleetFigures, FleetModel } from '../../src/history/fleet-queries.js';
import { learnBudgets } from '../../src/history/learn-budgets.js';
import { readyEta } from '../../src/history/ready-eta.js';
import { RECORD_VERSION, type StartRecord } from '../../src/history/start-record.js';
import { trackedSession } from '../../src/history/start-tracker.js';
import { shippedPack } from '../helpers/classify.js';
import { sglangHealthyStart } from '../helpers/log-lines.js';

const MIN = 60_000;
const pack = shippedPack('sglang');
const qwq: StartFacts = { model: 'Qwen/QwQ-32B', tp: 4 };

function fleetOf(stages: FleetModel['stages'], model = qwq.model!): FleetModel & { window: string } {
  return { family: 'sglang', model, starts: Math.max(...Object.values(stages).map((s) => s!.starts)), stages, window: '14d' };
}

function local(stages: StartRecord['stages_ms'], over: Partial<StartRecord> = {}): StartRecord {
  return { v: RECORD_VERSION, when: '2025-06-01T10:00:00.000Z', host: 'gpu-01', source: 'watch', family: 'sglang', model: qwq.model, tp: qwq.tp, verdict: 'ready', stage: 'ready', total_ms: 0, stages_ms: stages, ...over };
}

const learn = (fleet: ReturnType<typeof fleetOf> | undefined, records: StartRecord[] = [], facts = qwq) => learnBudgets({ records, family: 'sglang', host: 'gpu-01', facts, pack, fleet });

describe('learning from the fleet', () => {
  it('3 × p95 + 2 min from at least 2 fleet starts, with the fleet named and counted', () => {
    const plan = learn(fleetOf({ kv_cache: { starts: 40, p50Ms: 50_000, p95Ms: 80_000 } }));
    expect(plan.budgets.kv_cache).toEqual({ ms: 3 * 80_000 + 2 * MIN, source: 'learned', detail: 'learned from 40 starts of this model in the fleet over 14d (p95 1m20s)' });
    expect(plan.expectations.kv_cache).toEqual({ scope: 'fleet', starts: 40, minMs: 50_000, medianMs: 50_000, maxMs: 80_000 });
    expect(plan.basis).toEqual({ source: 'fleet', fleetStarts: 40, localStarts: 0 });
  });

  it('one fleet start teaches nothing; another model of the fleet teaches nothing', () => {
    expect(learn(fleetOf({ kv_cache: { starts: 1, p50Ms: 1000, p95Ms: 1000 } })).basis.source).toBe('pack');
    expect(learn(undefined).budgets).toEqual({});
  });

  it('the same safety rules: the 2-minute floor, a cold floor, load_weights never below the pack', () => {
    const fast = { starts: 9, p50Ms: 1000, p95Ms: 2000 };
    const plan = learn(fleetOf({ distributed_init: fast, cuda_graph: fast, load_weights: fast }));
    expect(plan.budgets.distributed_init!.ms).toBe(3 * 2000 + 2 * MIN);
    // cuda_graph's cold floor (an empty kernel cache) holds however warm the fleet's starts were.
    expect(plan.budgets.cuda_graph).toMatchObject({ ms: 20 * MIN });
    expect(plan.budgets.cuda_graph!.detail).toContain('at least 20m00s, what a cold start may take');
    // load_weights: its cold floor is the pack's budget, so learning never tightens it.
    expect(plan.budgets.load_weights).toBeUndefined();
    expect(plan.expectations.load_weights).toMatchObject({ scope: 'fleet', maxMs: 2000 });
  });

  it('merged with this host: the looser budget, the extremes of both, and both counted', () => {
    const records = [local({ kv_cache: 100_000 }), local({ kv_cache: 110_000 })];
    const plan = learn(fleetOf({ kv_cache: { starts: 30, p50Ms: 50_000, p95Ms: 80_000 } }), records);
    expect(plan.budgets.kv_cache!.ms).toBe(3 * 110_000 + 2 * MIN);
    expect(plan.budgets.kv_cache!.detail).toBe('learned from 30 starts of this model in the fleet over 14d (p95 1m20s), and 2 here (slowest 1m50s)');
    expect(plan.expectations.kv_cache).toEqual({ scope: 'fleet', starts: 32, minMs: 50_000, medianMs: 50_000, maxMs: 110_000 });
    expect(plan.basis).toEqual({ source: 'fleet+local', fleetStarts: 30, localStarts: 2 });
  });

  it('a host-wide figure (other models on this host) yields to the fleet, which knows this model', () => {
    const others = ['a', 'b', 'c'].map((model) => local({ kv_cache: 5 * MIN }, { model }));
    expect(learn(undefined, others).expectations.kv_cache).toMatchObject({ scope: 'host' });
    const plan = learn(fleetOf({ kv_cache: { starts: 5, p50Ms: 20_000, p95Ms: 30_000 } }), others);
    expect(plan.budgets.kv_cache!.ms).toBe(3 * 30_000 + 2 * MIN);
    expect(plan.basis.source).toBe('fleet');
  });

  it('the ETA to READY: what is left of this stage by its median, then the medians of the later stages', () => {
    const expectations = learn(fleetOf({ kv_cache: { starts: 5, p50Ms: 20_000, p95Ms: 30_000 }, cuda_graph: { starts: 5, p50Ms: 60_000, p95Ms: 90_000 }, warmup: { starts: 5, p50Ms: 5_000, p95Ms: 9_000 } })).expectations;
    expect(readyEta(expectations, 'kv_cache', 5_000)).toEqual({ etaMs: 15_000 + 60_000 + 5_000, overdue: false });
    expect(readyEta(expectations, 'kv_cache', 40_000)).toEqual({ etaMs: 65_000, overdue: true });
    expect(readyEta(expectations, 'load_weights', 0), 'the current stage unknown: no guess').toBeUndefined();
  });
});

describe('a start the fleet knows nothing of', () => {
  it('says so once, when its model is known, and learns from this host', () => {
    const figures: FleetFigures = { url: 'http://prometheus:9090', window: '14d', models: [fleetOf({ kv_cache: { starts: 5, p50Ms: 1, p95Ms: 1 } }, 'other/model')] };
    const said: string[] = [];
    const { session, tracker } = trackedSession({ packs: [pack], family: 'sglang', memory: { records: [], host: 'gpu-01', learn: true, fleet: { url: figures.url, window: '14d', figures, onMiss: (t) => said.push(t) } } });
    for (const line of sglangHealthyStart()) session.push(line);
    expect(said).toEqual(['the fleet at http://prometheus:9090 has no READY start of sglang Qwen/Qwen2.5-7B over 14d']);
    expect(tracker.learned).toMatchObject({ source: 'pack', text: "the pack's budgets (no earlier start of this model to learn from); the fleet (http://prometheus:9090, 14d) has no READY start of this model" });
  });
});
