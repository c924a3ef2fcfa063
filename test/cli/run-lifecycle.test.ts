import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../io/pid-tracker.js';
import { FIXTURES, OOM_LOG, READY_LOG, freePort, replayServer, runScratch, runSpinup, server, sleep } from './run-harness.js';

const { tracker, dir } = runScratch();

const FAST = ['--max-gap-ms', '2'];
const lines = (text: string): string[] => text.split('\n').filter(Boolean).sort();

describe('spinup run: Ctrl-C', () => {
  it.for([
    {
      name: 'while attached to a READY server: SIGINT to the group, exit 130',
      server: (port: number) => server('health-server.mjs', '--port', String(port), '--log', READY_LOG, ...FAST),
      when: (stdout: string) => stdout.includes('"type":"attached"'),
    },
    {
      name: 'during startup: SIGINT to the group, exit 130',
      server: () => replayServer(`${FIXTURES}/10-tp2-stuck-nccl-init-hang.log`, 'hang'),
      when: (stdout: string) => stdout.includes('"type":"started"'),
      pack: true,
    },
  ])('$name', async ({ server: command, when, pack }) => {
    const port = await freePort();
    let seen = '';
    const controller = new AbortController();
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--grace', '2s', ...(pack ? ['--pack', 'sglang', '--stall', '1h'] : [])],
      server: command(port),
      signal: controller.signal,
      onStdout: (text) => {
        seen += text;
        if (when(seen) && !controller.signal.aborted) controller.abort();
      },
    });
    expect(run.code, run.stderr.text()).toBe(130);
    expect(run.events.find((e) => e.type === 'stopping')).toMatchObject({ signal: 'SIGINT' });
    expect(run.events.find((e) => e.type === 'stopped')).toMatchObject({ escalated: false, survivors: [] });
    expect(isAlive(Number(run.events.find((e) => e.type === 'started')?.pid))).toBe(false);
  });

  it('during --then: the command is interrupted, then the server stopped, exit 130', async () => {
    const controller = new AbortController();
    const port = await freePort();
    let seen = '';
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--grace', '2s', '--then', 'sleep 30'],
      server: server('health-server.mjs', '--port', String(port), '--log', READY_LOG, ...FAST),
      signal: controller.signal,
      onStdout: (text) => {
        seen += text;
        if (seen.includes('"type":"then_start"') && !controller.signal.aborted) setTimeout(() => controller.abort(), 100);
      },
    });
    expect(run.code, run.stderr.text()).toBe(130);
    expect(run.events.find((e) => e.type === 'then_exit')).toMatchObject({ signal: 'SIGINT', code: 130 });
    expect(isAlive(Number(run.events.find((e) => e.type === 'started')?.pid))).toBe(false);
  });
});

describe('spinup run: after the verdict', () => {
  it('--keep-on-fail leaves the failed server running and says how to stop it', async () => {
    const run = await runSpinup({ tracker, dir, args: ['--json', '--keep-on-fail'], server: replayServer(OOM_LOG, 'hang') });
    expect(run.code).toBe(1);
    const left = run.events.find((e) => e.type === 'left_running');
    const pid = Number(run.events.find((e) => e.type === 'started')?.pid);
    expect(left).toMatchObject({ pgid: pid });
    expect(isAlive(pid)).toBe(true);
    process.kill(-pid, 'SIGKILL');
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(20);
    expect(isAlive(pid)).toBe(false);
  });

  it('--then gets SPINUP_LOG and SPINUP_SERVER_PID, and the server is stopped after it', async () => {
    const out = join(dir, 'then-env.txt');
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--grace', '2s', '--then', `echo "$SPINUP_LOG $SPINUP_SERVER_PID" > ${out}`],
      server: server('health-server.mjs', '--port', String(await freePort()), '--log', READY_LOG, ...FAST),
    });
    expect(run.code, run.stderr.text()).toBe(0);
    const pid = Number(run.events.find((e) => e.type === 'started')?.pid);
    expect(readFileSync(out, 'utf8').trim()).toBe(`${run.log} ${pid}`);
    expect(run.events.find((e) => e.type === 'stopping')).toMatchObject({ signal: 'SIGTERM', pgid: pid });
    expect(isAlive(pid)).toBe(false);
  });

  it('--then: the server\'s death is noted before the stop report, every time (they used to race)', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const run = await runSpinup({ tracker, dir, args: ['--grace', '5s', '--then', 'exit 7'], server: replayServer(READY_LOG, 'hang') });
      expect(run.code, run.stderr.text()).toBe(7);
      const notes = run.stderr.text().split('\n').filter((line) => /^spinup: (stopping|the server)/.test(line));
      expect(notes.map((line) => line.replace(/\d+/g, 'N')), run.stderr.text()).toEqual([
        'spinup: stopping the server: SIGTERM to process group N (pids N), SIGKILL after Ns',
        'spinup: the server (pid N) was killed by SIGTERM',
        'spinup: the server stopped on SIGTERM',
      ]);
    }
  });
});

describe('spinup run: output, log file and reports', () => {
  it('tees every line to the log and echoes them; the verdict block goes to stderr', async () => {
    const run = await runSpinup({ tracker, dir, args: [], server: replayServer(OOM_LOG, 'exit1') });
    expect(run.code).toBe(1);
    expect(lines(run.logText())).toEqual(lines(readFileSync(OOM_LOG, 'latin1')));
    expect(lines(run.stdout.text())).toEqual(lines(readFileSync(OOM_LOG, 'latin1')));
    const stderr = run.stderr.text();
    expect(stderr).toMatch(/^FAILED sglang {2}gpu_oom: GPU out of memory$/m);
    expect(stderr).toMatch(/^ {2}root cause line \d+: torch\.OutOfMemoryError: CUDA out of memory/m);
    expect(stderr).toContain(`  log        ./${basename(run.log)}`);
    // "line N" names a line of the log file.
    const lineNo = Number(/root cause line (\d+):/.exec(stderr)?.[1]);
    expect(run.logText().split('\n')[lineNo - 1]).toContain('torch.OutOfMemoryError: CUDA out of memory');
  });

  it('--quiet echoes nothing and prints only the verdict', async () => {
    const run = await runSpinup({ tracker, dir, args: ['--quiet'], server: replayServer(OOM_LOG, 'exit1') });
    expect(run.code).toBe(1);
    expect(run.stdout.text()).toBe('');
    expect(run.stderr.text()).toMatch(/^FAILED sglang {2}gpu_oom/);
    expect(run.stderr.text()).not.toContain('spinup:');
  });

  it('never glues a partial line of one stream to a line of the other', async () => {
    const script = [
      "process.stdout.write('[2025-01-01 00:00:00] stdout begins ');",
      "setTimeout(() => process.stderr.write('[2025-01-01 00:00:00] a whole stderr line\\n'), 50);",
      "setTimeout(() => process.stdout.write('and ends\\n[2025-01-01 00:00:00] no newline at the end'), 100);",
    ].join('\n');
    const run = await runSpinup({ tracker, dir, args: ['--json'], server: [process.execPath, '-e', script] });
    expect(run.logText()).toBe(
      '[2025-01-01 00:00:00] a whole stderr line\n[2025-01-01 00:00:00] stdout begins and ends\n[2025-01-01 00:00:00] no newline at the end\n',
    );
    expect(run.code).toBe(1);
    expect(run.verdicts[0]).toMatchObject({ verdict: 'failed', cause: 'unknown', rule: 'process/exit-zero', message: 'exited (code 0) before it was ready' });
  });

  it('names the log spinup-run-YYYYmmdd-HHMMSS.log in the working directory by default', async () => {
    const cwd = join(dir, 'default-name');
    rmSync(cwd, { recursive: true, force: true });
    (await import('node:fs')).mkdirSync(cwd);
    const run = await runSpinup({ tracker, dir: cwd, args: ['--json'], log: false, server: replayServer(OOM_LOG, 'exit1') });
    expect(run.code).toBe(1);
    const [name, ...others] = readdirSync(cwd);
    expect(others).toEqual([]);
    expect(name).toMatch(/^spinup-run-\d{8}-\d{6}\.log$/);
    expect(run.events.find((e) => e.type === 'started')).toMatchObject({ log: `./${name}` });
  });
});

describe('spinup run: usage', () => {
  it.for([
    { name: 'no --', argv: ['run', 'python', 'server.py'], error: 'put -- before the server command' },
    { name: 'no command after --', argv: ['run', '--'], error: 'name the server command after --' },
    { name: 'nothing at all', argv: ['run'], error: 'name the server command after --' },
  ])('$name: exit 64 with the help', async ({ argv, error }) => {
    const { main } = await import('../../src/cli/main.js');
    const { Capture } = await import('./run-harness.js');
    const stdout = new Capture();
    const stderr = new Capture();
    const code = await main({ argv, stdin: process.stdin, stdout, stderr, env: { NO_COLOR: '1' }, cwd: dir });
    expect(code).toBe(64);
    expect(stderr.text()).toContain(`spinup run: ${error}`);
    expect(stderr.text()).toContain('Usage: spinup run [options] -- CMD [ARGS...]');
  });

  it.for([
    { name: 'a bad --grace', args: ['--grace', 'soon'], error: '--grace wants a duration' },
    { name: 'a --health that is not http', args: ['--health', 'localhost:8000'], error: '--health wants an http:// URL' },
    { name: 'an unknown option', args: ['--no-such-flag'], error: 'unknown option --no-such-flag.' },
  ])('$name: exit 64', async ({ args, error }) => {
    const run = await runSpinup({ tracker, dir, args, server: ['true'] });
    expect(run.code).toBe(64);
    expect(run.stderr.text()).toContain(error);
  });

  it('refuses an existing --log with exit 64, leaves it untouched and starts nothing', async () => {
    const log = join(dir, 'earlier-run.log');
    writeFileSync(log, 'evidence from an earlier run\n');
    const marker = join(dir, 'must-not-exist');
    const run = await runSpinup({ tracker, dir, args: [], log, server: ['sh', '-c', `touch ${marker}`] });
    expect(run.code).toBe(64);
    expect(run.stderr.text()).toContain('already exists; spinup run never overwrites a log');
    expect(readFileSync(log, 'utf8')).toBe('evidence from an earlier run\n');
    expect(() => readFileSync(marker)).toThrow(/ENOENT/);
  });

  it('--help teaches with a real example', async () => {
    const { main } = await import('../../src/cli/main.js');
    const { Capture } = await import('./run-harness.js');
    const stdout = new Capture();
    const code = await main({ argv: ['run', '--help'], stdin: process.stdin, stdout, stderr: new Capture(), env: {}, cwd: dir });
    expect(code).toBe(0);
    expect(stdout.text()).toContain('python -m sglang.launch_server --model-path');
    expect(stdout.text()).toMatch(/--then 'python bench\.py/);
  });
});
