/** Test helper: a fixture replayed as explain and report replay it (family and then_idle from its expectation). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';
import { traceLog, type LogTrace } from '../../src/replay/explain-driver.js';
import { readExpectation } from '../../src/replay/expectation.js';
import { repoRoot } from '../helpers/run-main.js';

export const READY = 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log';
export const FAILED = 'fixtures/sglang/05-rocm-kimi-k25-tp8-slowload-cudagraph-fail.log';
export const STALLED = 'fixtures/sglang/15-tp2-hang-cudagraph-flashinfer-jit.log';
export const AFTER_READY = 'fixtures/sglang/21-a40-dsv2lite-ready-then-triton-outofresources.log';

const packs = FAMILIES.map((f) => loadPack(f));

export function fixtureTrace(file: string): LogTrace {
  const path = join(repoRoot, file);
  const expected = readExpectation(path.replace(/\.log$/, '.expect.yaml'));
  return traceLog(readFileSync(path, 'utf8'), { packs, family: expected.family, thenIdleMs: expected.thenIdleMs });
}
