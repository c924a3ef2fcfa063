/// <reference lib="dom" />
/**
 * End to end: headless Chromium opens the live page that `spinup run --listen` serves at `/`,
 * while a fixture server replays a real ready log; the page follows the real /v1/events stream
 * and flips to READY when the log says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PidTracker } from '../io/pid-tracker.js';
import { CHROMIUM_TOOL, launchChromium, watchedPage } from '../helpers/chromium.js';
import { missingToolMessage, requireTool } from '../helpers/outside-tool.js';
import { repoRoot } from '../helpers/run-main.js';
import { spinup } from '../helpers/spinup-process.js';

const tool = requireTool(CHROMIUM_TOOL);
const READY_LOG = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const REPLAY = join(repoRoot, 'test/fixture-servers/replay-log.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'spinup-live-page-'));
const tracker = new PidTracker();

afterAll(async () => {
  await tracker.sweep();
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(tool.skip)('the live page served by spinup run --listen', () => {
  it('follows the start in a real browser and flips to READY', async () => {
    if (!tool.path) throw new Error(missingToolMessage(CHROMIUM_TOOL));
    const run = spinup(['run', '--quiet', '--no-state', '--log', join(scratch, 'run.log'), '--listen', '127.0.0.1:0', '--', process.execPath, REPLAY, '--log', READY_LOG, '--speed', '10', '--max-gap-ms', '300', '--then', 'hang'], {});
    tracker.track(run.pid);
    const origin = (await run.waitFor(/status API on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const chromium = await launchChromium(tool.path);
    try {
      const { page, errors, refused } = await watchedPage(chromium.browser, [origin]);
      await page.goto(`${origin}/`, { waitUntil: 'load' });
      await page.waitForFunction(() => document.body.getAttribute('data-verdict') === 'ready', { timeout: 60_000 });
      const stages = await page.evaluate(() => [...document.querySelectorAll('.bar')].map((bar) => bar.getAttribute('data-stage')));
      expect(stages).toEqual(['launch', 'distributed_init', 'load_weights', 'kv_cache', 'cuda_graph', 'http_server', 'warmup']);
      expect(await page.$eval('.lane-head', (el) => el.textContent)).toMatch(/^READY at /);
      expect(errors).toEqual([]);
      expect(refused).toEqual([]);
      await page.close();
    } finally {
      await chromium.close();
      run.child.kill('SIGINT');
      await run.code;
    }
  }, 120_000);
});
