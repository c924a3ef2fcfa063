// The judgement of a silent log by the process tree's activity (core/activity.ts) and the words of a silent
// load's progress (core/load-progress.ts): pure, samples in, judgement out.
import { describe, expect, it } from 'vitest';
import { activityBetween, ActivityJudge, DEFAULT_SILENCE_LIMITS, describeStall, limitsInStage, type ActivitySample } from '../../src/core/activity.js';
import { describeLoadProgress, formatBytes, loadProgress } from '../../src/core/load-progress.js';
import { parseRunArgs } from '../../src/cli/run/options.js';

const GB = 1e9;
const MINUTE = 60_000;

/** Samples every `stepMs` from 0 to `untilMs`, with totals growing by what `per` gives each step. */
function samples(untilMs: number, stepMs: number, per: { read?: number; cpuMs?: number }): ActivitySample[] {
  const out: ActivitySample[] = [];
  for (let wall = 0, i = 0; wall <= untilMs; wall += stepMs, i++) out.push({ wall, readBytes: i * (per.read ?? 0), writtenBytes: 0, cpuMs: i * (per.cpuMs ?? 0) });
  return out;
}

function judgeAfter(list: ActivitySample[], lastLineAt = 0) {
  const judge = new ActivityJudge(DEFAULT_SILENCE_LIMITS);
  for (const sample of list) judge.push(sample);
  return judge.judge(list.at(-1)!.wall, lastLineAt);
}

describe('activityBetween: what the tree did in an interval', () => {
  it.for([
    { name: '1.2 GB/s of reads', to: { readBytes: 1.2 * GB, cpuMs: 900 }, is: 'moving' },
    { name: 'a busy core and no I/O', to: { readBytes: 1_000, cpuMs: 1_000 }, is: 'spinning' },
    { name: 'a heartbeat thread: a few kB and 1% CPU', to: { readBytes: 4_096, cpuMs: 10 }, is: 'idle' },
  ])('$name is $is', ({ to, is }) => {
    expect(activityBetween({ wall: 0, readBytes: 0, writtenBytes: 0, cpuMs: 0 }, { wall: 1_000, writtenBytes: 0, ...to })).toBe(is);
  });
});

describe('ActivityJudge with the default limits (--idle 5m, --spin 15m)', () => {
  it('an idle tree and a silent log: STALLED at 5 minutes, where the pack gave load_weights 75', () => {
    expect(judgeAfter(samples(5 * MINUTE - 1_000, 1_000, {}))).toBeUndefined();
    const stall = judgeAfter(samples(5 * MINUTE, 1_000, {}));
    expect(stall).toMatchObject({ kind: 'idle', quietMs: 5 * MINUTE, limitMs: 5 * MINUTE });
    expect(describeStall(stall!, 'load_weights')).toBe('no log line, no I/O and no CPU for 5m00s in stage load_weights');
  });

  it('a tree hung in the kernel (D state: a dead NFS mount, a driver) says so', () => {
    const stall = { ...judgeAfter(samples(5 * MINUTE, 1_000, {}))!, inKernelWait: 2 };
    expect(describeStall(stall, 'load_weights')).toBe('no log line, no I/O and no CPU for 5m00s in stage load_weights; 2 of its processes wait in the kernel (D state: storage or a driver)');
  });

  it('a tree reading 1 GB/s is never STALLED by its silence (the stage budget stays the last word)', () => {
    expect(judgeAfter(samples(120 * MINUTE, 1_000, { read: GB }))).toBeUndefined();
  });

  it('a spinning tree is not STALLED at --idle, and is at --spin', () => {
    expect(judgeAfter(samples(14 * MINUTE, 1_000, { cpuMs: 1_000 }))).toBeUndefined();
    const stall = judgeAfter(samples(15 * MINUTE, 1_000, { cpuMs: 1_000 }));
    expect(stall).toMatchObject({ kind: 'spin', limitMs: 15 * MINUTE });
    expect(describeStall(stall!, 'distributed_init')).toMatch(/^no log line and no I\/O for 15m00s in stage distributed_init, only CPU/);
  });

  it('a log line restarts the count, as does I/O after a quiet spell', () => {
    expect(judgeAfter(samples(6 * MINUTE, 1_000, {}), 2 * MINUTE)).toBeUndefined();
    const quietThenRead = [...samples(4 * MINUTE, 1_000, {}), { wall: 4 * MINUTE + 1_000, readBytes: GB, writtenBytes: 0, cpuMs: 0 }];
    const judge = new ActivityJudge(DEFAULT_SILENCE_LIMITS);
    for (const sample of quietThenRead) judge.push(sample);
    expect(judge.judge(8 * MINUTE, 0)).toBeUndefined();
    expect(judge.judge(9 * MINUTE + 1_000, 0)).toMatchObject({ kind: 'idle' });
  });

  it('blind (a process it may not read): no silence is held against the tree', () => {
    const judge = new ActivityJudge(DEFAULT_SILENCE_LIMITS);
    for (const sample of samples(10 * MINUTE, 1_000, {})) judge.blind(sample.wall);
    expect(judge.judge(10 * MINUTE, 0)).toBeUndefined();
  });

  it('blind, and the next sample late (a loaded machine): still no silence held against it, until a sample is seen whole', () => {
    const judge = new ActivityJudge(DEFAULT_SILENCE_LIMITS);
    judge.blind(MINUTE);
    expect(judge.judge(MINUTE + DEFAULT_SILENCE_LIMITS.idleMs + 1_000, 0)).toBeUndefined();
    // Seen whole again: the quiet counts from that sample, as after the first sample of a watch.
    const seen = 2 * MINUTE + DEFAULT_SILENCE_LIMITS.idleMs;
    judge.push({ wall: seen, readBytes: 0, writtenBytes: 0, cpuMs: 0 });
    expect(judge.judge(seen + DEFAULT_SILENCE_LIMITS.idleMs - 1, 0)).toBeUndefined();
    expect(judge.judge(seen + DEFAULT_SILENCE_LIMITS.idleMs, 0)).toMatchObject({ kind: 'idle' });
  });

  it('run takes --idle and --spin, with 5m and 15m by default', () => {
    const parsed = (args: string[]) => parseRunArgs([...args, '--', 'server']);
    expect(parsed([])).toMatchObject({ kind: 'run', options: { silence: { idleMs: 5 * MINUTE, spinMs: 15 * MINUTE } } });
    expect(parsed(['--idle', '90s', '--spin', '2m'])).toMatchObject({ kind: 'run', options: { silence: { idleMs: 90_000, spinMs: 120_000 } } });
    expect(() => parsed(['--idle', 'soon'])).toThrow('--idle wants a duration like 90s, 5m or 1h30m, not "soon"');
  });
});

describe('limitsInStage: a node of a multi-node start waits for its peers', () => {
  const limits = { idleMs: 2_000, spinMs: 6_000 };
  it('in distributed_init, neither limit comes before the peer wait (the join budget)', () => {
    expect(limitsInStage(limits, 'distributed_init', 600_000)).toEqual({ idleMs: 600_000, spinMs: 600_000 });
    expect(limitsInStage({ idleMs: 900_000, spinMs: 900_000 }, 'distributed_init', 600_000)).toEqual({ idleMs: 900_000, spinMs: 900_000 });
  });
  it('in any other stage, or on one node, the limits stand', () => {
    expect(limitsInStage(limits, 'load_weights', 600_000)).toBe(limits);
    expect(limitsInStage(limits, 'distributed_init', undefined)).toBe(limits);
  });
  it('the judge takes the stage limits it is given', () => {
    const judge = new ActivityJudge(limits);
    judge.push({ wall: 0, readBytes: 0, writtenBytes: 0, cpuMs: 0 });
    judge.push({ wall: 3_000, readBytes: 0, writtenBytes: 0, cpuMs: 0 });
    expect(judge.judge(3_000, 0)?.kind).toBe('idle');
    expect(judge.judge(3_000, 0, limitsInStage(limits, 'distributed_init', 10_000))).toBeUndefined();
  });
});

describe('the words of a silent load', () => {
  it.for([
    { read: 210 * GB, total: 547 * GB, rate: 1.2 * GB, text: 'read 210 GB of 547 GB, 1.2 GB/s, about 5m left' },
    { read: 40e6, total: 50e6, rate: 8e6, text: 'read 40 MB of 50 MB, 8 MB/s, about 1s left' },
    { read: 3.4 * GB, total: undefined, rate: 850e6, text: 'read 3.4 GB, 850 MB/s' },
    { read: 60 * GB, total: 50 * GB, rate: 1 * GB, text: 'read 60 GB of 50 GB, 1 GB/s' },
  ])('$text', ({ read, total, rate, text }) => {
    expect(describeLoadProgress(loadProgress(read, total, rate))).toBe(text);
  });

  it('sizes in decimal units, three digits at most', () => {
    expect([999, 1_500, 12_345_678, 547e9, 1.25e12].map(formatBytes)).toEqual(['999 B', '1.5 kB', '12 MB', '547 GB', '1.3 TB']);
  });
});
