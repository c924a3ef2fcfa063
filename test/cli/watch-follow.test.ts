/**
 * `spinup watch FILE` end to end: the built CLI as a child process following a real file while
 * the test writes, rotates and truncates it. Real time, so every wait is bounded.
 */
import { appendFileSync, copyFileSync, mkdirSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, fixtureLines, killAll, sleep, slice, spawnWatch, type JsonEvent, type WatchChild } from '../helpers/watch-child.js';

// A ready SGLang start: launch 2, distributed_init 8, load_weights 24, kv_cache 53, cuda_graph 61,
// http_server 74, warmup 78, "fired up" 82, then health polls to line 88.
const READY = fixtureLines('sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const READY_LINE = 82;
// A start that dies of CUDA OOM right after `Load weight begin` (line 58; the OOM is line 106).
const OOM = fixtureLines('sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const STAGES = ['launch', 'distributed_init', 'load_weights', 'kv_cache', 'cuda_graph', 'http_server', 'warmup'];

let dir: string;
let log: string;

beforeAll(() => assertBuilt());

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spinup-watch-follow-'));
  log = join(dir, 'server.log');
});

afterEach(async () => {
  await killAll();
  await rm(dir, { recursive: true, force: true });
});

function watch(...args: string[]): WatchChild {
  return spawnWatch(args, { cwd: dir, stateDir: join(dir, 'state') });
}

const stageEvents = (events: JsonEvent[]): string[] => events.filter((e) => e.type === 'stage').map((e) => e.stage as string);
const verdicts = (events: JsonEvent[]): JsonEvent[] => events.filter((e) => e.type === 'verdict');

describe('spinup watch FILE: following a growing file', () => {
  it('reports each stage as lines are appended and READY on the line written last', async () => {
    writeFileSync(log, slice(READY, 1, 30));
    const w = watch(log);
    await w.untilStderr('stage load_weights');
    for (let at = 31; at < 61; at += 10) {
      appendFileSync(log, slice(READY, at, at + 9));
      await sleep(20);
    }
    // A line that reaches the file in two writes is still one line.
    const half = Math.floor(READY[60]!.length / 2);
    appendFileSync(log, READY[60]!.slice(0, half));
    await sleep(50);
    appendFileSync(log, `${READY[60]!.slice(half)}\n${slice(READY, 62, READY_LINE - 1)}`);
    await w.untilStderr('stage warmup');
    await sleep(200);
    expect(w.exit).toBeUndefined();
    appendFileSync(log, slice(READY, READY_LINE, READY_LINE));
    expect(await w.finished()).toEqual({ code: 0, signal: null });
    expect(w.stdout).toMatch(/^READY sglang {2}after \d+s\n {2}decided by line 82: \[2025-03-08 12:29:33\] The server is fired up and ready to roll!\n$/);
    const stageLines = w.stderr.split('\n').filter((l) => / stage /.test(l));
    expect(stageLines.map((l) => / stage (\w+)/.exec(l)![1])).toEqual(STAGES);
    expect(stageLines[4]).toMatch(/stage cuda_graph {2}line 61$/);
  });

  it.for([
    { name: 'from before the file exists', parent: '' },
    { name: 'from before its directory exists', parent: 'not-yet' },
  ])('waits for the file to appear: $name', async ({ parent }) => {
    const file = join(dir, parent, 'server.log');
    const w = watch('--json', file);
    await w.untilEvent('waiting notice', (e) => e.type === 'notice' && e.notice === 'waiting');
    if (parent) mkdirSync(join(dir, parent));
    writeFileSync(file, slice(READY, 1, 40));
    await w.untilEvent('load_weights', (e) => e.stage === 'load_weights');
    appendFileSync(file, slice(READY, 41));
    expect(await w.finished()).toEqual({ code: 0, signal: null });
    const events = w.events;
    expect(events.slice(0, 2)).toEqual([
      { type: 'notice', notice: 'waiting', path: file },
      { type: 'notice', notice: 'appeared', path: file },
    ]);
    expect(stageEvents(events)).toEqual(STAGES);
    expect(verdicts(events)).toMatchObject([{ verdict: 'ready', decided_by: { line: READY_LINE } }]);
  });
});

describe('spinup watch FILE: rotation and truncation', () => {
  // logrotate's two ways. Here the test waits for the truncated notice before writing on, so
  // the write lands in the new file's start either way (a write that comes first is the test
  // further down); a rename is detected by the file's identity, whenever.
  const rotations = [
    {
      name: 'rename and re-create',
      notice: 'rotated',
      rotate: async (_w: WatchChild) => {
        renameSync(log, `${log}.1`);
        writeFileSync(log, '');
      },
    },
    {
      name: 'copytruncate',
      notice: 'truncated',
      rotate: async (w: WatchChild) => {
        copyFileSync(log, `${log}.1`);
        truncateSync(log, 0);
        await w.untilEvent('truncated notice', (e) => e.type === 'notice' && e.notice === 'truncated');
      },
    },
  ];

  it.for(rotations)('misses and repeats no line across a $name mid-run', async ({ notice, rotate }) => {
    writeFileSync(log, slice(READY, 1, 40));
    const w = watch('--json', log);
    await w.untilEvent('load_weights', (e) => e.stage === 'load_weights');
    await rotate(w);
    // The rest of the run, ready line included, only ever exists in the new file.
    appendFileSync(log, slice(READY, 41, 70));
    await w.untilEvent('cuda_graph', (e) => e.stage === 'cuda_graph');
    appendFileSync(log, slice(READY, 71));
    expect(await w.finished()).toEqual({ code: 0, signal: null });
    const events = w.events;
    for (const event of events) expect(typeof event.type).toBe('string');
    expect(events.filter((e) => e.type === 'notice').map((e) => e.notice)).toEqual([notice]);
    expect(stageEvents(events)).toEqual(STAGES);
    // Lines keep their numbers across files: a repeated line would push the ready line past 82,
    // a missed one below it.
    expect(verdicts(events)).toMatchObject([{ verdict: 'ready', stage: 'ready', decided_by: { line: READY_LINE, text: READY[READY_LINE - 1] } }]);
    const shards = events.filter((e) => e.type === 'progress' && e.unit === 'shards').map((e) => e.current);
    expect(shards).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  });

  it('survives both in one run: rename, then copytruncate of the new file', async () => {
    writeFileSync(log, slice(READY, 1, 30));
    const w = watch('--json', log);
    await w.untilEvent('load_weights', (e) => e.stage === 'load_weights');
    await rotations[0]!.rotate(w);
    appendFileSync(log, slice(READY, 31, 60));
    await w.untilEvent('kv_cache', (e) => e.stage === 'kv_cache');
    await rotations[1]!.rotate(w);
    appendFileSync(log, slice(READY, 61));
    expect(await w.finished()).toEqual({ code: 0, signal: null });
    expect(w.events.filter((e) => e.type === 'notice').map((e) => e.notice)).toEqual(['rotated', 'truncated']);
    expect(stageEvents(w.events)).toEqual(STAGES);
    expect(verdicts(w.events)).toMatchObject([{ verdict: 'ready', decided_by: { line: READY_LINE } }]);
  });
  it('copytruncate with a quick write: a file already longer than the old offset when spinup looks is still seen as truncated, and the OOM is read whole', async () => {
    // issue 25, item 5. The first 15 lines (3,771 bytes) are read; then logrotate copies and
    // truncates, and the server writes the next 91 lines, 9 KB ending in its OOM, before spinup
    // looks again. The file only grew in size, so the size alone says nothing.
    writeFileSync(log, slice(OOM, 1, 15));
    const w = watch('--json', log);
    await w.untilEvent('launch', (e) => e.stage === 'launch');
    // Stopped, spinup cannot look between the truncation and the write, as if it were slow.
    process.kill(w.pid, 'SIGSTOP');
    try {
      copyFileSync(log, `${log}.1`);
      truncateSync(log, 0);
      appendFileSync(log, slice(OOM, 16, 106));
    } finally {
      process.kill(w.pid, 'SIGCONT');
    }
    expect(await w.finished()).toEqual({ code: 1, signal: null });
    const events = w.events;
    expect(events.filter((e) => e.type === 'notice').map((e) => e.notice)).toEqual(['truncated']);
    // Read from the new file's start: lines keep their numbers, none skipped.
    expect(events.filter((e) => e.type === 'stage').map((e) => [e.stage, e.line])).toEqual([
      ['launch', 15],
      ['distributed_init', 55],
      ['load_weights', 58],
    ]);
    expect(verdicts(events)).toMatchObject([
      { verdict: 'failed', stage: 'load_weights', cause: 'gpu_oom', decided_by: { line: 106, text: OOM[105] } },
    ]);
  });
});

describe('spinup watch FILE: a log that holds earlier runs', () => {
  it.for([
    { name: 'a stale "fired up" line, then a new run that fails', before: READY, after: OOM, earlier: 'READY', code: 1, verdict: { verdict: 'failed', stage: 'load_weights', cause: 'gpu_oom' } },
    { name: 'a stale failure, then a new run that gets ready', before: OOM, after: READY, earlier: 'FAILED', code: 0, verdict: { verdict: 'ready', stage: 'ready' } },
  ])('waits for the new run after $name', async ({ before, after, earlier, code, verdict }) => {
    writeFileSync(log, slice(before, 1));
    const w = watch('--json', log);
    await w.untilEvent('earlier-verdict notice', (e) => e.notice === 'earlier-verdict');
    expect(w.events.find((e) => e.notice === 'earlier-verdict')!.detail).toContain(`had already ended ${earlier}`);
    // The old verdict must not end the watch (it used to, 40 ms after catching up).
    await sleep(700);
    expect(w.exit).toBeUndefined();
    appendFileSync(log, slice(after, 1));
    expect(await w.finished()).toEqual({ code, signal: null });
    const events = w.events;
    const restart = events.findIndex((e) => e.type === 'restart');
    expect(restart).toBeGreaterThan(0);
    expect(events[restart]!.line).toBeGreaterThan(before.length);
    expect(verdicts(events.slice(restart))).toMatchObject([verdict]);
  });

  it('--from-end ignores what the file held and classifies only what comes after', async () => {
    writeFileSync(log, slice(OOM, 1));
    const w = watch('--json', '--from-end', log);
    await w.untilHolds(log);
    await sleep(150);
    expect(w.stdout).toBe('');
    appendFileSync(log, slice(READY, 1));
    expect(await w.finished()).toEqual({ code: 0, signal: null });
    const events = w.events;
    expect(events.some((e) => e.type === 'restart' || e.notice === 'earlier-verdict')).toBe(false);
    expect(events.find((e) => e.type === 'stage')).toMatchObject({ stage: 'launch', line: 2 });
    expect(verdicts(events)).toMatchObject([{ verdict: 'ready', decided_by: { line: READY_LINE } }]);
  });
});

describe('spinup watch FILE: stalls, timeouts and interrupts', () => {
  it('--stall 1s: a follow that goes silent is STALLED, exit 2', async () => {
    writeFileSync(log, slice(READY, 2, 2));
    const w = watch('--stall', '1s', log);
    expect(await w.finished()).toEqual({ code: 2, signal: null });
    expect(w.stdout).toMatch(/^STALLED sglang {2}in stage launch\n {2}silent for 1s \(budget 1s: --stall\)\n/);
    expect(w.stdout).toMatch(/ {2}last line {2}line 1: \[2025-03-08 12:29:04\] server_args=ServerArgs\(/);
  });

  it.for([
    { name: 'a start that stopped moving', content: slice(READY, 1, 30), standing: /^timed out after 1s with no verdict: load_weights \d+(ms|s) · total \d+s\n {2}last line 30: \[2025-03-08 12:29:13 TP0\]/m },
    { name: 'a file that never appears', content: undefined, standing: /^timed out after 1s with no verdict: no log line seen yet$/m },
  ])('--timeout 1s gives up on $name: exit 2, "timed out"', async ({ content, standing }) => {
    if (content !== undefined) writeFileSync(log, content);
    const w = watch('--timeout', '1s', log);
    expect(await w.finished()).toEqual({ code: 2, signal: null });
    expect(w.stdout).toBe('');
    expect(w.stderr).toMatch(standing);
  });

  it.for(['SIGINT', 'SIGTERM'] as const)('%s while following: exit 130 and where things stood', async (signal) => {
    writeFileSync(log, slice(READY, 1, 30));
    const w = watch(log);
    await w.untilStderr('stage load_weights');
    w.child.kill(signal);
    expect(await w.finished()).toEqual({ code: 130, signal: null });
    expect(w.stdout).toBe('');
    expect(w.stderr).toMatch(/^interrupted: load_weights \d+(ms|s) · total \d+s\n {2}last line 30: \[2025-03-08 12:29:13 TP0\] The following error message/m);
  });
});
