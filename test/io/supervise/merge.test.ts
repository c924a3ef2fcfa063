import { describe, expect, it } from 'vitest';
import { StreamMerger, type StreamName } from '../../../src/io/supervise/merge.js';

type Step = [StreamName, string];

/** Feeds the steps and returns the merged log and every line with its merged line number. */
function merge(steps: Step[], end = true): { log: string; lines: string[] } {
  const merger = new StreamMerger();
  const parts: Buffer[] = [];
  const lines: string[] = [];
  const take = ({ bytes, lines: got }: ReturnType<StreamMerger['push']>): void => {
    parts.push(bytes);
    lines.push(...got.map((line) => `${line.lineNo}:${line.text}`));
  };
  for (const [stream, text] of steps) take(merger.push(stream, Buffer.from(text, 'latin1')));
  if (end) take(merger.end());
  return { log: Buffer.concat(parts).toString('latin1'), lines };
}

describe('StreamMerger', () => {
  it.for<{ name: string; steps: Step[]; log: string; lines: string[] }>([
    {
      name: 'whole lines pass through in arrival order',
      steps: [['stdout', 'a\nb\n'], ['stderr', 'c\n'], ['stdout', 'd\n']],
      log: 'a\nb\nc\nd\n',
      lines: ['1:a', '2:b', '3:c', '4:d'],
    },
    {
      name: 'a partial line waits for its own stream; the other stream goes first',
      steps: [['stdout', 'par'], ['stderr', 'err line\n'], ['stdout', 'tial\n']],
      log: 'err line\npartial\n',
      lines: ['1:err line', '2:partial'],
    },
    {
      name: 'a chunk ending mid-line releases its whole lines and keeps the rest',
      steps: [['stderr', 'one\ntw'], ['stdout', 'x\n'], ['stderr', 'o\n']],
      log: 'one\nx\ntwo\n',
      lines: ['1:one', '2:x', '3:two'],
    },
    {
      name: 'tqdm frames are released at each \\r and share their physical line number',
      steps: [['stderr', 'bar 1/3\rbar 2/3\r'], ['stderr', 'bar 3/3\n'], ['stdout', 'next\n']],
      log: 'bar 1/3\rbar 2/3\rbar 3/3\nnext\n',
      lines: ['1:bar 1/3', '1:bar 2/3', '1:bar 3/3', '2:next'],
    },
    {
      name: 'CRLF split across chunks is one line ending',
      steps: [['stdout', 'crlf\r'], ['stdout', '\nafter\n']],
      log: 'crlf\r\nafter\n',
      lines: ['1:crlf', '2:after'],
    },
    {
      name: 'at the end, partial lines are released with a newline',
      steps: [['stdout', 'last words'], ['stderr', 'err tail']],
      log: 'last words\nerr tail\n',
      lines: ['1:last words', '2:err tail'],
    },
  ])('$name', ({ steps, log, lines }) => {
    expect(merge(steps)).toEqual({ log, lines });
  });

  it('holds nothing back once lines are complete', () => {
    expect(merge([['stdout', 'a\n'], ['stderr', 'b']], false)).toEqual({ log: 'a\n', lines: ['1:a'] });
  });
});
