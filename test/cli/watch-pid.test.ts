// Issue 29: `watch --pid` / `--pid-of` judge a silent log by what a server started elsewhere does (/proc), as
// `run` does for its own; a process spinup may not read leaves the watch as it was, said once.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, until } from '../helpers/spinup-process.js';
import { runMain } from '../helpers/run-main.js';
import { runScratch, SERVERS } from './run-harness.js';
import { isAlive } from '../io/pid-tracker.js';

const { tracker, dir } = runScratch();

/** The silent-load server started as another program would start it: detached, its output to a log file. */
async function startElsewhere(where: string, name: string, load: string, extra: string[] = []): Promise<{ pid: number; log: string; model: string }> {
  const model = join(where, name);
  mkdirSync(model, { recursive: true, mode: 0o755 });
  const log = join(where, `${name}.log`);
  const fd = openSync(log, 'w', 0o644);
  const proc = spawn(process.execPath, [`${SERVERS}/silent-load.mjs`, '--model', model, '--load', load, ...extra], { stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  proc.unref();
  tracker.track(proc.pid!);
  await until('the load to begin', () => readFileSync(log, 'utf8').includes('Load weight begin'));
  return { pid: proc.pid!, log, model };
}

/** Started elsewhere, it is not spinup's to stop: the test ends it itself. */
async function endServer(pid: number): Promise<void> {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    return;
  }
  await until(`pid ${pid} to die`, () => !isAlive(pid));
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

const WATCH = ['watch', '--json', '--no-state', '--no-history'];

describe('spinup watch --pid: a server started elsewhere', () => {
  it('is not STALLED while it reads in silence, shows the load against the model dir, then STALLED once idle', async () => {
    const { pid, log, model } = await startElsewhere(dir, 'elsewhere-reader', 'read', ['--size-mb', '48']);
    const run = await runMain([...WATCH, '--pid', String(pid), '--idle', '3s', '--timeout', '90s', log], { env: process.env });
    const readingDone = existsSync(join(model, 'done-at'));
    await endServer(pid);
    const events = jsonLines(run.stdout);
    expect(run.code, run.stderr).toBe(2);
    const verdict = events.find((e) => e.type === 'verdict');
    expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'load_weights', reason: expect.stringMatching(/^no log line, no I\/O and no CPU for \d+s in stage load_weights$/) });
    expect(readingDone, 'STALLED while the server was still reading').toBe(true);
    const progress = events.filter((e) => e.type === 'notice' && e.notice === 'load_progress').map((e) => String(e.detail));
    expect(progress.some((text) => /^load_weights: read [\d.]+ [kMG]?B of 50 MB, [\d.]+ [kMG]?B\/s/.test(text)), progress.join('\n')).toBe(true);
  });

  it('--pid-of finds a silent sleeper by its command line: STALLED after --idle', async () => {
    const { pid, log } = await startElsewhere(dir, 'elsewhere-sleeper', 'sleep', ['--size-mb', '1']);
    const run = await runMain([...WATCH, '--pid-of', 'elsewhere-sleeper --load sleep', '--idle', '3s', '--timeout', '60s', log], { env: process.env });
    await endServer(pid);
    const events = jsonLines(run.stdout);
    expect(run.code, run.stderr).toBe(2);
    expect(events.find((e) => e.type === 'notice' && e.notice === 'process')?.detail).toContain(`${pid} (node)`);
    expect(events.find((e) => e.type === 'verdict')).toMatchObject({ verdict: 'stalled', reason: expect.stringMatching(/^no log line, no I\/O and no CPU for \d+s in stage load_weights$/) });
  });

  it('a pid that is no process is refused with exit 66', async () => {
    const run = await runMain([...WATCH, '--pid', '999999999', join(dir, 'none.log')], { env: process.env });
    expect(run.code).toBe(66);
    expect(run.stderr).toContain('--pid 999999999: no such process on this host');
  });

  // It drops to nobody with setpriv, which needs root: skipped elsewhere (said), never silently under CI, where it fails.
  const canDropToNobody = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
  const underCi = Boolean(process.env.CI) && process.env.CI !== 'false';
  if (!canDropToNobody && !underCi) process.stderr.write('skipping the unreadable-process test of watch --pid: it needs root and setpriv\n');
  it.runIf(canDropToNobody || underCi)('a process it may not read: says so once, and the log alone judges (no STALLED by --idle)', async () => {
    expect(canDropToNobody, 'this test runs spinup as nobody with setpriv (util-linux), which needs root').toBe(true);
    // spinup runs as nobody; the server is root's: its /proc/PID/io is closed to nobody.
    const open = mkdtempSync(join(tmpdir(), 'spinup-pid-open-'));
    chmodSync(open, 0o755);
    try {
      const { pid, log } = await startElsewhere(open, 'not-ours', 'sleep', ['--size-mb', '1']);
      const nobody = spawnSync('setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, BIN, ...WATCH, '--pid', String(pid), '--idle', '2s', '--timeout', '8s', log], {
        cwd: open,
        env: { ...process.env, HOME: open, XDG_STATE_HOME: open, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      await endServer(pid);
      const events = jsonLines(nobody.stdout);
      const unreadable = events.filter((e) => e.type === 'notice' && String(e.detail).startsWith('cannot read what'));
      expect(unreadable, nobody.stdout + nobody.stderr).toHaveLength(1);
      expect(unreadable[0]!.detail).toContain(`${pid} (node)`);
      // --timeout ended it, as without --pid: no verdict from an activity it could not see.
      expect(nobody.status).toBe(2);
      expect(events.find((e) => e.type === 'verdict')).toBeUndefined();
      expect(events.at(-1)).toMatchObject({ type: 'message', text: expect.stringContaining('timed out after 8s') });
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });
});
