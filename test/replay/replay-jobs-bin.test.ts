/**
 * `replay --jobs N` in the built bin (worker threads need the built modules): the output of two
 * threads is the output of one, byte for byte, in every format and on every path out (a failing
 * case, a log that is not text, an expectation that cannot be read, an invalid pack, a log the
 * worker cannot open); bad values of --jobs are usage errors.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spinup-process.js';
import { repoRoot } from '../helpers/run-main.js';
import { spawn } from 'node:child_process';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function replay(args: string[], cwd = repoRoot): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'replay', ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** JUnit's time attributes are the only thing that differs between two runs. */
function timeless(run: Run): Run {
  return { ...run, stdout: run.stdout.replace(/ time="\d+\.\d+"/g, ' time=""') };
}

async function sameOnOneAndTwoThreads(args: string[], cwd?: string): Promise<Run> {
  const [one, two] = [await replay(['--jobs', '1', ...args], cwd), await replay(['--jobs', '2', ...args], cwd)];
  expect(timeless(two)).toEqual(timeless(one));
  return one;
}

const FIXTURE_CASES = 237;
const LONG = 240_000;

describe('replay --jobs 2 prints what --jobs 1 prints, over fixtures/', () => {
  it.for([
    { format: 'the table', args: [] },
    { format: '--json', args: ['--json'] },
    { format: 'JUnit XML', args: ['--format', 'junit'] },
    { format: 'the table with --coverage', args: ['--coverage'] },
  ])('$format', { timeout: LONG }, async ({ args }) => {
    const run = await sameOnOneAndTwoThreads([...args, 'fixtures']);
    expect(run.code).toBe(0);
    const last = run.stdout.trimEnd().split('\n').at(-1);
    if (args[0] === '--json') expect(JSON.parse(last!)).toEqual({ type: 'summary', passed: FIXTURE_CASES, failed: 0, total: FIXTURE_CASES });
    else if (args[0] !== '--format') expect(last).toBe(`${FIXTURE_CASES} passed, 0 failed`);
    else expect(run.stdout.match(/<testcase /g)).toHaveLength(FIXTURE_CASES);
  });
});

describe('replay --jobs 2 over a corpus with a failing case and logs that are not logs', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'spinup-jobs-'));
    for (const family of ['sglang', 'vllm']) mkdirSync(join(dir, family));
    const copy = (name: string, as = name): void => {
      copyFileSync(join(repoRoot, 'fixtures', `${name}.log`), join(dir, `${as}.log`));
      copyFileSync(join(repoRoot, 'fixtures', `${name}.expect.yaml`), join(dir, `${as}.expect.yaml`));
    };
    for (const name of ['sglang/04-rocm-glm5-tp8-hip-oom-load', 'sglang/09-tp4-l4-qwq32b-ready-health-polls', 'sglang/10-tp2-stuck-nccl-init-hang', 'vllm/02-v085post1-smollm-single-gpu-ready']) copy(name);
    cpSync(join(repoRoot, 'fixtures/sglang/18-19-multinode-h20-2nodes-gloo-rendezvous-timeout.group'), join(dir, 'sglang/18-19-multinode-h20-2nodes-gloo-rendezvous-timeout.group'), { recursive: true });
    copyFileSync(join(repoRoot, 'fixtures/sglang/18-19-multinode-h20-2nodes-gloo-rendezvous-timeout.expect.yaml'), join(dir, 'sglang/18-19-multinode-h20-2nodes-gloo-rendezvous-timeout.expect.yaml'));
    // A copy of a failed start that claims it was ready: a failing case, with its diff.
    copyFileSync(join(repoRoot, 'fixtures/sglang/04-rocm-glm5-tp8-hip-oom-load.log'), join(dir, 'sglang/05-oom-said-ready.log'));
    writeFileSync(join(dir, 'sglang/05-oom-said-ready.expect.yaml'), 'family: sglang\nverdict: ready\nstage: ready\n');
    // Bytes that are no text at all, and an empty file.
    writeFileSync(join(dir, 'vllm/90-binary.log'), Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919 + 13) % 256)));
    writeFileSync(join(dir, 'vllm/90-binary.expect.yaml'), 'verdict: [incomplete, failed, stalled, ready]\n');
    writeFileSync(join(dir, 'vllm/91-empty.log'), '');
    writeFileSync(join(dir, 'vllm/91-empty.expect.yaml'), 'verdict: incomplete\n');
  });

  it.for([
    { format: 'the table', args: [] },
    { format: '--json', args: ['--json'] },
    { format: 'JUnit XML', args: ['--format', 'junit'] },
    { format: '--coverage --json', args: ['--coverage', '--json'] },
  ])('$format: the same bytes and exit 1', { timeout: LONG }, async ({ args }) => {
    const run = await sameOnOneAndTwoThreads([...args, dir]);
    expect(run.code).toBe(1);
    if (args.length === 0) {
      expect(run.stdout).toMatch(/^FAIL {2}sglang\/05-oom-said-ready +failed load_weights gpu_oom\n {6}verdict: expected ready, got failed; stage: expected ready, got load_weights$/m);
      expect(run.stdout).toMatch(/^pass {2}sglang\/18-19-multinode-h20-2nodes-gloo-rendezvous-timeout\.group +stalled none node 1$/m);
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('7 passed, 1 failed');
    }
  });

  it('an expectation that cannot be read: the cases before it, then its error, exit 64', { timeout: LONG }, async () => {
    const broken = mkdtempSync(join(tmpdir(), 'spinup-jobs-broken-'));
    cpSync(dir, broken, { recursive: true });
    writeFileSync(join(broken, 'sglang/09-tp4-l4-qwq32b-ready-health-polls.expect.yaml'), 'verdict: [ready\n');
    const run = await sameOnOneAndTwoThreads([broken]);
    expect(run.code).toBe(64);
    const rows = [...run.stdout.matchAll(/^(?:pass|FAIL) {2}(\S+)/gm)].map((row) => row[1]);
    expect(rows).toEqual(['sglang/04-rocm-glm5-tp8-hip-oom-load', 'sglang/05-oom-said-ready']);
    expect(run.stderr).toMatch(/^spinup replay: .*09-tp4-l4-qwq32b-ready-health-polls\.expect\.yaml: cannot parse: .*\nRun 'spinup replay --help' for usage\.\n$/);
  });
});

describe('replay --jobs 2 when a case cannot be replayed', () => {
  let socketDir = '';
  let server: Server;
  beforeAll(async () => {
    // A socket where a log should be: opening it fails (ENXIO) in whichever thread replays it.
    socketDir = mkdtempSync(join(tmpdir(), 'spinup-jobs-sock-'));
    copyFileSync(join(repoRoot, 'fixtures/vllm/02-v085post1-smollm-single-gpu-ready.log'), join(socketDir, 'a-ready.log'));
    copyFileSync(join(repoRoot, 'fixtures/vllm/02-v085post1-smollm-single-gpu-ready.expect.yaml'), join(socketDir, 'a-ready.expect.yaml'));
    writeFileSync(join(socketDir, 'b-socket.expect.yaml'), 'verdict: ready\n');
    server = createServer();
    await new Promise<void>((resolve) => server.listen(join(socketDir, 'b-socket.log'), resolve));
  });
  afterAll(() => server?.close());

  it('a log its worker cannot open: one clear message, exit 66, as in one thread', { timeout: LONG }, async () => {
    // Two cases on two threads: the worker is handed both (it is given cases before the main thread).
    const run = await sameOnOneAndTwoThreads([join(socketDir, 'a-ready.log'), join(socketDir, 'b-socket.log')]);
    expect(run.code).toBe(66);
    expect(run.stdout).toMatch(/^pass {2}.*a-ready +ready ready\n$/);
    expect(run.stderr).toMatch(/^spinup replay: ENXIO: .*b-socket\.log'\n$/);
  });

  it('a pack of another family: the fixtures it cannot replay are named, exit 64, no internal error', { timeout: LONG }, async () => {
    // The pack is valid but is named "demo": no fixture under fixtures/vllm can be replayed with it.
    const run = await sameOnOneAndTwoThreads(['--pack', 'fixtures/packs/invalid/_shared-part.yaml', 'fixtures/vllm']);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/^spinup replay: \S+\/fixtures\/vllm\/[^ ]+\.expect\.yaml: family "vllm" has no pack among those in use \(demo\): add its pack with --pack, or replay only the fixtures of the packs given\n/);
    expect(run.stderr).not.toMatch(/internal error|\n {4}at /);
  });

  it('an invalid pack: its diagnostics and exit 78, as in one thread', { timeout: LONG }, async () => {
    const run = await sameOnOneAndTwoThreads(['--pack', 'fixtures/packs/invalid/bad-id.yaml', 'fixtures/vllm']);
    expect(run.code).toBe(78);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^\S*fixtures\/packs\/invalid\/bad-id\.yaml:\d+:\d+ error pack\/bad-id .*\nspinup replay: the rule pack is invalid/);
  });
});

describe('replay --jobs values', () => {
  it.for([['0'], ['x'], ['-1'], ['1.5'], ['']])('--jobs %s is a usage error (64)', { timeout: LONG }, async ([value]) => {
    const run = await replay([`--jobs=${value}`, 'fixtures/vllm']);
    expect(run.code).toBe(64);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--jobs wants a whole number of 1 or more');
  });

  it('--jobs 2 with --history or --record is a usage error (64)', { timeout: LONG }, async () => {
    const history = await replay(['--jobs', '2', '--history', join(mkdtempSync(join(tmpdir(), 'spinup-jobs-h-')), 'h.jsonl'), 'fixtures/vllm']);
    expect(history.code).toBe(64);
    expect(history.stderr).toContain('--jobs applies without --history and --learn-from');
    const record = await replay(['--record', 'fixtures/vllm/02-v085post1-smollm-single-gpu-ready.log', '--jobs', '2']);
    expect(record.code).toBe(64);
    expect(record.stderr).toContain('--record takes one LOG and no other replay options');
  });

  it('--help teaches it', { timeout: LONG }, async () => {
    const run = await replay(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}-j, --jobs N +replay on N threads \(this one and N-1 workers\)/m);
  });
});
