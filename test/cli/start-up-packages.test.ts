/**
 * What a start loads (issue 18 rows g and e0): a watch of a shipped pack, or of a curator's pack
 * the pack cache already holds, answers without a YAML parser, the schema validator or the regex
 * analysers; a curator's pack read for the first time is read in a worker thread, so the watch's
 * own thread never loads them either. Observed in the built bin as a real process, through a
 * preload that lists the packages its main thread loaded.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runMain } from '../helpers/run-main.js';
import { BIN } from '../helpers/spinup-process.js';

const PRELOAD = join(repoRoot, 'test/helpers/record-packages.mjs');
const CAREFUL_READ = ['yaml', 'ajv', '@eslint-community/regexpp', 'scslre'];

const dir = mkdtempSync(join(tmpdir(), 'spinup-start-up-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A short start that ends READY.
const readyLog = join(repoRoot, 'fixtures/sglang/204-2025-01-gke-a3ultra-h200-dsr1-tp8-k8s-tail-fp8-config-warmup-ready.log');
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

/** One `spinup watch --no-follow` of the log: its exit code, what it printed, the packages its main thread loaded. */
function watch(extra: string[], log = readyLog): { code: number | null; stdout: string; stderr: string; packages: string[] } {
  const record = join(dir, `packages-${Math.random().toString(36).slice(2)}.txt`);
  const result = spawnSync(process.execPath, ['--import', PRELOAD, BIN, 'watch', '--no-follow', ...extra, log], {
    env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: state, RECORD_PACKAGES_TO: record },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const threads = readFileSync(record, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { thread: number; packages: string[] });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, packages: threads.find((t) => t.thread === 0)!.packages };
}

describe('a start loads no pack-reading machinery it does not need', () => {
  it('a shipped pack: no YAML parser, schema validator or regex analyser', () => {
    const run = watch([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^READY/m);
    expect(run.packages.filter((name) => CAREFUL_READ.includes(name))).toEqual([]);
  });

  it("a curator's pack: read once in a worker thread (the cache written), then from the cache; the watch's thread loads none of them", () => {
    const cache = join(state, 'spinup', 'packs');
    expect(existsSync(cache)).toBe(false);
    const first = watch(['--pack', curated]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^READY/m);
    // Only the careful read writes the cache: the pack was read, and not in this thread.
    expect(readdirSync(cache)).toHaveLength(1);
    expect(first.packages.filter((name) => CAREFUL_READ.includes(name))).toEqual([]);
    const warm = watch(['--pack', curated]);
    expect(warm.code).toBe(0);
    expect(warm.stdout).toBe(first.stdout);
    expect(warm.packages.filter((name) => CAREFUL_READ.includes(name))).toEqual([]);
  });

  it('an invalid pack read in the worker gives the diagnostics and exit code of one read in-process', async () => {
    const broken = join(dir, 'broken');
    cpSync(join(repoRoot, 'rules'), broken, { recursive: true });
    const file = join(broken, 'sglang.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('\nfailures:\n', "\nfailures:\n  - id: sglang/broken\n    pattern: 'unclosed ('\n    descripton: 'typo'\n"));
    const isolated = watch(['--pack', file]);
    const inProcess = await runMain(['watch', '--no-follow', '--pack', file, readyLog], { env: { XDG_STATE_HOME: join(dir, 'state-in-process') } });
    expect(isolated.code).toBe(78);
    expect(inProcess.code).toBe(78);
    expect(isolated.stderr).toContain('pack/unknown-key');
    expect(isolated.stderr).toBe(inProcess.stderr);
  });
});

describe('a watch of a file loads no builtin it does not need', () => {
  it('neither node:child_process (only a pipe on stdin spawns, to widen it) nor node:http (the status API comes later)', () => {
    const record = join(dir, 'builtins.txt');
    // --no-state: the status API's socket opens a second in (live-status.ts), which a busy machine
    // may reach even on this short log; a module that imported node:http eagerly still loads it.
    const result = spawnSync(process.execPath, ['--require', join(repoRoot, 'test/helpers/record-builtins.cjs'), BIN, 'watch', '--no-follow', '--no-state', readyLog], {
      env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: state, RECORD_BUILTINS_TO: record },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(0);
    const builtins = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    expect(builtins).toContain('fs'); // the list is real
    expect(builtins.filter((name) => ['child_process', 'http', 'crypto'].includes(name))).toEqual([]);
  });
});
