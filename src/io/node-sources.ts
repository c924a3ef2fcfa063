/** The sources of a group's nodes (a file, stdin, a command) and what their ends mean for the node. */
import type { Readable } from 'node:stream';
import type { Verdict } from '../core/events.js';
import type { Child, ChildExit } from './child-process.js';
import { commandSource } from './command-source.js';
import type { Session } from '../core/session.js';
import { fileSource, followSource, streamSource } from './sources.js';
import { exitVerdict } from './supervise/exit.js';
import type { SourceItem } from './watch-loop.js';

export type NodeSource = { kind: 'file'; path: string } | { kind: 'stdin' } | { kind: 'cmd'; command: string };
type Notice = { type: string; path?: string; detail?: string };

/** How to open a source: follow or read once, stdin, and where a command runs. */
export interface OpenOptions {
  follow: boolean;
  fromEnd?: boolean;
  stdin: Readable;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  onNotice: (node: number | undefined, notice: Notice) => void;
}

/** Everything a node needs from its source besides the bytes: a death to report, a child to stop. */
export interface SourceHooks {
  signal: AbortSignal;
  onDeath: (exit: ChildExit, startedAt: number) => void;
  children: Child[];
}

export function openSource(spec: NodeSource, options: OpenOptions, hooks: SourceHooks): AsyncIterable<SourceItem> {
  if (spec.kind === 'stdin') return streamSource(options.stdin);
  if (spec.kind === 'file') return options.follow ? followSource(spec.path, { fromEnd: Boolean(options.fromEnd), signal: hooks.signal }) : fileSource(spec.path);
  let startedAt = 0;
  return commandSource({
    command: spec.command,
    follow: options.follow,
    signal: hooks.signal,
    env: options.env,
    cwd: options.cwd,
    onStart: (child) => {
      startedAt = child.startedAt;
      hooks.children.push(child);
    },
    onDeath: (exit) => hooks.onDeath(exit, startedAt),
  });
}

/** The command that prints every node (srun itself) is no node: its death is news, and the nodes' own ends tell the rest. */
export function srunHooks(signal: AbortSignal, children: Child[], options: OpenOptions): SourceHooks {
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
