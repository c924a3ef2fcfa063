/**
 * Rule packs written by hand, with mistakes: each ends in one clear message naming file:line:col
 * and exit 78. And a pattern that backtracks catastrophically, in a pack that never went through
 * lint, cannot stall the classifier on a crafted line:
 *  - exponential (scslre sees it): the pack is refused at load, exit 78 (no length cap helps);
 *  - polynomial (scslre sees it): the rule runs on the first 512 chars of a frame only;
 *  - exponential but invisible to scslre (`(\w|\d)+!`): the CLI falls back to V8's linear-time
 *    engine after 50 000 backtracks (bin.ts). Not covered: such a pattern with ignore_case or a
 *    lookahead, which that engine does not take (see the README).
 */
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { classifyText } from '../../src/replay/run-case.js';
import { loadPack } from '../../src/pack/load-pack.js';
import { shippedPack } from '../helpers/classify.js';
import { repoRoot } from '../helpers/run-main.js';
import { assertBuilt, CliChild, killAll, scratch, spawnCli, STACK_TRACE } from './cli-child.js';
import { runCli } from './in-process.js';

const { dir, env, cleanup } = scratch('packs');
beforeAll(assertBuilt);
afterEach(killAll);
afterAll(cleanup);

/** A small valid pack with one failure rule; `failure` replaces that rule's lines. */
function pack(name: string, failure: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    [
      `pack: ${name}`,
      "description: 'A hand-written pack.'",
      'stages:',
      '  - stage: launch',
      '    markers:',
      `      - id: ${name}/start`,
      "        pattern: 'Starting server'",
      "        description: 'The server starts.'",
      'failures:',
      failure,
      '',
    ].join('\n'),
  );
  return path;
}

const rule = (pattern: string, extra = ''): string =>
  [`  - id: demo/rule`, `    pattern: ${pattern}`, "    description: 'A failure.'", '    cause: crash', "    message: 'it failed'", "    hint: 'Read the log.'", extra].filter(Boolean).join('\n');

const LOG = join(dir, 'server.log');
writeFileSync(LOG, 'Starting server\n');

describe('a broken pack: one message naming file:line:col, exit 78', () => {
  it.for([
    { name: 'yaml-syntax', failure: rule("'unclosed quote"), where: '11:29', code: 'pack/yaml-syntax' },
    { name: 'wrong-type', failure: rule("'out of memory'", "    fatal: 'no'"), where: '16:12', code: 'pack/wrong-type' },
    { name: 'unknown-key', failure: rule("'out of memory'", '    ignore_cse: true'), where: '16:5', code: 'pack/unknown-key' },
    { name: 'regex-syntax', failure: rule("'rank (?P<rank>\\d+) died'"), where: '11:14', code: 'regex/syntax' },
    { name: 'exponential', failure: rule("'Error: (?:\\w+\\s?)+ failed'"), where: '11:22', code: 'regex/super-linear' },
  ])('$name', async ({ name, failure, where, code }) => {
    const path = pack(name, failure);
    const run = await runCli(['watch', '--no-follow', '--pack', path, LOG]);
    expect(run.code).toBe(78);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toBe("spinup watch: the rule pack is invalid (fix the lines above; 'spinup lint' checks a pack).");
    expect(lines[0]).toMatch(new RegExp(`^${path}:${where} error ${code} \\S`));
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it('a YAML alias bomb (billions of nodes from a dozen lines) is refused, not expanded', async () => {
    const path = join(dir, 'bomb.yaml');
    const levels = Array.from({ length: 12 }, (_, i) => `x${i}: &l${i} [${i === 0 ? 'a' : Array(9).fill(`*l${i - 1}`).join(',')}]`);
    writeFileSync(path, [...levels, 'pack: bomb', "description: 'd'", 'failures: *l11', ''].join('\n'));
    const run = await runCli(['watch', '--no-follow', '--pack', path, LOG]);
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(new RegExp(`^${path}:1:1 error pack/yaml-syntax The pack cannot be read as data: Excessive alias count`));
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it.for([
    { name: 'a pack file that does not exist', path: join(dir, 'missing.yaml'), message: 'pack/unreadable Cannot read the pack: no such file.' },
    { name: 'a directory', path: dir, message: 'pack/unreadable Cannot read the pack: EISDIR' },
    { name: 'an empty file', path: '/dev/null', message: 'pack/wrong-type Expected object at the pack, found nothing.' },
  ])('$name', async ({ path, message }) => {
    const run = await runCli(['watch', '--no-follow', '--pack', path, LOG]);
    expect(run.code).toBe(78);
    expect(run.stderr).toContain(`${path}:1:1 error ${message}`);
  });

  it('the built CLI: the same one message for an exponential pattern, at once', async () => {
    const path = pack('exponential-bin', rule("'(a+)+b'"));
    const w = spawnCli(['watch', '--no-history', '--no-follow', '--pack', path, LOG], { cwd: dir, env });
    expect(await w.finished()).toEqual({ code: 78, signal: null });
    expect(w.stderr).toMatch(new RegExp(`^${path}:11:15 error regex/super-linear Rule demo/rule pattern: exponential backtracking in "\\(a\\+\\)\\+"`));
    expect(w.stderr).not.toMatch(STACK_TRACE);
  });

  it('lint rejects the same pattern', async () => {
    const run = await runCli(['lint', pack('exponential-lint', rule("'(a+)+b'"))]);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('regex/super-linear');
  });
});

describe('a pattern that backtracks, in a pack that bypassed lint', () => {
  it('polynomial (`\\d+\\d+x`): a crafted line of digits returns within 1 s; a short match still matches', () => {
    const compiled = loadPack(pack('polynomial', rule("'\\d+\\d+x'")));
    // Uncapped, this line costs ~6 s (cubic in its 3000 digits); capped at 512 chars, milliseconds.
    const crafted = ['Starting server', '1'.repeat(3000)].join('\n');
    const started = performance.now();
    const { verdict } = classifyText(crafted, { packs: [compiled], family: 'polynomial' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(verdict.verdict).toBe('incomplete');
    expect(classifyText('Starting server\nerror code 12345x\n', { packs: [compiled], family: 'polynomial' }).verdict).toMatchObject({ verdict: 'failed', rule: 'demo/rule' });
  });

  it('the cap survives the pack cache: a pack taken from the state dir is capped as when it was read', () => {
    const cacheDir = join(dir, 'pack-cache');
    const file = pack('polynomial-cached', rule("'\\d+\\d+x'"));
    const capped = (compiled: ReturnType<typeof loadPack>) => compiled.allRules.filter((r) => Object.hasOwn(r.regex, 'exec')).map((r) => r.id);
    expect(capped(loadPack(file, { cacheDir }))).toEqual(['demo/rule']);
    expect(readdirSync(cacheDir)).toHaveLength(1);
    expect(capped(loadPack(file, { cacheDir }))).toEqual(['demo/rule']);
  });

  it('the cap is for flagged patterns of foreign packs only: shipped rules run as compiled', () => {
    const compiled = loadPack(pack('linear', rule("'out of memory'")));
    for (const p of [compiled, shippedPack('sglang'), shippedPack('vllm')]) {
      for (const r of p.allRules) expect(Object.hasOwn(r.regex, 'exec'), r.id).toBe(false);
    }
  });

  // By node (the flag set by bin.ts) and by the bin's shebang, which gives node no room for it.
  it.for(['node dist/cli/bin.js', 'dist/cli/bin.cjs by its shebang'])('exponential but invisible to scslre (`(\\w|\\d)+!`): the built CLI, %s, returns within 2 s', async (way) => {
    const path = pack('overlap', rule("'(\\w|\\d)+!'"));
    writeFileSync(join(dir, 'overlap.log'), `Starting server\n${'1'.repeat(40)}\n`);
    const started = Date.now();
    const args = ['watch', '--no-history', '--no-follow', '--pack', path, join(dir, 'overlap.log')];
    const w = way.endsWith('shebang') ? new CliChild(spawn(join(repoRoot, 'dist/cli/bin.cjs'), args, { cwd: dir, env }), `spinup ${args.join(' ')}`) : spawnCli(args, { cwd: dir, env });
    expect(await w.finished(10_000)).toEqual({ code: 3, signal: null });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
