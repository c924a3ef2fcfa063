/** The pack loader: shipped packs load, and every broken pack is reported at file:line:col. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, PackError } from '../../src/pack/diagnostic.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-pack-'));

function problems(yaml: string, name = 'broken'): string[] {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  try {
    loadPack(file);
  } catch (error) {
    if (error instanceof PackError) return error.diagnostics.map((d) => formatDiagnostic({ ...d, file: `${name}.yaml` }));
    throw error;
  }
  return [];
}

const head = 'pack: toy\ndescription: toy\n';

describe('loadPack', () => {
  it.for(FAMILIES)('loads the shipped %s pack with its shared rules', (family) => {
    const pack = loadPack(family);
    expect(pack.name).toBe(family);
    expect(pack.files).toEqual([family, 'common']);
    expect(pack.failures.length).toBeGreaterThan(10);
  });

  it.for([
    { name: 'YAML syntax', yaml: `${head}failures:\n  - id: toy/x\n    pattern: 'a\n`, expected: /^broken\.yaml:6:1 error pack\/yaml-syntax Missing closing 'quote/ },
    { name: 'misspelt key', yaml: `${head}stages:\n  - stage: launch\n    markrs: []\n`, expected: /^broken\.yaml:5:5 error pack\/unknown-key Unknown key "markrs" in stages\[0\]\. Did you mean "markers"\?$/ },
    { name: 'unknown cause', yaml: `${head}failures:\n  - id: toy/x\n    pattern: 'x'\n    description: d\n    cause: gpu-oom\n    message: m\n    hint: h\n`, expected: /^broken\.yaml:7:12 error pack\/unknown-cause Unknown cause "gpu-oom" at failures\[0\]\.cause\. Did you mean "gpu_oom"\?$/ },
    { name: 'unknown stage', yaml: `${head}stages:\n  - stage: loading\n    markers: []\n`, expected: /^broken\.yaml:4:12 error pack\/unknown-stage / },
    { name: 'bad duration', yaml: `${head}timing:\n  settle: soon\n`, expected: /^broken\.yaml:4:11 error pack\/bad-duration / },
    { name: 'regex that does not compile', yaml: `${head}benign:\n  - id: toy/x\n    pattern: 'a(b'\n    description: d\n`, expected: /^broken\.yaml:5:14 error regex\/syntax Rule toy\/x: Invalid regular expression/ },
    { name: 'missing include', yaml: `${head}include: [nothere]\n`, expected: /^broken\.yaml:3:11 error pack\/missing-include Included pack "nothere" not found/ },
  ])('reports $name with its position', ({ yaml, expected }) => {
    const found = problems(yaml);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(expected);
  });

  it('reports a pack file that is not there', () => {
    expect(() => loadPack(join(dir, 'absent.yaml'))).toThrowError(/pack\/unreadable Cannot read the pack: no such file/);
  });
});
