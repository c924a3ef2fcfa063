/** Finds a watched start by its id (or pid) among the state files, for `status`, `attach` and `probe`. */
import { listRuns, runsDir, type RunEntry } from '../serve/run-files.js';
import { InputError, UsageError } from './errors.js';
import type { Io } from './io-context.js';
import { systemClock } from '../io/wall-clock.js';

export function runsDirOf(io: Io): string {
  const dir = runsDir(io.env);
  if (dir === undefined) throw new UsageError('no state directory: HOME and XDG_STATE_HOME are unset');
  return dir;
}

/** ID or pid given: that one; none: the newest that is still running. */
export function findRun(io: Io, wanted: string | undefined): RunEntry {
  const dir = runsDirOf(io);
  const entries = listRuns(dir, systemClock.now());
  if (wanted === undefined) {
    const running = entries.find((e) => e.state === 'running');
    if (running) return running;
    throw new InputError(`no start is being watched on this host right now (state files in ${dir}); 'spinup status' lists recent ones`);
  }
  const found = entries.find((e) => e.run.id === wanted) ?? entries.find((e) => String(e.run.pid) === wanted);
  if (!found) throw new InputError(`no start "${wanted}" on this host (state files in ${dir}); 'spinup status' lists them`);
  return found;
}
