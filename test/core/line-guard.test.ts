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
