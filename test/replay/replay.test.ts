/** Expectation files, the comparison rules of the design contract, and fixture discovery. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/events.js';
import { compare } from '../../src/replay/compare.js';
import { discoverFixtures } from '../../src/replay/discover.js';
import { readExpectation } from '../../src/replay/expectation.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-replay-'));

function expectation(yaml: string) {
  const file = join(dir, `e${Math.random().toString(36).slice(2)}.expect.yaml`);
  writeFileSync(file, yaml);
  return readExpectation(file);
}

const failed: Verdict = {
  verdict: 'failed',
  stage: 'load_weights',
  cause: 'gpu_oom',
  at: 0,
  elapsedMs: 0,
  reason: '',
  evidence: [{ lineNo: 3, at: 0, text: '\u001b[0mtorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB' }],
  symptoms: [],
};

describe('expectation files', () => {
  it('reads single values and lists', () => {
    const e = expectation("verdict: [stalled, failed]\nstage: load_weights\ncause: [gpu_oom, crash]\nthen_idle: 3h\nevidence: 'x'\nsource: s\nnotes: n\n");
    expect(e).toMatchObject({ verdict: ['stalled', 'failed'], stage: ['load_weights'], cause: ['gpu_oom', 'crash'], thenIdleMs: 10_800_000, evidence: 'x' });
  });

  it.for([
    { name: 'an unknown key', yaml: 'verdict: ready\nverdik: ready\n', error: /unknown key "verdik"/ },
    { name: 'an unknown verdict', yaml: 'verdict: up\n', error: /unknown verdict "up"/ },
    { name: 'an unknown stage', yaml: 'verdict: ready\nstage: serving\n', error: /unknown stage "serving"/ },
    { name: 'an unknown cause', yaml: 'verdict: failed\ncause: oom\n', error: /unknown cause "oom"/ },
    { name: 'no verdict', yaml: 'stage: ready\n', error: /missing "verdict"/ },
    { name: 'a bad then_idle', yaml: 'verdict: stalled\nthen_idle: later\n', error: /unparsable then_idle/ },
  ])('rejects $name', ({ yaml, error }) => {
    expect(() => expectation(yaml)).toThrowError(error);
  });
});

describe('compare', () => {
  it.for([
    { name: 'all matching', yaml: "verdict: failed\nstage: load_weights\ncause: gpu_oom\nevidence: 'CUDA out of memory'\n", fields: [] },
    { name: 'any member of a list is right', yaml: 'verdict: [stalled, failed]\nstage: [none, load_weights]\ncause: [crash, gpu_oom]\n', fields: [] },
    { name: 'wrong verdict', yaml: 'verdict: ready\n', fields: ['verdict'] },
    { name: 'wrong stage', yaml: 'verdict: failed\nstage: cuda_graph\n', fields: ['stage'] },
    { name: 'wrong cause', yaml: 'verdict: failed\ncause: nccl_timeout\n', fields: ['cause'] },
    { name: 'evidence not in any root-cause line', yaml: "verdict: failed\nevidence: 'Killed'\n", fields: ['evidence'] },
  ])('$name', ({ yaml, fields }) => {
    expect(compare(expectation(yaml), failed).map((m) => m.field)).toEqual(fields);
  });
});

describe('discoverFixtures', () => {
  const root = join(dir, 'fx');
  mkdirSync(join(root, 'a'), { recursive: true });
  writeFileSync(join(root, 'a', 'one.log'), 'x\n');
  writeFileSync(join(root, 'a', 'one.expect.yaml'), 'verdict: incomplete\n');
  writeFileSync(join(root, 'a', 'stray.log'), 'no expectation beside it\n');
  writeFileSync(join(root, 'two.log'), 'x\n');
  writeFileSync(join(root, 'two.expect.yaml'), 'verdict: incomplete\n');

  it('finds pairs in directories, files and globs, sorted and de-duplicated', () => {
    const byDir = discoverFixtures([root]);
    expect(byDir.pairs.map((p) => p.log)).toEqual([join(root, 'a', 'one.log'), join(root, 'two.log')]);
    const mixed = discoverFixtures([join(root, 'two.log'), `${root}/**/*.log`]);
    expect(mixed.pairs).toHaveLength(2);
  });

  it('names what it could not find', () => {
    expect(discoverFixtures([join(root, 'nope'), `${root}/*.nothing`]).missing).toHaveLength(2);
  });
});
