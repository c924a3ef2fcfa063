/**
 * `srun --label` output on one stream, split into its nodes: each line starts with its task id
 * (`0: `, `1: `, padded as ` 3: ` in larger jobs), which with one task per node is the node rank.
 * The label is peeled off, so every node's session reads its own log as the server wrote it.
 * Unlabelled lines are srun's own; of those, `srun: error: HOST: task N: Killed` and `...: Exited
 * with exit code C` say how a node's process ended.
 */
import type { ChildExit } from './child-process.js';
import type { SourceItem } from './watch-loop.js';

const LABEL = /^ *(\d{1,5}): /;
const TASK_END = /^srun: error: [^:]+: tasks? (\d+)(?:-(\d+))?: (Killed|Exited with exit code (\d+)|Terminated|Segmentation fault)/;
const LF = 0x0a;
/** A partial line longer than this is let through as it is, to the node of the last label. */
const MAX_PARTIAL_BYTES = 1 << 20;

export interface SrunHandlers {
  /** A label seen for the first time: the node and its own source of lines. */
  onNode: (node: number, source: AsyncIterable<SourceItem>) => void;
  /** srun said a task ended (the process of that node). */
  onTaskEnd?: (node: number, exit: Pick<ChildExit, 'code' | 'signal'>) => void;
  onNotice?: (notice: { type: string; path?: string; detail?: string }) => void;
}

export async function splitSrunLabels(source: AsyncIterable<SourceItem>, handlers: SrunHandlers): Promise<void> {
  const nodes = new Map<number, NodeQueue>();
  let caughtUp = false;
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let lastNode = 0;
  const queue = (node: number): NodeQueue => {
    let found = nodes.get(node);
    if (!found) {
      found = new NodeQueue();
      nodes.set(node, found);
      if (caughtUp) found.push({ kind: 'caught-up' });
      handlers.onNode(node, found);
    }
    return found;
  };
  const route = (line: Buffer): void => {
    const head = line.subarray(0, 16).toString('latin1');
    const label = LABEL.exec(head);
    if (label) {
      lastNode = Number(label[1]);
      queue(lastNode).push({ kind: 'data', chunk: line.subarray(label[0].length) });
      return;
    }
    const end = TASK_END.exec(line.toString('utf8'));
    if (end) taskEnded(end, handlers);
  };
  const flush = (): void => {
    if (partialBytes === 0) return;
    route(Buffer.concat([...partial, Buffer.from('\n')]));
    partial = [];
    partialBytes = 0;
  };
  try {
    for await (const item of source) {
      if (item.kind === 'caught-up') {
        caughtUp = true;
        for (const q of nodes.values()) q.push(item);
      } else if (item.kind === 'notice') handlers.onNotice?.(item.notice);
      else if (item.kind === 'flush') flush();
      else {
        let start = 0;
        for (let lf = item.chunk.indexOf(LF); lf !== -1; lf = item.chunk.indexOf(LF, start)) {
          const piece = item.chunk.subarray(start, lf + 1);
          route(partialBytes > 0 ? Buffer.concat([...partial, piece]) : Buffer.from(piece));
          partial = [];
          partialBytes = 0;
          start = lf + 1;
        }
        if (start < item.chunk.length) {
          partial.push(Buffer.from(item.chunk.subarray(start)));
          partialBytes += item.chunk.length - start;
        }
        if (partialBytes > MAX_PARTIAL_BYTES) {
          queue(lastNode).push({ kind: 'data', chunk: Buffer.concat(partial) });
          partial = [];
          partialBytes = 0;
        }
      }
    }
    flush();
  } finally {
    for (const q of nodes.values()) q.end();
  }
}

function taskEnded(match: RegExpExecArray, handlers: SrunHandlers): void {
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  const how = match[3]!;
  const exit: Pick<ChildExit, 'code' | 'signal'> = how === 'Killed'
    ? { code: null, signal: 'SIGKILL' }
    : how === 'Terminated'
      ? { code: null, signal: 'SIGTERM' }
      : how === 'Segmentation fault'
        ? { code: null, signal: 'SIGSEGV' }
        : { code: Number(match[4]), signal: null };
  for (let node = first; node <= last && node - first < 1024; node++) handlers.onTaskEnd?.(node, exit);
}

/** One node's lines, queued until its watch loop reads them. */
class NodeQueue implements AsyncIterable<SourceItem> {
  private readonly items: SourceItem[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  push(item: SourceItem): void {
    this.items.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SourceItem> {
    for (;;) {
      const item = this.items.shift();
      if (item) {
        yield item;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
