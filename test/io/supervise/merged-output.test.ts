/**
 * MergedOutput, run's source for the live loop, over a real child process: each batch of bytes is
 * written to the log before its lines are given, a partial line is released on demand while the
 * pipes stay open, and the end of the output is not the end of the source.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startChild, type Child } from '../../../src/io/child-process.js';
import { MergedOutput } from '../../../src/io/supervise/merged-output.js';
import type { LoopItem } from '../../../src/io/watch-loop.js';
import { PidTracker } from '../pid-tracker.js';

const tracker = new PidTracker();
const children: Child[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) await child.stop({ graceMs: 1_000 });
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});

async function node(script: string): Promise<Child> {
  const child = await startChild({ command: process.execPath, args: ['-e', script] });
  tracker.track(child.pid);
  children.push(child);
  return child;
}

/** The next item, or a failure after `ms` (a source that gives nothing more must not hang the test). */
function nextWithin(items: AsyncIterator<LoopItem>, ms = 5_000): Promise<IteratorResult<LoopItem>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no item within ${ms} ms`)), ms)));
  return Promise.race([items.next(), late]).finally(() => clearTimeout(timer));
}

function texts(result: IteratorResult<LoopItem>): string[] {
  const item = result.done ? undefined : result.value;
  return item?.kind === 'lines' ? item.lines.map((line) => `${line.lineNo}:${line.text}`) : [];
}

describe('MergedOutput', () => {
  it('writes each batch to the log before its lines are given, and flushes a partial line on demand', async () => {
    // A server that printed half a line and went on running: its pipes stay open.
    const child = await node("process.stdout.write('one\\ntwo, half'); setInterval(() => {}, 1000)");
    const order: string[] = [];
    const output = new MergedOutput(child.output, (bytes) => void order.push(`log ${JSON.stringify(bytes.toString())}`));
    const items = output[Symbol.asyncIterator]();
    expect((await nextWithin(items)).value).toEqual({ kind: 'caught-up' });
    const first = await nextWithin(items);
    order.push(`lines ${texts(first).join(',')}`);
    let flushed = false;
    const flush = output.flush().then(() => (flushed = true));
    const rest = await nextWithin(items);
    order.push(`lines ${texts(rest).join(',')}`);
    expect(order).toEqual(['log "one\\n"', 'lines 1:one', 'log "two, half\\n"', 'lines 2:two, half']);
    // Done once the loop has read it, that is when it asks for the next item.
    await Promise.resolve();
    expect(flushed).toBe(false);
    const after = items.next();
    await flush;
    output.close();
    expect(await after).toEqual({ done: true, value: undefined });
  });

  it('goes on after the output ended (the deciders keep ticking) until it is closed; `drained` says the end was read', async () => {
    const child = await node("console.log('last words'); process.stdout.end(); process.stderr.end(); setInterval(() => {}, 1000)");
    const output = new MergedOutput(child.output, () => {});
    const items = output[Symbol.asyncIterator]();
    await nextWithin(items); // caught-up
    expect(texts(await nextWithin(items))).toEqual(['1:last words']);
    const pending = items.next();
    await output.drained;
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    output.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    await output.flush(); // nothing held, nothing to wait for
  });
});
