/**
 * Issue 25 item 16: the smaller words a new user met. A shipped pack copied out alone still finds
 * the shared pack it includes; a negative duration is said to be one; `report -o DIR` writes
 * inside the directory; `status | head` says nothing about a verdict's exit code it does not have.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURES, killAll, scratch, spawnCli } from '../hostile/cli-child.js';
import { repoRoot, runMain } from '../helpers/run-main.js';
import { PackError } from '../../src/pack/diagnostic.js';
import { loadPack } from '../../src/pack/load-pack.js';

const { dir, env, cleanup } = scratch('words');
const ownEnv = { ...env, HOME: dir };
beforeAll(assertBuilt);
afterEach(killAll);
afterAll(cleanup);

const READY_LOG = join(FIXTURES, 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log');

describe('25.16: a pack copied out alone', () => {
  it('25.16a: --pack my/sglang.yaml (copied without common.yaml) reads the shipped common and gives the bare verdict', async () => {
    const my = join(dir, 'copied');
    mkdirSync(my);
    copyFileSync(join(repoRoot, 'rules/sglang.yaml'), join(my, 'sglang.yaml'));
    const run = await runMain(['watch', '--no-follow', '--no-history', '--pack', join(my, 'sglang.yaml'), READY_LOG], { cwd: dir, env: ownEnv });
    expect(run.stderr).not.toContain('not found');
    expect(run.stdout).toMatch(/^READY sglang/);
    expect(run.code).toBe(0);
  });

  it('25.16a: an edited copy (read the careful way, not from the build table) finds the shipped common too', async () => {
    const my = join(dir, 'edited');
    mkdirSync(my);
    const text = readFileSync(join(repoRoot, 'rules/sglang.yaml'), 'utf8').replace(/^description: .*$/m, "description: 'my own copy'");
    writeFileSync(join(my, 'sglang.yaml'), text);
    const run = await runMain(['watch', '--no-follow', '--no-history', '--pack', join(my, 'sglang.yaml'), READY_LOG], { cwd: dir, env: ownEnv });
    expect(run.stderr).not.toContain('not found');
    expect(run.code, run.stderr).toBe(0);
  });

  it('25.16a: a common.yaml beside the pack wins over the shipped one', async () => {
    const my = join(dir, 'beside');
    mkdirSync(my);
    copyFileSync(join(repoRoot, 'rules/sglang.yaml'), join(my, 'sglang.yaml'));
    writeFileSync(join(my, 'common.yaml'), "pack: common\ndescription: 'broken on purpose'\nstages: nope\n");
    const run = await runMain(['watch', '--no-follow', '--no-history', '--pack', join(my, 'sglang.yaml'), READY_LOG], { cwd: dir, env: ownEnv });
    expect(run.code).toBe(78);
    expect(run.stderr).toContain('common.yaml');
  });

  it('25.16a: the pack cache is not kept once a common.yaml is put beside the copy', () => {
    const my = join(dir, 'cached');
    mkdirSync(my);
    const file = join(my, 'sglang.yaml');
    writeFileSync(file, readFileSync(join(repoRoot, 'rules/sglang.yaml'), 'utf8').replace(/^description: .*$/m, "description: 'cached copy'"));
    const cacheDir = join(dir, 'pack-cache');
    expect(loadPack(file, { cacheDir }).name).toBe('sglang');
    expect(readdirSync(cacheDir)).toHaveLength(1);
    writeFileSync(join(my, 'common.yaml'), "pack: common\ndescription: 'broken on purpose'\nstages: nope\n");
    expect(() => loadPack(file, { cacheDir })).toThrow(PackError);
  });

  it('25.16a: an include found nowhere says where it looked and how to fix it', async () => {
    const my = join(dir, 'nowhere');
    mkdirSync(my);
    const text = readFileSync(join(repoRoot, 'rules/sglang.yaml'), 'utf8').replace(/^include: \[common\]$/m, 'include: [comon]');
    writeFileSync(join(my, 'sglang.yaml'), text);
    const run = await runMain(['watch', '--no-follow', '--no-history', '--pack', join(my, 'sglang.yaml'), READY_LOG], { cwd: dir, env: ownEnv });
    expect(run.code).toBe(78);
    expect(run.stderr).toContain('Included pack "comon" not found');
    expect(run.stderr).toContain('put comon.yaml beside the pack, or include a shipped pack (common, sglang, vllm)');
  });
});

describe('25.16b: a negative duration', () => {
  it.for([
    ['watch', '--stall', '-5s', 'x.log'],
    ['watch', '--timeout', '-1m', 'x.log'],
    ['watch', '--stall=-5s', 'x.log'],
    ['run', '--grace', '-3s', '--', 'true'],
  ])('25.16b: %s %s %s is a usage error that says the duration must be positive', async (argv) => {
    const run = await runMain(argv, { cwd: dir, env: ownEnv });
    expect(run.code).toBe(64);
    const flag = argv[1]!.split('=')[0]!;
    expect(run.stderr).toContain(`${flag} must be a positive duration (like 90s, 5m or 1h30m), not "-`);
    expect(run.stderr).not.toContain('wants a value');
  });

  it('25.16b: a value after -- is the server command\'s own, never joined to an option', async () => {
    const run = await runMain(['run', '--stall', '--', 'sleep', '-1'], { cwd: dir, env: ownEnv });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('--stall wants a value');
  });
});

describe('25.16c: report -o DIR', () => {
  it('25.16c: an existing directory gets the default name inside it, and a second report the next free name', async () => {
    const out = join(dir, 'reports');
    mkdirSync(out);
    const first = await runMain(['report', READY_LOG, '-o', out], { cwd: dir, env: ownEnv });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`wrote ${join(out, '09-tp4-l4-qwq32b-ready-health-polls.report.html')}`);
    const second = await runMain(['report', READY_LOG, '-o', out], { cwd: dir, env: ownEnv });
    expect(second.code, second.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['09-tp4-l4-qwq32b-ready-health-polls.report-2.html', '09-tp4-l4-qwq32b-ready-health-polls.report.html']);
    expect(second.stderr).not.toContain('--force');
  });

  it('25.16c: -o FILE that exists still needs --force', async () => {
    const file = join(dir, 'taken.html');
    writeFileSync(file, 'mine');
    const run = await runMain(['report', READY_LOG, '-o', file], { cwd: dir, env: ownEnv });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('already exists; pass --force');
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });
});

describe('25.16d: the verdict-code note only where there is a verdict', () => {
  it('25.16d: status with its reader gone (| head) exits 0 and says nothing of a verdict', async () => {
    const w = spawnCli(['status'], { cwd: dir, env: ownEnv });
    w.child.stdout!.destroy(); // our end of the pipe closed before it writes, as `| head -0` leaves it
    expect(await w.finished(20_000), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stderr).not.toContain('verdict');
    expect(w.stderr).toBe('');
  });

  it('25.16d: watch with its reader gone still says the exit code gives the verdict', async () => {
    const w = spawnCli(['watch', '--no-follow', '--no-history', READY_LOG], { cwd: dir, env: ownEnv });
    w.child.stdout!.destroy();
    expect(await w.finished(20_000), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stderr).toContain('the exit code still gives the verdict');
  });
});
