/** Splitting `srun --label` output into its nodes. */
import { describe, expect, it } from 'vitest';
import { splitSrunLabels } from '../../src/io/srun-labels.js';
import type { SourceItem } from '../../src/io/watch-loop.js';

async function* chunks(...parts: string[]): AsyncGenerator<SourceItem> {
  yield { kind: 'caught-up' };
  for (const part of parts) yield { kind: 'data', chunk: Buffer.from(part) };
}

async function split(...parts: string[]) {
  const nodes = new Map<number, string>();
  const reads: Promise<void>[] = [];
  const ends: [number, unknown][] = [];
  await splitSrunLabels(chunks(...parts), {
    onNode: (node, source) => {
      nodes.set(node, '');
      reads.push((async () => {
        for await (const item of source) if (item.kind === 'data') nodes.set(node, nodes.get(node)! + item.chunk.toString());
      })());
    },
    onTaskEnd: (node, exit) => ends.push([node, exit]),
  });
  await Promise.all(reads);
  return { nodes: Object.fromEntries(nodes), ends };
}

describe('splitSrunLabels', () => {
  it('routes each labelled line to its node with the label peeled, across chunk boundaries', async () => {
    const { nodes } = await split('0: [2025-02-08 00:24:47] server_args\n1: host-b NCCL', ' INFO x\n 0: Init torch\n10: ten\n');
    expect(nodes).toEqual({ 0: '[2025-02-08 00:24:47] server_args\nInit torch\n', 1: 'host-b NCCL INFO x\n', 10: 'ten\n' });
  });

  it('keeps a labelled line\'s own colons and a last line with no newline', async () => {
    const { nodes } = await split('1: a: b: c\n0: tail without newline');
    expect(nodes).toEqual({ 1: 'a: b: c\n', 0: 'tail without newline\n' });
  });

  it('reads srun\'s own reports of a task ending; other unlabelled lines are dropped', async () => {
    const { nodes, ends } = await split(
      '0: up\n1: up\nsrun: Job step aborted: Waiting up to 32 seconds\n',
      'srun: error: host-b: task 1: Killed\nsrun: error: host-a: task 0: Exited with exit code 1\nsrun: error: host-c: tasks 2-3: Segmentation fault\n',
    );
    expect(nodes).toEqual({ 0: 'up\n', 1: 'up\n' });
    expect(ends).toEqual([
      [1, { code: null, signal: 'SIGKILL' }],
      [0, { code: 1, signal: null }],
      [2, { code: null, signal: 'SIGSEGV' }],
      [3, { code: null, signal: 'SIGSEGV' }],
    ]);
  });
});
