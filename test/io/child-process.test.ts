import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SpawnError, startChild, type Child, type ChildExit } from '../../src/io/child-process.js';
import { isProcessAlive } from '../../src/io/process-table.js';
import { signalProcessGroup } from '../../src/io/terminate-group.js';
import { OutputRecorder } from './output-recorder.js';
import { isAlive, PidTracker, procGroup, procState } from './pid-tracker.js';

const SERVERS = 'test/fixture-servers';
const CRASH_LOG = 'fixtures/sglang/22-tp4-l4-qwq-ready-then-scheduler-crash-health-200.log';
const SHORT_LOG = 'fixtures/sglang/26-argparse-unrecognized-enable-metrics-underscore.log';

const tracker = new PidTracker();
const scratch = mkdtempSync(join(tmpdir(), 'spinup-child-'));

async function start(script: string, args: string[] = []): Promise<{ child: Child; out: OutputRecorder }> {
  const child = await startChild({ command: process.execPath, args: [`${SERVERS}/${script}`, ...args] });
  tracker.track(child.pid);
  return { child, out: new OutputRecorder(child) };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('startChild: commands that cannot start', () => {
  const notExecutable = join(scratch, 'not-executable.sh');
  writeFileSync(notExecutable, '#!/bin/sh\necho hi\n');
  chmodSync(notExecutable, 0o644);
  const badInterpreter = join(scratch, 'bad-interpreter.sh');
  writeFileSync(badInterpreter, '#!/no/such/interpreter\n', { mode: 0o755 });

  it.for([
    { name: 'a missing command', command: 'spinup-no-such-command-7f3a', code: 'not-found' },
    { name: 'a missing path', command: join(scratch, 'missing', 'server'), code: 'not-found' },
    { name: 'a script with a missing interpreter', command: badInterpreter, code: 'not-found' },
    { name: 'a file without the x bit', command: notExecutable, code: 'not-executable' },
    { name: 'a directory', command: scratch, code: 'not-executable' },
    { name: 'a missing cwd', command: process.execPath, cwd: join(scratch, 'nope'), code: 'spawn-failed' },
  ])('rejects $name with SpawnError $code', async ({ command, cwd, code }) => {
    const error = await startChild({ command, args: [], cwd }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SpawnError);
    expect(error).toMatchObject({ code, command });
    expect((error as SpawnError).message).toMatch(/^cannot start "[^\n]+": [^\n]+$/);
  });
});

describe('startChild: observing the exit', () => {
  it.for([
    { then: 'exit0', code: 0, signal: null },
    { then: 'exit1', code: 1, signal: null },
    { then: 'sigkill', code: null, signal: 'SIGKILL' },
  ])('sees --then $then as code $code, signal $signal, within 1 s', async ({ then, code, signal }) => {
    const { child, out } = await start('replay-log.mjs', ['--log', SHORT_LOG, '--max-gap-ms', '5', '--then', then]);
    const exit: ChildExit = await within(child.exited, 5_000, 'exit not observed');
    expect(exit).toMatchObject({ code, signal });
    // The last line is written right before the exit action, so it bounds the moment of death from below.
    expect(exit.at - out.lastChunkAt).toBeLessThan(1_000);
    expect(child.isAlive()).toBe(false);
    await within(out.done, 1_000, 'output did not end');
  });

  it('sees a silent SIGKILL within 1 s of the death', async () => {
    const { child, out } = await start('silent-sigkill.mjs');
    const exit = await within(child.exited, 3_000, 'exit not observed');
    expect(exit).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(exit.at - child.startedAt).toBeLessThan(1_100);
    await out.done;
    expect(out.chunks).toEqual([]);
  });

  it('merges stdout and stderr chunks, every byte delivered', async () => {
    const { child, out } = await start('replay-log.mjs', ['--log', CRASH_LOG, '--max-gap-ms', '2']);
    await within(out.done, 5_000, 'output did not end');
    expect((await child.exited).code).toBe(0);
    expect(out.text('stdout')).toContain('The server is fired up and ready to roll!');
    expect(out.text('stderr')).toContain('Traceback (most recent call last):');
    const lines = (text: string): string[] => text.split('\n').filter(Boolean).sort();
    expect(lines(out.text())).toEqual(lines(readFileSync(CRASH_LOG, 'latin1')));
  });
});

describe('Child.stop and reapGroup', () => {
  it('escalates to SIGKILL when SIGTERM is ignored for the whole grace period', async () => {
    const { child, out } = await start('ignore-sigterm.mjs');
    await out.waitFor('ignore-sigterm started');
    const before = Date.now();
    const report = await child.stop({ graceMs: 300 });
    expect(report).toEqual({ escalated: true, survivors: [], outsiders: [], commands: {} });
    expect(Date.now() - before).toBeGreaterThanOrEqual(290);
    expect(await child.exited).toMatchObject({ code: null, signal: 'SIGKILL' });
    await within(out.done, 1_000, 'output did not end');
    expect(out.text()).toContain('ignoring SIGTERM');
  });

  it('stops a hanging server with SIGTERM alone', async () => {
    const { child, out } = await start('replay-log.mjs', ['--log', SHORT_LOG, '--max-gap-ms', '1', '--then', 'hang']);
    await out.waitFor('unrecognized arguments');
    expect(child.isAlive()).toBe(true);
    expect(await child.stop({ graceMs: 2_000 })).toEqual({ escalated: false, survivors: [], outsiders: [], commands: {} });
    expect(await child.exited).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(child.signalGroup('SIGTERM')).toBe(false);
  });

  it('finds the workers a launcher left behind and reaps them', async () => {
    const { child, out } = await start('fork-and-exit.mjs');
    expect((await within(child.exited, 3_000, 'exit not observed')).code).toBe(0);
    await within(out.done, 1_000, 'output did not end');
    const workers = tracker.trackFromOutput(out.text());
    expect(workers).toHaveLength(2);
    expect(child.groupMembers()).toEqual([...workers].sort((a, b) => a - b));
    expect(child.isAlive()).toBe(false);
    expect(await child.reapGroup(2_000)).toEqual({ escalated: false, survivors: [], outsiders: [], commands: {} });
    expect(child.groupMembers()).toEqual([]);
    expect(workers.filter(isAlive)).toEqual([]);
  });

  it('kills an orphan that keeps the pipes open, which also ends the output', async () => {
    const { child, out } = await start('replay-log.mjs', ['--log', SHORT_LOG, '--max-gap-ms', '1', '--then', 'orphan']);
    expect((await within(child.exited, 3_000, 'exit not observed')).code).toBe(0);
    const [orphan] = tracker.trackFromOutput(await out.waitFor('orphan pid'));
    expect(child.groupMembers()).toEqual([orphan]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(out.ended).toBe(false);
    expect(await child.stop({ graceMs: 2_000 })).toEqual({ escalated: false, survivors: [], outsiders: [], commands: {} });
    await within(out.done, 1_000, 'output did not end');
    expect(isAlive(orphan ?? 0)).toBe(false);
  });

  it('refuses to signal its own process group', () => {
    expect(() => signalProcessGroup(procGroup(process.pid) ?? -1, 'SIGTERM')).toThrow(/refusing/);
  });
});

describe('zombies count as dead', () => {
  it('excludes a zombie from the group members', async () => {
    // `sleep 5` inherits the background `sleep 0.1` but never waits for it: a zombie for the rest of its life.
    const child = await startChild({ command: 'sh', args: ['-c', 'sleep 0.1 & exec sleep 5'] });
    tracker.track(child.pid);
    let zombie: number | undefined;
    const deadline = Date.now() + 3_000;
    while (zombie === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      zombie = zombiesInGroup(child.pgid)[0];
    }
    expect(zombie).toBeDefined();
    expect(() => process.kill(zombie ?? 0, 0)).not.toThrow();
    expect(isProcessAlive(zombie ?? 0)).toBe(false);
    expect(child.groupMembers()).toEqual([child.pid]);
    expect(await child.stop({ graceMs: 2_000 })).toEqual({ escalated: false, survivors: [], outsiders: [], commands: {} });
  });

  it('reports the main process dead while it is a zombie not yet reaped', async () => {
    const child = await startChild({ command: 'sh', args: ['-c', 'sleep 0.1; exit 3'] });
    tracker.track(child.pid);
    // Blocking the event loop keeps Node from reaping it, so it stays a zombie while we look.
    const deadline = Date.now() + 3_000;
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (procState(child.pid) !== 'Z' && Date.now() < deadline) Atomics.wait(nap, 0, 0, 5);
    expect(procState(child.pid)).toBe('Z');
    expect(child.isAlive()).toBe(false);
    expect(await child.exited).toMatchObject({ code: 3, signal: null });
  });
});

function zombiesInGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => procState(pid) === 'Z' && procGroup(pid) === pgid);
}
