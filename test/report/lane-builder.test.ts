/** The report's model: a replayed fixture as a lane, and the same lane from the --json events live. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventJson } from '../../src/cli/format/verdict-json.js';
import { stageRows } from '../../src/cli/format/explain-text.js';
import { allEvents } from '../../src/cli/format/explain-reasons.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';
import { traceLog } from '../../src/replay/explain-driver.js';
import { applyEvent, emptyLane, LANE_BUILDER_FUNCTIONS, lanesFromEvents, type WireEvent } from '../../src/report/lane-builder.js';
import { laneFromTrace } from '../../src/report/lane-from-trace.js';
import { repoRoot } from '../helpers/run-main.js';
import { AFTER_READY, FAILED, fixtureTrace, READY, STALLED } from './fixture-trace.js';

describe('laneFromTrace', () => {
  it.for([READY, FAILED, STALLED, AFTER_READY])('has a bar per stage with the durations explain gives: %s', (file) => {
    const trace = fixtureTrace(file);
    const lane = laneFromTrace(trace);
    const rows = stageRows(trace);
    expect(lane.stages.map((b) => b.stage)).toEqual(rows.map((r) => r.stage));
    expect(lane.stages.map((b) => b.endMs - b.startMs)).toEqual(rows.map((r) => r.durationMs));
    expect(lane.verdict?.verdict).toBe(trace.verdict.verdict);
    expect(lane.verdict?.atMs).toBe(trace.verdict.at);
    // Each bar is closed by the line that opened the next one, the last by the verdict's line.
    lane.stages.slice(0, -1).forEach((bar, i) => expect(bar.closed).toEqual(lane.stages[i + 1]!.opened));
    expect(lane.stages.every((b) => !b.open && b.opened.text !== undefined)).toBe(true);
  });

  it('keeps the opening line text of each stage', () => {
    const lane = laneFromTrace(fixtureTrace(READY));
    expect(lane.stages[0]).toMatchObject({ stage: 'launch', opened: { line: 2 } });
    expect(lane.stages[0]!.opened.text).toContain('server_args=ServerArgs(');
  });

  it('samples progress inside load_weights and cuda_graph', () => {
    const lane = laneFromTrace(fixtureTrace(READY));
    const weights = lane.stages.find((b) => b.stage === 'load_weights')!;
    expect(weights.progress.length).toBe(15);
    expect(weights.progress.at(-1)).toMatchObject({ current: 14, total: 14, fraction: 1, unit: 'shards' });
    expect(weights.progress.every((p) => p.atMs >= weights.startMs && p.atMs <= weights.endMs)).toBe(true);
    expect(lane.stages.find((b) => b.stage === 'cuda_graph')!.progress.at(-1)).toMatchObject({ current: 13, total: 13, unit: 'batches' });
  });

  it('gives a failure its cause, rule and root-cause line at its time', () => {
    const trace = fixtureTrace(FAILED);
    const v = laneFromTrace(trace).verdict!;
    expect(v).toMatchObject({ verdict: 'failed', cause: trace.verdict.cause, rule: trace.verdict.rule, atMs: trace.verdict.at });
    expect(v.evidence.map((e) => e.line)).toEqual(trace.verdict.evidence.map((e) => e.lineNo));
    expect(v.evidence[0]!.text).toContain('TypeError');
  });

  it('shades a stall from the last line to the verdict and keeps the budget', () => {
    const trace = fixtureTrace(STALLED);
    const v = laneFromTrace(trace).verdict!;
    expect(v.silence).toEqual({ fromMs: trace.verdict.at - trace.verdict.silentMs!, toMs: trace.verdict.at, lastLine: { line: trace.verdict.lastLine!.lineNo, text: trace.verdict.lastLine!.text } });
    expect(v.budget?.ms).toBe(trace.verdict.budget!.ms);
    expect(v.silence!.toMs - v.silence!.fromMs).toBeGreaterThanOrEqual(v.budget!.ms);
  });

  it('marks failures after ready, after the ready verdict', () => {
    const lane = laneFromTrace(fixtureTrace(AFTER_READY));
    expect(lane.verdict?.verdict).toBe('ready');
    expect(lane.afterReady.length).toBeGreaterThan(0);
    expect(lane.afterReady.every((m) => m.atMs >= lane.verdict!.atMs && m.line.text !== undefined)).toBe(true);
    expect(lane.endMs).toBe(Math.max(...lane.afterReady.map((m) => m.atMs)));
  });

  it('draws the last run of a log that restarted, and says how many it set aside', () => {
    const failed = readFileSync(join(repoRoot, FAILED), 'utf8');
    const ready = readFileSync(join(repoRoot, READY), 'utf8');
    const packs = FAMILIES.map((f) => loadPack(f));
    const lane = laneFromTrace(traceLog(`${failed}${ready}`, { packs, family: 'sglang' }));
    expect(lane.earlierRuns).toBe(1);
    expect(lane.verdict?.verdict).toBe('ready');
    expect(lane.stages[0]!.opened.line).toBeGreaterThan(failed.split('\n').length - 1);
  });
});

describe('the lane from --json events (what the live page receives)', () => {
  it.for([READY, FAILED, STALLED, AFTER_READY])('is the report lane but for line texts: %s', (file) => {
    const trace = fixtureTrace(file);
    const wire = [{ type: 'family', family: trace.family }, ...allEvents(trace).map((e) => eventJson(e) as unknown as WireEvent)];
    const live = lanesFromEvents(JSON.parse(JSON.stringify(wire)) as WireEvent[]);
    const report = laneFromTrace(trace);
    const numbersOnly = (value: unknown): unknown => JSON.parse(JSON.stringify(value), (key, v) => (key === 'text' && typeof v === 'string' ? undefined : v));
    expect(live).toHaveLength(1);
    // Stage lines carry no text on the wire; everything else is the same.
    expect(numbersOnly(live[0])).toEqual(numbersOnly(report));
    expect(live[0]!.verdict?.evidence.map((e) => e.text)).toEqual(report.verdict?.evidence.map((e) => e.text));
  });

  it('keeps a bar open, growing with later events, until the next stage or the verdict', () => {
    const lane = emptyLane();
    applyEvent(lane, { type: 'stage', stage: 'load_weights', at_ms: 1000, line: 3, rule: 'r' });
    applyEvent(lane, { type: 'progress', stage: 'load_weights', at_ms: 5000, line: 4, current: 1, total: 4, unit: 'shards' });
    expect(lane.stages[0]).toMatchObject({ open: true, startMs: 1000, endMs: 5000 });
    expect(lane.stages[0]!.progress[0]!.fraction).toBe(0.25);
    applyEvent(lane, { type: 'verdict', verdict: 'ready', stage: 'ready', at_ms: 9000, decided_by: { line: 9, text: 'ready!' } });
    expect(lane.stages[0]).toMatchObject({ open: false, endMs: 9000, closed: { line: 9, text: 'ready!' } });
  });

  it('gives each node of a group start its own lane', () => {
    const lanes = lanesFromEvents([
      { type: 'stage', node: 'head', stage: 'launch', at_ms: 0, line: 1 },
      { type: 'stage', node: 'worker-1', stage: 'launch', at_ms: 500, line: 1 },
      { type: 'stage', node: 'head', stage: 'load_weights', at_ms: 2000, line: 7 },
      { type: 'verdict', node: 'worker-1', verdict: 'failed', stage: 'launch', cause: 'nccl_timeout', at_ms: 3000 },
    ]);
    expect(lanes.map((l) => [l.node, l.stages.map((b) => b.stage), l.verdict?.verdict])).toEqual([
      ['head', ['launch', 'load_weights'], undefined],
      ['worker-1', ['launch'], 'failed'],
    ]);
  });

  it('builds the same lane from the inlined source (as the live page runs it)', () => {
    const source = LANE_BUILDER_FUNCTIONS.map(String).join('\n');
    const inlined = new Function(`${source}\nreturn lanesFromEvents;`)() as typeof lanesFromEvents;
    const trace = fixtureTrace(STALLED);
    const wire = allEvents(trace).map((e) => eventJson(e) as unknown as WireEvent);
    expect(inlined(wire)).toEqual(lanesFromEvents(wire));
  });
});
