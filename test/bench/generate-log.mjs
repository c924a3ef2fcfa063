/**
 * Generates a large, realistic SGLang log, deterministically (seeded), from the shipped fixtures:
 *
 *   run 1  fixtures/sglang/09 (a ready start) with NCCL INFO chatter between its lines
 *   then   hours of serving: Decode/Prefill batch lines, uvicorn access lines, NCCL INFO lines,
 *          vLLM-style engine stats, tqdm frames, and now and then a neutral line taken from any
 *          fixture (SGLang or vLLM; lines that would decide or restart a run are left out)
 *   run 2  fixtures/sglang/23 (a restart that dies of CUDA OOM while loading), NCCL chatter
 *          between its lines, its traceback and last words at the very end of the file
 *
 * So `spinup watch --no-follow --pack sglang` must answer: failed, gpu_oom.
 * Usage as a script: node test/bench/generate-log.mjs FILE [--size 100MB] [--seed N]
 */
import { closeSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const GENERATOR_VERSION = 4;

/** mulberry32: small, fast, and the same numbers on every machine. */
export function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `--name VALUE` from a script's arguments, or `fallback` when not given: `optionIn(args)('--size', '1GB')`. */
export function optionIn(args) {
  return (name, fallback) => {
    const at = args.indexOf(name);
    return at === -1 ? fallback : args[at + 1];
  };
}

export function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$/i.exec(String(text).trim());
  if (!match) throw new Error(`unparsable size "${text}" (write 100MB, 1GB)`);
  const unit = (match[2] ?? 'B').toUpperCase().replace('I', '');
  const scale = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 }[unit];
  return Math.round(Number(match[1]) * scale);
}

function fixtureLines(file) {
  const text = readFileSync(join(ROOT, 'fixtures', file), 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Neutral filler from every fixture: no failure, ready, benign or restart rule of the SGLang pack
 * hits it and it is no part of a traceback, so it adds realistic text without deciding anything.
 */
async function neutralLines() {
  const { loadPack } = await import(join(ROOT, 'dist/pack/load-pack.js'));
  const { matchFrame } = await import(join(ROOT, 'dist/core/match-frame.js'));
  const { parseFrame } = await import(join(ROOT, 'dist/core/parse-line.js'));
  const { guardFrames } = await import(join(ROOT, 'dist/core/line-guard.js'));
  const pack = loadPack('sglang');
  const out = [];
  for (const family of ['sglang', 'vllm']) {
    for (const name of readdirSync(join(ROOT, 'fixtures', family)).sort()) {
      if (!name.endsWith('.log')) continue;
      for (const line of fixtureLines(join(family, name))) {
        if (line.length > 600 || /Traceback|^\s+|Error\b|Exception\b|error:|^# \[/.test(line)) continue;
        const decides = guardFrames(line).some((text) => {
          const frame = parseFrame(text, pack.prefixes);
          if (/^\s|File "|Traceback|Error\b|Exception\b/.test(frame.body)) return true;
          const m = matchFrame(pack, frame);
          return m.failures.length > 0 || m.ready || m.benign || m.marker?.rule.restart || m.heartbeat || m.confirmsReady;
        });
        if (!decides) out.push(line);
      }
    }
  }
  return out;
}

/** Wall clock of the generated log: formatted once per second, not per line. */
class Clock {
  constructor(startMs) {
    this.ms = startMs;
    this.second = -1;
  }
  advance(ms) {
    this.ms += ms;
  }
  get stamp() {
    const second = Math.floor(this.ms / 1000);
    if (second !== this.second) {
      this.second = second;
      const iso = new Date(second * 1000).toISOString();
      this.date = iso.slice(0, 10);
      this.time = iso.slice(11, 19);
    }
    return `${this.date} ${this.time}`;
  }
}

function makeNoise(random, clock) {
  const int = (n) => Math.floor(random() * n);
  const pick = (list) => list[int(list.length)];
  const fixed = (x, d) => x.toFixed(d);
  const host = () => `node0${int(2) + 1}`;
  const nccl = () => {
    const g = int(8);
    const prefix = `${host()}:${31200 + g}:${31900 + g} [${g}] NCCL INFO`;
    switch (int(6)) {
      case 0:
      case 1:
      case 2:
        return `${prefix} Channel ${String(int(32)).padStart(2, '0')}/0 : ${g}[${g}] -> ${(g + 1) % 8}[${(g + 1) % 8}] via P2P/IPC`;
      case 3:
        return `${prefix} Channel ${String(int(32)).padStart(2, '0')}/1 : ${g}[${g}] -> ${(g + 7) % 8}[${(g + 7) % 8}] via P2P/CUMEM/read`;
      case 4:
        return `${prefix} comm 0x${(0x55d0a0000000 + int(0xfffffff)).toString(16)} rank ${g} nRanks 8 nNodes 1 localRanks 8 localRank ${g} MNNVL 0`;
      default:
        return `${prefix} ${pick(['Connected all rings', 'Connected all trees', 'P2P Chunksize set to 524288', 'threadThresholds 8/8/64 | 64/8/64 | 512 | 512', '32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer', `Setting affinity for GPU ${g} to ffff,ffffffff`, 'NVLS multicast support is not available on dev 0', 'Using network Socket', 'cudaDriverVersion 12040'])}`;
    }
  };
  const access = () => {
    const ip = random() < 0.5 ? `10.0.${int(4)}.${int(250) + 1}` : '127.0.0.1';
    const request = pick(['GET /health', 'GET /health', 'GET /health', 'POST /v1/chat/completions', 'POST /generate', 'GET /metrics', 'GET /v1/models']);
    return `[${clock.stamp}] INFO:     ${ip}:${1024 + int(60000)} - "${request} HTTP/1.1" 200 OK`;
  };
  const decode = () =>
    `[${clock.stamp} TP0] Decode batch. #running-req: ${int(64)}, #token: ${int(60000)}, token usage: ${fixed(random(), 2)}, cuda graph: True, gen throughput (token/s): ${fixed(random() * 3000, 2)}, #queue-req: ${int(4)}, `;
  const prefill = () =>
    `[${clock.stamp} TP0] Prefill batch. #new-seq: ${int(8) + 1}, #new-token: ${int(8192)}, #cached-token: ${int(4096)}, token usage: ${fixed(random(), 2)}, #running-req: ${int(64)}, #queue-req: ${int(4)}, `;
  const engine = () => {
    const d = new Date(clock.ms).toISOString();
    return `INFO ${d.slice(5, 10)} ${d.slice(11, 19)} [loggers.py:116] Engine 000: Avg prompt throughput: ${fixed(random() * 5000, 1)} tokens/s, Avg generation throughput: ${fixed(random() * 2000, 1)} tokens/s, Running: ${int(64)} reqs, Waiting: ${int(4)} reqs, GPU KV cache usage: ${fixed(random() * 100, 1)}%, Prefix cache hit rate: ${fixed(random() * 100, 1)}%`;
  };
  const tqdm = () => {
    // One physical line holding several `\r` frames of a bar, as tqdm writes them.
    const total = 100 + int(900);
    let at = int(total / 2);
    const frames = [];
    for (let i = 0; i < 4; i++, at += int(20)) {
      const pct = Math.min(100, Math.floor((at / total) * 100));
      const bar = '█'.repeat(Math.floor(pct / 10)).padEnd(10, ' ');
      frames.push(`Processed prompts: ${String(pct).padStart(3)}%|${bar}| ${at}/${total} [00:${String(int(60)).padStart(2, '0')}<00:${String(int(60)).padStart(2, '0')}, ${fixed(random() * 40, 2)}it/s]`);
    }
    return frames.join('\r');
  };
  return { nccl, access, decode, prefill, engine, tqdm };
}

/** Writes a log of about `size` bytes to `file`; returns { bytes, lines }. */
export async function generateLog(file, { size = 1e9, seed = 20250308 } = {}) {
  const random = prng(seed);
  const clock = new Clock(Date.UTC(2025, 2, 8, 12, 29, 33));
  const noise = makeNoise(random, clock);
  const filler = await neutralLines();
  const readyRun = fixtureLines('sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
  const failRun = fixtureLines('sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
  const tracebackAt = failRun.findIndex((line) => line.startsWith('Traceback'));

  const fd = openSync(file, 'w');
  let buffered = [];
  let bufferedBytes = 0;
  let bytes = 0;
  let lines = 0;
  const emit = (line) => {
    buffered.push(line);
    bufferedBytes += line.length + 1;
    lines++;
    if (bufferedBytes >= 1 << 22) flush();
  };
  const flush = () => {
    if (buffered.length === 0) return;
    const chunk = Buffer.from(`${buffered.join('\n')}\n`, 'utf8');
    writeSync(fd, chunk);
    bytes += chunk.length;
    buffered = [];
    bufferedBytes = 0;
  };
  const written = () => bytes + bufferedBytes;
  const ncclBurst = (n) => {
    for (let i = 0; i < n; i++) emit(noise.nccl());
  };

  // Run 1: a ready start, NCCL init chatter between its lines.
  for (const line of readyRun) {
    emit(line);
    if (line.includes('Init torch distributed') || line.includes('Load weight begin')) ncclBurst(40 + Math.floor(random() * 80));
  }
  // Serving until run 2 must begin.
  const failRunBytes = failRun.reduce((sum, line) => sum + line.length + 1, 0);
  const serveUntil = Math.max(0, size - failRunBytes - Math.min(size * 0.02, 2e7));
  while (written() < serveUntil) {
    clock.advance(Math.floor(random() * 40));
    const r = random();
    if (r < 0.34) emit(noise.decode());
    else if (r < 0.42) emit(noise.prefill());
    else if (r < 0.62) emit(noise.access());
    else if (r < 0.88) emit(noise.nccl());
    else if (r < 0.92) emit(noise.engine());
    else if (r < 0.96) emit(noise.tqdm());
    else emit(filler[Math.floor(random() * filler.length)]);
  }
  // Run 2: restart, NCCL init chatter, and the CUDA OOM traceback at the very end.
  const perGap = Math.max(0, Math.floor((size - written() - failRunBytes) / 110 / Math.max(1, tracebackAt)));
  failRun.forEach((line, index) => {
    emit(line);
    if (index > 0 && index < tracebackAt) ncclBurst(perGap);
  });
  flush();
  closeSync(fd);
  return { bytes, lines };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) throw new Error('usage: generate-log.mjs FILE [--size 100MB] [--seed N]');
  const option = optionIn(rest);
  const started = performance.now();
  const result = await generateLog(file, { size: parseSize(option('--size', '1GB')), seed: Number(option('--seed', 20250308)) });
  console.log(`${file}: ${result.bytes} bytes, ${result.lines} lines in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
