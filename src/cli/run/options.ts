/** The command line of `spinup run [options] -- CMD ARGS...`. */
import { UsageError } from '../errors.js';
import type { ListenAddress } from '../../status/listen-address.js';
import { historyFlags } from '../history-flags.js';
import type { FleetFlagValues } from '../fleet-flags.js';
import { durationOption, listenOption, urlOption } from '../options.js';
import { parseOptions } from '../parse-options.js';
import type { SilenceLimits } from '../../core/activity.js';
import { silenceLimits, silenceParseOptions } from '../silence-options.js';
import { notifyOption, type NotifyTarget } from '../sinks/notify-option.js';
import { groupRunOptions, groupRunParseOptions, type GroupRunOptions } from './group-options.js';

export interface RunOptions {
  command: string;
  args: string[];
  log?: string;
  pack?: string;
  health?: string;
  /** After the log's ready line, how long the probe has to answer 200. */
  healthWaitMs: number;
  then?: string;
  graceMs: number;
  keepOnFail: boolean;
  stallOverrideMs?: number;
  timeoutMs?: number;
  /** A silent log with an idle process tree, or a tree busy with no I/O, is STALLED after these. */
  silence: SilenceLimits;
  json: boolean;
  quiet: boolean;
  listen?: ListenAddress;
  /** --notify URL: the verdict is POSTed there. */
  notify?: NotifyTarget;
  /** --no-state: no state file, no unix socket. */
  noState: boolean;
  /** --history PATH, --no-history, --no-learn, as `watch` takes them. */
  history: { history?: string; 'no-history'?: boolean; 'no-learn'?: boolean } & FleetFlagValues;
  /** A multi-node start across machines (see group-options.ts). */
  group: GroupRunOptions;
}

export type ParsedRunArgs = { kind: 'help' } | { kind: 'usage'; message: string } | { kind: 'run'; options: RunOptions };

const DEFAULT_GRACE_MS = 30_000;
const DEFAULT_HEALTH_WAIT_MS = 120_000;

export function parseRunArgs(args: string[]): ParsedRunArgs {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const server = split === -1 ? [] : args.slice(split + 1);
  const { values, positionals } = parseOptions({
    args: own,
    allowPositionals: true,
    options: {
      log: { type: 'string' },
      pack: { type: 'string' },
      health: { type: 'string' },
      'health-wait': { type: 'string' },
      then: { type: 'string' },
      grace: { type: 'string' },
      'keep-on-fail': { type: 'boolean' },
      stall: { type: 'string' },
      timeout: { type: 'string' },
      ...silenceParseOptions,
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      listen: { type: 'string' },
      notify: { type: 'string' },
      'no-state': { type: 'boolean' },
      ...groupRunParseOptions,
      help: { type: 'boolean', short: 'h' },
      ...historyFlags,
    },
  });
  if (values.help) return { kind: 'help' };
  if (split === -1) {
    const message = positionals.length > 0 ? `put -- before the server command: spinup run [options] -- ${positionals.join(' ')}` : 'name the server command after --';
    return { kind: 'usage', message };
  }
  if (positionals.length > 0) return { kind: 'usage', message: `"${positionals[0]}" is not an option; the server command goes after --` };
  const [command, ...rest] = server;
  if (command === undefined || command === '') return { kind: 'usage', message: 'name the server command after --' };
  if (values.then !== undefined && values.then.trim() === '') throw new UsageError('--then wants a shell command, e.g. --then "python bench.py"');
  return {
    kind: 'run',
    options: {
      command,
      args: rest,
      log: values.log,
      pack: values.pack,
      health: values.health === undefined ? undefined : healthUrl(values.health),
      healthWaitMs: durationOption('health-wait', values['health-wait']) ?? DEFAULT_HEALTH_WAIT_MS,
      then: values.then,
      graceMs: graceOption(values.grace),
      keepOnFail: Boolean(values['keep-on-fail']),
      stallOverrideMs: durationOption('stall', values.stall),
      timeoutMs: durationOption('timeout', values.timeout),
      silence: silenceLimits(values),
      json: Boolean(values.json),
      quiet: Boolean(values.quiet),
      listen: listenOption(values.listen),
      notify: notifyOption(values.notify),
      noState: Boolean(values['no-state']),
      history: {
        history: values.history,
        'no-history': values['no-history'],
        'no-learn': values['no-learn'],
        'learn-from': values['learn-from'],
        'learn-window': values['learn-window'],
        'learn-token-file': values['learn-token-file'],
        'learn-ca-file': values['learn-ca-file'],
      },
      group: groupRunOptions(values),
    },
  };
}

function healthUrl(value: string): string {
  const url = urlOption(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`--health wants an http:// URL such as http://127.0.0.1:30000/health_generate, not "${value}"`);
  }
  return url.href;
}

function graceOption(value: string | undefined): number {
  if (value === '0' || value === '0s') return 0;
  return durationOption('grace', value) ?? DEFAULT_GRACE_MS;
}
