/**
 * Issue 27 item 2: the Python wheel carrying the single executable (scripts/build-wheel.py, the
 * way ruff and uv ship theirs) installs with pip into a fresh venv from no index, and puts
 * `spinup` on the venv's PATH: no node on that PATH, and `python -m spinup` runs it too. The
 * venv is made by Debian's python3 where there is one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeOnPath, pathWithoutNode } from '../helpers/no-node-path.js';
import { repoRoot } from '../helpers/run-main.js';

const FIXTURE = join(repoRoot, 'fixtures/vllm/02-v085post1-smollm-single-gpu-ready.log');
const EXECUTABLE = join(repoRoot, 'dist', `spinup-${process.platform}-${process.arch}`);
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const scratch = mkdtempSync(join(tmpdir(), 'spinup-wheel-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const done = spawnSync(command, args, { cwd: scratch, env, encoding: 'utf8', timeout: 240_000 });
  return { code: done.status, out: done.stdout, err: done.stderr };
}

describe('27.2: the wheel, installed by pip with no index', () => {
  it('27.2: pip puts spinup on the venv PATH; it answers --version and replays a fixture with no node there', { timeout: 300_000 }, () => {
    expect(existsSync(EXECUTABLE), `${EXECUTABLE} is missing: run npm run sea (npm test runs it)`).toBe(true);
    const built = run(PYTHON, [join(repoRoot, 'scripts/build-wheel.py'), '--out', join(scratch, 'wheels')]);
    expect(built.code, built.err).toBe(0);
    const [wheel] = readdirSync(join(scratch, 'wheels'));
    expect(wheel).toBe(`spinup-${version}-py3-none-manylinux_2_28_${process.arch === 'x64' ? 'x86_64' : 'aarch64'}.whl`);

    const venv = join(scratch, 'venv');
    const made = run(PYTHON, ['-m', 'venv', venv]);
    expect(made.code, `${PYTHON} -m venv failed (Debian: apt-get install python3-venv):\n${made.err}`).toBe(0);
    const pip = run(join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', join(scratch, 'wheels', wheel!)]);
    expect(pip.code, pip.err).toBe(0);
    expect(pip.out).toContain(`Successfully installed spinup-${version}`);

    const env = { PATH: pathWithoutNode(scratch, [join(venv, 'bin')]), HOME: join(scratch, 'home'), XDG_STATE_HOME: join(scratch, 'state'), XDG_CACHE_HOME: join(scratch, 'cache'), NO_COLOR: '1' };
    expect(nodeOnPath(env.PATH)).toBe('');
    const sh = (command: string) => run('/bin/sh', ['-c', command], env);
    expect(sh('command -v spinup').out.trim()).toBe(join(venv, 'bin', 'spinup'));
    expect(sh('spinup --version').out).toBe(`spinup ${version}\n`);
    const replay = sh(`spinup replay ${FIXTURE}`);
    expect(replay.out).toMatch(/^1 passed, 0 failed$/m);
    expect(replay.code).toBe(0);
    expect(sh('python -m spinup --version').out).toBe(`spinup ${version}\n`);
  });
});
