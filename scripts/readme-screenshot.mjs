/**
 * Makes docs/report.png, the README's picture of `spinup report`: three real fixtures (ready after
 * a slow cuda_graph, failed in cuda_graph after a 10-minute load, stalled in distributed_init)
 * in headless Chromium, the first one's cuda_graph bar clicked open. Needs dist/ and .tools/chromium (bash scripts/fetch-tools.sh).
 *
 *   node scripts/readme-screenshot.mjs
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = ['sglang/30-multinode-2x8-h800-dsr1-tp16-ready-slow-cudagraph.log', 'sglang/05-rocm-kimi-k25-tp8-slowload-cudagraph-fail.log', 'sglang/10-tp2-stuck-nccl-init-hang.log'];
const dir = mkdtempSync(join(tmpdir(), 'spinup-readme-'));
const html = join(dir, 'report.html');
const made = spawnSync(process.execPath, [join(ROOT, 'dist/cli/bin.js'), 'report', ...FIXTURES.map((f) => `fixtures/${f}`), '-o', html], { cwd: ROOT, encoding: 'utf8' });
if (made.status !== 0) throw new Error(made.stderr);
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${join(dir, 'profile')}`];
const browser = await puppeteer.launch({ executablePath: join(ROOT, '.tools/chromium/chromium-headless-shell'), headless: 'shell', args: flags });
const page = await browser.newPage();
await page.setViewport({ width: 900, height: 600 });
await page.goto(`file://${html}`, { waitUntil: 'load' });
await page.click('.bar[data-stage="cuda_graph"]');
const target = join(ROOT, 'docs/report.png');
// From the time axis down: the heading and the legend are text the README says anyway.
const top = await page.$eval('.axis', (axis) => axis.getBoundingClientRect().top + window.scrollY);
const height = await page.evaluate(() => document.documentElement.scrollHeight);
const shot = await page.screenshot({ clip: { x: 0, y: top - 8, width: 900, height: height - top + 8 }, captureBeyondViewport: true });
writeFileSync(target, await fewerColours(browser, shot));
await browser.close();
rmSync(dir, { recursive: true, force: true });
console.log(`wrote ${target} (${Math.round(statSync(target).size / 1024)} kB)`);

/**
 * Antialiased text and hatching make a screenshot heavy; rounding each channel to 13 levels
 * (in the browser's own canvas, re-encoded as PNG) keeps it legible at about half the size.
 */
async function fewerColours(browser, png) {
  const page = await browser.newPage();
  const base64 = await page.evaluate(async (source) => {
    const image = new Image();
    image.src = `data:image/png;base64,${source}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < pixels.data.length; i++) if (i % 4 !== 3) pixels.data[i] = Math.min(255, Math.round(pixels.data[i] / 21) * 21);
    context.putImageData(pixels, 0, 0);
    return canvas.toDataURL('image/png').split(',')[1];
  }, Buffer.from(png).toString('base64'));
  await page.close();
  return Buffer.from(base64, 'base64');
}
