/**
 * Several logs of one multi-node start, one verdict: every node's source runs through its own
 * watch loop and session (exactly as `watch FILE` reads one log), and their events go to the
 * group reducer. Live, the group's clock is the wall clock; read to the end (--no-follow), each
 * node is read on its own log time first and the nodes are then lined up by their timestamps
 * (core/group-replay.ts), as replay does.
 */
import type { Readable } from 'node:stream';
import { GroupReducer, type GroupOptions } from '../core/group-reducer.js';
import { replayGroup, type ReplayedNode } from '../core/group-replay.js';
import type { GroupEvent, GroupVerdict } from '../core/group-types.js';
import type { Verdict } from '../core/events.js';
import type { SessionEvent } from '../core/session.js';
import type { Child, ChildExit } from './child-process.js';
import { commandSource } from './command-source.js';
import type { NodeSession } from './node-session.js';
import { fileSource, followSource, streamSource } from './sources.js';
import { splitSrunLabels } from './srun-labels.js';
import { exitVerdict } from './supervise-exit.js';
import { EARLIER_VERDICT_WAIT_MS, runWatchLoop, type LoopResult, type SourceItem } from './watch-loop.js';
import { formatDuration } from '../core/duration.js';

export type NodeSource = { kind: 'file'; path: string } | { kind: 'stdin' } | { kind: 'cmd'; command: string };
type Notice = { type: string; path?: string; detail?: string };

export interface GroupWatchOptions {
  /** The nodes and their sources; or `srun`: one stream of `srun --label` output holding them all. */
  nodes: readonly { node: number; source: NodeSource }[];
  srun?: NodeSource;
  follow: boolean;
  fromEnd?: boolean;
  stdin: Readable;
  sessionFor: (node: number) => NodeSession;
  group: Omit<GroupOptions, 'nodes'>;
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvents: (events: GroupEvent[]) => void;
  onNotice: (node: number | undefined, notice: Notice) => void;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface GroupWatchResult {
  end: 'verdict' | 'timeout' | 'interrupted';
  verdict?: GroupVerdict;
  truncatedBytes: number;
}

const TICK_MS = 200;
const STOP_GRACE_MS = 2_000;

export function watchGroup(options: GroupWatchOptions): Promise<GroupWatchResult> {
  return options.follow ? watchLive(options) : readToEnd(options);
}

/** Everything a node needs from its source besides the bytes: a death to report, a child to stop. */
interface SourceHooks {
  signal: AbortSignal;
  onDeath: (exit: ChildExit, startedAt: number) => void;
  children: Child[];
}

function openSource(spec: NodeSource, options: GroupWatchOptions, hooks: SourceHooks): AsyncIterable<SourceItem> {
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

/** A FAILED verdict for a node whose local process died, from where its log had got to. */
function deathVerdict(session: NodeSession, exit: Pick<ChildExit, 'code' | 'signal'>, elapsedMs: number): Verdict {
  const state = session.classifier?.state;
  return exitVerdict({ exit, stage: state?.stage ?? 'none', lastLine: state?.lastLine, at: session.now, elapsedMs });
}

async function watchLive(options: GroupWatchOptions): Promise<GroupWatchResult> {
  const stop = new AbortController();
  const t0 = Date.now();
  const now = (): number => Date.now() - t0;
  const reducer = new GroupReducer({ ...options.group, nodes: options.nodes.map((n) => ({ node: n.node, kind: 'log' as const })) });
  const sessions = new Map<number, NodeSession>();
  const hooksFor = (node: number): SourceHooks => ({
    signal: stop.signal,
    children,
    onDeath: (exit, startedAt) => {
      const session = sessions.get(node) ?? options.sessionFor(node);
      emit(reducer.lost(node, deathVerdict(session, exit, Date.now() - startedAt), now()));
    },
  });
  const children: Child[] = [];
  const loops: Promise<void>[] = [];
  let running = 0;
  let demuxing = false;
  let truncatedBytes = 0;
  let end: GroupWatchResult['end'] | undefined;
  let wake: () => void = () => {};
  const finished = new Promise<void>((resolve) => (wake = resolve));
  const conclude = (how: GroupWatchResult['end']): void => {
    end ??= how;
    wake();
  };
  const emit = (events: GroupEvent[]): void => {
    if (events.length > 0) options.onEvents(events);
    if (reducer.verdict) conclude('verdict');
  };
  const settleIfAllEnded = (): void => {
    if (running === 0 && !demuxing && !end) emit(reducer.end(now()));
  };
  const startNode = (node: number, source: AsyncIterable<SourceItem>, isFile: boolean): void => {
    const session = options.sessionFor(node);
    sessions.set(node, session);
    reducer.addNode(node, 'log');
    running++;
    const loop = runWatchLoop({
      // A node joins with its first bytes: a follower may print nothing the classifier reports.
      source: onFirstData(source, () => emit(reducer.push(node, [], now()))),
      session,
      wall: () => Date.now(),
      stopAtVerdict: true,
      liveAfterCatchUp: isFile,
      signal: stop.signal,
      // The node's verdict is taken when its loop settles on it (a held ready, a newer run in the file).
      onEvents: (events) => {
        emit(reducer.push(node, events.filter((e) => e.type !== 'verdict'), now()));
        if (session.facts.nnodes !== undefined) emit(reducer.learnSize(session.facts.nnodes, now()));
      },
      onNotice: (notice) => options.onNotice(node, notice),
      onEarlierVerdict: (verdict) =>
        options.onNotice(node, {
          type: 'earlier-verdict',
          detail: `the latest run in its log had already ended ${verdict.verdict.toUpperCase()} at line ${verdict.decidedBy?.lineNo ?? '?'} before watch started; taking it unless a new run starts within ${formatDuration(EARLIER_VERDICT_WAIT_MS)}`,
        }),
    });
    loops.push(
      loop
        .then((result: LoopResult) => {
          truncatedBytes += result.truncatedBytes;
          if (result.verdict && (result.end === 'verdict' || result.end === 'ended')) emit(reducer.push(node, [{ type: 'verdict', verdict: result.verdict }], now()));
          if (result.end === 'ended') emit(reducer.ended(node, now()));
        })
        .catch((error: unknown) => {
          // One node's input failing (EIO, say) ends that node, not the group.
          options.onNotice(node, { type: 'unreadable', detail: (error as Error).message });
          emit(reducer.ended(node, now()));
        })
        .finally(() => {
          running--;
          settleIfAllEnded();
        }),
    );
  };

  options.signal?.addEventListener('abort', () => conclude('interrupted'), { once: true });
  const ticker = setInterval(() => {
    if (options.timeoutMs !== undefined && now() >= options.timeoutMs) conclude('timeout');
    else emit(reducer.tick(now()));
  }, TICK_MS);
  let demux: Promise<void> | undefined;
  if (options.srun) {
    demuxing = true;
    const hooks = hooksFor(-1);
    demux = splitSrunLabels(openSource(options.srun, options, hooks), {
      onNode: (node, source) => startNode(node, source, false),
      onTaskEnd: (node, exit) => {
        const session = sessions.get(node);
        if (session) emit(reducer.lost(node, deathVerdict(session, exit, now()), now()));
      },
      onNotice: (notice) => options.onNotice(undefined, notice),
    })
      .catch((error: unknown) => options.onNotice(undefined, { type: 'unreadable', detail: (error as Error).message }))
      .finally(() => {
        demuxing = false;
        settleIfAllEnded();
      });
  }
  for (const { node, source } of options.nodes) startNode(node, openSource(source, options, hooksFor(node)), source.kind === 'file');
  if (options.signal?.aborted) conclude('interrupted');
  await finished;
  clearInterval(ticker);
  stop.abort();
  await Promise.allSettled([...loops, ...(demux ? [demux] : [])]);
  await Promise.allSettled(children.map((child) => child.stop({ graceMs: STOP_GRACE_MS })));
  return { end: reducer.verdict ? 'verdict' : (end ?? 'interrupted'), verdict: reducer.verdict, truncatedBytes };
}

async function readToEnd(options: GroupWatchOptions): Promise<GroupWatchResult> {
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const children: Child[] = [];
  const entries: { node: number; session: NodeSession; events: SessionEvent[]; lost?: Verdict }[] = [];
  const loops: Promise<LoopResult>[] = [];
  const read = (node: number, source: AsyncIterable<SourceItem>): void => {
    const entry = { node, session: options.sessionFor(node), events: [] as SessionEvent[] } as (typeof entries)[number];
    entries.push(entry);
    loops.push(runWatchLoop({ source, session: entry.session, stopAtVerdict: false, signal: stop.signal, onEvents: (events) => entry.events.push(...events), onNotice: (n) => options.onNotice(node, n) }));
  };
  const hooksFor = (node: number): SourceHooks => ({
    signal: stop.signal,
    children,
    onDeath: (exit, startedAt) => {
      const entry = entries.find((e) => e.node === node);
      if (entry) entry.lost = deathVerdict(entry.session, exit, Date.now() - startedAt);
    },
  });
  if (options.srun) {
    await splitSrunLabels(openSource(options.srun, options, hooksFor(-1)), {
      onNode: (node, source) => read(node, source),
      onTaskEnd: (node, exit) => {
        const entry = entries.find((e) => e.node === node);
        if (entry) entry.lost = deathVerdict(entry.session, exit, 0);
      },
      onNotice: (notice) => options.onNotice(undefined, notice),
    });
  }
  for (const { node, source } of options.nodes) read(node, openSource(source, options, hooksFor(node)));
  const results = await Promise.all(loops);
  if (stop.signal.aborted) return { end: 'interrupted', truncatedBytes: 0 };
  const nodes: ReplayedNode[] = entries.map((e) => ({ node: e.node, events: e.events, origin: e.session.logOrigin, nnodes: e.session.facts.nnodes, lost: e.lost }));
  const { verdict, events } = replayGroup(nodes, options.group);
  options.onEvents(events);
  return { end: 'verdict', verdict, truncatedBytes: results.reduce((sum, r) => sum + r.truncatedBytes, 0) };
}

async function* onFirstData(source: AsyncIterable<SourceItem>, first: () => void): AsyncGenerator<SourceItem> {
  let seen = false;
  for await (const item of source) {
    if (!seen && item.kind === 'data' && item.chunk.length > 0) {
      seen = true;
      first();
    }
    yield item;
  }
}
