/**
 * What a start loads (issue 18 row g): a watch of a shipped pack, or of a curator's pack the pack
 * cache already holds, answers without a YAML parser, the schema validator or the regex analysers.
 * Observed in the built bin as a real process, through a preload that lists the packages it loaded.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run-main.js';
import { BIN } from '../helpers/spinup-process.js';

const PRELOAD = join(repoRoot, 'test/helpers/record-packages.mjs');
const CAREFUL_READ = ['yaml', 'ajv', '@eslint-community/regexpp', 'scslre'];

const dir = mkdtempSync(join(tmpdir(), 'spinup-start-up-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A short start that ends READY.
const log = join(repoRoot, 'fixtures/sglang/204-2025-01-gke-a3ultra-h200-dsr1-tp8-k8s-tail-fp8-config-warmup-ready.log');
const state = join(dir, 'state');
const packDir = join(dir, 'pack');
cpSync(join(repoRoot, 'rules'), packDir, { recursive: true });
const curated = join(packDir, 'sglang.yaml');
writeFileSync(curated, readFileSync(curated, 'utf8').replace('\nfailures:\n', `\nfailures:\n  - id: sglang/curated-disk-full
    pattern: 'OSError: \\[Errno 28\\] No space left on device'
    description: 'The disk filled up while the server started.'
    cause: crash
    message: 'no space left on device'
    hint: 'Free disk space.'
`));

/** One `spinup watch --no-follow` of the log: its exit code, what it printed, the packages it loaded. */
function watch(extra: string[]): { code: number | null; stdout: string; packages: string[] } {
  const record = join(dir, `packages-${Math.random().toString(36).slice(2)}.txt`);
  const result = spawnSync(process.execPath, ['--import', PRELOAD, BIN, 'watch', '--no-follow', ...extra, log], {
    env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: state, RECORD_PACKAGES_TO: record },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, packages: readFileSync(record, 'utf8').split('\n').filter(Boolean) };
}

describe('a start loads no pack-reading machinery it does not need', () => {
  it('a shipped pack: no YAML parser, schema validator or regex analyser', () => {
    const run = watch([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^READY/m);
    expect(run.packages.filter((name) => CAREFUL_READ.includes(name))).toEqual([]);
  });

  it("a curator's pack: read the careful way once, then answered from the pack cache with none of them", () => {
    const first = watch(['--pack', curated]);
    expect(first.code).toBe(0);
    expect(first.packages).toEqual(expect.arrayContaining(CAREFUL_READ));
    const warm = watch(['--pack', curated]);
    expect(warm.code).toBe(0);
    expect(warm.stdout).toBe(first.stdout);
    expect(warm.packages.filter((name) => CAREFUL_READ.includes(name))).toEqual([]);
  });
});
