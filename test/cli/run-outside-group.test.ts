// Issue 25 item 4: processes of the server that left its process group (setsid: Ray workers, daemonizing
// helpers) are stopped with it on FAILED/STALLED, and named; before, they outlived spinup holding its pipes.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isAlive, procGroup } from '../io/pid-tracker.js';
import { OOM_LOG, replayServer, runScratch, runSpinup } from './run-harness.js';

const { tracker, dir } = runScratch();

function orphansIn(text: string): number[] {
  return [...text.matchAll(/orphan pid (\d+)/g)].map((match) => Number(match[1]));
}

describe('spinup run: processes that left the process group', () => {
  it.for([
    { name: 'a daemon that keeps our pipes after the server exits (found by the pipe it holds)', then: 'setsid-daemon' },
    { name: 'a worker that holds no pipe, under a server that hangs on (found in the process tree)', then: 'setsid-worker' },
  ])('FAILED: $name is stopped too, and named', async ({ then }) => {
    const run = await runSpinup({ tracker, dir, args: ['--json', '--grace', '2s'], server: replayServer(OOM_LOG, then) });
    expect(run.code, run.stderr.text()).toBe(1);
    expect(run.verdicts[0]).toMatchObject({ verdict: 'failed', cause: 'gpu_oom' });
    const [orphan] = orphansIn(run.logText());
    expect(orphan).toBeGreaterThan(0);
    const serverPid = Number(run.events.find((e) => e.type === 'started')?.pid);
    // It really left: its own process group, not the server's.
    expect(procGroup(orphan!) === undefined || procGroup(orphan!) !== serverPid).toBe(true);
    expect(isAlive(orphan!), 'the process outside the group outlived spinup').toBe(false);
    const stopped = run.events.find((e) => e.type === 'stopped');
    expect(stopped).toMatchObject({ survivors: [], outside_group: [{ pid: orphan, command: 'node' }] });
  });

  it('a worker left behind by a launcher that exits is remembered from the tree seen before, and stopped', async () => {
    // No pipe held, its parent gone: only the tree sampled while the server ran knows it was the server's.
    const script = 'echo "[2025-01-01 00:00:00] server_args=ServerArgs(model_path=x)"; setsid "$0" -e "setTimeout(() => {}, 300000)" </dev/null >/dev/null 2>&1 & echo "orphan pid $!"; sleep 2.5; exit 3';
    const run = await runSpinup({ tracker, dir, args: ['--json', '--grace', '2s'], server: ['sh', '-c', script, process.execPath] });
    expect(run.code, run.stderr.text()).toBe(1);
    expect(run.verdicts[0]).toMatchObject({ verdict: 'failed', cause: 'crash', rule: 'process/exit-code' });
    const [orphan] = orphansIn(run.logText());
    expect(run.events.find((e) => e.type === 'stopped')).toMatchObject({ survivors: [], outside_group: [{ pid: orphan, command: 'node' }] });
    expect(isAlive(orphan!), 'the worker outlived spinup').toBe(false);
  });

  it('a server that points its stdout at /dev/null at once: no other holder of /dev/null is stopped', async () => {
    // A bystander holding /dev/null (as most daemons do), in no way the server's.
    const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300_000)'], { stdio: 'ignore', detached: true });
    tracker.track(bystander.pid!);
    try {
      const run = await runSpinup({ tracker, dir, args: ['--json', '--timeout', '1s', '--grace', '1s'], server: ['sh', '-c', 'exec >/dev/null 2>&1; exec sleep 30'] });
      expect(run.code).toBe(2);
      expect(run.events.find((e) => e.type === 'stopped')).toMatchObject({ outside_group: [] });
      expect(isAlive(bystander.pid!), 'spinup stopped a process that only shared /dev/null with the server').toBe(true);
    } finally {
      const gone = new Promise((resolve) => bystander.once('exit', resolve));
      bystander.kill('SIGKILL');
      await gone;
    }
  });

  it('says which processes it stopped outside the group, in words', async () => {
    const run = await runSpinup({ tracker, dir, args: ['--grace', '2s'], server: replayServer(OOM_LOG, 'setsid-worker') });
    const [orphan] = orphansIn(run.logText());
    expect(run.stderr.text()).toContain(`and to 1 that left it (${orphan} (node))`);
    expect(run.stderr.text()).toMatch(new RegExp(`stopped on SIGTERM, with 1 of its processes outside its group \\(${orphan} \\(node\\)\\)`));
  });
});
