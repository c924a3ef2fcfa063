/** The frame-watching replay behind explain and --coverage, and the coverage report itself. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coverageReport, fixtureCoverage, looksAlarming, measureCoverage, type RuleInfo } from '../../src/replay/coverage.js';
import { discoverFixtures } from '../../src/replay/discover.js';
import { traceLog } from '../../src/replay/explain-driver.js';
import { loadPacks } from '../../src/replay/load-families.js';
import { runCase } from '../../src/replay/run-case.js';
import { repoRoot } from '../helpers/run-main.js';
import { sg, sglangHealthyStart } from '../helpers/log-lines.js';

const packs = loadPacks();
const { pairs } = discoverFixtures([join(repoRoot, 'fixtures/sglang'), join(repoRoot, 'fixtures/vllm')]);

describe('traceLog', () => {
  it.for(pairs.map((pair) => ({ ...pair, name: pair.log.slice(repoRoot.length + 10) })))('gives replay\'s verdict for $name', (pair) => {
    const replayed = runCase(pair, { packs });
    const trace = traceLog(readFileSync(pair.log, 'utf8'), { packs, family: replayed.expected.family, thenIdleMs: replayed.expected.thenIdleMs });
    expect(trace.family).toBe(replayed.family);
    expect(trace.verdict).toEqual(replayed.verdict);
  });

  it('keeps one record per physical line, with the frames of tqdm bars', () => {
    const text = ['header', 'Loading safetensors checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]\rLoading safetensors checkpoint shards:  50% Completed | 1/2 [00:03<00:03,  3.0s/it]', sg('12:00:00', "server_args=ServerArgs(model_path='x')")].join('\n');
    const trace = traceLog(text, { packs });
    expect(trace.family).toBe('sglang');
    expect(trace.lines.map((l) => l.frames.length)).toEqual([1, 2, 1]);
    expect(trace.lines[1]!.frames[1]!.match.progress?.current).toBe(1);
  });
});

describe('fixtureCoverage', () => {
  it('counts the rules that matched lines the classifier read, and the alarming lines nobody claimed', () => {
    const lines = [
      ...sglangHealthyStart(),
      sg('12:00:35', 'ERROR something nobody has a rule for failed', 'TP0'),
      sg('12:00:35', 'ERROR something nobody has a rule for failed', 'TP1'),
      sg('12:00:35', 'The server is fired up and ready to roll!'),
    ];
    const coverage = fixtureCoverage('toy/healthy', traceLog(lines.join('\n'), { packs, family: 'sglang' }));
    for (const id of ['sglang/server-args', 'sglang/dist-init-begin', 'common/checkpoint-shards', 'sglang/capture-begin', 'sglang/fired-up', 'sglang/prefix-timestamp-rank', 'common/prefix-uvicorn-level', 'sglang/detect-server-args']) {
      expect(coverage.exercised, id).toContain(id);
    }
    expect(coverage.exercised).not.toContain('common/gpu-out-of-memory');
    expect(coverage.unclaimed).toEqual([{ lineNo: 21, text: lines[20], count: 2 }]);
  });

  it.for([
    { body: 'Something failed to start', level: undefined, role: 'outside', alarming: true },
    { body: 'ValueError: bad value', level: undefined, role: 'outside', alarming: true },
    { body: 'anything at all', level: 'ERROR', role: 'outside', alarming: true },
    { body: 'disable_error_check=False', level: 'INFO', role: 'outside', alarming: false },
    { body: 'Traceback (most recent call last):', level: undefined, role: 'start', alarming: false },
    { body: 'frame #3: c10::Error::Error(...) + 0x96', level: undefined, role: 'outside', alarming: false },
    { body: 'Load weight end. mem usage=7.9 GB', level: 'INFO', role: 'outside', alarming: false },
  ])('looksAlarming($body) = $alarming', ({ body, level, role, alarming }) => {
    expect(looksAlarming(body, level, role)).toBe(alarming);
  });
});

describe('coverageReport', () => {
  const rule = (id: string, extra: Partial<RuleInfo> = {}): RuleInfo => ({ id, kind: 'failure', where: `p.yaml:1:1`, ...extra });
  const fixture = (name: string, ids: string[]) => ({ name, exercised: new Set(ids), unclaimed: [] });

  it('sorts rules into exercised, untested with a reason, never, and stale provenance', () => {
    const rules = [
      rule('p/hit'),
      rule('p/gap'),
      rule('p/explained', { untested: 'no log yet' }),
      rule('p/stale-untested', { untested: 'no log yet' }),
      rule('p/wrong-fixture', { fixtures: ['d/a'] }),
    ];
    const report = coverageReport(rules, [fixture('d/a', ['p/hit', 'p/stale-untested']), fixture('d/b', ['p/wrong-fixture'])]);
    expect(report.exercised.map((r) => r.id)).toEqual(['p/hit', 'p/stale-untested', 'p/wrong-fixture']);
    expect(report.never.map((r) => r.id)).toEqual(['p/gap']);
    expect(report.untested.map((r) => r.id)).toEqual(['p/explained']);
    expect(report.staleUntested.map((r) => r.id)).toEqual(['p/stale-untested']);
    expect(report.staleFixtures).toEqual([{ rule: rules[4], fixtures: ['d/a'] }]);
  });

  it('the shipped packs: every rule is exercised by a fixture or explains why not, and their provenance is true', () => {
    // The inference tables are exercised by the replay with the cause-naming rules off.
    const inferencePacks = loadPacks(undefined, { withoutCauseRules: 'all' });
    const report = measureCoverage({ pairs, packs, inferencePacks, cwd: repoRoot });
    expect(report.never.map((r) => `${r.where} ${r.id}`)).toEqual([]);
    expect(report.exercised.filter((r) => r.kind === 'inference').length).toBeGreaterThan(15);
    expect(report.staleUntested.map((r) => r.id)).toEqual([]);
    expect(report.staleFixtures.map((s) => s.rule.id)).toEqual([]);
    expect(report.exercised.length + report.untested.length).toBe(report.rules.length);
    expect(report.fixtures).toHaveLength(pairs.length);
  });
});
