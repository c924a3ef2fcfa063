import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../io/pid-tracker.js';
import { FIXTURES, OOM_LOG, READY_LOG, READY_THEN_CRASH_LOG, TAIL_OOM_LOG, freePort, replayServer, runScratch, runSpinup, server, SERVERS } from './run-harness.js';

const { tracker, dir } = runScratch();

// Fixture 10 with every timestamp set to the same second: only the silence after its last line is a stall.
const HANG_LOG = join(dir, 'hang.log');
writeFileSync(HANG_LOG, readFileSync(`${FIXTURES}/10-tp2-stuck-nccl-init-hang.log`, 'latin1').replace(/\d\d:\d\d:\d\d/g, '09:34:04'), 'latin1');

describe('spinup run: each fixture server gets its verdict and exit code', () => {
  it.for([
    {
      name: 'a ready log then exit 0: READY, then FAILED for the death after ready',
      server: replayServer(READY_LOG, 'exit0'),
      args: [],
      code: 1,
      verdicts: [
        { verdict: 'ready', stage: 'ready', decided_by: 'log' },
        { verdict: 'failed', stage: 'ready', cause: 'unknown', rule: 'process/exit-after-ready', decided_by: 'process' },
      ],
    },
    {
      name: 'a ready log then exit 0, with --then "exit 7": READY, exit 7',
      server: replayServer(READY_LOG, 'exit0'),
      args: ['--then', 'exit 7'],
      code: 7,
      verdicts: [{ verdict: 'ready', stage: 'ready' }],
    },
    {
      name: 'a CUDA OOM log then exit 1: FAILED with the cause from the log',
      // One pipe (2>&1): the fixture server writes its error lines to stderr, and the order in which
      // two pipes are read is the scheduler's, so the stage the verdict names would be too.
      server: ['sh', '-c', 'exec "$@" 2>&1', 'sh', ...replayServer(OOM_LOG, 'exit1')],
      args: [],
      code: 1,
      verdicts: [{ verdict: 'failed', stage: 'load_weights', cause: 'gpu_oom', rule: 'common/gpu-out-of-memory', decided_by: 'log' }],
      evidence: 'torch.OutOfMemoryError: CUDA out of memory',
    },
    {
      name: 'a CUDA OOM log then SIGKILL: the log cause wins over the signal',
      server: replayServer(OOM_LOG, 'sigkill'),
      args: [],
      code: 1,
      verdicts: [{ verdict: 'failed', cause: 'gpu_oom' }],
    },
    {
      name: 'a silent SIGKILL: FAILED host_oom from the process',
      server: server('silent-sigkill.mjs'),
      args: [],
      code: 1,
      verdicts: [{ verdict: 'failed', stage: 'none', cause: 'host_oom', rule: 'process/sigkill', message: expect.stringContaining('killed by SIGKILL, likely the OOM killer'), decided_by: 'process', process: expect.objectContaining({ signal: 'SIGKILL' }) }],
    },
    {
      name: 'a hang after NCCL init: STALLED at distributed_init after --stall 1s',
      server: replayServer(HANG_LOG, 'hang'),
      args: ['--stall', '1s', '--grace', '2s'],
      code: 2,
      verdicts: [{ verdict: 'stalled', stage: 'distributed_init', decided_by: 'log', budget: { ms: 1000, source: 'override', detail: '--stall' } }],
      stopped: { escalated: false },
    },
    {
      name: 'a launcher that exits after ready leaving an orphan on the pipes: FAILED, orphan reaped',
      server: replayServer(READY_LOG, 'orphan'),
      args: ['--grace', '2s'],
      code: 1,
      verdicts: [
        { verdict: 'ready', stage: 'ready' },
        { verdict: 'failed', stage: 'ready', rule: 'process/exit-after-ready', process: expect.objectContaining({ code: 0 }) },
      ],
      stopped: { escalated: false, survivors: [] },
      orphan: true,
    },
    {
      name: 'a server that ignores SIGTERM: --timeout, then SIGKILL after --grace',
      server: server('ignore-sigterm.mjs'),
      args: ['--timeout', '1s', '--grace', '300ms'],
      code: 2,
      verdicts: [{ verdict: 'stalled', decided_by: 'timeout', budget: { ms: 1000, source: 'override', detail: '--timeout' } }],
      stopped: { escalated: true, survivors: [] },
    },
    {
      name: 'a segfault with no line about it: FAILED native_crash from the signal',
      server: ['sh', '-c', 'echo "[2025-01-01 00:00:00] server_args=ServerArgs(model_path=x)"; kill -SEGV $$'],
      args: [],
      code: 1,
      verdicts: [{ verdict: 'failed', stage: 'launch', cause: 'native_crash', rule: 'process/native-signal', message: 'native crash: SIGSEGV' }],
    },
    {
      name: 'exit 3 with no error in the log: FAILED crash from the exit code',
      server: ['sh', '-c', 'echo "[2025-01-01 00:00:00] server_args=ServerArgs(model_path=x)"; exit 3'],
      args: [],
      code: 1,
      verdicts: [{ verdict: 'failed', stage: 'launch', cause: 'crash', rule: 'process/exit-code', process: expect.objectContaining({ code: 3 }) }],
    },
  ])('$name', async ({ server: command, args, code, verdicts, evidence, stopped, orphan }) => {
    const run = await runSpinup({ tracker, dir, args: ['--json', ...args], server: command });
    expect(run.code, run.stderr.text()).toBe(code);
    expect(run.verdicts).toHaveLength(verdicts.length);
    verdicts.forEach((expected, index) => expect(run.verdicts[index]).toMatchObject(expected));
    if (evidence) expect(JSON.stringify(run.verdicts[0]!.evidence)).toContain(evidence);
    if (stopped) expect(run.events.find((e) => e.type === 'stopped')).toMatchObject(stopped);
    if (orphan) {
      const orphans = [...run.logText().matchAll(/orphan pid (\d+)/g)].map((m) => Number(m[1]));
      expect(orphans).toHaveLength(1);
      expect(orphans.filter(isAlive)).toEqual([]);
    }
    const pid = Number(run.events.find((e) => e.type === 'started')?.pid);
    expect(isAlive(pid)).toBe(false);
  });

  it('reports a silent SIGKILL within 1 s of the death', async () => {
    const run = await runSpinup({ tracker, dir, args: ['--json'], server: server('silent-sigkill.mjs') });
    const verdict = run.verdicts[0]!;
    const diedAt = (verdict.process as { exited_wall_ms: number }).exited_wall_ms;
    expect(diedAt).toBeGreaterThan(0);
    expect(verdict.wall_ms as number).toBeGreaterThanOrEqual(diedAt);
    expect((verdict.wall_ms as number) - diedAt).toBeLessThan(1_000);
    // And measured independently: when the verdict line reached stdout.
    expect((verdict.writtenAt as number) - diedAt).toBeLessThan(1_000);
  });

  it('a health probe answering 200 does not hide a fatal line before ready', async () => {
    const port = await freePort();
    // The HTTP side is up (and probed) well before the log shows the CUDA OOM.
    const script = `"$0" ${SERVERS}/health-server.mjs --port ${port} --log /dev/null & sleep 1.5; exec "$0" ${SERVERS}/replay-log.mjs --log ${TAIL_OOM_LOG} --max-gap-ms 2 --then hang`;
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--pack', 'sglang', '--grace', '2s', '--health', `http://127.0.0.1:${port}/health`],
      server: ['sh', '-c', script, process.execPath],
    });
    expect(run.code, run.stderr.text()).toBe(1);
    expect(run.verdicts).toHaveLength(1);
    expect(run.verdicts[0]).toMatchObject({ verdict: 'failed', cause: 'gpu_oom', decided_by: 'log', health: { ok: true, status: 200 } });
    expect(run.events.filter((e) => e.type === 'health')[0]).toMatchObject({ ok: expect.any(Boolean) });
  });

  it('health 200 with a scheduler crash after ready: READY (the probe agrees), then FAILED with the root cause', async () => {
    const port = await freePort();
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--grace', '2s', '--health', `http://127.0.0.1:${port}/health`],
      // Paced so the crash comes ~1.5 s after the ready line (26 s in the log), not ~26 ms: the probe
      // must answer 200 in between, which a loaded machine did not always do within 26 ms.
      server: server('health-server.mjs', '--port', String(port), '--log', READY_THEN_CRASH_LOG, '--speed', '20', '--max-gap-ms', '200'),
    });
    expect(run.code, run.stderr.text()).toBe(1);
    expect(run.verdicts).toHaveLength(2);
    expect(run.verdicts[0]).toMatchObject({ verdict: 'ready', decided_by: 'health', health: { ok: true, status: 200 } });
    expect(run.verdicts[1]).toMatchObject({ verdict: 'failed', stage: 'ready', cause: 'crash', health: { ok: true } });
    expect(JSON.stringify(run.verdicts[1]!.evidence)).toContain("AttributeError: 'Scheduler' object has no attribute 'token_to_kv_pool'");
    expect(run.events.find((e) => e.type === 'stopping')).toMatchObject({ signal: 'SIGTERM' });
  });

  it('the log says ready but the probe never answers 200: STALLED after --health-wait', async () => {
    const closed = await freePort();
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--grace', '2s', '--health', `http://127.0.0.1:${closed}/health`, '--health-wait', '1s'],
      server: replayServer(READY_LOG, 'hang'),
    });
    expect(run.code, run.stderr.text()).toBe(2);
    expect(run.verdicts).toHaveLength(1);
    expect(run.verdicts[0]).toMatchObject({ verdict: 'stalled', stage: 'ready', decided_by: 'health', health: { ok: false, error: expect.stringContaining('ECONNREFUSED') } });
    expect(run.verdicts[0]!.reason).toContain('has not answered 200');
  });

  it('a command that does not exist: one message, exit 66, no log file left', async () => {
    const log = join(dir, 'never.log');
    const run = await runSpinup({ tracker, dir, args: [], log, server: ['spinup-no-such-server-7f3a', '--port', '1'] });
    expect(run.code).toBe(66);
    expect(run.stderr.text()).toBe('spinup run: cannot start "spinup-no-such-server-7f3a": command not found\n');
    expect(run.stdout.text()).toBe('');
    expect(run.logText()).toBe('');
    expect(() => readFileSync(log)).toThrow(/ENOENT/);
  });
});
