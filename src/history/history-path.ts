/**
 * Where spinup keeps what it learns on a machine by default: `$XDG_STATE_HOME/spinup/` (the
 * history, the pack cache, the code cache, the state files of runs).
 */
import { isAbsolute, join } from 'node:path';

/**
 * `env` is passed in (only the CLI reads the process environment). Undefined when it names
 * no home: a test calling `main` with a bare env then never writes to a real home directory.
 */
export function defaultStateDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  // The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored.
  if (env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)) return join(env.XDG_STATE_HOME, 'spinup');
  const home = env.HOME || env.USERPROFILE;
  return home && isAbsolute(home) ? join(home, '.local', 'state', 'spinup') : undefined;
}

/** The history: `$XDG_STATE_HOME/spinup/history.jsonl`. */
export function defaultHistoryPath(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const dir = defaultStateDir(env);
  return dir === undefined ? undefined : join(dir, 'history.jsonl');
}
