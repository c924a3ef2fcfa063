/** lint as a library: every broken pack gives its exact diagnostics, valid and shipped packs give none. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/pack/diagnostic.js';
import { lintPacks } from '../../src/pack/lint-packs.js';
import { scalarOffset } from '../../src/pack/scalar-offset.js';
import { repoRoot } from '../helpers/run-main.js';

const invalidDir = 'fixtures/packs/invalid';
const validDir = 'fixtures/packs/valid';
// Files starting with `_` are helpers other cases include, not cases of their own.
const cases = (dir: string) =>
  readdirSync(join(repoRoot, dir))
    .filter((f) => f.endsWith('.yaml') && !f.startsWith('_'))
    .sort()
    .map((f) => ({ name: f.replace(/\.yaml$/, ''), file: `${dir}/${f}` }));

async function lintLines(file: string): Promise<string[]> {
  const result = await lintPacks({ refs: [file], cwd: repoRoot });
  return result.diagnostics.map(formatDiagnostic);
}

describe('broken packs (fixtures/packs/invalid)', () => {
  it.for(cases(invalidDir))('$name', async ({ file }) => {
    const expected = readFileSync(join(repoRoot, file.replace(/\.yaml$/, '.expected.txt')), 'utf8').trimEnd().split('\n');
    expect(await lintLines(file)).toEqual(expected);
  });

  it('cover every kind of mistake the issue lists', async () => {
    const codes = new Set<string>();
    for (const { file } of cases(invalidDir)) for (const line of await lintLines(file)) codes.add(line.split(' ')[2]!);
    const required = [
      'pack/yaml-syntax', 'pack/unknown-key', 'pack/missing-key', 'pack/wrong-type', 'pack/unknown-cause', 'pack/unknown-stage',
      'pack/bad-id', 'pack/bad-duration', 'regex/syntax', 'regex/backreference', 'regex/lookbehind', 'regex/super-linear',
      'regex/empty-match', 'pack/duplicate-id', 'pack/unknown-placeholder', 'pack/no-markers', 'pack/missing-include',
      'pack/missing-fixture', 'pack/unlisted-stage', 'pack/no-provenance',
    ];
    expect(required.filter((code) => !codes.has(code))).toEqual([]);
    expect(cases(invalidDir).length).toBeGreaterThanOrEqual(15);
  });
});

describe('valid packs (fixtures/packs/valid)', () => {
  it.for(cases(validDir))('$name has no diagnostic', async ({ file }) => {
    expect(await lintLines(file)).toEqual([]);
  });
});

describe('the shipped packs', () => {
  it('lint clean: no errors and no warnings', async () => {
    const result = await lintPacks({ cwd: repoRoot });
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(result.files).toEqual(['rules/sglang.yaml', 'rules/common.yaml', 'rules/vllm.yaml']);
  });
});

describe('scalarOffset: a value index back to its column in the file', () => {
  it.for([
    { name: 'plain', yaml: 'p: abc(?<=x)', index: 3, expect: '(?<=x)' },
    { name: 'single-quoted', yaml: "p: 'abc(?<=x)'", index: 3, expect: '(?<=x)' },
    { name: "single-quoted with '' escapes", yaml: "p: 'can''t (?<=x)'", index: 6, expect: '(?<=x)' },
    { name: 'double-quoted with escapes', yaml: 'p: "a\\\\d \\"q\\" (?<=x)"', index: 8, expect: '(?<=x)' },
    { name: 'literal block', yaml: 'p: |-\n  first\n  ab(?<=x)', index: 8, expect: '(?<=x)' },
    { name: 'folded over two lines', yaml: "p: 'first\n  ab(?<=x)'", index: 8, expect: '(?<=x)' },
  ])('$name', ({ yaml, index, expect: text }) => {
    const document = parseDocument(yaml);
    const node = document.get('p', true) as Parameters<typeof scalarOffset>[1];
    expect(String((document.get('p') as string).slice(index))).toMatch(/^\(\?<=x\)/);
    expect(yaml.slice(scalarOffset(yaml, node, index))).toMatch(new RegExp(`^${text.replace(/[()?]/g, '\\$&')}`));
  });
});
