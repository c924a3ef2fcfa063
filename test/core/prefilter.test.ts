/**
 * The literal prefilter and the first-unit prefix filter must never change what matches: on
 * every frame of every fixture, filtered matching equals running every rule.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePack, type CompileOptions } from '../../src/core/compile-pack.js';
import { guardFrames } from '../../src/core/line-guard.js';
import { matchFrame, matchFrameUnfiltered, type FrameMatch } from '../../src/core/match-frame.js';
import type { CompiledPack, PackSource } from '../../src/core/pack-types.js';
import { parseFrame } from '../../src/core/parse-line.js';
import { RulePrefilter } from '../../src/core/prefilter.js';
import { emptyMatch, LINE_KINDS, lineKindIndex } from '../../src/core/rule-kinds.js';
import { firstUnits } from '../../src/pack/first-units.js';
import { requiredLiterals } from '../../src/pack/literals.js';
import { FAMILIES, loadPack, readPackWithIncludes, resolvePackRef } from '../../src/pack/load-pack.js';
import { buildPrecompiledTable } from '../../src/pack/precompile-packs.js';
import { patternAnalysis } from '../../src/pack/pattern-analysis.js';
import { precompiledSources } from '../../src/pack/precompiled-packs.js';
import { classifyText } from '../../src/replay/run-case.js';

const analysis: CompileOptions = {
  literalsOf: (pattern, ignoreCase) => requiredLiterals(pattern, { ignoreCase }),
  firstUnitsOf: (pattern, ignoreCase) => firstUnits(pattern, { ignoreCase }),
};

function sourcesOf(family: string): PackSource[] {
  return readPackWithIncludes(resolvePackRef(family)).files.map((f) => f.data);
}

const filtered = new Map(FAMILIES.map((f) => [f, compilePack(sourcesOf(f), analysis)]));
const plain = new Map(FAMILIES.map((f) => [f, compilePack(sourcesOf(f))]));

const root = fileURLToPath(new URL('../../fixtures', import.meta.url));
const logs = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.log'))
  .sort();
const text = (log: string): string => readFileSync(join(root, log), 'utf8');

/** A match as plain data: which rule of each kind, with its groups. */
function summary(match: FrameMatch): unknown {
  const hit = (h: { rule: { id: string }; groups: object } | undefined) => (h ? [h.rule.id, h.groups] : null);
  return {
    benign: hit(match.benign),
    failures: match.failures.map(hit),
    marker: hit(match.marker),
    progress: match.progress ? [hit(match.progress), match.progress.key, match.progress.current, match.progress.total] : null,
    ready: hit(match.ready),
    heartbeat: hit(match.heartbeat),
    confirmsReady: match.confirmsReady,
  };
}

describe('the prefilter is exact on every fixture frame', () => {
  it('the fixtures are there and the prefilter knows the literals of almost every rule', () => {
    expect(logs.length).toBeGreaterThan(80);
    for (const pack of filtered.values()) {
      expect(pack.prefilter.literalCount).toBeGreaterThan(100);
      expect(pack.prefilter.alwaysRun).toBeLessThanOrEqual(3);
      expect(pack.prefixes.filter((p) => p.firstUnits !== undefined).length).toBeGreaterThan(pack.prefixes.length / 2);
    }
  });

  it.for(FAMILIES)('%s pack: prefix peeling and rule matching equal the unfiltered run', (family) => {
    const fast = filtered.get(family)!;
    const slow = plain.get(family)!;
    let frames = 0;
    let hits = 0;
    for (const log of logs) {
      for (const line of text(log).split('\n')) {
        for (const guarded of guardFrames(line)) {
          const frame = parseFrame(guarded, fast.prefixes);
          const reference = parseFrame(guarded, slow.prefixes);
          if (JSON.stringify(frame) !== JSON.stringify(reference)) expect(frame, `${log}: ${guarded}`).toEqual(reference);
          const got = summary(matchFrame(fast, frame));
          const want = summary(matchFrameUnfiltered(fast, frame));
          if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, `${log}: ${guarded}`).toEqual(want);
          frames++;
          if (JSON.stringify(want) !== JSON.stringify(summary(emptyMatch(frame)))) hits++;
        }
      }
    }
    expect(frames).toBeGreaterThan(10_000);
    expect(hits).toBeGreaterThan(1_000);
  });

  it.for(logs)('%s: the same verdict and events with and without the prefilter', (log) => {
    const content = readFileSync(join(root, log), 'latin1') === '' ? '' : text(log);
    const run = (packs: Map<string, CompiledPack>) => classifyText(content, { packs: [...packs.values()], thenIdleMs: 3 * 3_600_000 });
    const fast = run(filtered);
    const slow = run(plain);
    expect(JSON.stringify(fast.events)).toBe(JSON.stringify(slow.events));
    expect(fast.verdict).toEqual(slow.verdict);
  });
});

describe('RulePrefilter', () => {
  const rule = (id: string, pattern: string, ignoreCase = false) => ({ id, kind: 'benign' as const, regex: new RegExp(pattern, ignoreCase ? 'i' : ''), description: id, pack: 't', order: 0 });
  // The benign kind's list holds the rules; every other line kind's is empty.
  const BENIGN = lineKindIndex('benign');
  const benign = [rule('t/cuda', 'CUDA error'), rule('t/any', '^\\d+%'), rule('t/oom', 'out OF memory', true), rule('t/nccl', 'NCCL (?:error|WARN)')];
  const gates = new Map<RegExp, string[] | null>([
    [benign[0]!.regex, ['CUDA error']],
    [benign[1]!.regex, null],
    [benign[2]!.regex, ['out of memory']],
    [benign[3]!.regex, ['NCCL error', 'NCCL WARN']],
  ]);
  const lists = LINE_KINDS.map((_, index) => (index === BENIGN ? benign : []));
  const prefilter = new RulePrefilter(lists, (regex) => ({ literals: gates.get(regex) ?? null, ignoreCase: regex.ignoreCase }));
  const ids = (text: string) => (prefilter.select(text).lists[BENIGN] as typeof benign).map((r) => r.id);

  it.for<[string, string[]]>([
    ['nothing to see', ['t/any']],
    ['a CUDA error here', ['t/cuda', 't/any']],
    ['CUDA OUT OF MEMORY', ['t/any', 't/oom']],
    ['NCCL WARN and a CUDA error', ['t/cuda', 't/any', 't/nccl']],
    ['', ['t/any']],
  ])('%j selects %j, in pack order', ([text, expected]) => {
    expect(ids(text)).toEqual(expected);
  });

  it('hands out one shared rule set for frames without any literal', () => {
    expect(prefilter.select('quiet line')).toBe(prefilter.select('another quiet line'));
    expect(prefilter.alwaysRun).toBe(1);
    expect(prefilter.literalCount).toBe(4);
  });
});

describe('the build-time table', () => {
  const table = buildPrecompiledTable();

  it('holds every shipped pack file', () => {
    expect(Object.keys(table.packs).sort()).toEqual(['common.yaml', 'sglang.yaml', 'vllm.yaml']);
  });

  it.for(FAMILIES)('%s: the pack compiled from the table equals the pack read from YAML', (family) => {
    const sources = precompiledSources(resolvePackRef(family), table);
    expect(sources).toEqual(sourcesOf(family));
    const fromTable = compilePack(sources!, patternAnalysis(table));
    const fromYaml = compilePack(sourcesOf(family), analysis);
    expect(fromTable.prefixes.map((p) => p.firstUnits)).toEqual(fromYaml.prefixes.map((p) => p.firstUnits));
    expect(fromTable.prefilter.literalCount).toBe(fromYaml.prefilter.literalCount);
    expect(fromTable.allRules.map((r) => r.id)).toEqual(loadPack(family).allRules.map((r) => r.id));
  });

  it('is not used for a file whose text changed since the build', () => {
    const edited = { ...table, packs: { ...table.packs, 'common.yaml': { ...table.packs['common.yaml']!, text: 'pack: common\n' } } };
    expect(precompiledSources(resolvePackRef('sglang'), edited)).toBeUndefined();
  });
});
