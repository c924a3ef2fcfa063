import { describe, expect, it } from 'vitest';
import { guardFrames, MAX_FRAME_CHARS, stripAnsi } from '../../src/core/line-guard.js';

describe('guardFrames', () => {
  it.for([
    { name: 'plain line', raw: 'hello', frames: ['hello'] },
    { name: 'CRLF', raw: 'hello\r', frames: ['hello'] },
    { name: 'trailing newline', raw: 'hello\n', frames: ['hello'] },
    { name: 'tqdm frames', raw: 'a 1/3\ra 2/3\ra 3/3', frames: ['a 1/3', 'a 2/3', 'a 3/3'] },
    { name: 'leading \\r', raw: '\rLoading 1/2', frames: ['Loading 1/2'] },
    { name: 'blank line stays one empty frame', raw: '', frames: [''] },
    { name: 'only carriage returns', raw: '\r\r', frames: [''] },
    { name: 'ANSI in a process tag', raw: '\x1b[1;36m(EngineCore_DP0 pid=1)\x1b[0;0m INFO x', frames: ['(EngineCore_DP0 pid=1) INFO x'] },
    { name: 'caret-notation colour', raw: '^[[0;36m(APIServer pid=1)^[[0;0m INFO x', frames: ['(APIServer pid=1) INFO x'] },
    { name: 'trailing spaces', raw: 'k8s line      ', frames: ['k8s line'] },
  ])('$name', ({ raw, frames }) => {
    expect(guardFrames(raw)).toEqual(frames);
  });

  it('caps a runaway frame and still keeps its head', () => {
    const frames = guardFrames(`Fatal Python error: Bus error ${'x'.repeat(MAX_FRAME_CHARS * 10)}`);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.length).toBe(MAX_FRAME_CHARS);
    expect(frames[0]!.startsWith('Fatal Python error: Bus error')).toBe(true);
  });

  it('strips OSC sequences and leaves plain text alone', () => {
    expect(stripAnsi('\x1b]0;title\x07text')).toBe('text');
    expect(stripAnsi('no escapes [here]')).toBe('no escapes [here]');
  });
});

describe('a log line glued after a bar', () => {
  // tqdm draws its frames with `\r` and no newline: the next line another process writes continues the last frame.
  it.for([
    {
      name: 'a timestamped line after a frame',
      raw: '\rLoading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:03,  1.00s/it][2025-04-20 14:09:07] Scheduler hit an exception: Traceback (most recent call last):',
      frames: ['Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:03,  1.00s/it]', '[2025-04-20 14:09:07] Scheduler hit an exception: Traceback (most recent call last):'],
    },
    {
      name: 'a first frame with no rate yet, an indented traceback line after it (its indent kept)',
      raw: 'Capturing batches (bs=8):   0%|          | 0/51 [00:00<?, ?it/s]  File "/x/model_runner.py", line 3, in capture',
      frames: ['Capturing batches (bs=8):   0%|          | 0/51 [00:00<?, ?it/s]', '  File "/x/model_runner.py", line 3, in capture'],
    },
    {
      name: 'hours, a unit of its own, two bars glued in a row',
      raw: 'a.bin: 10%|#| 1/10 [1:02:03<9:00:00, 12.5MB/s]b.bin: 20%|#| 2/10 [00:01<00:04,  2.00it/s]node01:1:2 [0] NCCL INFO Bootstrap',
      frames: ['a.bin: 10%|#| 1/10 [1:02:03<9:00:00, 12.5MB/s]', 'b.bin: 20%|#| 2/10 [00:01<00:04,  2.00it/s]', 'node01:1:2 [0] NCCL INFO Bootstrap'],
    },
    { name: 'a frame alone, blanks after it', raw: 'Loading 1/4 [00:01<00:03,  1.00s/it]   ', frames: ['Loading 1/4 [00:01<00:03,  1.00s/it]'] },
    { name: 'a postfix in the brackets is no tail to cut at', raw: 'train 1/4 [00:01<00:03,  1.00s/it, loss=0.3]x', frames: ['train 1/4 [00:01<00:03,  1.00s/it, loss=0.3]x'] },
    { name: 'a line that only quotes a time range', raw: 'took [10:00<12:00] then more', frames: ['took [10:00<12:00] then more'] },
  ])('$name', ({ raw, frames }) => {
    expect(guardFrames(raw)).toEqual(frames);
  });
});
