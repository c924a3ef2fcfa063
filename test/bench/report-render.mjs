/**
 * Bench row for `spinup report`: the size of a report of 100 starts (every shipped fixture
 * once, then from the top again) and how long headless Chromium takes to render it.
 *
 *   node test/bench/report-render.mjs [--starts 100] [--runs 5] [--out FILE]
 *
 * `npm run bench` (run.mjs) adds the same row when .tools/chromium is there.
 * Needs dist/ (`npm run build`) and .tools/chromium (`bash scripts/fetch-tools.sh`). Rendered
 * = from navigation start to the first frame after the load event (two animation frames), the
 * median of --runs fresh pages; load = the navigation's loadEventEnd.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { optionIn } from './generate-log.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'dist/cli/bin.js');
const CHROMIUM = join(ROOT, '.tools/chromium/chromium-headless-shell');

export const chromiumPresent = () => existsSync(CHROMIUM);

function fixtureLogs(starts) {
  const logs = [];
  for (const family of ['sglang', 'vllm']) {
    const dir = join(ROOT, 'fixtures', family);
    for (const name of readdirSync(dir).sort()) if (name.endsWith('.log')) logs.push(join(dir, name));
  }
  return Array.from({ length: starts }, (_, i) => logs[i % logs.length]);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Writes a report of `starts` fixtures and renders it `runs` times; returns the bench row. */
export async function reportRender({ starts = 100, runs = 5 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'spinup-report-bench-'));
  const file = join(dir, 'report.html');
  const began = process.hrtime.bigint();
  const made = spawnSync(process.execPath, [BIN, 'report', ...fixtureLogs(starts), '-o', file], { encoding: 'utf8' });
  const writeMs = Number(process.hrtime.bigint() - began) / 1e6;
  if (made.status !== 0) throw new Error(`spinup report failed: ${made.stderr}`);
  const bytes = statSync(file).size;

  const profile = mkdtempSync(join(tmpdir(), 'spinup-report-bench-profile-'));
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`];
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: 'shell', args: flags });
  const rendered = [];
  const loaded = [];
  try {
    for (let run = 0; run < runs; run++) {
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 900 });
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      const times = await page.evaluate(
        () =>
          new Promise((resolve) =>
            requestAnimationFrame(() =>
              requestAnimationFrame(() => {
                const nav = performance.getEntriesByType('navigation')[0];
                resolve({ renderedMs: performance.now(), loadMs: nav.loadEventEnd, lanes: document.querySelectorAll('.lane').length });
              }),
            ),
          ),
      );
      if (times.lanes !== starts) throw new Error(`expected ${starts} lanes, the page has ${times.lanes}`);
      rendered.push(times.renderedMs);
      loaded.push(times.loadMs);
      await page.close();
    }
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
  const row = {
    name: `spinup report of ${starts} starts`,
    bytes,
    write_ms: Math.round(writeMs),
    load_ms: Math.round(median(loaded)),
    rendered_ms: Math.round(median(rendered)),
    runs,
    chromium: execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).trim(),
  };
  rmSync(dir, { recursive: true, force: true });
  return row;
}

export function describeRow(row) {
  return `${row.name}: ${(row.bytes / 1024).toFixed(0)} kB (limit 2048 kB), written in ${row.write_ms} ms, loaded in ${row.load_ms} ms, rendered in ${row.rendered_ms} ms (median of ${row.runs} in ${row.chromium}, limit 1000 ms)`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = optionIn(args);
  const row = await reportRender({ starts: Number(option('--starts', 100)), runs: Number(option('--runs', 5)) });
  process.stdout.write(`${describeRow(row)}\n`);
  const out = option('--out', undefined);
  if (out) writeFileSync(out, `${JSON.stringify(row, null, 2)}\n`);
}
