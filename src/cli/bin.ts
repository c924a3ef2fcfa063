#!/usr/bin/env -S -u NODE_EXTRA_CA_CERTS SPINUP_NODE_CA=${NODE_EXTRA_CA_CERTS} node --v8-pool-size=0 --max-semi-space-size=2
import { createRequire } from 'node:module';
import { takeBackExtraCaCerts } from '../io/extra-ca-handover.js';
import { pinYoungGeneration } from '../io/young-generation.js';
import { loadCli } from './load-cli.js';

// The shebang starts node without NODE_EXTRA_CA_CERTS: Node 20 parses that file and its own roots
// at every start, about 45 ms with the Debian bundle, for TLS most commands never open. Its value
// comes over in SPINUP_NODE_CA (env -S expands it before -u unsets it) and goes back into the
// environment here, before anything reads it; spinup's https requests trust the file themselves
// (io/extra-ca-handover.ts).
takeBackExtraCaCerts();

// A rule pattern in a user's pack that backtracks catastrophically, which the load-time check
// could not see, falls back to V8's linear-time engine instead of stalling the watch on one line.
// Set here, before the CLI is compiled (V8's flags are part of what a code cache is checked
// against) and before any pattern is made (V8 gives a pattern its fallback when it makes it); the
// shebang has no room for it. Loading node:v8 for it costs a start about 1.5 ms.
const REGEXP_FALLBACK = '--enable-experimental-regexp-engine-on-excessive-backtracks';
// The shebang's --max-semi-space-size=2: reading a multi-GB log allocates fast, and a small
// young generation keeps peak memory flat (about 80 MB; 100 MB with the default of 16, 92 MB
// with 8) at no measurable cost in speed. V8 reads it only at start-up; run without it, the
// young generation is kept from growing instead (io/young-generation.ts).
// The shebang's --v8-pool-size=0: V8's background threads (its concurrent marking and compiling)
// as many as the machine has cores less one, where Node's default is always 4. On this project's
// 2-core machine that is 1, and the 4 had competed with the reading thread: in farm-bench -n 30
// pairs rows h and i took 0.92 of the wall, the archive replay (k) 0.80, and every row's peak
// RSS fell 3 to 5 MB; the GB rows and a cold start were unchanged (0.97 to 1.01). Only Node reads
// it, at start-up: run without the shebang, the pool is Node's default.
// The shebang line stays under the 127 bytes kernels before 5.1 read of it (RHEL 8's 4.18).
const { setFlagsFromString } = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
if (!process.execArgv.includes(REGEXP_FALLBACK)) setFlagsFromString(REGEXP_FALLBACK);
pinYoungGeneration(setFlagsFromString);

// No top-level await: the build also makes this a CommonJS script (dist/cli/bin.cjs, the
// package's bin), which starts without Node's ES module loader.
void loadCli(process.env).then(async (cli) => {
  process.exitCode = await cli.start();
  cli.keep();
});
