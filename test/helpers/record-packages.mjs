/**
 * Preload (`node --import` this file): at exit, writes to $RECORD_PACKAGES_TO the packages under
 * node_modules the process loaded. Every package spinup uses is CommonJS, whether imported or
 * required, so Node's one module cache sees them all.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const cache = createRequire(import.meta.url).cache;

process.on('exit', () => {
  const names = new Set();
  for (const file of Object.keys(cache)) {
    const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
    if (match) names.add(match[1].replace(/\\/g, '/'));
  }
  writeFileSync(process.env.RECORD_PACKAGES_TO, [...names].sort().join('\n'));
});
