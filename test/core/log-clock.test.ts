import { describe, expect, it } from 'vitest';
import { Classifier } from '../../src/core/classifier.js';
import { LogClock, parseTqdmElapsed } from '../../src/core/log-clock.js';
import { Timeline } from '../../src/core/timeline.js';
import { loadPack } from '../../src/pack/load-pack.js';

const at = (time: string, extra: Record<string, string> = {}) => ({ time, source: 'fmt', ...extra });

describe('LogClock', () => {
  it('measures time from the first timestamp, lines without one inherit it', () => {
    const clock = new LogClock();
    expect(clock.observe(undefined)).toBe(0);
    expect(clock.observe(at('12:00:00', { date: '2025-03-08' }))).toBe(0);
    expect(clock.observe(undefined)).toBe(0);
    expect(clock.observe(at('12:05:00', { date: '2025-03-08' }))).toBe(300_000);
  });

  it('never runs backwards', () => {
    const clock = new LogClock();
    clock.observe(at('12:00:05', { date: '2025-03-08' }));
    expect(clock.observe(at('12:00:01', { date: '2025-03-08' }))).toBe(0);
    expect(clock.observe(at('12:00:06', { date: '2025-03-08' }))).toBe(1000);
  });

  it('crosses New Year in yearless vLLM timestamps', () => {
    const clock = new LogClock();
    clock.observe(at('23:59:58', { md: '12-31' }));
    expect(clock.observe(at('00:00:03', { md: '01-01' }))).toBe(5000);
  });

  it('treats a jump of a year as a clock change, not silence', () => {
    const clock = new LogClock();
    clock.observe(at('12:00:00', { date: '2025-03-08' }));
    expect(clock.observe(at('12:00:10', { date: '2026-03-08' }))).toBe(0);
    expect(clock.observe(at('12:00:20', { date: '2026-03-08' }))).toBe(10_000);
  });

  it('keeps an offset per format when two formats disagree by a day', () => {
    const clock = new LogClock();
    clock.observe({ md: '03-07', time: '12:29:02', source: 'vllm' });
    expect(clock.observe({ date: '2025-03-08', time: '12:29:04', source: 'sglang' })).toBe(0);
    expect(clock.observe({ md: '03-07', time: '12:29:08', source: 'vllm' })).toBe(0);
    expect(clock.observe({ date: '2025-03-08', time: '12:29:14', source: 'sglang' })).toBe(10_000);
  });

  it('does not count the time across a gap in the capture', () => {
    const clock = new LogClock();
    clock.observe(at('12:00:00', { date: '2025-03-08' }));
    clock.gap();
    expect(clock.observe(at('18:00:00', { date: '2025-03-08' }))).toBe(0);
  });

  it('advances with a tqdm bar on one physical line', () => {
    const clock = new LogClock();
    clock.observe(at('12:00:00', { date: '2025-03-08' }));
    expect(clock.observeBar('bar', 0)).toBe(0);
    expect(clock.observeBar('bar', 65_000)).toBe(65_000);
    expect(clock.observeBar('bar', 130_000)).toBe(130_000);
  });

  it('restarts from the time reached, forgetting what it learned of formats and bars', () => {
    const clock = new LogClock();
    clock.observe({ md: '03-07', time: '12:00:00', source: 'vllm' });
    expect(clock.observe({ md: '03-07', time: '12:10:00', source: 'vllm' })).toBe(600_000);
    clock.observeBar('bar', 0);
    clock.restart();
    // Both formats start afresh from 10 min, as at the start of a log; the bar is a new one.
    expect(clock.observe({ date: '2025-05-01', time: '08:00:00', source: 'sglang' })).toBe(600_000);
    expect(clock.observe({ md: '05-01', time: '08:00:30', source: 'vllm' })).toBe(630_000);
    expect(clock.observeBar('bar', 65_000)).toBe(630_000);
  });
});

describe('parseTqdmElapsed', () => {
  it.for([
    ['00:20', 20_000],
    ['05:20', 320_000],
    ['1:09:28', 4_168_000],
  ] as const)('%s', ([text, ms]) => {
    expect(parseTqdmElapsed(text)).toBe(ms);
  });
});

describe('Timeline live', () => {
  it('a log clock step while watching live is not silence; a backlog keeps its real gaps', () => {
    const pack = loadPack('sglang');
    const live = new Timeline(new Classifier(pack, { stallOverrideMs: 60_000 }));
    live.push('[2025-03-08 12:00:00] Init torch distributed begin.', { wall: 1_000, live: true });
    const events = live.push('[2025-03-08 13:00:01] Load weight begin. avail mem=1 GB', { wall: 2_000, live: true });
    expect(events.some((e) => e.type === 'verdict')).toBe(false);
    const backlog = new Timeline(new Classifier(pack, { stallOverrideMs: 60_000 }));
    backlog.push('[2025-03-08 12:00:00] Init torch distributed begin.', { wall: 1_000 });
    const stalled = backlog.push('[2025-03-08 13:00:01] Load weight begin. avail mem=1 GB', { wall: 1_001 });
    expect(stalled.find((e) => e.type === 'verdict')).toMatchObject({ verdict: { verdict: 'stalled' } });
  });
});

describe('Timeline across runs', () => {
  it('a run that starts after a verdict gets a clock of its own; one that replaces a run without a verdict does not', () => {
    const pack = loadPack('sglang');
    const atOf = (events: { type: string; at?: number }[], type: string): number | undefined => events.find((e) => e.type === type)?.at;

    const decided = new Timeline(new Classifier(pack));
    decided.push("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')");
    decided.push('[2025-03-08 12:00:30] The server is fired up and ready to roll!');
    expect(decided.classifier.verdict?.verdict).toBe('ready');
    // A restart an hour later: the new run starts where the clock stood (what came between may not have been read).
    const restart = decided.push("[2025-03-08 13:00:00] server_args=ServerArgs(model_path='x')");
    expect(atOf(restart, 'restart')).toBe(30_000);
    expect(atOf(decided.push('[2025-03-08 13:00:05 TP0] Init torch distributed begin.'), 'stage')).toBe(35_000);

    const undecided = new Timeline(new Classifier(pack));
    undecided.push("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')");
    undecided.push('[2025-03-08 12:00:05 TP0] Init torch distributed begin.');
    // No verdict: every line was read, and the time between the runs is real.
    expect(atOf(undecided.push("[2025-03-08 12:01:00] server_args=ServerArgs(model_path='x')"), 'restart')).toBe(60_000);
  });
});
