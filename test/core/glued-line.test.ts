/**
 * A log line glued after a tqdm frame (field notes: "the next real log line can be glued onto the
 * end of a bar") is read as a line of its own, its timestamp moving the log's clock; and frames
 * whose `\r` was lost are read to the last.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../helpers/classify.js';

const start = [
  "[2025-04-20 14:03:02] server_args=ServerArgs(model_path='m', tp_size=1)",
  '[2025-04-20 14:03:05] Load weight begin. avail mem=78.00 GB',
];
const bar = '\rLoading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]\rLoading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:03,  1.00s/it]';
const failure = [
  '  File "/sgl/scheduler.py", line 10, in run',
  '    self.load()',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
  '',
  '[2025-04-20 14:09:08] Received sigquit from a child process. It usually means the child failed.',
];

describe('a line glued after a bar frame', () => {
  it('gives the clock its timestamp, and the bar its last frame before it', () => {
    const { verdict, events } = classify(undefined, [...start, `${bar}[2025-04-20 14:09:07] Scheduler hit an exception: Traceback (most recent call last):`, ...failure]);
    expect(verdict.verdict).toBe('failed');
    expect(verdict.cause).toBe('gpu_oom');
    // 14:03:02 to 14:09:07 (the glued line's stamp), not the 4 s the bar's own elapsed time gives.
    expect(verdict.elapsedMs).toBeGreaterThanOrEqual(6 * 60_000);
    const progress = events.filter((event) => event.type === 'progress');
    expect(progress.at(-1)?.type === 'progress' && progress.at(-1)!.progress.current).toBe(1);
  });

  it('frames glued with their \\r lost: the bar read to its last frame', () => {
    const frames = [0, 1, 2, 3, 4].map((done) => `Loading safetensors checkpoint shards: ${String(done * 25).padStart(3)}% Completed | ${done}/4 [00:0${done}<00:0${4 - done},  1.00s/it]`);
    const { events } = classify(undefined, [...start, frames.join('')]);
    const shown = events.flatMap((event) => (event.type === 'progress' ? [event.progress.current] : []));
    expect(shown.at(-1)).toBe(4);
  });

  // kubectl stamps in UTC, the server in its own zone (UTC+5): the collector's stamp times the physical line.
  it.for(['', '\r'])('behind a collector in another zone, a server line after a bar (%j between) does not move the clock hours on', (between) => {
    const kubectl = (time: string, text: string): string => `2025-03-10T${time}.000000000Z ${text}`;
    const { verdict } = classify(undefined, [
      kubectl('11:21:00', "[2025-03-10 16:21:00 TP0] server_args=ServerArgs(model_path='m', tp_size=2)"),
      kubectl('11:21:05', '[2025-03-10 16:21:05 TP0] Load weight begin. avail mem=78.00 GB'),
      kubectl('11:21:21', `Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]${between}[2025-03-10 16:21:21 TP1] Load weight begin. avail mem=78.00 GB`),
      kubectl('11:21:31', '[2025-03-10 16:21:31 TP0] Using default MoE config.'),
    ]);
    expect(verdict.elapsedMs).toBe(31_000);
  });
});
