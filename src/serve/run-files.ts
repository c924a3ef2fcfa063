/**
 * Where a watched start can be found again from another terminal: `$XDG_STATE_HOME/spinup/runs/`
 * (default ~/.local/state/spinup/runs/) holds one `ID.json` per start, written by atomic rename,
 * and, while it runs, its unix socket `ID.sock`. Not under XDG_RUNTIME_DIR: logind deletes that
 * with the user's last session, which is exactly the SSH drop `attach` is for.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultStateDir } from '../history/history-path.js';
import type { StatusSnapshot } from '../status/status-snapshot.js';

export const RUN_SCHEMA = 'spinup.run/v1';

export interface RunFile {
  schema: typeof RUN_SCHEMA;
  id: string;
  command: string;
  /** spinup's own pid. */
  pid: number;
  host: string;
  started_at: string;
  updated_at: string;
  ended_at?: string;
  exit_code?: number;
  listen_url?: string;
  socket?: string;
  log?: string;
  status: StatusSnapshot;
}

/** A state file as `status` sees it: running, ended, or stale (its spinup died without saying so). */
export interface RunEntry {
  file: string;
  run: RunFile;
  state: 'running' | 'ended' | 'stale';
}

/** Past runs are forgotten after this long. */
export const PRUNE_AFTER_MS = 7 * 24 * 3600_000;
/** Unix socket paths are capped at 108 bytes (sun_path); leave room. */
const MAX_SOCKET_PATH = 100;

/** Undefined when the environment names no home (a test calling `main` with a bare env). */
export function runsDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const state = defaultStateDir(env);
  return state === undefined ? undefined : join(state, 'runs');
}

/** `20261201-195430-12345`: sortable by time, unique per process. */
export function newRunId(now: Date, pid: number): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}-${pid}`;
}

export function ensureRunsDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** The socket beside the state file, or (when that path is too long for a socket) in a private folder in /tmp. */
export function socketPathFor({ dir, id, uid, tmp }: { dir: string; id: string; uid: number; tmp: string }): string {
  const beside = join(dir, `${id}.sock`);
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  const own = join(tmp, `spinup-${uid}`);
  mkdirSync(own, { recursive: true, mode: 0o700 });
  return join(own, `${id}.sock`);
}

export function writeRunFile(dir: string, run: RunFile): void {
  const file = join(dir, `${run.id}.json`);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(run, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

export function readRunFile(file: string): RunFile | undefined {
  try {
    const run = JSON.parse(readFileSync(file, 'utf8')) as RunFile;
    return run?.schema === RUN_SCHEMA && typeof run.id === 'string' && typeof run.pid === 'number' ? run : undefined;
  } catch {
    return undefined;
  }
}

/** Every readable state file, newest first; entries older than PRUNE_AFTER_MS that no longer run are deleted. */
export function listRuns(dir: string, nowMs: number): RunEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const entries: RunEntry[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const run = readRunFile(file);
    if (!run) continue;
    const state = run.ended_at !== undefined ? 'ended' : pidAlive(run.pid) ? 'running' : 'stale';
    if (state !== 'running' && nowMs - lastTouched(file, run) > PRUNE_AFTER_MS) {
      rmSync(file, { force: true });
      if (run.socket) rmSync(run.socket, { force: true });
      continue;
    }
    entries.push({ file, run, state });
  }
  return entries.sort((a, b) => b.run.started_at.localeCompare(a.run.started_at) || b.run.id.localeCompare(a.run.id));
}

function lastTouched(file: string, run: RunFile): number {
  const stamp = Date.parse(run.ended_at ?? run.updated_at);
  if (Number.isFinite(stamp)) return stamp;
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Signal 0 asks the kernel whether the pid exists; EPERM means it does, as someone else's. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
