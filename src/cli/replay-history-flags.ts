/**
 * Replay's history flags (`--history`, `--learn-from`): beside the live commands' (history-flags.ts),
 * in a file of their own so that `watch` and `run` never load the replay machinery.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { systemClock, wallDate } from '../io/wall-clock.js';
import { ReplayMemory } from '../replay/replay-memory.js';
import type { Io } from './io-context.js';

export const replayHistoryHelp = `  --history PATH       append one start record per fixture to the history PATH
                       (a fixture whose log names no model is kept under its file name)
  --learn-from PATH    replay with stall budgets learned from the history PATH`;

/** `replay --history PATH` / `--learn-from PATH`; undefined when neither is given. */
export function replayMemory(io: Io, flags: { history?: string; 'learn-from'?: string }): ReplayMemory | undefined {
  if (flags.history === undefined && flags['learn-from'] === undefined) return undefined;
  return new ReplayMemory({
    historyPath: flags.history === undefined ? undefined : resolve(io.cwd, flags.history),
    learnFrom: flags['learn-from'] === undefined ? undefined : resolve(io.cwd, flags['learn-from']),
    host: hostname(),
    cwd: io.cwd,
    now: () => wallDate(systemClock),
  });
}
