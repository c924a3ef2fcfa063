import { describe, expect, it } from 'vitest';
import type { StartFacts } from '../../src/core/start-facts.js';
import { dedupe, learnBudgets, LEARNING } from '../../src/history/learn-budgets.js';
import { RECORD_VERSION, type StartRecord } from '../../src/history/start-record.js';
import { shippedPack } from '../helpers/classify.js';

const MIN = 60_000;
const pack = shippedPack('sglang');
const qwq: StartFacts = { model: 'Qwen/QwQ-32B', tp: 4 };

function start(stages: StartRecord['stages_ms'], over: Partial<StartRecord> = {}): StartRecord {
  return {
    v: RECORD_VERSION,
    when: '2025-06-01T10:00:00.000Z',
    host: 'gpu-01',
    source: 'watch',
    family: 'sglang',
    model: qwq.model,
    tp: qwq.tp,
    verdict: 'ready',
    stage: 'ready',
    total_ms: 0,
    stages_ms: stages,
    ...over,
  };
}

const learn = (records: StartRecord[], facts: StartFacts = qwq) => learnBudgets({ records, family: 'sglang', host: 'gpu-01', facts, pack });

describe('learned budgets: the same model and settings on this host', () => {
  it('3 × the slowest + 2 min, from at least 2 ready starts, and says so', () => {
    const plan = learn([start({ kv_cache: MIN + 5000 }), start({ kv_cache: MIN + 20_000 }), start({ kv_cache: MIN + 12_000 })]);
    expect(plan.budgets.kv_cache).toEqual({ ms: 3 * (MIN + 20_000) + 2 * MIN, source: 'learned', detail: 'learned from 3 starts of this model here (slowest 1m20s)' });
    expect(plan.expectations.kv_cache).toEqual({ scope: 'setup', starts: 3, minMs: 65_000, medianMs: 72_000, maxMs: 80_000 });
  });

  it('13.5: a stage slower cold never learns below its cold floor; load_weights (any download) not at all', () => {
    const warm = [start({ load_weights: 8000, cuda_graph: 7000, launch: 7000 }), start({ load_weights: 8000, cuda_graph: 7000, launch: 7000 })];
    const plan = learn(warm);
    expect(pack.coldFloors).toMatchObject({ load_weights: 75 * MIN, cuda_graph: 20 * MIN, launch: 10 * MIN });
    expect(plan.budgets.load_weights).toBeUndefined();
    expect(plan.expectations.load_weights).toMatchObject({ maxMs: 8000 });
    expect(plan.budgets.cuda_graph).toEqual({ ms: 20 * MIN, source: 'learned', detail: 'learned from 2 starts of this model here (slowest 7s; at least 20m00s, what a cold start may take)' });
    expect(plan.budgets.launch!.ms).toBe(10 * MIN);
    // Above the cold floor, the history sets the budget and the detail says only that.
    const slow = learn([start({ cuda_graph: 8 * MIN }), start({ cuda_graph: 7 * MIN })]);
    expect(slow.budgets.cuda_graph).toEqual({ ms: 26 * MIN, source: 'learned', detail: 'learned from 2 starts of this model here (slowest 8m00s)' });
  });

  it('one start is not enough', () => {
    expect(learn([start({ load_weights: 5 * MIN })]).budgets).toEqual({});
  });

  it('never below the 2-minute floor', () => {
    expect(learn([start({ http_server: 0 }), start({ http_server: 1000 })]).budgets.http_server!.ms).toBe(3 * 1000 + 2 * MIN);
    expect(LEARNING.setup.floorMs).toBe(2 * MIN);
  });

  it('only ever tightens: a learned budget at or above the pack budget is not used (the expectation still is)', () => {
    // warmup: pack 5m; 3 × 2m + 2m = 8m
    const plan = learn([start({ warmup: 2 * MIN }), start({ warmup: MIN })]);
    expect(plan.budgets.warmup).toBeUndefined();
    expect(plan.expectations.warmup).toMatchObject({ scope: 'setup', maxMs: 2 * MIN });
  });

  it.for<[string, Partial<StartRecord>]>([
    ['failed starts', { verdict: 'failed' }],
    ['stalled starts', { verdict: 'stalled' }],
    ['unfinished starts', { verdict: 'incomplete' }],
    ['another host', { host: 'gpu-02' }],
    ['another family', { family: 'vllm' }],
    ['another tp', { tp: 8 }],
    ['another quantization', { quantization: 'fp8' }],
    ['speculative decoding', { speculative: { method: 'EAGLE3', draft: 'd' } }],
  ])('%s do not teach', ([, over]) => {
    expect(learn([start({ load_weights: MIN }, over), start({ load_weights: MIN }, over)]).budgets).toEqual({});
  });

  it('a start whose model is unknown matches no setup', () => {
    expect(learn([start({ load_weights: MIN }), start({ load_weights: MIN })], { tp: 4 }).budgets).toEqual({});
  });
});

describe('learned budgets: any model of the family on this host', () => {
  const models = (n: number, stages: StartRecord['stages_ms']) => Array.from({ length: n }, (_, i) => start(stages, { model: `m${i}` }));

  it('from 3 ready starts of 3 setups, with a 10-minute floor', () => {
    const plan = learn(models(3, { distributed_init: 30_000, cuda_graph: 4 * MIN }), { model: 'new/model', tp: 1 });
    expect(plan.budgets.distributed_init).toEqual({ ms: 10 * MIN, source: 'learned', detail: 'learned from 3 sglang starts on this host, any model (slowest 30s)' });
    expect(plan.budgets.cuda_graph!.ms).toBe(20 * MIN); // 3 × 4 min + 2 min is below its cold floor
    expect(plan.expectations.cuda_graph).toMatchObject({ scope: 'host', starts: 3 });
  });

  it('never for load_weights: its length follows the size of the model', () => {
    expect(learn(models(5, { load_weights: 10_000 }), { model: 'big/model', tp: 8 }).budgets.load_weights).toBeUndefined();
  });

  it('not from fewer than 3 setups, however many starts', () => {
    const same = Array.from({ length: 5 }, () => start({ cuda_graph: MIN }, { model: 'one' }));
    expect(learn([...same, ...models(1, { cuda_graph: MIN })], { model: 'other', tp: 1 }).budgets).toEqual({});
  });

  it('the same setup wins over the family where it has enough starts', () => {
    const plan = learn([...models(4, { cuda_graph: 20 * MIN, kv_cache: MIN }), start({ cuda_graph: MIN }), start({ cuda_graph: MIN })]);
    expect(plan.budgets.cuda_graph!.detail).toMatch(/^learned from 2 starts of this model here/);
    expect(plan.budgets.kv_cache!.detail).toMatch(/^learned from 4 sglang starts on this host/); // 4 + the 2 without kv_cache
  });
});

describe('dedupe', () => {
  it('counts a replayed log once (its latest record), and every watched start', () => {
    const a1 = start({}, { source: 'replay', log: 'fixtures/a.log', total_ms: 1 });
    const a2 = start({}, { source: 'replay', log: 'fixtures/a.log', total_ms: 2 });
    const w1 = start({}, { source: 'watch', log: '/data/server.log', total_ms: 3 });
    const w2 = start({}, { source: 'watch', log: '/data/server.log', total_ms: 4 });
    expect(dedupe([a1, w1, a2, w2]).map((r) => r.total_ms)).toEqual([3, 2, 4]);
  });
});
