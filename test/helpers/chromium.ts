/**
 * Test helper: headless Chromium (fetched by scripts/tools/chromium.sh into .tools/chromium/)
 * driven by puppeteer-core, and a page that records what a self-contained page must not do:
 * console errors, uncaught exceptions, requests to anywhere but the allowed origins.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** The launcher script sets LD_LIBRARY_PATH to the libraries unpacked beside the browser. */
export const CHROMIUM_TOOL = 'chromium/chromium-headless-shell';

// Without the background-networking flags Chromium phones home, which this closed network refuses.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface BrowserSession {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(executablePath: string): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'spinup-chromium-'));
  const browser = await puppeteer.launch({ executablePath, headless: 'shell', args: [...FLAGS, `--user-data-dir=${profile}`], timeout: 60_000 });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Requests refused because they went elsewhere than file:, data: or the allowed origins. */
  refused: string[];
}

export async function watchedPage(browser: Browser, allowedOrigins: readonly string[] = []): Promise<WatchedPage> {
  const page = await browser.newPage();
  const watched: WatchedPage = { page, errors: [], refused: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(String(error)));
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    const allowed = url.startsWith('file:') || url.startsWith('data:') || allowedOrigins.some((origin) => url.startsWith(`${origin}/`));
    if (allowed) void request.continue();
    else {
      watched.refused.push(url);
      void request.abort();
    }
  });
  await page.setViewport({ width: 1200, height: 800 });
  return watched;
}
