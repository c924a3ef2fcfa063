/**
 * Memory of a long live read: streams a generated ~1 GB log through `spinup watch -` (a real
 * pipe, generated on the fly, nothing on disk) and reports watch's peak RSS, read from
 * /proc/PID/status (VmHWM) while it runs. Not a test: the target is a peak under 100 MB.
 *
 *   node test/bench/watch-memory.mjs [--size 1GB] [--seed N] [--json]
 *
 * The log is deterministic (seeded) and built from a real start, sglang/23 (a gemma-3 start that
 * dies of CUDA OOM while loading weights):
 *   its lines up to `Load weight begin`, as captured;
 *   then, until the size is reached, what a long load prints: NCCL INFO chatter, uvicorn
 *   `GET /health` access lines, and the fixture's own Hugging Face hub lines, on a clock that
 *   moves a second every 2000 lines;
 *   then its traceback and the OOM, re-stamped on that clock.
 * So watch must read all of it and answer failed / gpu_oom (exit 1) at the very end.
 *
 * Exports runMemoryBench(opts) for test/bench/run.mjs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionIn, prng } from './generate-log.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log';
const POLL_MS = 20;
const BATCH_BYTES = 256 * 1024;

export function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$/i.exec(String(text).trim());
  if (!match) throw new Error(`unparsable size "${text}" (write 100MB, 1GB)`);
  const unit = (match[2] ?? 'B').toUpperCase();
  const scale = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 }[unit];
  return Math.round(Number(match[1]) * scale);
}


/** Yields the log as ~256 KiB strings, about `size` bytes in all. */
export function* generateLog({ root = ROOT, size, seed }) {
  const lines = readFileSync(join(root, 'fixtures', FIXTURE), 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const loadAt = lines.findIndex((l) => l.includes('Load weight begin'));
  const head = lines.slice(0, loadAt + 1);
  const tail = lines.slice(loadAt + 1);
  // The fixture's hub requests, the same in every start: neutral lines a rule must not trip on.
  const hub = lines.filter((l) => l.includes('huggingface.co:443')).map((l) => l.replace(/^\[[^\]]*\] /, ''));
  const random = prng(seed);
  const int = (n) => Math.floor(random() * n);
  let second = Date.UTC(2025, 3, 20, 14, 3, 12) / 1000;
  let stamp = '';
  let count = 0;
  const tick = () => {
    if (count++ % 2000 === 0) {
      second++;
      stamp = new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
    }
  };
  const noise = () => {
    tick();
    const r = random();
    if (r < 0.55) {
      const g = int(8);
      return `node01:${31200 + g}:${31900 + g} [${g}] NCCL INFO Channel ${String(int(32)).padStart(2, '0')}/0 : ${g}[${g}] -> ${(g + 1) % 8}[${(g + 1) % 8}] via P2P/IPC`;
    }
    if (r < 0.9) return `[${stamp}] INFO:     10.0.${int(4)}.${int(250) + 1}:${1024 + int(60000)} - "GET /health HTTP/1.1" 200 OK`;
    return `[${stamp} TP0] ${hub[int(hub.length)]}`;
  };
  let written = 0;
  let batch = `${head.join('\n')}\n`;
  const tailBytes = Buffer.byteLength(`${tail.join('\n')}\n`);
  while (written + batch.length + tailBytes < size) {
    batch += `${noise()}\n`;
    if (batch.length >= BATCH_BYTES) {
      written += batch.length;
      yield batch;
      batch = '';
    }
  }
  yield `${batch}${tail.map((l) => l.replace(/^\[2025-04-20 14:03:1\d( TP0)?\]/, (_, tp) => `[${stamp}${tp ?? ''}]`)).join('\n')}\n`;
}

/**
 * Streams the generated log into `node dist/cli/bin.js watch --no-history --json --pack sglang -`
 * and resolves { bytes, lines, wallMs, mbPerS, peakRssMb, code, verdict, cause, line }.
 */
export async function runMemoryBench({ root = ROOT, size = 1e9, seed = 20250420, onProgress } = {}) {
  const bin = join(root, 'dist/cli/bin.js');
  if (!existsSync(bin)) throw new Error('dist/ is missing: build first (npx tsc -p tsconfig.build.json)');
  const started = performance.now();
  const child = spawn(bin, ['watch', '--no-history', '--json', '--pack', 'sglang', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let peakKb = 0;
  let currentKb = 0;
  const poll = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
      currentKb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
    } catch {
      // it just ended
    }
  }, POLL_MS);
  // Only the end of stdout matters (the verdict); events are counted, not kept.
  let outTail = '';
  let events = 0;
  child.stdout.on('data', (d) => {
    const text = d.toString();
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) events++;
    outTail = (outTail + text).slice(-65536);
  });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-65536)));
  const exited = new Promise((done) => child.on('close', (code, signal) => done({ code, signal })));
  let bytes = 0;
  let lines = 0;
  let nextReport = 0;
  child.stdin.on('error', () => {}); // EPIPE if watch decides early: reported below
  for (const chunk of generateLog({ root, size, seed })) {
    if (child.exitCode !== null || child.stdin.destroyed) break;
    bytes += Buffer.byteLength(chunk);
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines++;
    if (!child.stdin.write(chunk)) await drained(child.stdin);
    if (bytes >= nextReport) {
      onProgress?.({ bytes, size, rssMb: currentKb / 1024, peakMb: peakKb / 1024 });
      nextReport += size / 20;
    }
  }
  child.stdin.end();
  const { code, signal } = await exited;
  clearInterval(poll);
  const wallMs = performance.now() - started;
  const verdictLine = outTail.split('\n').filter((l) => l.startsWith('{"type":"verdict"')).pop();
  const verdict = verdictLine ? JSON.parse(verdictLine) : undefined;
  if (code !== 1 || verdict?.verdict !== 'failed' || verdict?.cause !== 'gpu_oom') {
    throw new Error(`watch should end failed / gpu_oom (exit 1) after the whole log; got exit ${code} ${signal ?? ''}\n${outTail.slice(-2000)}\n${err.slice(-2000)}`);
  }
  return {
    bytes,
    lines,
    events,
    wallMs: Math.round(wallMs),
    mbPerS: Math.round(bytes / 1e6 / (wallMs / 1000)),
    peakRssMb: Math.round((peakKb / 1024) * 10) / 10,
    rssMethod: `/proc/PID/status VmHWM polled every ${POLL_MS} ms`,
    code,
    verdict: verdict.verdict,
    cause: verdict.cause,
    line: verdict.evidence?.[0]?.line,
  };
}

/** Resolves when a full pipe drains, or closes (watch exited), leaving no listener behind. */
function drained(stream) {
  return new Promise((done) => {
    const finish = () => {
      stream.off('drain', finish);
      stream.off('close', finish);
      done();
    };
    stream.on('drain', finish);
    stream.on('close', finish);
  });
}

async function cli() {
  const args = process.argv.slice(2);
  const option = optionIn(args);
  const size = parseSize(option('--size', '1GB'));
  const seed = Number(option('--seed', 20250420));
  const result = await runMemoryBench({
    size,
    seed,
    onProgress: (p) => process.stderr.write(`\r${(p.bytes / 1e6).toFixed(0).padStart(5)} / ${(p.size / 1e6).toFixed(0)} MB streamed, watch RSS ${p.rssMb.toFixed(0)} MB (peak ${p.peakMb.toFixed(0)} MB)   `),
  });
  process.stderr.write('\n');
  if (args.includes('--json')) {
    console.log(JSON.stringify({ command: `node test/bench/watch-memory.mjs ${args.join(' ')}`.trim(), node: process.version, seed, ...result }, null, 2));
    return;
  }
  console.log(
    `spinup watch - on a ${(result.bytes / 1e6).toFixed(0)} MB generated log (${result.lines} lines, seed ${seed}, node ${process.version}): ` +
      `peak RSS ${result.peakRssMb} MB (${result.rssMethod}); ${(result.wallMs / 1000).toFixed(1)} s, ${result.mbPerS} MB/s; ` +
      `verdict ${result.verdict} ${result.cause} at line ${result.line}, exit ${result.code}`,
  );
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  await cli();
}
