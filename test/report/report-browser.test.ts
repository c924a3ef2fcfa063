/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The HTML report in a real browser (headless Chromium): opened by file://, its DOM checked
 * against the replay, no console error, no request anywhere; screenshots of a ready, a failed
 * and a stalled fixture go to test-output/ for a person to look at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageRows } from '../../src/cli/format/explain-text.js';
import { CHROMIUM_TOOL, launchChromium, watchedPage, type BrowserSession } from '../helpers/chromium.js';
import { missingToolMessage, requireTool } from '../helpers/outside-tool.js';
import { repoRoot, runMain } from '../helpers/run-main.js';
import { AFTER_READY, FAILED, fixtureTrace, READY, STALLED } from './fixture-trace.js';

const tool = requireTool(CHROMIUM_TOOL);
const outputDir = join(repoRoot, 'test-output');

async function writeReport(name: string, files: string[], extra: string[] = []): Promise<string> {
  mkdirSync(outputDir, { recursive: true });
  const target = join(outputDir, `${name}.html`);
  const run = await runMain(['report', ...files.map((f) => join(repoRoot, f)), ...extra, '-o', target, '--force']);
  expect(run.code, run.stderr).toBe(0);
  return target;
}

/** Where a log time falls on screen, in the lane's track: the drawing maps 0..span to 10..990 of 1000. */
function pixelOf(ms: number, track: { left: number; width: number; spanMs: number }): number {
  return track.left + ((10 + (ms / track.spanMs) * 980) / 1000) * track.width;
}

describe.skipIf(tool.skip)('the HTML report in headless Chromium', { timeout: 60_000 }, () => {
  let chromium: BrowserSession;

  beforeAll(async () => {
    // Under CI a missing Chromium fails the first test below (and the rest with it), never skips.
    if (tool.path) chromium = await launchChromium(tool.path);
  }, 90_000);
  afterAll(async () => {
    await chromium?.close();
  });

  it('has headless Chromium to drive', () => {
    expect(tool.path, missingToolMessage(CHROMIUM_TOOL)).toBeDefined();
  });

  it('draws a lane per start and a bar per stage with the replay\'s durations, with no error and no request', async () => {
    const files = [READY, FAILED, STALLED, AFTER_READY];
    const target = await writeReport('report-four-starts', files);
    const { page, errors, refused } = await watchedPage(chromium.browser);
    await page.goto(`file://${target}`, { waitUntil: 'load' });
    const lanes = await page.$$eval('section.start', (sections) =>
      sections.map((section) => ({
        verdict: section.getAttribute('data-verdict'),
        bars: [...section.querySelectorAll('.bar')].map((bar) => ({
          stage: bar.getAttribute('data-stage'),
          ms: Number(bar.getAttribute('data-end-ms')) - Number(bar.getAttribute('data-start-ms')),
        })),
        chips: [...section.querySelectorAll('.chip')].map((chip) => chip.textContent!.trim()),
      })),
    );
    expect(lanes).toHaveLength(files.length);
    files.forEach((file, index) => {
      const trace = fixtureTrace(file);
      const rows = stageRows(trace);
      expect(lanes[index]!.verdict).toBe(trace.verdict.verdict);
      expect(lanes[index]!.bars).toEqual(rows.map((r) => ({ stage: r.stage, ms: r.durationMs })));
      // Every stage's duration is written out in words, whatever the bar's width.
      expect(lanes[index]!.chips).toHaveLength(rows.length);
    });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('puts the failure marker at the failure\'s time and shows the root-cause line', async () => {
    const trace = fixtureTrace(FAILED);
    const target = await writeReport('report-failed', [FAILED]);
    const { page, errors, refused } = await watchedPage(chromium.browser);
    await page.goto(`file://${target}`, { waitUntil: 'load' });
    const found = await page.$eval('.lane', (lane) => {
      const track = lane.querySelector('svg.track')!;
      const box = track.getBoundingClientRect();
      const marker = lane.querySelector('.verdict-failed line')!.getBoundingClientRect();
      return {
        track: { left: box.left, width: box.width, spanMs: Number(track.getAttribute('data-span-ms')) },
        markerX: marker.left + marker.width / 2,
        atMs: Number(lane.querySelector('.verdict-failed')!.getAttribute('data-at-ms')),
        head: lane.querySelector('.lane-head')!.textContent,
        detail: lane.querySelector('.verdict-detail')!.textContent,
      };
    });
    expect(found.atMs).toBe(trace.verdict.at);
    expect(Math.abs(found.markerX - pixelOf(trace.verdict.at, found.track))).toBeLessThan(2);
    expect(found.head).toMatch(new RegExp(`FAILED ${trace.verdict.cause} at 10m50s in ${trace.verdict.stage}`));
    expect(found.detail).toContain(`root cause: line ${trace.verdict.evidence[0]!.lineNo}: ${trace.verdict.evidence[0]!.text}`);
    expect(found.detail).toContain(`rule ${trace.verdict.rule}`);
    await page.screenshot({ path: join(outputDir, 'report-failed.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('shades the stall\'s silent stretch and marks its budget', async () => {
    const trace = fixtureTrace(STALLED);
    const target = await writeReport('report-stalled', [STALLED]);
    const { page, errors, refused } = await watchedPage(chromium.browser);
    await page.goto(`file://${target}`, { waitUntil: 'load' });
    const found = await page.$eval('.lane', (lane) => {
      const track = lane.querySelector('svg.track')!;
      const box = track.getBoundingClientRect();
      const silence = lane.querySelector('rect.silence')!;
      const shade = silence.getBoundingClientRect();
      const budget = lane.querySelector('line.budget')!.getBoundingClientRect();
      return {
        track: { left: box.left, width: box.width, spanMs: Number(track.getAttribute('data-span-ms')) },
        shade: { left: shade.left, right: shade.right },
        budgetX: budget.left + budget.width / 2,
        budgetMs: Number(lane.querySelector('line.budget')!.getAttribute('data-budget-ms')),
      };
    });
    const from = trace.verdict.at - trace.verdict.silentMs!;
    expect(Math.abs(found.shade.left - pixelOf(from, found.track))).toBeLessThan(2);
    expect(Math.abs(found.shade.right - pixelOf(trace.verdict.at, found.track))).toBeLessThan(2);
    expect(found.budgetMs).toBe(trace.verdict.budget!.ms);
    expect(Math.abs(found.budgetX - pixelOf(from + trace.verdict.budget!.ms, found.track))).toBeLessThan(2);
    await page.screenshot({ path: join(outputDir, 'report-stalled.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('shows the lines that opened and closed a bar when it is clicked', async () => {
    const trace = fixtureTrace(READY);
    const weights = stageRows(trace).findIndex((r) => r.stage === 'load_weights');
    const target = await writeReport('report-ready', [READY]);
    const { page, errors, refused } = await watchedPage(chromium.browser);
    await page.goto(`file://${target}`, { waitUntil: 'load' });
    const detailId = await page.$eval('.bar[data-stage="load_weights"]', (bar) => bar.getAttribute('data-detail')!);
    expect(await page.$eval(`#${detailId}`, (el) => (el as HTMLElement).hidden)).toBe(true);
    await page.click('.bar[data-stage="load_weights"]');
    const detail = await page.$eval(`#${detailId}`, (el) => ({ hidden: (el as HTMLElement).hidden, text: el.textContent }));
    expect(detail.hidden).toBe(false);
    const opened = trace.lines[stageRows(trace)[weights]!.lineNo - 1]!;
    const closed = trace.lines[stageRows(trace)[weights + 1]!.lineNo - 1]!;
    expect(detail.text).toContain(`opened by line ${opened.lineNo}: ${opened.frames.at(-1)!.match.frame.text}`);
    expect(detail.text).toContain(`closed by line ${closed.lineNo}: ${closed.frames.at(-1)!.match.frame.text}`);
    expect(detail.text).toMatch(/progress: 14\/14 shards/);
    await page.screenshot({ path: join(outputDir, 'report-ready.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('gives a group start one lane per node, each with its own verdict', async () => {
    const nodes = { node0: 'fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log', node1: 'fixtures/sglang/19-multinode-h20-node1-hang-after-nccl-init.log' };
    const target = await writeReport('report-group', [], Object.entries(nodes).flatMap(([node, file]) => ['--node', `${node}=${join(repoRoot, file)}`]));
    const { page, errors, refused } = await watchedPage(chromium.browser);
    await page.goto(`file://${target}`, { waitUntil: 'load' });
    const lanes = await page.$$eval('section.start .lane', (all) => all.map((lane) => ({ node: lane.getAttribute('data-node'), head: lane.querySelector('.lane-head')!.textContent })));
    expect(lanes.map((l) => l.node)).toEqual(['node0', 'node1']);
    expect(lanes[0]!.head).toMatch(new RegExp(`^node node0 ${fixtureTrace(nodes.node0).verdict.verdict.toUpperCase()}`));
    expect(lanes[1]!.head).toMatch(new RegExp(`^node node1 ${fixtureTrace(nodes.node1).verdict.verdict.toUpperCase()}`));
    await page.screenshot({ path: join(outputDir, 'report-group.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });
});
