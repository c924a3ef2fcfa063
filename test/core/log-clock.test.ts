import { describe, expect, it } from 'vitest';
import { LogClock, parseTqdmElapsed } from '../../src/core/log-clock.js';

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
  it('a log clock step while watching live is not silence; a backlog keeps its real gaps', async () => {
    const { Timeline } = await import('../../src/core/timeline.js');
    const { Classifier } = await import('../../src/core/classifier.js');
    const { loadPack } = await import('../../src/pack/load-pack.js');
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
