/**
 * Generates a pre-verdict start whose weight loading is drawn by 8 ranks at once (issue 26, bench
 * rows h, i, j), deterministically (seeded): fixtures/sglang/23 (a start that dies of a CUDA OOM
 * while loading weights) with, while it loads,
 *
 *   the shard bar of each of 8 ranks, its frames 40% of the lines: each rank's bar advances slowly
 *        through 49 shards, and tqdm redraws it with a new elapsed time and a smoothed rate every
 *        time, so no frame of a rank repeats the one before it (`(Worker_TP3 pid=41203) Loading
 *        safetensors checkpoint shards:  12% Completed | 6/49 [00:03<00:25,  1.75it/s]`);
 *   NCCL INFO chatter of the same 8 ranks between them, in bursts;
 *   once per second of log time one of the fixture's own loading lines under a new timestamp,
 *   then the rest of the fixture: the traceback and the CUDA OOM at the very end of the file.
 *
 * `separator: '\n'` (row h) writes each frame on a line of its own; `'\r'` (row i) writes each as
 * tqdm does into a file, `\r` before it and no newline, so a burst of frames is one long physical
 * line (about 10 KB) that the next NCCL line ends.
 *
 * So `spinup watch --no-follow --pack sglang` must answer: failed, gpu_oom, in load_weights.
 * Usage as a script: node test/bench/generate-rank-bars.mjs FILE [--size 100MB] [--separator cr|lf] [--seed N]
 */
import { fileURLToPath } from 'node:url';
import { floodFile, tqdmClock } from './generate-flood.mjs';
import { optionIn, parseSize } from './generate-log.mjs';

export const RANK_BARS_VERSION = 2;
const LINES_PER_SECOND = 4000;
const RANKS = 8;
const SHARDS = 49;
/** A burst of bar frames, then of NCCL lines: 40% frames. */
const FRAMES_PER_BURST = 100;
const NCCL_PER_BURST = 150;

/** Writes the start to `file`: about `size` bytes; returns { bytes, lines, frames }. */
export function generateRankBars(file, { size = 1e8, seed = 20250308, separator = '\n' } = {}) {
  if (separator !== '\n' && separator !== '\r') throw new Error(`separator must be \\n or \\r, not ${JSON.stringify(separator)}`);
  const { random, int, out, emit, loading, startMs, restamp, nccl, floodUntil, end } = floodFile(file, { size, seed });
  let frames = 0;
  const bars = Array.from({ length: RANKS }, (_, rank) => rankBar(rank, random));
  // Each rank's bar reaches its last shard near the flood's end (never all 49: the load dies).
  const estimatedFrames = Math.max(1, Math.floor((floodUntil / 88) * 0.4));
  let floodLines = 0;
  let ms = startMs;
  const tick = () => {
    floodLines++;
    if (floodLines % LINES_PER_SECOND !== 0) return false;
    ms += 1000;
    emit(restamp(loading[int(loading.length)], ms));
    return true;
  };
  while (out.size() < floodUntil) {
    for (let i = 0; i < FRAMES_PER_BURST; i++) {
      if (tick()) continue;
      // The bar's own clock: the flood's, to the fraction of a second its line count gives.
      const frame = bars[int(RANKS)].frame(frames / estimatedFrames, floodLines / LINES_PER_SECOND);
      frames++;
      if (separator === '\n') emit(frame);
      else out.write(`\r${frame}`);
    }
    for (let i = 0; i < NCCL_PER_BURST; i++) if (!tick()) emit(nccl());
  }
  return { ...end(ms), frames };
}

/** One rank's shard bar: `frame(fraction, elapsedSeconds)` draws it, never as it drew it last. */
function rankBar(rank, random) {
  const tag = `(Worker_TP${rank} pid=${41200 + rank}) `;
  // Ranks load at slightly different speeds: rank 7 is the slowest.
  const pace = 1 - rank * 0.02;
  let last = '';
  return {
    frame(fraction, elapsedSeconds) {
      const done = Math.min(SHARDS - 1, Math.floor(fraction * pace * SHARDS));
      // tqdm's smoothed rate wanders from frame to frame; a frame equal to the last one is nudged.
      let rate = done > 0 ? (done / Math.max(1, elapsedSeconds)) * (0.8 + 0.4 * random()) : 0;
      for (;;) {
        const text = `${tag}Loading safetensors checkpoint shards: ${drawn(done, elapsedSeconds, rate)}`;
        if (text !== last) return (last = text);
        rate += 0.01;
      }
    },
  };
}

/** `12% Completed | 6/49 [00:03<00:25,  1.75it/s]`, tqdm's `s/it` below one per second. */
function drawn(done, elapsedSeconds, rate) {
  const clock = tqdmClock;
  const pct = String(Math.floor((done / SHARDS) * 100)).padStart(3);
  if (rate <= 0) return `${pct}% Completed | ${done}/${SHARDS} [${clock(elapsedSeconds)}<?, ?it/s]`;
  const left = (SHARDS - done) / rate;
  const speed = rate >= 1 ? `${rate.toFixed(2).padStart(5)}it/s` : `${(1 / rate).toFixed(2).padStart(5)}s/it`;
  return `${pct}% Completed | ${done}/${SHARDS} [${clock(elapsedSeconds)}<${clock(left)}, ${speed}]`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) throw new Error('usage: generate-rank-bars.mjs FILE [--size 100MB] [--separator cr|lf] [--seed N]');
  const option = optionIn(rest);
  const separator = option('--separator', 'lf') === 'cr' ? '\r' : '\n';
  const started = performance.now();
  const result = generateRankBars(file, { size: parseSize(option('--size', '100MB')), seed: Number(option('--seed', 20250308)), separator });
  console.log(`${file}: ${result.bytes} bytes, ${result.lines} lines, ${result.frames} bar frames in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
