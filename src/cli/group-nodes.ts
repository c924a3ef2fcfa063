/**
 * The nodes of `watch FILE FILE...` / `watch --node R=SOURCE ...`: which source is which rank,
 * and how many nodes the start should have.
 */
import { resolve } from 'node:path';
import type { NodeFacts } from '../core/node-facts.js';
import type { SizeSource } from '../core/group-types.js';
import type { NodeSource } from '../io/group-watch.js';
import { peekNodeFacts } from '../io/peek-node-facts.js';
import { UsageError } from './errors.js';

export interface NodePlan {
  nodes: { node: number; source: NodeSource; shown: string }[];
  /** Ranks read from the logs, for people: `node 1 = b.log (node_rank in the log)`. */
  rankNotes: string[];
  expected?: { size: number; from: SizeSource };
}

/** `cmd:COMMAND`, `-` or a path. */
export function parseSource(text: string, cwd: string): NodeSource {
  if (text.startsWith('cmd:')) {
    const command = text.slice(4).trim();
    if (command === '') throw new UsageError('cmd: needs a command, e.g. cmd:ssh host-b tail -F /data/server.log');
    return { kind: 'cmd', command };
  }
  return text === '-' ? { kind: 'stdin' } : { kind: 'file', path: resolve(cwd, text), shown: text };
}

/** `--node 1=b.log` -> rank 1, source b.log. */
export function parseNodeOption(text: string, cwd: string): { node: number; source: NodeSource; shown: string } {
  const match = /^(\d{1,4})=(.+)$/s.exec(text);
  if (!match) throw new UsageError(`--node wants RANK=SOURCE (a FILE, - or cmd:COMMAND), like --node 1=/data/node1.log, not "${text}"`);
  return { node: Number(match[1]), source: parseSource(match[2]!, cwd), shown: match[2]! };
}

export function planNodes(options: { positionals: string[]; nodeOptions: string[]; groupSize?: string; env: NodeJS.ProcessEnv; cwd: string }): NodePlan {
  const { positionals, nodeOptions, cwd } = options;
  if (positionals.length > 0 && nodeOptions.length > 0) throw new UsageError('give the nodes either as FILE... (ranks from the order or the logs) or as --node RANK=SOURCE, not both');
  const rankNotes: string[] = [];
  let facts: NodeFacts[] = [];
  let nodes: NodePlan['nodes'];
  if (nodeOptions.length > 0) {
    nodes = nodeOptions.map((text) => parseNodeOption(text, cwd));
    // Ranks are as given; the logs may still say how many nodes there are.
    facts = nodes.map(({ source }) => (source.kind === 'file' ? peekNodeFacts(source.path) : {}));
  } else {
    const sources = positionals.map((text) => ({ source: parseSource(text, cwd), shown: text }));
    facts = sources.map(({ source }) => (source.kind === 'file' ? peekNodeFacts(source.path) : {}));
    nodes = assignRanks(sources, facts, rankNotes);
  }
  const seen = new Set<number>();
  for (const { node } of nodes) {
    if (seen.has(node)) throw new UsageError(`node ${node} is given twice`);
    seen.add(node);
  }
  if (nodes.filter((n) => n.source.kind === 'stdin').length > 1) throw new UsageError('only one node can read stdin (-)');
  const expected = expectedSize(options.groupSize, facts, options.env);
  // A rank given by hand beyond the group's size would leave a rank below it waiting forever (as a pushed one is refused).
  const beyond = expected && nodeOptions.length > 0 ? nodes.find((n) => n.node >= expected.size) : undefined;
  if (beyond && expected) {
    const from = { option: '--group-size', log: 'the logs', env: 'the environment', command: 'the command', nodes: 'the nodes given' }[expected.from];
    throw new UsageError(`node ${beyond.node} is out of range: this group has ${expected.size} node${expected.size === 1 ? '' : 's'} (ranks 0-${expected.size - 1}, size from ${from}); check --node ${beyond.node}=...`);
  }
  return { nodes, rankNotes, expected };
}

/** A rank a log states is taken when no other log states it too; the rest fill the free ranks in order (followers after the head). */
function assignRanks(sources: { source: NodeSource; shown: string }[], facts: NodeFacts[], notes: string[]): NodePlan['nodes'] {
  const stated = facts.map((f) => f.rank);
  const unique = stated.map((rank) => (rank !== undefined && stated.filter((r) => r === rank).length === 1 ? rank : undefined));
  const taken = new Set(unique.filter((r): r is number => r !== undefined));
  const free = (follower: boolean): number => {
    let rank = follower ? 1 : 0;
    while (taken.has(rank)) rank++;
    taken.add(rank);
    return rank;
  };
  return sources.map(({ source, shown }, i) => {
    const rank = unique[i];
    if (rank !== undefined) notes.push(`node ${rank} = ${shown} (its log says so)`);
    return { node: rank ?? free(facts[i]?.follower === true), source, shown };
  });
}

function expectedSize(option: string | undefined, facts: NodeFacts[], env: NodeJS.ProcessEnv): NodePlan['expected'] {
  if (option !== undefined) {
    if (!/^\d{1,4}$/.test(option) || Number(option) < 1) throw new UsageError(`--group-size wants a number of nodes, not "${option}"`);
    return { size: Number(option), from: 'option' };
  }
  const fromLog = facts.find((f) => f.nnodes !== undefined)?.nnodes;
  if (fromLog !== undefined) return { size: fromLog, from: 'log' };
  for (const name of ['LWS_GROUP_SIZE', 'SLURM_NNODES']) {
    const value = env[name];
    if (value !== undefined && /^\d{1,4}$/.test(value) && Number(value) >= 1) return { size: Number(value), from: 'env' };
  }
  return undefined;
}
