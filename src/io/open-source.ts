/**
 * Every input spinup reads, opened in one place: a file (followed by name, or read once), stdin (a
 * pipe read by its descriptor when it is one), or a command's output (`cmd:`); and every one of
 * them decoded the same way (gzip, UTF-16, docker's JSON lines: decode-input.ts). `watch` of one
 * log and each node of a group open their sources here, so a `.gz` reads alike in both (they
 * once chose their sources apart, and a group read gzip bytes as text).
 */
import type { Readable } from 'node:stream';
import type { Child, ChildExit } from './child-process.js';
import type { CommandSourceOptions } from './command-source.js';
import { decodeInput } from './decode-input.js';
import { isPipe, pipeSource } from './pipe-source.js';
import { fileSource, followSource, streamSource } from './sources.js';
import type { SourceItem } from './watch-loop.js';

/** What to read. `shown`: a file as the user named it, for the words about it. */
export type SourceSpec = { kind: 'file'; path: string; shown?: string } | { kind: 'stdin' } | { kind: 'cmd'; command: string };

/** How to open a source: follow or read once, stdin, and where a command runs. */
export interface OpenOptions {
  follow: boolean;
  fromEnd?: boolean;
  /** Read when the spec is stdin and fd 0 is no pipe. */
  stdin?: Readable;
  /** fd 0, when stdin may be a pipe to read by its descriptor (the stream is then never made). */
  stdinFd?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** What a source needs besides the bytes: when to stop, and for a command, a death to report and a child to stop. */
export interface SourceHooks {
  signal: AbortSignal;
  onDeath?: (exit: ChildExit, startedAt: number) => void;
  children?: Child[];
}

/** What kind of input it turned out to be, for the loop that reads it. */
export interface SourceTraits {
  /** How the input is named in notices: the file as given, `stdin`, the command. */
  name: string;
  /** A file followed by name: lines after its backlog are live (the loop's `liveAfterCatchUp`). */
  followed: boolean;
  /** stdin (a pipe, a FIFO): its end is the writer's. */
  piped: boolean;
}

export interface OpenedSource {
  items: AsyncIterable<SourceItem>;
  traits: SourceTraits;
  /** Lets go of what the source holds beyond itself (the stdin stream, which keeps the process alive). */
  close(): void;
}

export function openSource(spec: SourceSpec, options: OpenOptions, hooks: SourceHooks): OpenedSource {
  const opened = openBytes(spec, options, hooks);
  return { ...opened, items: decodeInput(opened.items, opened.traits.name) };
}

function openBytes(spec: SourceSpec, options: OpenOptions, hooks: SourceHooks): OpenedSource {
  const none = (): void => {};
  if (spec.kind === 'file') {
    const items = options.follow ? followSource(spec.path, { fromEnd: Boolean(options.fromEnd), signal: hooks.signal }) : fileSource(spec.path);
    return { items, traits: { name: spec.shown ?? spec.path, followed: options.follow, piped: false }, close: none };
  }
  if (spec.kind === 'stdin') {
    const traits = { name: 'stdin', followed: false, piped: true };
    // The pipe source closes its own descriptor when the loop lets go of it.
    const pipe = options.stdinFd !== undefined && isPipe(options.stdinFd) ? pipeSource(options.stdinFd, { signal: hooks.signal }) : undefined;
    if (pipe) return { items: pipe, traits, close: none };
    const stdin = options.stdin;
    if (!stdin) throw new Error('stdin is read, but no stdin stream was given');
    // An open pipe (tail -F upstream) would keep the process alive after the verdict.
    return { items: streamSource(stdin), traits, close: () => stdin.destroy() };
  }
  let startedAt = 0;
  const items = lazyCommandSource({
    command: spec.command,
    follow: options.follow,
    signal: hooks.signal,
    env: options.env,
    cwd: options.cwd,
    onStart: (child) => {
      startedAt = child.startedAt;
      hooks.children?.push(child);
    },
    onDeath: (exit) => hooks.onDeath?.(exit, startedAt),
  });
  return { items, traits: { name: spec.command, followed: false, piped: false }, close: none };
}

/**
 * `cmd:` loads node:child_process, which a watch of a file never needs (its start-up stays lean,
 * test/cli/start-up-packages.test.ts): the command source is loaded when it is first read.
 */
async function* lazyCommandSource(options: CommandSourceOptions): AsyncIterable<SourceItem> {
  const { commandSource } = await import('./command-source.js');
  yield* commandSource(options);
}

/**
 * A finished log's whole text, decoded as `watch` decodes it (for `explain` and `report`, which
 * read a log at once); and what its input said about itself (a .gz cut short).
 */
export async function readLogText(path: string, shown: string): Promise<{ text: string; notices: { type: string; path?: string; detail?: string }[] }> {
  const chunks: Buffer[] = [];
  const notices: { type: string; path?: string; detail?: string }[] = [];
  const opened = openSource({ kind: 'file', path, shown }, { follow: false }, { signal: new AbortController().signal });
  for await (const item of opened.items) {
    // The file source reuses its buffers: a chunk is copied before the next is asked for.
    if (item.kind === 'data') chunks.push(Buffer.from(item.chunk));
    else if (item.kind === 'notice') notices.push(item.notice);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), notices };
}
