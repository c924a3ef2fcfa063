/**
 * The history flags the live commands share (`watch`, `run`: where the store is, and the memory
 * of one start). Commands import this, never each other; replay's history flags are in
 * replay-history-flags.ts, so that a watch does not load the replay machinery.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Verdict } from '../core/events.js';
import type { Session, SessionOptions } from '../core/session.js';
import { defaultHistoryPath } from '../history/history-path.js';
import { openMemory, recordStart, showsAStart } from '../history/record-start.js';
import type { StartRecord } from '../history/start-record.js';
import { trackedSession, type StartTracker } from '../history/start-tracker.js';
import { wallDate } from '../io/wall-clock.js';
import { UsageError } from './errors.js';
import type { Io } from './io-context.js';
import { fleetFlags, fleetFlagsHelp, fleetMemory, fleetSource, type FleetFlagValues } from './fleet-flags.js';

/** `--history PATH` resolved, or the XDG default (undefined when the env names no home). */
export function historyPath(io: Io, value: string | undefined): string | undefined {
  return value !== undefined ? resolve(io.cwd, value) : defaultHistoryPath(io.env);
}

/** The flags `watch` and `run` take, for their parseArgs and help. */
export const historyFlags = {
  history: { type: 'string' },
  'no-history': { type: 'boolean' },
  'no-learn': { type: 'boolean' },
  ...fleetFlags,
} as const;

export const historyFlagsHelp = `  --history PATH      the start history to learn from and add to
                      (default: $XDG_STATE_HOME/spinup/history.jsonl)
  --no-history        neither read nor record the start history
  --no-learn          record, but keep the pack's stall budgets (no learned ones)
${fleetFlagsHelp}`;

/** What one start remembers: a session its tracker follows (knowing the history), and the record it leaves. */
export interface StartMemory {
  session: Session;
  tracker: StartTracker;
  /** Set when the history could not be (fully) read. */
  warning?: string;
  /** Appends this start's record (`log`: where it was read, when known only now); returns a warning when that failed. */
  record(verdict: Verdict | undefined, log?: string): string | undefined;
}

export async function startMemory(params: {
  io: Io;
  flags: { history?: string; 'no-history'?: boolean; 'no-learn'?: boolean } & FleetFlagValues;
  session: SessionOptions;
  source: StartRecord['source'];
  log?: string;
}): Promise<StartMemory> {
  const { io, flags } = params;
  if (flags['no-history'] && flags.history !== undefined) throw new UsageError('--history and --no-history disagree; pick one');
  const path = flags['no-history'] ? undefined : historyPath(io, flags.history);
  const fromFleet = fleetSource(flags, io.env, (file) => resolve(io.cwd, file));
  const host = hostname();
  const learn = !flags['no-learn'];
  // Asked before the first line is read: a start's budgets hold from its first stage.
  const fleet = fromFleet ? await fleetMemory(fromFleet, io) : undefined;
  if (path === undefined) {
    // No history of this host (a pod's empty state directory): the fleet may still teach.
    if (!fleet) return { ...trackedSession(params.session), record: () => undefined };
    return { ...trackedSession({ ...params.session, memory: { records: [], host, learn, fleet } }), record: () => undefined };
  }
  const opened = openMemory({ path, host, learn });
  const { session, tracker } = trackedSession({ ...params.session, memory: { ...opened.memory, fleet } });
  const record = (verdict: Verdict | undefined, log = params.log): string | undefined => {
    if (!verdict || !showsAStart(verdict)) return undefined;
    return recordStart({ path, tracker, verdict, host, when: wallDate(), source: params.source, log }).warning;
  };
  return { session, tracker, warning: opened.warning, record };
}
