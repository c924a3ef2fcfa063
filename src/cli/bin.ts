#!/usr/bin/env -S node --max-semi-space-size=2 --enable-experimental-regexp-engine-on-excessive-backtracks
import { createRequire } from 'node:module';
import { loadCli } from './load-cli.js';

// A rule pattern in a user's pack that backtracks catastrophically, which the load-time check
// could not see, falls back to V8's linear-time engine instead of stalling the watch on one line.
// The shebang gives the flag; run some other way (`node dist/cli/bin.js`), it is set here,
// before the CLI is compiled (V8's flags are part of what a code cache is checked against).
// node:v8 is loaded only then: loading it cost a cold start about 1.5 ms.
const REGEXP_FALLBACK = '--enable-experimental-regexp-engine-on-excessive-backtracks';
// The shebang's --max-semi-space-size=2: reading a multi-GB log allocates fast, and a small
// young generation keeps peak memory flat (about 80 MB; 100 MB with the default of 16, 92 MB
// with 8) at no measurable cost in speed. V8 reads that limit only at start-up, so run some other
// way its young generation would grow to 16 MB semi-spaces (`node dist/cli/bin.cjs replay` of a
// 10,000-log archive: 113 MB against 83). The growth factor V8 reads each time it grows them:
// at 1 they stay at their starting 1 MB, before the CLI's first allocations can grow them.
const SEMI_SPACE_LIMIT = '--max-semi-space-size';
const unflagged = [REGEXP_FALLBACK, SEMI_SPACE_LIMIT].filter((flag) => !process.execArgv.some((arg) => arg.startsWith(flag)));
if (unflagged.length > 0) {
  const { setFlagsFromString } = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
  if (unflagged.includes(REGEXP_FALLBACK)) setFlagsFromString(REGEXP_FALLBACK);
  if (unflagged.includes(SEMI_SPACE_LIMIT)) setFlagsFromString('--semi-space-growth-factor=1');
}

// No top-level await: the build also makes this a CommonJS script (dist/cli/bin.cjs, the
// package's bin), which starts without Node's ES module loader.
void loadCli(process.env).then(async (cli) => {
  process.exitCode = await cli.start();
  cli.keep();
});
