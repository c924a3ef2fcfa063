/**
 * Issue 27 item 2: `npm pack`, then a global install of the tarball into a temp prefix, gives a
 * working `spinup` on that prefix's PATH. The tarball is packed from this build (no scripts: dist/
 * is built), and leaves out the single executable and the wheel that `npm run sea` and
 * `npm run wheel` write into dist/. npm reads the dependencies from its cache when it has them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run-main.js';

const FIXTURE = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const scratch = mkdtempSync(join(tmpdir(), 'spinup-npm-global-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function npm(args: string[], cwd = repoRoot) {
  const run = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 240_000, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('27.2: npm pack + npm install -g of the tarball', () => {
  it('27.2: the installed spinup answers --version and replays a fixture', { timeout: 300_000 }, () => {
    const pack = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch]);
    expect(pack.code, pack.err).toBe(0);
    const [{ filename, files }] = JSON.parse(pack.out) as [{ filename: string; files: { path: string }[] }];
    const paths = files.map((f) => f.path);
    expect(paths).toContain('dist/cli/bin.cjs');
    expect(paths).toContain('rules/sglang.yaml');
    expect(paths.filter((p) => /^dist\/spinup-|\.whl$/.test(p))).toEqual([]);

    const prefix = join(scratch, 'prefix');
    const install = npm(['install', '--global', '--prefer-offline', '--prefix', prefix, join(scratch, filename)], scratch);
    expect(install.code, install.err).toBe(0);
    const bin = join(prefix, 'bin', 'spinup');
    expect(existsSync(bin)).toBe(true);
    const env = { PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, XDG_STATE_HOME: join(scratch, 'state'), NO_COLOR: '1' };
    const run = (args: string) => spawnSync('/bin/sh', ['-c', `spinup ${args}`], { cwd: scratch, env, encoding: 'utf8', timeout: 60_000 });
    expect(run('--version').stdout).toBe(`spinup ${version}\n`);
    const replay = run(`replay ${FIXTURE}`);
    expect(replay.stdout).toMatch(/^1 passed, 0 failed$/m);
    expect(replay.status).toBe(0);
    // The installed copy is what ran: its own files, not the repository's.
    expect(readdirSync(join(prefix, 'lib', 'node_modules', 'spinup', 'rules'))).toContain('sglang.yaml');
  });
});
