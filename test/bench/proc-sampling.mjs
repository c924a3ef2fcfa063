/**
 * The cost of watching a server's processes (issue 29): CPU time per sample of the process tree from /proc
 * (every process's stat read to find the tree, then the tree's io), and per minute of watching at the
 * sampler's 1 s interval. The tree is real: a root with WORKERS children, each with a few threads.
 *
 *   npm run build && node test/bench/proc-sampling.mjs [--workers 16] [--samples 300] [--bystanders 0]
 *
 * --bystanders N starts N sleeping processes outside the tree: a busy host makes every sample dearer, since
 * the tree is found from every process's stat (the sampler then samples less often, under 1% of a core).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpuUsage } from 'node:process';
import { parseArgs } from 'node:util';
import { ProcessTree } from '../../dist/io/process-tree.js';
import { DEFAULT_SAMPLE_MS } from '../../dist/io/activity-sampler.js';

const { values } = parseArgs({ options: { workers: { type: 'string', default: '16' }, samples: { type: 'string', default: '300' }, bystanders: { type: 'string', default: '0' } } });
const workers = Number(values.workers);
const count = Number(values.samples);

// The root spawns the workers (threads: a worker_threads pair each, as a Python server has many threads).
const rootScript = `
const { spawn } = require('node:child_process');
for (let i = 0; i < ${workers}; i++) spawn(process.execPath, ['-e', "const { Worker } = require('node:worker_threads'); new Worker('setInterval(() => {}, 1000)', { eval: true }); new Worker('setInterval(() => {}, 1000)', { eval: true }); setTimeout(() => {}, 600000)"], { stdio: 'ignore' });
setTimeout(() => {}, 600000);`;
const root = spawn(process.execPath, ['-e', rootScript], { stdio: 'ignore', detached: true });
const bystanders = spawn('sh', ['-c', `for i in $(seq ${Number(values.bystanders)}); do sleep 600 & done; wait`], { stdio: 'ignore', detached: true });
await new Promise((resolve) => setTimeout(resolve, 1500));
try {
  const tree = new ProcessTree(root.pid, true);
  const first = tree.sample(Date.now());
  const before = cpuUsage();
  const started = performance.now();
  let last = first;
  for (let i = 0; i < count; i++) last = tree.sample(Date.now());
  const wallMs = performance.now() - started;
  const spent = cpuUsage(before);
  const cpuPerSampleMs = (spent.user + spent.system) / 1000 / count;
  const hostProcesses = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
  const perMinuteMs = cpuPerSampleMs * (60_000 / DEFAULT_SAMPLE_MS);
  console.log(`proc sampling: tree of ${last.processes} processes (${last.threads} threads) on a host of ${hostProcesses} processes`);
  console.log(`  ${count} samples: ${cpuPerSampleMs.toFixed(3)} ms CPU per sample (${(wallMs / count).toFixed(3)} ms wall)`);
  console.log(`  watching at 1 sample/s: ${perMinuteMs.toFixed(0)} ms CPU per minute (${((perMinuteMs / 60_000) * 100).toFixed(2)}% of one core)`);
} finally {
  for (const group of [root, bystanders]) {
    try {
      process.kill(-group.pid, 'SIGKILL');
    } catch {
      // Already gone (no bystanders asked for: their shell has exited).
    }
  }
}
