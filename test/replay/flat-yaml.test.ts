/**
 * The flat reading of expectation files (no YAML parser) must read every file exactly as the
 * `yaml` package does, and hand back to it every file it cannot: compared on the fixtures'
 * own expectations and on shapes at the edge of what it takes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseFlatYaml } from '../../src/replay/flat-yaml.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures');

function expectFiles(): string[] {
  return readdirSync(FIXTURES, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.expect.yaml'))
    .map((name) => join(FIXTURES, name));
}

describe('flat expectation reading', () => {
  it('reads every fixture expectation it takes as the yaml package does, and takes those of the flat shape', () => {
    const files = expectFiles();
    expect(files.length).toBeGreaterThan(100);
    let taken = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const flat = parseFlatYaml(text);
      if (flat !== undefined) {
        taken++;
        expect(flat, file).toEqual(parse(text));
      }
      // A file of only `key: one-line value` lines and `- item` lines must be taken.
      const simple = text.split('\n').every((line) => line === '' || /^[a-z_]+: [^'"#\s][^#]*$/.test(line) && !line.includes(': ', line.indexOf(': ') + 1) || /^- [a-z_]+$/.test(line) || /^[a-z_]+:$/.test(line));
      if (simple) expect(flat, file).toBeDefined();
    }
    expect(taken).toBeGreaterThan(files.length / 2);
  });

  const shapes: [string, string][] = [
    ['plain, quoted and listed values', "family: sglang\nverdict: failed\nstage: [cuda_graph, none]\ncause:\n- gpu_oom\n- crash\nevidence: 'it''s gone'\nsource: \"a 'quoted' word\"\n"],
    ['an indented block list', 'verdict: ready\ncause:\n  - crash\n  - gpu_oom\n'],
    ['a URL with colons', 'verdict: failed\nsource: https://github.com/x/y/issues/1 (see issue 3, a:b; \'quoted\')\n'],
    ['a whole number', 'verdict: failed\nnode: 3\n'],
    ['a duration', 'verdict: stalled\nthen_idle: 10m\n'],
    ['trailing spaces', 'verdict: failed   \nevidence: abc  \n'],
    ['an empty flow list', 'verdict: failed\nstage: []\n'],
  ];
  for (const [name, text] of shapes) {
    it(`takes ${name}, read as the yaml package reads it`, () => {
      const flat = parseFlatYaml(text);
      expect(flat).toBeDefined();
      expect(flat).toEqual(parse(text));
    });
  }

  const handedBack: [string, string][] = [
    ['a comment', '# who wrote this\nverdict: failed\n'],
    ['a comment after a value', 'verdict: failed # or stalled\n'],
    ['a continued plain value', 'verdict: failed\nnotes: a long\n  note\n'],
    ['a block scalar', 'verdict: failed\nnotes: |\n  text\n'],
    ['an escape in double quotes', 'verdict: failed\nevidence: "a\\tb"\n'],
    ['a typed value', 'verdict: failed\nevidence: null\n'],
    ['a float', 'verdict: failed\nevidence: 1.5\n'],
    ['a boolean', 'verdict: true\n'],
    ['a repeated key', 'verdict: failed\nverdict: ready\n'],
    ['a key with nothing under it', 'verdict: failed\ncause:\n'],
    ['a mapping inside a value', 'verdict: failed\nevidence: a: b\n'],
    ['a document marker', '---\nverdict: failed\n'],
    ['an empty file', ''],
    ['a quoted word in a flow list', "verdict: failed\nstage: ['load_weights']\n"],
    ['a lone quote inside single quotes', "verdict: failed\nevidence: 'a'b'\n"],
    ['an unknown capitalised key', 'Verdict: failed\n'],
    ['Windows line ends', 'verdict: failed\r\n'],
    ['a tab', 'verdict:\tfailed\n'],
    ['__proto__', '__proto__: x\nverdict: failed\n'],
  ];
  for (const [name, text] of handedBack) {
    it(`hands ${name} back to the yaml package`, () => {
      expect(parseFlatYaml(text)).toBeUndefined();
    });
  }
});
