import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../io/pid-tracker.js';
import { spinup, until } from '../helpers/spinup-process.js';
import { OOM_LOG, runScratch, runSpinup, SERVERS, sleep } from './run-harness.js';

// --keep-on-fail keeps the server for inspection after spinup has exited: the built bin, so that
// spinup's end really closes what it held.
const { tracker, dir } = runScratch();

const counts = (log: string): number[] => [...readFileSync(log, 'utf8').matchAll(/^count (\d+)$/gm)].map((match) => Number(match[1]));
/** Lines the --count server writes (about 3.5 MB in 1-3 s): the hand-over comes in the middle of them. */
const COUNT = 300_000;
const ticks = (log: string): number[] => [...readFileSync(log, 'utf8').matchAll(/^tick (\d+)$/gm)].map((match) => Number(match[1]));

describe('spinup run --keep-on-fail', () => {
  it('the server lives on after spinup exits, and the lines it prints later still reach the log', async () => {
    const log = join(dir, 'kept.log');
    const server = [process.execPath, `${SERVERS}/replay-log.mjs`, '--log', OOM_LOG, '--max-gap-ms', '2', '--then', 'tick'];
    const run = spinup(['run', '--json', '--keep-on-fail', '--log', log, '--', ...server], {});
    tracker.track(run.pid);
    tracker.trackFromOutput(run.stdout());
    expect(await run.code, run.stderr()).toBe(1);
    const events = run.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const left = events.find((event) => event.type === 'left_running');
    expect(left, run.stdout()).toMatchObject({ pgid: expect.any(Number), drainer_pid: expect.any(Number) });
    const pgid = Number(left!.pgid);
    const drainer = Number(left!.drainer_pid);
    tracker.track(pgid);
    tracker.track(drainer);
    expect(events.find((event) => event.type === 'verdict')).toMatchObject({ verdict: 'failed', cause: 'gpu_oom' });

    // spinup is gone; seconds later the server still runs (it prints every 100 ms) and still logs.
    const atExit = Math.max(0, ...ticks(log));
    await sleep(2_000);
    expect(isAlive(pgid), 'the server kept by --keep-on-fail').toBe(true);
    const later = await until('ticks logged after spinup exited', () => (Math.max(0, ...ticks(log)) >= atExit + 10 ? ticks(log) : undefined), 30_000);
    // Every tick, whole and in order: nothing lost at the hand-over.
    expect(later).toEqual(later.map((_, index) => index + 1));
    expect(readFileSync(log, 'utf8')).toMatch(/^tick \d+ on stderr$/m);

    // The drainer ends with the server.
    process.kill(-pgid, 'SIGKILL');
    await until('the drainer to end with the server', () => !isAlive(drainer), 10_000);
  }, 60_000);

  it('the hand-over loses nothing: a server writing all along, lines cut between writes: every line once, whole and in order', async () => {
    const run = await runSpinup({ tracker, dir, args: ['--json', '--keep-on-fail'], server: [process.execPath, `${SERVERS}/count-server.mjs`, '--log', OOM_LOG, '--count', String(COUNT)] });
    expect(run.code, run.stderr.text()).toBe(1);
    const left = run.events.find((event) => event.type === 'left_running');
    const pgid = Number(left?.pgid);
    const drainer = Number(left?.drainer_pid);
    expect(pgid).toBeGreaterThan(1);
    expect(drainer).toBeGreaterThan(1);
    tracker.track(drainer);
    // Written by us up to the hand-over, by the drainer after it.
    await until('the last count in the log', () => (readFileSync(run.log, 'utf8').includes(`count ${COUNT}\n`) ? true : undefined), 30_000);
    process.kill(-pgid, 'SIGKILL');
    await until('the drainer to end with the server', () => !isAlive(drainer), 10_000);
    const seen = counts(run.log);
    expect(seen.length).toBe(COUNT);
    const gap = seen.findIndex((n, index) => n !== index + 1);
    expect(gap, `first out of order at index ${gap}: ${seen.slice(Math.max(0, gap - 2), gap + 3).join(', ')}`).toBe(-1);
    // No line cut in two at the hand-over, nor glued to another.
    const after = readFileSync(run.log, 'utf8').split('\n').filter((line) => /count \d/.test(line));
    expect(after.every((line) => /^count \d+$/.test(line))).toBe(true);
  }, 60_000);
});
