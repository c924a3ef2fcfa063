/**
 * How far the packs generalise beyond their explicit rules. With the family packs' failure rules
 * that name a cause switched off (only wrappers that say a start is dead stay), the shared rules
 * and the cause-inference layer must still name the right cause for most failed fixtures whose
 * cause is a real one (not crash or unknown). With every cause-naming rule off, the inference
 * layer alone is measured on the failures it can see (an exception, a wrapper: a failed verdict).
 */
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompileOptions } from '../../src/core/compile-pack.js';
import { discoverFixtures } from '../../src/replay/discover.js';
import { loadPacks } from '../../src/replay/load-families.js';
import { runCase, type CaseResult } from '../../src/replay/run-case.js';

const root = join(import.meta.dirname, '../../fixtures');
const { pairs } = discoverFixtures([join(root, 'sglang'), join(root, 'vllm')]);
const THRESHOLD = 0.7;

function measure(without: CompileOptions['withoutCauseRules']): { judged: CaseResult[]; right: CaseResult[]; seen: CaseResult[] } {
  const packs = loadPacks(undefined, { withoutCauseRules: without });
  const cases = pairs.map((pair) => runCase(pair, { packs }));
  const judged = cases.filter(({ expected }) => expected.verdict.includes('failed') && expected.cause && !expected.cause.some((c) => c === 'crash' || c === 'unknown'));
  const right = judged.filter(({ verdict, expected }) => verdict.verdict === 'failed' && expected.cause!.includes(verdict.cause ?? 'unknown'));
  return { judged, right, seen: judged.filter((c) => c.verdict.verdict === 'failed') };
}

function report(label: string, m: ReturnType<typeof measure>): void {
  const pct = (a: number, b: number): string => `${a}/${b} = ${((100 * a) / b).toFixed(1)}%`;
  const missed = m.judged.filter((c) => !m.right.includes(c)).map((c) => `${basename(dirname(c.log))}/${basename(c.log, '.log')}: expected ${c.expected.cause!.join('|')}, got ${c.verdict.verdict} ${c.verdict.cause ?? ''}`);
  console.log(`${label}: ${pct(m.right.length, m.judged.length)} of failed fixtures with a real cause; ${pct(m.right.length, m.seen.length)} of those still judged failed\n  missed:\n  ${missed.join('\n  ')}`);
}

describe('generalisation beyond explicit rules', () => {
  it(`the family packs' cause rules off: right cause for at least ${THRESHOLD * 100}% of the failed fixtures with a real cause`, () => {
    const m = measure('family');
    report('family cause rules off (shared rules + inference)', m);
    expect(m.judged.length).toBeGreaterThan(50);
    expect(m.right.length / m.judged.length).toBeGreaterThanOrEqual(THRESHOLD);
  });

  it(`every cause rule off: the inference layer alone names the right cause for at least ${THRESHOLD * 100}% of the failures it sees`, () => {
    const m = measure('all');
    report('every cause rule off (inference alone)', m);
    expect(m.seen.length).toBeGreaterThan(40);
    expect(m.right.length / m.seen.length).toBeGreaterThanOrEqual(THRESHOLD);
  });

  it('switching rules off leaves only the wrappers that say a start is dead', () => {
    for (const pack of loadPacks(undefined, { withoutCauseRules: 'all' })) {
      expect(pack.frameFailures).toEqual([]);
      expect(pack.failures.filter((rule) => rule.role !== 'symptom' || !['crash', 'unknown'].includes(rule.cause)).map((r) => r.id)).toEqual([]);
    }
    for (const pack of loadPacks(undefined, { withoutCauseRules: 'family' })) {
      expect(pack.failures.filter((rule) => rule.pack === pack.name && (rule.role !== 'symptom' || !['crash', 'unknown'].includes(rule.cause))).map((r) => r.id)).toEqual([]);
      expect(pack.failures.some((rule) => rule.pack === 'common' && rule.role === 'cause')).toBe(true);
    }
  });
});
