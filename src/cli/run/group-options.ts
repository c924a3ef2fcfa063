/**
 * The options of `run` for a multi-node start across machines: a follower names its head
 * (`--group-leader URL --node-rank N`); the head listens (`--listen`) and knows how many nodes
 * to expect (`--group-size`, else LWS_GROUP_SIZE or SLURM_NNODES).
 */
import type { SizeSource } from '../../core/group-types.js';
import { isLoopbackHost, type ListenAddress } from '../../status/listen-address.js';
import { UsageError } from '../errors.js';
import { durationOption, urlOption } from '../options.js';

export interface GroupRunOptions {
  leader?: string;
  nodeRank?: number;
  groupSize?: number;
  /** --group-token; the environment's SPINUP_GROUP_TOKEN is read later, with the rest of the env. */
  token?: string;
  heartbeatMs: number;
  /** The head: how long a follower may take to join (its first push). */
  joinBudgetMs?: number;
}

export const groupRunParseOptions = {
  'group-leader': { type: 'string' },
  'node-rank': { type: 'string' },
  'group-size': { type: 'string' },
  'group-token': { type: 'string' },
  heartbeat: { type: 'string' },
  'join-budget': { type: 'string' },
} as const;

export const groupRunHelp = `Multi-node (one verdict for the group, across machines):
  --group-leader URL  this node is a follower: push its events and a heartbeat to the
                      head's spinup at URL (its --listen address, http://HEAD:9464)
  --node-rank N       this follower's rank (1, 2, ...; the head is 0)
  --group-size N      on the head (with --listen): how many nodes the start has
                      (default LWS_GROUP_SIZE or SLURM_NNODES; 1 = no group)
  --group-token T     shared secret of the group, sent as a bearer token (or env
                      SPINUP_GROUP_TOKEN); required when the head listens beyond loopback
  --heartbeat DURATION  how often a follower pushes at least; a follower silent for
                      three of them is lost (default 5s; give every node the same)
  --join-budget DURATION  on the head: a follower that has not joined (pushed) this long
                      after the head started makes the group STALLED, naming it
                      (default 10m; --timeout still holds, for the whole group)`;

const DEFAULT_HEARTBEAT_MS = 5_000;

export function groupRunOptions(values: { 'group-leader'?: string; 'node-rank'?: string; 'group-size'?: string; 'group-token'?: string; heartbeat?: string; 'join-budget'?: string }): GroupRunOptions {
  const options: GroupRunOptions = { heartbeatMs: durationOption('heartbeat', values.heartbeat) ?? DEFAULT_HEARTBEAT_MS };
  if (options.heartbeatMs < 50) throw new UsageError('--heartbeat wants at least 50ms');
  const joinBudgetMs = durationOption('join-budget', values['join-budget']);
  if (joinBudgetMs !== undefined) options.joinBudgetMs = joinBudgetMs;
  if (values['group-leader'] !== undefined) options.leader = leaderUrl(values['group-leader']);
  if (values['node-rank'] !== undefined) options.nodeRank = count('node-rank', values['node-rank'], 0);
  if (values['group-size'] !== undefined) options.groupSize = count('group-size', values['group-size'], 1);
  if (values['group-token'] !== undefined) {
    if (values['group-token'] === '') throw new UsageError('--group-token wants a non-empty secret');
    options.token = values['group-token'];
  }
  if (options.leader !== undefined && options.nodeRank === undefined) throw new UsageError('--group-leader needs --node-rank N: which node of the group this is');
  if (options.nodeRank !== undefined && options.leader === undefined) throw new UsageError('--node-rank goes with --group-leader URL (the head\'s spinup, to push to)');
  if (options.leader !== undefined && options.nodeRank === 0) throw new UsageError('--node-rank 0 is the head: run it with --listen ADDR --group-size N instead of --group-leader');
  if (options.leader !== undefined && options.joinBudgetMs !== undefined) throw new UsageError('--join-budget is the head\'s to give; a follower (--group-leader) only pushes');
  if (options.leader !== undefined && options.groupSize !== undefined) throw new UsageError('--group-size is the head\'s to know; a follower (--group-leader) only pushes');
  return options;
}

export type GroupRole = { role: 'single' } | { role: 'follower'; leader: string; node: number; token?: string; heartbeatMs: number } | { role: 'head'; expected: { size: number; from: SizeSource }; token?: string; heartbeatMs: number; joinBudgetMs?: number };

/**
 * Which part this `run` plays, now that the environment and --listen are known. The head's size:
 * --group-size, else the server command's own `--nnodes N` (what its log will say), else the
 * environment LWS or Slurm set.
 */
export function groupRole(options: GroupRunOptions, listen: ListenAddress | undefined, env: NodeJS.ProcessEnv, serverArgs: readonly string[] = []): GroupRole {
  const token = options.token ?? (env.SPINUP_GROUP_TOKEN || undefined);
  if (options.leader !== undefined) return { role: 'follower', leader: options.leader, node: options.nodeRank!, token, heartbeatMs: options.heartbeatMs };
  const expected = options.groupSize !== undefined ? { size: options.groupSize, from: 'option' as const } : (sizeFromCommand(serverArgs) ?? sizeFromEnv(env));
  if (options.groupSize !== undefined && !listen) throw new UsageError('--group-size needs --listen ADDR: the followers push their events to it');
  if (!listen || expected === undefined || expected.size < 2) return { role: 'single' };
  return { role: 'head', expected, token: headToken(listen, token, env), heartbeatMs: options.heartbeatMs, joinBudgetMs: options.joinBudgetMs };
}

/** The group's token: --group-token, else SPINUP_GROUP_TOKEN; required of a head listening beyond loopback. */
export function headToken(listen: ListenAddress, token: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const given = token ?? (env.SPINUP_GROUP_TOKEN || undefined);
  if (given === undefined && !isLoopbackHost(listen.host)) throw new UsageError(`the head of a group listening on ${listen.text} (beyond loopback) needs a shared token: --group-token T or SPINUP_GROUP_TOKEN`);
  return given;
}

/** `--nnodes 2` or `--nnodes=2` (SGLang and vLLM both say it so). */
function sizeFromCommand(args: readonly string[]): { size: number; from: SizeSource } | undefined {
  for (const [i, arg] of args.entries()) {
    const value = arg === '--nnodes' ? args[i + 1] : arg.startsWith('--nnodes=') ? arg.slice('--nnodes='.length) : undefined;
    if (value !== undefined && /^\d{1,4}$/.test(value) && Number(value) >= 1) return { size: Number(value), from: 'command' };
  }
  return undefined;
}

function sizeFromEnv(env: NodeJS.ProcessEnv): { size: number; from: SizeSource } | undefined {
  for (const name of ['LWS_GROUP_SIZE', 'SLURM_NNODES']) {
    const value = env[name];
    if (value !== undefined && /^\d{1,4}$/.test(value) && Number(value) >= 1) return { size: Number(value), from: 'env' };
  }
  return undefined;
}

function count(name: string, value: string, min: number): number {
  if (!/^\d{1,4}$/.test(value) || Number(value) < min) throw new UsageError(`--${name} wants a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${value}"`);
  return Number(value);
}

function leaderUrl(value: string): string {
  const url = urlOption(value);
  if (!url || url.protocol !== 'http:') throw new UsageError(`--group-leader wants the head's --listen URL, like http://10.0.0.1:9464, not "${value}"`);
  return url.origin;
}
