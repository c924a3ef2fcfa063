/**
 * Every console example in the README and in docs/ is run, and what it prints must be what the
 * page shows (issue 13, item 12; docs/ since issue 27): the pages tell the truth, and stay true. Each block runs in a scratch
 * folder that sees the repository's fixtures and fixture servers, with the built `spinup` on the
 * PATH (`npx spinup` in the repository runs that same bin; here it is called directly, which
 * spares npx's start-up). Only what a block declares as varying is masked.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleExamples, mask, showsAs } from './helpers/readme-examples.js';
import { repoRoot } from './helpers/run-main.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const DOCUMENTS = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
const examples = DOCUMENTS.flatMap((file) => consoleExamples(readFileSync(join(repoRoot, file), 'utf8')).map((example) => ({ ...example, file })));
const scratch = mkdtempSync(join(tmpdir(), 'spinup-readme-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bin = join(scratch, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'spinup'), `#!/bin/sh\nexec node "${join(repoRoot, 'dist/cli/bin.js')}" "$@"\n`);
chmodSync(join(bin, 'spinup'), 0o755);

const END = '@@spinup-readme-step-end@@';

/** Runs a block's commands in one shell (so `echo $?` sees the command before it), stdout and stderr merged as a terminal shows them. */
function blockDir(index: number): string {
  return join(scratch, `example-${index}`);
}

function runBlock(index: number, commands: string[]): string[][] {
  const cwd = blockDir(index);
  mkdirSync(cwd);
  for (const name of ['fixtures', 'test']) symlinkSync(join(repoRoot, name), join(cwd, name));
  const script = commands.map((c) => `${c.replace(/^npx spinup /, 'spinup ')}\n__status=$?; echo "${END}"; (exit $__status)`).join('\n');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', FORCE_COLOR: undefined, XDG_STATE_HOME: join(cwd, 'state'), TZ: 'UTC' };
  const run = spawnSync('/bin/sh', ['-c', `exec 2>&1\n${script}`], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  const out = run.stdout;
  return out.split(`${END}\n`).slice(0, commands.length).map((text) => text.replace(/\n$/, '').split('\n').filter((line, i, all) => !(line === '' && i === all.length - 1)));
}

describe('13.12: the README console examples', () => {
  it('13.12: there are console examples to check, in the README and docs/, and bare `spinup` lines say how to get it on the PATH', () => {
    expect(examples.length).toBeGreaterThanOrEqual(16);
    expect(examples.filter((e) => e.file === 'README.md').length).toBeGreaterThanOrEqual(1);
    expect(readme).toMatch(/`npm link`[^\n]*PATH|PATH[^\n]*`npm link`/);
  });

  it('13.12: the comparison is strict where nothing is declared to vary', () => {
    expect(showsAs(['a', '…', 'd'], ['a', 'b', 'c', 'd'])).toBe(true);
    expect(showsAs(['a', '…'], ['a'])).toBe(true);
    expect(showsAs(['root cause line 106: x … (cut here)'], ['root cause line 106: x and more'])).toBe(true);
    expect(showsAs(['root cause line 106: x'], ['root cause line 108: x'])).toBe(false);
    expect(showsAs(['a'], ['a', 'b'])).toBe(false);
    // Masks hide only what they name: a line number or a verdict never.
    const varies = new Set(['pids', 'durations'] as const);
    expect(mask('pid 123 exited, 11s after launch; line 106', varies)).toBe('pid <pid> exited, <duration> after launch; line 106');
    expect(mask('[  12ms] stage launch', new Set(['ms'] as const))).toBe('[<ms>] stage launch');
  });

  it.for(examples.map((example, index) => ({ ...example, index, name: `${example.file} line ${example.line}: ${example.steps[0]?.command.slice(0, 60)} ::` })))(
    '13.12: $name',
    { timeout: 180_000 },
    (example) => {
      const outputs = runBlock(example.index, example.steps.map((s) => s.command));
      example.steps.forEach((step, i) => {
        const shown = step.shown.map((l) => mask(l, example.varies));
        const actual = (outputs[i] ?? []).map((l) => mask(l, example.varies, blockDir(example.index)));
        expect(showsAs(shown, actual), `$ ${step.command}\n--- ${example.file} shows:\n${shown.join('\n')}\n--- it printed:\n${actual.join('\n')}`).toBe(true);
      });
    },
  );
});
