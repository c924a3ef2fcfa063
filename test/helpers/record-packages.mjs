/**
 * Preload (`node --import` this file; worker threads inherit it): when each thread ends, appends
 * to $RECORD_PACKAGES_TO one JSON line, `{ thread, packages }`: the thread's id (0: the main
 * thread) and the packages under node_modules it loaded. Every package spinup uses is CommonJS,
 * whether imported or required, so the thread's module cache sees them all.
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { threadId } from 'node:worker_threads';

const cache = createRequire(import.meta.url).cache;

process.on('exit', () => {
  const names = new Set();
  for (const file of Object.keys(cache)) {
    const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
    if (match) names.add(match[1].replace(/\\/g, '/'));
  }
  appendFileSync(process.env.RECORD_PACKAGES_TO, `${JSON.stringify({ thread: threadId, packages: [...names].sort() })}\n`);
});
