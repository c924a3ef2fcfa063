#!/usr/bin/env node
// The catalog conformance suite: every entry of catalog/*.yaml replayed inside real starts
// (src/conformance/), rates by layer and kind against their thresholds, then every miss.
//   npm run build && node scripts/catalog-conformance.mjs [--json] [--layer vllm|sglang|platform]
// Exit: 0 every threshold met, 1 one is not.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { json: { type: 'boolean' }, layer: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('Usage: node scripts/catalog-conformance.mjs [--json] [--layer vllm|sglang|platform ...]\nReplays every catalog entry inside real starts and checks the rates against their thresholds.\nExit: 0 all thresholds met, 1 one is not. Needs a build (npm run build).');
  process.exit(0);
}
const load = (path) => import(join(root, 'dist', path));
const [{ readCatalog, CATALOG_LAYERS }, { loadHosts }, { runConformance, meetsThresholds, RATES, minimumOf }, { loadPacks }] = await Promise.all([
  load('conformance/catalog.js'),
  load('conformance/hosts.js'),
  load('conformance/conformance.js'),
  load('replay/load-families.js'),
]);
const layers = values.layer ?? CATALOG_LAYERS;
const packs = loadPacks();
const entries = readCatalog(join(root, 'catalog'), layers);
const hosts = loadHosts(join(root, 'fixtures'), packs);
const report = runConformance(entries, hosts, packs);
const ok = meetsThresholds(report);

if (values.json) {
  for (const miss of report.misses) console.log(JSON.stringify({ type: 'miss', ...miss }));
  for (const rate of report.rates) console.log(JSON.stringify({ type: 'rate', ...rate, min: minimumOf(rate.rate) }));
  console.log(JSON.stringify({ type: 'summary', entries: entries.length, ok }));
} else {
  const pct = (r) => `${((100 * r.passed) / r.total).toFixed(1)}%`;
  console.log(`catalog conformance: ${entries.length} entries, ${hosts.length} host starts\n`);
  console.log('rate                       layer     passed   rate     min');
  for (const def of RATES) {
    for (const r of report.rates.filter((x) => x.rate === def.id)) {
      const mark = r.passed >= def.min * r.total ? ' ' : '!';
      console.log(`${mark}${def.id.padEnd(26)} ${r.layer.padEnd(9)} ${`${r.passed}/${r.total}`.padStart(7)}  ${pct(r).padStart(6)}  ${`${Math.round(def.min * 100)}%`.padStart(5)}`);
    }
  }
  if (report.misses.length > 0) {
    console.log(`\nmisses (${report.misses.length}):`);
    for (const m of report.misses) console.log(`  ${m.rate.padEnd(24)} ${m.entry.padEnd(44)} ${m.variant.padEnd(11)} ${m.host.split('/')[0]}/${m.host.split('/')[1].split('-')[0]}  got ${m.got}`);
  }
  console.log(`\n${ok ? 'every threshold met' : 'some thresholds not met (marked !)'}`);
}
process.exitCode = ok ? 0 : 1;
