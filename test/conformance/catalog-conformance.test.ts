/**
 * The catalog as the test oracle: every message the servers and the layers under them can print
 * (catalog/*.yaml), replayed inside real starts (src/conformance), must meet the thresholds
 * `scripts/catalog-conformance.mjs` prints. Plus what the suite itself must get right to be a
 * fair judge: real hosts, cases of the right shape, a miss that is a miss.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCatalog, type CatalogEntry } from '../../src/conformance/catalog.js';
import { casesFor } from '../../src/conformance/cases.js';
import { meetsThresholds, minimumOf, RATES, runConformance, type ConformanceReport } from '../../src/conformance/conformance.js';
import { loadHosts, type Host } from '../../src/conformance/hosts.js';
import { shippedPack } from '../helpers/classify.js';

const root = join(import.meta.dirname, '..', '..');
const packs = [shippedPack('sglang'), shippedPack('vllm')];
let entries: CatalogEntry[];
let hosts: Host[];
let report: ConformanceReport;

beforeAll(() => {
  entries = readCatalog(join(root, 'catalog'));
  hosts = loadHosts(join(root, 'fixtures'), packs);
  report = runConformance(entries, hosts, packs);
}, 60_000);

describe('catalog conformance', () => {
  it('reads every entry of the three files', () => {
    expect(entries.length).toBeGreaterThanOrEqual(1299);
    expect(new Set(entries.map((e) => e.layer))).toEqual(new Set(['vllm', 'sglang', 'platform']));
  });

  it('builds its cases in real READY starts, three eras of each family', () => {
    for (const host of hosts) expect(host.baseline.verdict).toBe('ready');
    expect(hosts.filter((h) => h.style.family === 'vllm').map((h) => h.style.name)).toEqual(['vllm-tagged', 'vllm-v1', 'vllm-v0']);
    expect(hosts.filter((h) => h.style.family === 'sglang')).toHaveLength(3);
  });

  it.for(RATES.flatMap((rate) => ['vllm', 'sglang', 'platform'].map((layer) => ({ rate: rate.id, layer }))))('$rate in $layer meets its threshold', ({ rate, layer }) => {
    const r = report.rates.find((x) => x.rate === rate && x.layer === layer);
    if (r === undefined) return; // a file with no entry of this kind
    const misses = report.misses.filter((m) => m.rate === rate && m.layer === layer).map((m) => `${m.entry} (${m.variant}): ${m.got}`);
    expect(r.passed / r.total, misses.join('\n')).toBeGreaterThanOrEqual(minimumOf(rate));
  });

  it('holds every threshold together (what the script exits on)', () => {
    expect(meetsThresholds(report)).toBe(true);
  });

  it('a survivable message stays survivable even where it quotes fatal words', () => {
    const quoting = entries.filter((e) => e.kind === 'survivable' && /error|failed|out of memory/i.test(e.example));
    expect(quoting.length).toBeGreaterThan(20);
    expect(report.misses.filter((m) => m.rate === 'survivable-unchanged')).toEqual([]);
  });

  it('a fatal case puts the example last in a traceback whose source line quotes it', () => {
    const entry = entries.find((e) => e.kind === 'fatal' && e.printedAs === 'exception ValueError' && e.stage === 'kv_cache')!;
    const [plain, wrapped] = casesFor(entry, hosts, 0);
    const lines = plain!.text.trimEnd().split('\n');
    expect(lines.at(-1)).toContain(entry.example.replace(/^\s+/, ''));
    expect(lines.at(-2)).toMatch(/^.* {4}raise ValueError\(f"/);
    expect(lines.at(-2)).toContain(entry.literal.replace(/"/g, "'"));
    expect(wrapped!.text.length).toBeGreaterThan(plain!.text.length);
  });

  it('a case that fails its check is counted as a miss (the judge can say no)', () => {
    const entry = entries.find((e) => e.kind === 'fatal' && e.causes.length === 1 && e.causes[0] === 'bad_argument')!;
    const wrong: CatalogEntry = { ...entry, causes: ['gpu_oom'] };
    const fresh = runConformance([wrong], hosts, packs);
    expect(fresh.misses.map((m) => m.rate)).toContain('fatal-cause');
    expect(meetsThresholds(fresh)).toBe(false);
  });
});
