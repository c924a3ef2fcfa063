/**
 * Detection latency of `spinup watch FILE` (follow mode): from the write() of the deciding line
 * to the exit of the watch process. Not a test: it reports figures (the target is a median
 * under 250 ms; the loop spinup replaces polls every 15 s).
 *
 *   node test/bench/latency.mjs [--runs 15] [--json]
 *
 * Each run starts `watch --json --pack sglang FILE` on a log holding the start of a real run,
 * waits until watch has reported a stage (so the follower is live and caught up), appends a few
 * ordinary lines with pauses, then appends the deciding line:
 *   ready   SGLang's "The server is fired up and ready to roll!"
 *   failed  a fatal `torch.OutOfMemoryError: CUDA out of memory` after `Load weight begin`
 * It also records when the verdict event reached watch's stdout, which is what a person or a
 * script sees first; the exit is what `spinup watch log && next-step` waits for.
 * A third case is a corroborated failure: `... | spinup watch -` reads a line the source makes
 * fatal but no rule decides on alone (the start is suspect), and the verdict waits for the death
 * sign, the pipe closing: its figures run from the close.
 *
 * Exports runLatencyBench(opts) (figures per case) for test/bench/run.mjs, and detectionLatency
 * (the same, in the shape run.mjs prints).
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A run that has not exited this long after the deciding line counts as a failure of the bench. */
const EXIT_TIMEOUT_MS = 5_000;

export const LATENCY_CASES = [
  {
    name: 'ready (fired up)',
    fixture: 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log',
    // Everything before the ready line: launch ... warmup.
    cutBefore: (line) => line.includes('The server is fired up'),
    filler: (i) => `[2025-03-08 12:29:33] INFO:     10.0.0.1:4230${i} - "GET /health HTTP/1.1" 200 OK`,
    deciding: '[2025-03-08 12:29:33] The server is fired up and ready to roll!',
    exitCode: 0,
    verdict: 'ready',
  },
  {
    name: 'failed (CUDA OOM)',
    fixture: 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log',
    // Everything up to just after `Load weight begin` (the traceback that follows is left out).
    cutBefore: (line) => line.includes('Traceback (most recent call last)'),
    filler: (i) => `node01:3120${i}:3190${i} [0] NCCL INFO Channel 0${i}/0 : 0[0] -> 1[1] via P2P/IPC`,
    deciding:
      '[2025-04-20 14:03:13 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 114.00 MiB. GPU 0 has a total capacity of 15.58 GiB of which 54.38 MiB is free.',
    exitCode: 1,
    verdict: 'failed',
  },
  {
    // A corroborated failure: a line the source makes fatal (NCCL aborts after this WARN) that
    // no rule decides on at once, then the server's death: `server 2>&1 | spinup watch -` sees its pipe
    // close. The figure is from the close (the death sign) to the exit.
    name: 'failed (corroborated)',
    via: 'pipe',
    fixture: 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log',
    cutBefore: (line) => line.includes('Traceback (most recent call last)'),
    filler: (i) => `node01:3120${i}:3190${i} [0] NCCL INFO Channel 0${i}/0 : 0[0] -> 1[1] via P2P/IPC`,
    deciding: 'node01:31200:31900 [0] graph/rings.cc:51 NCCL WARN Error : ring 0 does not loop back to start (3 != 0)',
    exitCode: 1,
    verdict: 'failed',
  },
];

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

export function median(values) {
  return percentile(values, 50);
}

/** Nearest-rank percentile. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** One run: { exitMs, verdictMs } after the write of the deciding line. */
async function once({ root, dir, testCase, index }) {
  const lines = readFileSync(join(root, 'fixtures', testCase.fixture), 'utf8').split('\n');
  const head = lines.slice(0, lines.findIndex(testCase.cutBefore));
  if (!head.some((l) => / stage|Load weight begin|server_args/.test(l))) throw new Error(`latency: bad cut of ${testCase.fixture}`);
  const log = join(dir, `latency-${index}.log`);
  const piped = testCase.via === 'pipe';
  if (!piped) writeFileSync(log, `${head.join('\n')}\n`);
  const child = spawn(process.execPath, [join(root, 'dist/cli/bin.js'), 'watch', '--no-history', '--json', '--pack', 'sglang', piped ? '-' : log], {
    stdio: [piped ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  // Through a pipe the log is what the server writes to it; a file is appended to.
  const append = piped ? (text) => child.stdin.write(text) : (text) => appendFileSync(log, text);
  if (piped) append(`${head.join('\n')}\n`);
  let out = '';
  let err = '';
  let verdictAt;
  let onLive;
  const live = new Promise((done) => (onLive = done));
  child.stdout.on('data', (d) => {
    out += d;
    if (out.includes('"type":"stage"')) onLive();
    if (verdictAt === undefined && out.includes('"type":"verdict"')) verdictAt = performance.now();
  });
  child.stderr.on('data', (d) => (err += d));
  // 'exit' is the process ending (its pipes may close a moment later).
  const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal, at: performance.now() })));
  const gone = await Promise.race([live.then(() => false), exited.then(() => true)]);
  if (gone) throw new Error(`latency ${testCase.name}: watch exited before the run went live\n${out}\n${err}`);
  for (let i = 0; i < 3; i++) {
    await sleep(50);
    append(`${testCase.filler(i)}\n`);
  }
  await sleep(150);
  let written = performance.now();
  append(`${testCase.deciding}\n`);
  if (piped) {
    // The server dies a moment after its last words: the pipe closes.
    await sleep(150);
    if (verdictAt !== undefined) throw new Error(`latency ${testCase.name}: a suspect line decided before any death sign\n${out}`);
    written = performance.now();
    child.stdin.end();
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  const { code, signal, at } = await exited;
  clearTimeout(timer);
  if (signal !== null) throw new Error(`latency ${testCase.name}: watch did not exit within ${EXIT_TIMEOUT_MS} ms of the deciding line\n${out}`);
  if (code !== testCase.exitCode || !out.includes(`"verdict":"${testCase.verdict}"`)) {
    throw new Error(`latency ${testCase.name}: watch exited ${code}, expected ${testCase.exitCode} (${testCase.verdict})\n${out}\n${err}`);
  }
  if (!piped) rmSync(log, { force: true });
  return { exitMs: at - written, verdictMs: verdictAt === undefined ? undefined : verdictAt - written };
}

/**
 * Runs every case `runs` times; resolves one row per case with ms figures (median, p90, min,
 * max) of the time from the write to the exit, and to the verdict event on stdout.
 */
export async function runLatencyBench({ root = ROOT, dir, runs = 15, onRun } = {}) {
  if (!existsSync(join(root, 'dist/cli/bin.js'))) throw new Error('dist/ is missing: build first (npx tsc -p tsconfig.build.json)');
  const scratch = dir ?? mkdtempSync(join(tmpdir(), 'spinup-latency-'));
  try {
    const rows = [];
    for (const testCase of LATENCY_CASES) {
      const samples = [];
      for (let index = 0; index < runs; index++) {
        samples.push(await once({ root, dir: scratch, testCase, index }));
        onRun?.(testCase.name, index + 1, samples[samples.length - 1]);
      }
      const exits = samples.map((s) => s.exitMs);
      const verdicts = samples.map((s) => s.verdictMs).filter((ms) => ms !== undefined);
      rows.push({
        case: testCase.name,
        runs,
        exitMedianMs: round(median(exits)),
        exitP90Ms: round(percentile(exits, 90)),
        exitMinMs: round(Math.min(...exits)),
        exitMaxMs: round(Math.max(...exits)),
        verdictMedianMs: round(median(verdicts)),
        verdictP90Ms: round(percentile(verdicts, 90)),
        verdictMaxMs: round(Math.max(...verdicts)),
      });
    }
    return rows;
  } finally {
    if (!dir) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The shape test/bench/run.mjs prints. */
export async function detectionLatency({ root = ROOT, dir, runs = 15 } = {}) {
  const rows = await runLatencyBench({ root, dir, runs });
  return rows.map((row) => ({ ...row, exitedWithin: `${row.runs}/${row.runs} runs exited within ${EXIT_TIMEOUT_MS} ms of the deciding line` }));
}

function round(ms) {
  return Math.round(ms * 10) / 10;
}

async function cli() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--runs');
  const runs = at === -1 ? 15 : Number(args[at + 1]);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a positive integer, not ${args[at + 1]}`);
  const rows = await runLatencyBench({ runs, onRun: (name, n) => process.stderr.write(`\r${name}: run ${n}/${runs}   `) });
  process.stderr.write('\n');
  if (args.includes('--json')) {
    console.log(JSON.stringify({ command: `node test/bench/latency.mjs ${args.join(' ')}`.trim(), node: process.version, rows }, null, 2));
    return;
  }
  console.log(`spinup watch FILE: from the write() of the deciding line to the exit of watch; the corroborated case through a pipe, from its close (node ${process.version}, ${runs} runs per case)`);
  for (const r of rows) {
    console.log(
      `  ${r.case.padEnd(21)} exit median ${r.exitMedianMs.toFixed(0).padStart(4)} ms  p90 ${r.exitP90Ms.toFixed(0).padStart(4)} ms  (min ${r.exitMinMs.toFixed(0)}, max ${r.exitMaxMs.toFixed(0)})` +
        `   verdict on stdout: median ${r.verdictMedianMs.toFixed(0)} ms, p90 ${r.verdictP90Ms.toFixed(0)} ms`,
    );
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  await cli();
}
