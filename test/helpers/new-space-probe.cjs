/**
 * Preloaded with `node --require` by test/cli/young-generation.test.ts: at exit, writes to stderr
 * `new-space-mb N`, the largest the main thread's young generation (both semi-spaces) grew.
 */
const v8 = require('node:v8');

let most = 0;
const sample = () => {
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === 'new_space') most = Math.max(most, space.space_size);
};
setInterval(sample, 5).unref();
process.on('exit', () => {
  sample();
  process.stderr.write(`new-space-mb ${most / 1048576}\n`);
});
