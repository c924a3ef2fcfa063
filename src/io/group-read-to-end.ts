/** A group read to its end (--no-follow): every node on its own log time, then lined up and reduced once. */
import type { Verdict } from '../core/events.js';
import { replayGroup, type ReplayedNode } from '../core/group-replay.js';
import type { SessionEvent } from '../core/session.js';
import type { Child } from './child-process.js';
import type { GroupWatchOptions, GroupWatchResult } from './group-watch.js';
import { deathVerdict, srunHooks, type SourceHooks } from './node-sources.js';
import { openSource, type OpenedSource } from './open-source.js';
import type { Session } from '../core/session.js';
import { withNodeFacts } from './node-facts-source.js';
import { splitSrunLabels } from './srun-labels.js';
import { runWatchLoop, type LoopResult, type SourceItem } from './watch-loop.js';
import { systemClock } from './wall-clock.js';

export async function readToEnd(options: GroupWatchOptions): Promise<GroupWatchResult> {
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const children: Child[] = [];
  const entries: { node: number; session: Session; events: SessionEvent[]; lost?: Verdict; nnodes?: number }[] = [];
  const loops: Promise<LoopResult>[] = [];
  const opened: OpenedSource[] = [];
  const open = (...args: Parameters<typeof openSource>): AsyncIterable<SourceItem> => {
    const source = openSource(...args);
    opened.push(source);
    return source.items;
  };
  const read = (node: number, source: AsyncIterable<SourceItem>): void => {
    const entry = { node, session: options.sessionFor(node), events: [] as SessionEvent[] } as (typeof entries)[number];
    entries.push(entry);
    loops.push(
      runWatchLoop({
        source: withNodeFacts(source, (facts) => (entry.nnodes ??= facts.nnodes)),
        session: entry.session,
        stopAtVerdict: false,
        signal: stop.signal,
        onEvents: (events) => entry.events.push(...events),
        onNotice: (n) => options.onNotice(node, n),
      }),
    );
  };
  const hooksFor = (node: number): SourceHooks => ({
    signal: stop.signal,
    children,
    onDeath: (exit, startedAt) => {
      const entry = entries.find((e) => e.node === node);
      if (entry) entry.lost = deathVerdict(entry.session, exit, (options.clock ?? systemClock).now() - startedAt);
    },
  });
  if (options.srun) {
    await splitSrunLabels(open(options.srun, options, srunHooks(stop.signal, children, options)), {
      onNode: (node, source) => read(node, source),
      onTaskEnd: (node, exit) => {
        const entry = entries.find((e) => e.node === node);
        if (entry) entry.lost = deathVerdict(entry.session, exit, 0);
      },
      onNotice: (notice) => options.onNotice(undefined, notice),
    });
  }
  for (const { node, source } of options.nodes) read(node, open(source, options, hooksFor(node)));
  const results = await Promise.all(loops).finally(() => opened.forEach((source) => source.close()));
  if (stop.signal.aborted) return { end: 'interrupted', truncatedBytes: 0 };
  const nodes: ReplayedNode[] = entries.map((e) => ({ node: e.node, events: e.events, origin: e.session.logOrigin, nnodes: e.nnodes, lost: e.lost }));
  const { verdict, events } = replayGroup(nodes, options.group);
  options.onEvents(events);
  return { end: 'verdict', verdict, truncatedBytes: results.reduce((sum, r) => sum + r.truncatedBytes, 0) };
}
