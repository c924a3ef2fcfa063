/**
 * A finished multi-node start, replayed: each node's log was classified on its own time; here
 * the nodes are lined up on one clock and their events fed to the group reducer in the order
 * they happened. Nodes are lined up by the first timestamp of their logs (LogClock.origin); a
 * node whose log has none, or whose origin is more than CLOCK_JUMP_MS from the others (a
 * format read differently), starts with the earliest.
 */
import { GroupReducer, type GroupOptions } from './group-reducer.js';
import type { GroupEvent, GroupVerdict } from './group-types.js';
import { CLOCK_JUMP_MS } from './log-clock.js';
import type { Verdict } from './events.js';
import type { SessionEvent } from './session.js';

export interface ReplayedNode {
  node: number;
  /** The node's events in order, times in its own log time. */
  events: readonly SessionEvent[];
  /** The node log's first timestamp (Session.logOrigin). */
  origin?: number;
  /** How many nodes the log says the start has. */
  nnodes?: number;
  /** The node's process died after its last line (a local command killed by a signal). */
  lost?: Verdict;
}

export function replayGroup(nodes: readonly ReplayedNode[], options: Omit<GroupOptions, 'nodes'>): { verdict: GroupVerdict; events: GroupEvent[] } {
  const reducer = new GroupReducer({ ...options, nodes: nodes.map((n) => ({ node: n.node, kind: 'log' as const })) });
  const out: GroupEvent[] = [];
  const nnodes = nodes.find((n) => n.nnodes !== undefined)?.nnodes;
  if (nnodes !== undefined) out.push(...reducer.learnSize(nnodes, 0));
  const offsets = alignOrigins(nodes);
  const timed = nodes.flatMap((n, i) => {
    let last = 0;
    const items: { node: number; seq: number; at: number; event?: SessionEvent; lost?: Verdict }[] = n.events.map((event, seq) => {
      last = eventAt(event) ?? last;
      return { node: n.node, seq, at: offsets[i]! + last, event };
    });
    if (n.lost) items.push({ node: n.node, seq: items.length, at: offsets[i]! + last, lost: n.lost });
    return items;
  });
  timed.sort((a, b) => a.at - b.at || a.node - b.node || a.seq - b.seq);
  for (const item of timed) {
    // Time passes between events: a settle window may close before the next one arrives.
    for (let due = reducer.nextDeadline, last = -Infinity; due !== undefined && due <= item.at && due > last && !reducer.verdict; last = due, due = reducer.nextDeadline) {
      out.push(...reducer.tick(due));
    }
    out.push(...reducer.tick(item.at));
    out.push(...(item.event ? reducer.push(item.node, [item.event], item.at) : reducer.lost(item.node, item.lost!, item.at)));
  }
  const end = timed.length > 0 ? timed[timed.length - 1]!.at : 0;
  const due = reducer.nextDeadline;
  if (due !== undefined && !reducer.verdict) out.push(...reducer.tick(Math.max(due, end)));
  out.push(...reducer.end(end));
  return { verdict: reducer.verdict!, events: out };
}

/** Each node's offset on the group clock, in ms from the earliest origin. */
export function alignOrigins(nodes: readonly { origin?: number }[]): number[] {
  const known = nodes.map((n) => n.origin).filter((o): o is number => o !== undefined);
  if (known.length === 0) return nodes.map(() => 0);
  const earliest = Math.min(...known);
  return nodes.map((n) => (n.origin === undefined || n.origin - earliest > CLOCK_JUMP_MS ? 0 : n.origin - earliest));
}

/** The log time an event happened at; `family` has none (it takes the one before it). */
export function eventAt(event: SessionEvent): number | undefined {
  if (event.type === 'family') return undefined;
  if (event.type === 'verdict') return event.verdict.at;
  return event.at;
}
