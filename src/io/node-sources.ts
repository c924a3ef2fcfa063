/** What the ends of a group's node sources mean for the node (the sources are opened in open-source.ts). */
import type { Verdict } from '../core/events.js';
import type { Child, ChildExit } from './child-process.js';
import type { Session } from '../core/session.js';
import type { SourceHooks, SourceSpec } from './open-source.js';
import { exitVerdict } from './supervise/exit.js';
import type { SourceItem } from './watch-loop.js';

export type { OpenOptions, SourceHooks } from './open-source.js';
/** A node's source: any source (open-source.ts). */
export type NodeSource = SourceSpec;

/** The command that prints every node (srun itself) is no node: its death is news, and the nodes' own ends tell the rest. */
export function srunHooks(signal: AbortSignal, children: Child[], options: { onNotice: (node: undefined, notice: { type: string; detail: string }) => void }): SourceHooks {
  return {
    signal,
    children,
    onDeath: (exit) => options.onNotice(undefined, { type: 'command-died', detail: `the command printing every node was killed by ${exit.signal ?? `a signal (exit code ${exit.code})`}` }),
  };
}

/** A FAILED verdict for a node whose local process died, from where its log had got to. */
export function deathVerdict(session: Session, exit: Pick<ChildExit, 'code' | 'signal'>, elapsedMs: number): Verdict {
  const state = session.classifier?.state;
  return exitVerdict({ exit, stage: state?.stage ?? 'none', lastLine: state?.lastLine, at: session.now, elapsedMs });
}

/** Calls `first` when the first bytes arrive: a node joins with them, whatever its classifier reports. */
export async function* onFirstData(source: AsyncIterable<SourceItem>, first: () => void): AsyncGenerator<SourceItem> {
  let seen = false;
  for await (const item of source) {
    if (!seen && item.kind === 'data' && item.chunk.length > 0) {
      seen = true;
      first();
    }
    yield item;
  }
}
