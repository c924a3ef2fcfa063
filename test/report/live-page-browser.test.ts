/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The live page in headless Chromium against a small loopback SSE server that streams what
 * `spinup watch --json` printed for a real fixture, the way the status API's /v1/events does
 * (`event:` the type, `id:` the sequence). The verdict must flip when the log says ready.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { livePageHtml } from '../../src/report/live-page.js';
import { CHROMIUM_TOOL, launchChromium, watchedPage, type BrowserSession } from '../helpers/chromium.js';
import { missingToolMessage, requireTool } from '../helpers/outside-tool.js';
import { repoRoot } from '../helpers/run-main.js';
import { READY } from './fixture-trace.js';

const tool = requireTool(CHROMIUM_TOOL);

/** Streams `events` as SSE; those from the verdict on wait for `release()`. */
class EventServer {
  private server: Server;
  private clients: ServerResponse[] = [];
  private released = false;
  origin = '';

  constructor(private readonly events: Record<string, unknown>[]) {
    this.server = createServer((request, response) => {
      if (request.url === '/') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(livePageHtml());
      } else if (request.url === '/v1/events') {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        this.clients.push(response);
        this.send(response, this.held());
        if (this.released) this.send(response, this.rest());
      } else {
        response.writeHead(404).end();
      }
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  release(): void {
    this.released = true;
    for (const client of this.clients) this.send(client, this.rest());
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.end();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private verdictIndex(): number {
    return this.events.findIndex((e) => e.type === 'verdict');
  }

  private held(): [number, Record<string, unknown>][] {
    return this.events.slice(0, this.verdictIndex()).map((e, i) => [i, e]);
  }

  private rest(): [number, Record<string, unknown>][] {
    return this.events.slice(this.verdictIndex()).map((e, i) => [i + this.verdictIndex(), e]);
  }

  private send(response: ServerResponse, events: [number, Record<string, unknown>][]): void {
    for (const [id, event] of events) response.write(`id: ${id}\nevent: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  }
}

describe.skipIf(tool.skip)('the live page in headless Chromium', { timeout: 60_000 }, () => {
  let chromium: BrowserSession;
  let server: EventServer;
  let events: Record<string, unknown>[];

  beforeAll(async () => {
    const bin = join(repoRoot, 'dist/cli/bin.js');
    const { stdout } = await promisify(execFile)(process.execPath, [bin, 'watch', '--json', '--no-follow', '--no-history', join(repoRoot, READY)], { env: { ...process.env, NO_COLOR: '1' } }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    events = stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
    server = new EventServer(events);
    await server.listen();
    // Under CI a missing Chromium fails the first test below (and the rest with it), never skips.
    if (tool.path) chromium = await launchChromium(tool.path);
  }, 90_000);
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  it('has headless Chromium to drive', () => {
    expect(tool.path, missingToolMessage(CHROMIUM_TOOL)).toBeDefined();
  });

  it('draws the start as the events come and flips to READY when the log says ready', async () => {
    const stagesBefore = events.slice(0, events.findIndex((e) => e.type === 'verdict')).filter((e) => e.type === 'stage').map((e) => e.stage);
    expect(stagesBefore.length).toBeGreaterThan(3);
    const { page, errors, refused } = await watchedPage(chromium.browser, [server.origin]);
    await page.goto(`${server.origin}/`, { waitUntil: 'load' });
    await page.waitForFunction((n: number) => document.querySelectorAll('.bar').length === n, { timeout: 20_000 }, stagesBefore.length);
    const running = await page.evaluate(() => ({
      verdict: document.body.getAttribute('data-verdict'),
      head: document.querySelector('.lane-head')!.textContent,
      stages: [...document.querySelectorAll('.bar')].map((bar) => bar.getAttribute('data-stage')),
      openBars: document.querySelectorAll('.bar.open').length,
    }));
    expect(running).toMatchObject({ verdict: 'running', stages: stagesBefore, openBars: 1 });
    expect(running.head).toMatch(/^RUNNING in warmup/);

    server.release();
    await page.waitForFunction(() => document.body.getAttribute('data-verdict') === 'ready', { timeout: 20_000 });
    const ready = await page.evaluate(() => ({
      head: document.querySelector('.lane-head')!.textContent,
      marker: document.querySelector('.verdict-ready')?.getAttribute('data-at-ms'),
      openBars: document.querySelectorAll('.bar.open').length,
    }));
    const verdict = events.find((e) => e.type === 'verdict')!;
    expect(ready.head).toMatch(/^READY at 29s in ready/);
    expect(ready.marker).toBe(String(verdict.at_ms));
    expect(ready.openBars).toBe(0);

    // A bar's lines open on click, and stay open when the next event redraws the lanes.
    await page.click('.bar[data-stage="load_weights"]');
    expect(await page.$eval('.detail:not([hidden])', (el) => el.textContent)).toMatch(/opened by line 24/);
    mkdirSync(join(repoRoot, 'test-output'), { recursive: true });
    await page.screenshot({ path: join(repoRoot, 'test-output', 'live-ready.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });
});
