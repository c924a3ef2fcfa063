/** `--then 'CMD'`: the command run once the server is ready (a benchmark, a test suite), through `sh -c`. */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

export interface ThenResult {
  /** The exit code to pass on: its own, or 128+N when a signal ended it. */
  code: number;
  signal?: NodeJS.Signals;
  interrupted: boolean;
}

export interface ThenOptions {
  command: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** With --json, stdout carries JSON only, so the command's stdout goes to stderr. */
  stdoutToStderr: boolean;
  graceMs: number;
  signal?: AbortSignal;
}

const NOT_RUNNABLE = 127;

/**
 * Runs the command in a process group of its own, so that Ctrl-C reaches everything it started (`sh -c` may
 * fork rather than exec) and nothing it started outlives it: SIGINT to the group, SIGKILL after the grace.
 */
export function runThen(options: ThenOptions): Promise<ThenResult> {
  return new Promise((resolve) => {
    let interrupted = false;
    let timer: NodeJS.Timeout | undefined;
    const child = spawn('sh', ['-c', options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['inherit', options.stdoutToStderr ? 2 : 'inherit', 'inherit'],
    });
    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const killOnExit = (): void => signalGroup('SIGKILL');
    process.once('exit', killOnExit);
    const onAbort = (): void => {
      interrupted = true;
      signalGroup('SIGINT');
      timer = setTimeout(() => signalGroup('SIGKILL'), options.graceMs);
    };
    const done = (result: Omit<ThenResult, 'interrupted'>): void => {
      clearTimeout(timer);
      process.removeListener('exit', killOnExit);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, interrupted });
    };
    child.once('error', () => done({ code: NOT_RUNNABLE }));
    child.once('exit', (code, signal) => {
      if (signal) done({ code: 128 + (constants.signals[signal] ?? 0), signal });
      else done({ code: code ?? 0 });
    });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
