// A launcher that exits at once and leaves two workers running in its process group (holding no pipes).
// Prints one `child pid N` line per worker. The workers give up after 300 s so they can never leak forever.
import { spawn } from 'node:child_process';

const workers = [0, 1].map(() =>
  spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300_000)'], { stdio: 'ignore' }),
);
await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('spawn', resolve))));
for (const worker of workers) process.stdout.write(`child pid ${worker.pid}\n`);
process.exit(0);
