/**
 * Several logs of one multi-node start, one verdict: every node's source runs through its own
 * watch loop and session (exactly as `watch FILE` reads one log), and their events go to the
 * group reducer. Live, the group's clock is the wall clock; read to the end (--no-follow), each
 * node is read on its own log time first and the nodes are then lined up by their timestamps
 * (core/group-replay.ts, io/group-read-to-end.ts), as replay does.
 */
import { formatDuration } from '../core/duration.js';
import { GroupReducer, type GroupOptions } from '../core/group-reducer.js';
import type { GroupEvent, GroupVerdict } from '../core/group-types.js';
import type { Child } from './child-process.js';
import { readToEnd } from './group-read-to-end.js';
import { deathVerdict, onFirstData, srunHooks, type NodeSource, type OpenOptions, type SourceHooks } from './node-sources.js';
import { openSource, type OpenedSource } from './open-source.js';
import type { Session, SessionEvent } from '../core/session.js';
import { withNodeFacts } from './node-facts-source.js';
import { splitSrunLabels } from './srun-labels.js';
import { EARLIER_VERDICT_WAIT_MS, runWatchLoop, type LoopResult, type SourceItem } from './watch-loop.js';
import { systemClock, type WallClock } from './wall-clock.js';

export type { NodeSource } from './node-sources.js';

export interface GroupWatchOptions extends OpenOptions {
  /** The nodes and their sources; or `srun`: one stream of `srun --label` output holding them all. */
  nodes: readonly { node: number; source: NodeSource }[];
  srun?: NodeSource;
  sessionFor: (node: number) => Session;
  /** What a node's input said about itself (a rotation, a decoded .gz), or the srun stream (node undefined). */
  onNotice: (node: number | undefined, notice: { type: string; path?: string; detail?: string }) => void;
  /** Wall time; default the system clock. */
  clock?: WallClock;
  group: Omit<GroupOptions, 'nodes'>;
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvents: (events: GroupEvent[]) => void;
  /**
   * A head that also takes pushed nodes (`watch --listen ... --group-size N`): called once with
   * the way in for a remote node's events (none: a heartbeat); it answers the group's verdict so far.
   */
  acceptRemote?: (take: (node: number, events: SessionEvent[]) => string | { refused: string }) => void;
  /**
   * A head serving probes (`watch --listen`): the group's READY does not end the watch. Called
   * once with it; the nodes' logs and the followers' pushes are taken on (a crash after READY, a
   * follower lost) until the signal aborts. A FAILED or STALLED group still ends it.
   */
  onReady?: (verdict: GroupVerdict) => void;
  /** After every change: where the nodes stand and the verdict, if any (for the status API). */
  onStanding?: (standing: ReturnType<GroupReducer['standing']>, verdict: GroupVerdict | undefined) => void;
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

async function watchLive(options: GroupWatchOptions): Promise<GroupWatchResult> {
  const stop = new AbortController();
  const clock = options.clock ?? systemClock;
  const t0 = clock.now();
  const now = (): number => clock.now() - t0;
  const reducer = new GroupReducer({ ...options.group, nodes: options.nodes.map((n) => ({ node: n.node, kind: 'log' as const })) });
  const sessions = new Map<number, Session>();
  const hooksFor = (node: number): SourceHooks => ({
    signal: stop.signal,
    children,
    onDeath: (exit, startedAt) => {
      const session = sessions.get(node) ?? options.sessionFor(node);
      emit(reducer.lost(node, deathVerdict(session, exit, clock.now() - startedAt), now()));
    },
  });
  const children: Child[] = [];
  const opened: OpenedSource[] = [];
  const open = (...args: Parameters<typeof openSource>): OpenedSource => {
    const source = openSource(...args);
    opened.push(source);
    return source;
  };
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
  let saidReady = false;
  const emit = (events: GroupEvent[]): void => {
    if (events.length > 0) options.onEvents(events);
    if (events.length > 0) options.onStanding?.(reducer.standing(), reducer.verdict);
    const verdict = reducer.verdict;
    if (verdict?.verdict === 'ready' && options.onReady) {
      if (!saidReady) options.onReady(verdict);
      saidReady = true;
    } else if (verdict) conclude('verdict');
  };
  const settleIfAllEnded = (): void => {
    // Pushed nodes go on after the local logs stop (at their verdicts): only the group decides then.
    if (running === 0 && !demuxing && !end && !options.acceptRemote) emit(reducer.end(now()));
  };
  const startNode = (node: number, source: AsyncIterable<SourceItem>, followed: boolean): void => {
    const session = options.sessionFor(node);
    sessions.set(node, session);
    reducer.addNode(node, 'log');
    running++;
    // Served on after READY, a node's loop reads on past its verdict, which joins the group when it settles.
    let settled = false;
    const loop = runWatchLoop({
      // A node joins with its first bytes: a follower may print nothing the classifier reports.
      source: withNodeFacts(
        onFirstData(source, () => emit(reducer.push(node, [], now()))),
        (facts) => facts.nnodes !== undefined && emit(reducer.learnSize(facts.nnodes, now())),
      ),
      session,
      wall: () => clock.now(),
      clock,
      stopAtVerdict: true,
      onSettled: options.onReady
        ? (verdict) => {
            settled = true;
            emit(reducer.push(node, [{ type: 'verdict', verdict }], now()));
            return 'read-on';
          }
        : undefined,
      liveAfterCatchUp: followed,
      signal: stop.signal,
      // The node's verdict is taken when its loop settles on it (a held ready, a newer run in the file).
      onEvents: (events) => {
        emit(reducer.push(node, events.filter((e) => e.type !== 'verdict'), now()));
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
          if (result.verdict && !settled && (result.end === 'verdict' || result.end === 'ended')) emit(reducer.push(node, [{ type: 'verdict', verdict: result.verdict }], now()));
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

  options.acceptRemote?.((node, events) => {
    const refused = reducer.rankRefusal(node);
    if (refused !== undefined) return { refused };
    reducer.addNode(node, 'remote');
    emit(events.length > 0 ? reducer.push(node, events, now()) : reducer.heartbeat(node, now()));
    return reducer.verdict?.verdict ?? 'pending';
  });
  options.signal?.addEventListener('abort', () => conclude('interrupted'), { once: true });
  const ticker = setInterval(() => {
    // --timeout waits for a verdict: a READY group served on is past it.
    if (options.timeoutMs !== undefined && !reducer.verdict && now() >= options.timeoutMs) conclude('timeout');
    else emit(reducer.tick(now()));
  }, TICK_MS);
  let demux: Promise<void> | undefined;
  if (options.srun) {
    demuxing = true;
    demux = splitSrunLabels(open(options.srun, options, srunHooks(stop.signal, children, options)).items, {
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
  for (const { node, source } of options.nodes) {
    const { items, traits } = open(source, options, hooksFor(node));
    startNode(node, items, traits.followed);
  }
  if (options.signal?.aborted) conclude('interrupted');
  await finished;
  clearInterval(ticker);
  stop.abort();
  await Promise.allSettled([...loops, ...(demux ? [demux] : [])]);
  await Promise.allSettled(children.map((child) => child.stop({ graceMs: STOP_GRACE_MS })));
  for (const source of opened) source.close();
  return { end: reducer.verdict ? 'verdict' : (end ?? 'interrupted'), verdict: reducer.verdict, truncatedBytes };
}
