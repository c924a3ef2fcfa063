/**
 * Generates a pre-verdict start, deterministically (seeded): fixtures/sglang/23 (a start that
 * dies of a CUDA OOM while loading weights) with NCCL_DEBUG=INFO chatter from 8 ranks inserted
 * while it loads, so every line is read before any verdict:
 *
 *   the fixture up to `Load weight begin`,
 *   then the flood: NCCL INFO lines of 8 ranks, and once per second of log time one of the
 *        fixture's own loading lines (lock, hub requests) under a new timestamp: the start has
 *        a clock of its own, moving about 1 s per 4,000 lines (minutes for 300 MB, well within
 *        the stage's budget),
 *   with `progressEvery: 5`, one line in five a frame of the shard bar (`Loading safetensors
 *        checkpoint shards:  12% Completed | 6/49 [00:03<00:25,  1.75it/s]`), each on its own line,
 *   then the rest of the fixture under the flood's clock: the traceback and the CUDA OOM at the
 *        very end of the file.
 *
 * So `spinup watch --no-follow --pack sglang` must answer: failed, gpu_oom, in load_weights.
 * Usage as a script: node test/bench/generate-flood.mjs FILE [--size 300MB] [--progress-every 5] [--seed N]
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionIn, parseSize, prng } from './generate-log.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FLOOD_VERSION = 1;
const FIXTURE = 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log';
const LINES_PER_SECOND = 4000;
const SHARDS = 49;
const STAMP = /^\[(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})/;

/**
 * The fixture's start around its weight load: its lines up to `Load weight begin` (head), the rest
 * (tail: the traceback and the CUDA OOM), its own timestamped lines while loading (locks, hub
 * requests: neutral), the log time loading began, and `restamp` to put a line at another time.
 */
function fixtureLoad() {
  const fixture = readFileSync(join(ROOT, 'fixtures', FIXTURE), 'utf8').replace(/\n$/, '').split('\n');
  const loadAt = fixture.findIndex((line) => line.includes('Load weight begin'));
  const failAt = fixture.findIndex((line) => line.includes('Traceback'));
  const loading = fixture.slice(loadAt + 1, failAt).filter((line) => STAMP.test(line));
  const [, day, time] = STAMP.exec(fixture[loadAt]);
  const stampAt = (ms) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
  return {
    head: fixture.slice(0, loadAt + 1),
    tail: fixture.slice(loadAt + 1),
    loading,
    startMs: Date.parse(`${day}T${time}Z`),
    /** The tail's lines keep their place: only the timestamped ones move to `ms`. */
    restamp: (line, ms) => (STAMP.test(line) ? line.replace(STAMP, `[${stampAt(ms)}`) : line),
  };
}

/**
 * A file written in chunks of about 4 MiB: `write(text)` queues, `size()` is what is written
 * and queued (bytes written plus characters queued, as a generator's budget counts them).
 */
function chunkedFile(file) {
  const fd = openSync(file, 'w');
  let parts = [];
  let pending = 0;
  let bytes = 0;
  const flush = () => {
    const chunk = Buffer.from(parts.join(''), 'utf8');
    writeSync(fd, chunk);
    bytes += chunk.length;
    parts = [];
    pending = 0;
  };
  return {
    write(text) {
      parts.push(text);
      pending += text.length;
      if (pending >= 1 << 22) flush();
    },
    size: () => bytes + pending,
    /** Flushes and closes; the bytes written in all. */
    close() {
      flush();
      closeSync(fd);
      return bytes;
    },
  };
}

/**
 * What both floods are written in (this one and generate-rank-bars.mjs): a seeded random source
 * (`random`, `int(n)`), the fixture's load split around the flood (`loading`, `startMs`,
 * `restamp`), the file in chunks with its lines counted (`out`, `emit`), the head already written,
 * the NCCL chatter to draw from (`nccl()`), where the flood must stop for the tail to end the
 * file at `size` bytes (`floodUntil`), and `end(ms)`: the tail a second after `ms`, the file
 * closed, { bytes, lines }.
 */
export function floodFile(file, { size, seed }) {
  const random = prng(seed);
  const int = (n) => Math.floor(random() * n);
  const { head, tail, loading, startMs, restamp } = fixtureLoad();
  const out = chunkedFile(file);
  let lines = 0;
  const emit = (line) => {
    out.write(`${line}\n`);
    lines++;
  };
  head.forEach(emit);
  const end = (ms) => {
    for (const line of tail) emit(restamp(line, ms + 1000));
    return { bytes: out.close(), lines };
  };
  const floodUntil = size - tail.reduce((sum, line) => sum + line.length + 1, 0);
  return { random, int, out, emit, loading, startMs, restamp, nccl: ncclLines(int), floodUntil, end };
}

/** Writes the start to `file`: about `size` bytes; returns { bytes, lines }. */
export function generateFloodStart(file, { size = 3e8, seed = 20250308, progressEvery = 0 } = {}) {
  const { int, out, emit, loading, startMs, restamp, nccl, floodUntil, end } = floodFile(file, { size, seed });
  let floodLines = 0;
  let ms = startMs;
  const estimatedLines = Math.max(1, Math.floor(floodUntil / 110));
  while (out.size() < floodUntil) {
    floodLines++;
    if (floodLines % LINES_PER_SECOND === 0) {
      ms += 1000;
      emit(restamp(loading[int(loading.length)], ms));
    } else if (progressEvery > 0 && floodLines % progressEvery === 0) {
      emit(shardFrame(Math.min(1, floodLines / estimatedLines), (ms - startMs) / 1000));
    } else {
      emit(nccl());
    }
  }
  return end(ms);
}

/** tqdm's elapsed and remaining time: `00:03`, minutes and seconds. */
export function tqdmClock(seconds) {
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;
}

/** One frame of SGLang's shard bar, as tqdm prints it to a log (its own line). */
function shardFrame(fraction, elapsedSeconds) {
  const done = Math.min(SHARDS - 1, Math.floor(fraction * SHARDS));
  const rate = done > 0 && elapsedSeconds > 0 ? done / elapsedSeconds : 0;
  const left = rate > 0 ? (SHARDS - done) / rate : 0;
  const clock = tqdmClock;
  const pct = String(Math.floor((done / SHARDS) * 100)).padStart(3);
  return `Loading safetensors checkpoint shards: ${pct}% Completed | ${done}/${SHARDS} [${clock(elapsedSeconds)}<${rate > 0 ? clock(left) : '?'}, ${rate > 0 ? rate.toFixed(2).padStart(5) : '    ?'}it/s]`;
}

/** NCCL_DEBUG=INFO lines of 8 ranks on one node, as NCCL prints them (no timestamp). */
function ncclLines(int) {
  const pick = (list) => list[int(list.length)];
  return () => {
    const g = int(8);
    const prefix = `node01:${41200 + g}:${41900 + g} [${g}] NCCL INFO`;
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
        return `${prefix} ${pick(['Connected all rings', 'Connected all trees', 'P2P Chunksize set to 524288', 'threadThresholds 8/8/64 | 64/8/64 | 512 | 512', '32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer', `Setting affinity for GPU ${g} to ffff,ffffffff`, 'NVLS multicast support is not available on dev 0', 'Using network Socket', 'cudaDriverVersion 12040', `Bootstrap : Using eth0:10.0.0.${g + 2}<0>`, `ncclCommInitRank comm 0x55d0a1c2e3f0 rank ${g} nranks 8 cudaDev ${g} nvmlDev ${g} busId ${(g + 1) * 10}00 commId 0x7b1c3d - Init START`])}`;
    }
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) throw new Error('usage: generate-flood.mjs FILE [--size 300MB] [--progress-every 5] [--seed N]');
  const option = optionIn(rest);
  const started = performance.now();
  const result = generateFloodStart(file, { size: parseSize(option('--size', '300MB')), seed: Number(option('--seed', 20250308)), progressEvery: Number(option('--progress-every', 0)) });
  console.log(`${file}: ${result.bytes} bytes, ${result.lines} lines in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
