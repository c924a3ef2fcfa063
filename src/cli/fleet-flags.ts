/**
 * `--learn-from URL` and its companions (watch and run), each also an environment variable for
 * pods (SPINUP_LEARN_FROM, ...; a flag wins). At start, the fleet's Prometheus is asked once,
 * within FLEET_TIMEOUT_MS; whatever happens, the start goes on, and a fleet that could not be
 * used is said once on stderr.
 */
// The client (node:http, node:https) is loaded only when a fleet is named: a watch without one never needs it.
import type { FleetSource } from '../history/fleet-client.js';
import { FLEET_TIMEOUT_MS, FLEET_WINDOW, LEARN_QUERIES } from '../history/fleet-queries.js';
import type { FleetMemory } from '../history/start-tracker.js';
import { UsageError } from './errors.js';
import { write, type Io } from './io-context.js';

export const fleetFlags = {
  'learn-from': { type: 'string' },
  'learn-window': { type: 'string' },
  'learn-token-file': { type: 'string' },
  'learn-ca-file': { type: 'string' },
} as const;

export type FleetFlagValues = { 'learn-from'?: string; 'learn-window'?: string; 'learn-token-file'?: string; 'learn-ca-file'?: string };

export const fleetFlagsHelp = `  --learn-from URL    also learn budgets and the ETA from the fleet: the Prometheus at URL
                      that scrapes spinup's /metrics (env SPINUP_LEARN_FROM); no answer
                      within ${FLEET_TIMEOUT_MS / 1000}s falls back to this host's history
  --learn-window W    how far back the fleet looks, in Prometheus's words
                      (default ${FLEET_WINDOW}; env SPINUP_LEARN_WINDOW)
  --learn-token-file F  a bearer token for it (env SPINUP_LEARN_TOKEN_FILE)
  --learn-ca-file F   the CA of its https certificate (env SPINUP_LEARN_CA_FILE)`;

/** Flag, else environment variable, for each. */
const ENV: Record<keyof FleetFlagValues, string> = {
  'learn-from': 'SPINUP_LEARN_FROM',
  'learn-window': 'SPINUP_LEARN_WINDOW',
  'learn-token-file': 'SPINUP_LEARN_TOKEN_FILE',
  'learn-ca-file': 'SPINUP_LEARN_CA_FILE',
};

/** The fleet source the flags and environment name, or undefined when none; bad values are usage errors. */
export function fleetSource(
  flags: FleetFlagValues,
  env: NodeJS.ProcessEnv,
  cwdResolve: (path: string) => string,
  /** How the command names the flags (`history --from` says --from and --window). */
  shownAs: Partial<Record<keyof FleetFlagValues, string>> = {},
): FleetSource | undefined {
  const value = (key: keyof FleetFlagValues): string | undefined => flags[key] ?? (env[ENV[key]] || undefined);
  const flag = (key: keyof FleetFlagValues): string => `--${shownAs[key] ?? key}`;
  const url = value('learn-from');
  if (url === undefined) {
    const orphan = (['learn-window', 'learn-token-file', 'learn-ca-file'] as const).find((key) => flags[key] !== undefined);
    if (orphan) throw new UsageError(`${flag(orphan)} needs --learn-from URL (or SPINUP_LEARN_FROM)`);
    return undefined;
  }
  if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) throw new UsageError(`${flag('learn-from')} wants the http(s) URL of a Prometheus, not "${url}"`);
  const window = value('learn-window') ?? FLEET_WINDOW;
  if (!/^(\d+(ms|s|m|h|d|w|y))+$/.test(window)) throw new UsageError(`${flag('learn-window')} wants a Prometheus duration like 14d, 36h or 2w, not "${window}"`);
  const file = (key: 'learn-token-file' | 'learn-ca-file'): string | undefined => {
    const path = value(key);
    return path === undefined ? undefined : cwdResolve(path);
  };
  return { url, window, timeoutMs: FLEET_TIMEOUT_MS, tokenFile: file('learn-token-file'), caFile: file('learn-ca-file') };
}

/** Asks the fleet; says on stderr, once, when it cannot be used, or when it knows nothing of the model. */
export async function fleetMemory(source: FleetSource, io: Io): Promise<FleetMemory> {
  const fallback = (why: string): void => write(io.stderr, `spinup: ${why}; learning from this host's history, then the pack\n`);
  const { askFleet } = await import('../history/fleet-client.js');
  const answer = await askFleet(source, LEARN_QUERIES);
  const base = { url: source.url, window: source.window };
  if ('problem' in answer) {
    fallback(`the fleet at ${source.url} was not used (${answer.problem})`);
    return { ...base, problem: answer.problem };
  }
  if (answer.figures.models.length === 0) {
    const problem = `no READY start of any model over ${source.window}`;
    fallback(`the fleet at ${source.url} was not used (${problem})`);
    return { ...base, problem };
  }
  return { ...base, figures: answer.figures, onMiss: fallback };
}
