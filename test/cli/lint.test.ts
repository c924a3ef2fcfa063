/** `spinup lint` through main(): exact lines, exit codes, --json, colour only when asked for. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runMain } from '../helpers/run-main.js';

const invalid = readdirSync(join(repoRoot, 'fixtures/packs/invalid'))
  .filter((f) => f.endsWith('.yaml') && !f.startsWith('_'))
  .sort()
  .map((f) => {
    const file = `fixtures/packs/invalid/${f}`;
    const expected = readFileSync(join(repoRoot, file.replace(/\.yaml$/, '.expected.txt')), 'utf8').trimEnd().split('\n');
    return { name: f.replace(/\.yaml$/, ''), file, expected, code: expected.some((l) => l.includes(' error ')) ? 78 : 0 };
  });

describe('spinup lint', () => {
  it.for(invalid)('prints exactly the expected diagnostics for $name', async ({ file, expected, code }) => {
    const run = await runMain(['lint', file]);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(0, -1)).toEqual(expected);
    expect(lines.at(-1)).toMatch(/^\d+ files? checked: \d+ errors?, \d+ warnings?$/);
    expect(run.code).toBe(code);
    expect(run.stderr).toBe('');
  });

  it('passes the shipped packs by default, with nothing to report', async () => {
    const run = await runMain(['lint']);
    expect(run).toEqual({ code: 0, stdout: '3 files checked: no problems\n', stderr: '' });
  });

  it('accepts shipped pack names and paths together, linting a shared pack once', async () => {
    const run = await runMain(['lint', 'sglang', 'rules/vllm.yaml', 'common', 'fixtures/packs/valid/family-with-shared.yaml']);
    expect(run.stdout).toBe('5 files checked: no problems\n');
    expect(run.code).toBe(0);
  });

  it('exits 78 when any of several packs is broken, and reports the broken one only', async () => {
    const run = await runMain(['lint', 'fixtures/packs/valid/minimal.yaml', 'fixtures/packs/invalid/lookbehind.yaml']);
    expect(run.code).toBe(78);
    expect(run.stdout.split('\n').filter((l) => l.includes(' error '))).toHaveLength(1);
  });

  it('--json prints one object per diagnostic and a summary', async () => {
    const run = await runMain(['lint', '--json', 'fixtures/packs/invalid/placeholder.yaml', 'fixtures/packs/invalid/no-provenance.yaml']);
    const objects = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects.map((o) => o.type)).toEqual(['diagnostic', 'diagnostic', 'summary']);
    expect(objects[0]).toMatchObject({ file: 'fixtures/packs/invalid/placeholder.yaml', line: 8, column: 36, severity: 'error', code: 'pack/unknown-placeholder', path: 'failures[0].message' });
    expect(objects[1]).toMatchObject({ severity: 'warning', code: 'pack/no-provenance' });
    expect(objects[2]).toEqual({ type: 'summary', files: ['fixtures/packs/invalid/placeholder.yaml', 'fixtures/packs/invalid/no-provenance.yaml'], errors: 1, warnings: 1 });
    expect(run.code).toBe(78);
  });

  it('reports a pack file that does not exist', async () => {
    const run = await runMain(['lint', 'no/such/pack.yaml']);
    expect(run.stdout).toMatch(/^no\/such\/pack\.yaml:1:1 error pack\/unreadable Cannot read the pack: no such file\.\n/);
    expect(run.code).toBe(78);
  });

  it.for([
    { name: 'a TTY', tty: true, env: {}, colored: true },
    { name: 'a TTY with NO_COLOR', tty: true, env: { NO_COLOR: '1' }, colored: false },
    { name: 'a pipe', tty: false, env: {}, colored: false },
  ])('colours on $name: $colored', async ({ tty, env, colored }) => {
    const run = await runMain(['lint', 'fixtures/packs/invalid/lookbehind.yaml'], { tty, env });
    expect(run.stdout.includes('\u001b[')).toBe(colored);
  });

  it('--help describes the checks and exit codes', async () => {
    const run = await runMain(['lint', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/super-linear/);
    expect(run.stdout).toMatch(/78 errors found/);
  });
});
