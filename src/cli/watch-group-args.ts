/**
 * What `watch` needs to know about a group watch before starting one: whether the command line
 * names a group, its options and help. The group watch itself (watch-group.ts) is loaded only then.
 */
import type { ListenAddress } from '../status/listen-address.js';
import type { NotifyTarget } from './sinks/notify-option.js';

export const groupOptionsHelp = `Several nodes of one multi-node start (one verdict for the group):
  FILE FILE...        one log per node; ranks from the logs (SGLang node_rank, NCCL's
                      nNodes/localRanks lines, vLLM node_rank/headless), else the order
  --node R=SOURCE     node R reads SOURCE: a FILE, - (stdin) or cmd:COMMAND (run with
                      sh -c; restarted with backoff when it exits non-zero; killed by
                      a signal = that node's process died); repeatable
  --srun              the one SOURCE is srun --label output (\`0: \`, \`1: \` prefixes;
                      one task per node): split into nodes by label; without
                      --srun the labels are peeled and the output is read as one log
  --group-size N      how many nodes the start has (default: nnodes in the logs,
                      else LWS_GROUP_SIZE or SLURM_NNODES, else the nodes given)
  --listen ADDR       also be the head of nodes on other machines: their
                      'spinup run --group-leader URL --node-rank N' push to
                      /v1/nodes/N/events; /readyz, /v1/status and /metrics are the group's
  --group-token T     the group's shared token (or SPINUP_GROUP_TOKEN); required when
                      --listen is beyond loopback
  --heartbeat DURATION  a pushing node silent for three of these is lost (default 5s)
  --join-budget DURATION  with --listen: a node that has not joined this long after
                      the head started makes the group STALLED, naming it (default 10m;
                      --timeout still holds)`;

export interface GroupWatchArgs {
  listen?: ListenAddress;
  /** --notify URL: the group's verdict is POSTed there. */
  notify?: NotifyTarget;
  noState: boolean;
  groupToken?: string;
  heartbeat?: string;
  joinBudget?: string;
  positionals: string[];
  nodeOptions: string[];
  srun: boolean;
  groupSize?: string;
  follow: boolean;
  fromEnd: boolean;
  pack?: string;
  stall?: string;
  timeout?: string;
  json: boolean;
  quiet: boolean;
}

/** Whether the command line names a group rather than one log. */
export function isGroupWatch(positionals: string[], values: { node?: string[]; srun?: boolean; 'group-size'?: string }): boolean {
  return positionals.length > 1 || (values.node?.length ?? 0) > 0 || Boolean(values.srun) || values['group-size'] !== undefined || positionals.some((p) => p.startsWith('cmd:'));
}
