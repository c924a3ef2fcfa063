#!/usr/bin/env node
import { main } from './main.js';

const controller = new AbortController();
let interrupts = 0;
const onSignal = (): void => {
  // A second Ctrl-C means "now": leave without the clean-up the first one started.
  if (++interrupts > 1) process.exit(130);
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// `spinup watch ... | head -1`: a closed stdout is the reader saying it has enough.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

process.exitCode = await main({
  argv: process.argv.slice(2),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.removeListener('SIGINT', onSignal);
process.removeListener('SIGTERM', onSignal);
