import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { SupervisedChild, type Child, type PipedProcess } from './supervise/supervised-child.js';

export type { Child, ChildExit } from './supervise/supervised-child.js';
export type { OutputChunk } from './output-queue.js';
export type { StopReport } from './terminate-group.js';

export interface StartChildOptions {
  /** A path, or a name looked up in PATH (that of `env` when given). */
  command: string;
  /** Passed to the program as given: no shell, no globbing, no quoting. */
  args: string[];
  cwd?: string;
  /** Replaces the environment entirely (as in `child_process`); spread `process.env` to extend it. */
  env?: NodeJS.ProcessEnv;
}

/** Why a command could not be started. The CLI maps it to exit 66 (input not found). */
export class SpawnError extends Error {
  override name = 'SpawnError';
  constructor(
    message: string,
    readonly code: 'not-found' | 'not-executable' | 'spawn-failed',
    readonly command: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Starts `command` without a shell, in a new process group, with stdin ignored and stdout/stderr piped.
 * Rejects with {@link SpawnError} when it cannot be started; nothing is left running then.
 * The group is detached from spinup's terminal: Ctrl-C does not reach it unless forwarded with `signalGroup`,
 * and it outlives spinup unless stopped.
 */
export async function startChild(options: StartChildOptions): Promise<Child> {
  const { command, args, cwd, env } = options;
  if (cwd !== undefined) await assertDirectory(command, cwd);
  let proc: PipedProcess;
  try {
    proc = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
  } catch (error) {
    // Thrown synchronously for invalid arguments (a NUL byte, say); nothing was started.
    throw await toSpawnError(command, error);
  }
  const started = new Promise<void>((resolve, reject) => {
    proc.once('spawn', resolve);
    proc.once('error', reject);
  });
  // Listeners go on before the first tick so that no exit and no chunk can be missed.
  const child = new SupervisedChild(proc);
  try {
    await started;
  } catch (error) {
    throw await toSpawnError(command, error);
  }
  return child;
}

async function toSpawnError(command: string, error: unknown): Promise<SpawnError> {
  const errno = (error as NodeJS.ErrnoException).code;
  if (errno === 'ENOENT') {
    // An existing script whose #! interpreter is missing fails with the same ENOENT.
    const exists = command.includes('/') && (await stat(command).catch(() => undefined)) !== undefined;
    const why = exists ? 'its #! interpreter was not found' : 'command not found';
    return new SpawnError(`cannot start "${command}": ${why}`, 'not-found', command, { cause: error });
  }
  if (errno === 'EACCES' || errno === 'ENOEXEC' || errno === 'EISDIR') {
    const why = 'permission denied or not an executable file';
    return new SpawnError(`cannot start "${command}": ${why}`, 'not-executable', command, { cause: error });
  }
  const why = error instanceof Error ? error.message : String(error);
  return new SpawnError(`cannot start "${command}": ${why}`, 'spawn-failed', command, { cause: error });
}

// spawn reports a missing cwd as ENOENT on the command, which would blame the wrong thing.
async function assertDirectory(command: string, cwd: string): Promise<void> {
  const info = await stat(cwd).catch(() => undefined);
  if (info?.isDirectory()) return;
  const why = `working directory "${cwd}" does not exist or is not a directory`;
  throw new SpawnError(`cannot start "${command}": ${why}`, 'spawn-failed', command);
}
