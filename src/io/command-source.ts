/**
 * A node's log read from a command's output (`--node 1='cmd:ssh host-b tail -F /data/server.log'`):
 * the command runs under `sh -c` in its own process group, stdout and stderr merged a whole line
 * at a time. How it ends says what happened:
 * - killed by a signal (SIGKILL, a crash; or 128+N from the shell): the node's process died. Reported through `onDeath`
 *   and not restarted: for a local command spinup knows the death, it need not wait for silence.
 * - a non-zero exit code (ssh lost the connection, 255): the reader dropped, not the node; when
 *   following, it is started again after a backoff (1 s, doubling to 30 s; back to 1 s after a
 *   minute of running).
 * - exit code 0: the input ended, like a closed pipe.
 */
import { startChild, type Child, type ChildExit } from './child-process.js';
import { exitSignal } from './supervise/exit.js';
import { StreamMerger } from './supervise/merge.js';
import type { SourceItem } from './watch-loop.js';

export const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 30_000;
/** A command that ran this long before it dropped starts again from the first backoff. */
const STEADY_MS = 60_000;
const STOP_GRACE_MS = 2_000;

export interface CommandSourceOptions {
  command: string;
  /** Restart a command that exits with a non-zero code; false reads one run to its end. */
  follow: boolean;
  signal?: AbortSignal;
  /** The command was killed by a signal nobody here sent. */
  onDeath?: (exit: ChildExit, pid: number) => void;
  /** Started: the caller may stop it (and its group) when the watch ends. */
  onStart?: (child: Child) => void;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export async function* commandSource(options: CommandSourceOptions): AsyncGenerator<SourceItem> {
  let backoff = FIRST_BACKOFF_MS;
  let first = true;
  for (;;) {
    if (options.signal?.aborted) return;
    const child = await startChild({ command: '/bin/sh', args: ['-c', options.command], env: options.env, cwd: options.cwd });
    options.onStart?.(child);
    const stop = (): void => void child.stop({ graceMs: STOP_GRACE_MS });
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      if (first) yield { kind: 'caught-up' };
      first = false;
      yield* readOutput(child);
    } finally {
      options.signal?.removeEventListener('abort', stop);
      // Left early (a verdict, an interrupt): the command must not outlive the watch.
      if (child.isAlive()) await child.stop({ graceMs: STOP_GRACE_MS });
    }
    const exit = await child.exited;
    if (options.signal?.aborted) return;
    // `sh -c` that did not exec reports its child's signal as 128+N.
    if (exitSignal(exit) !== undefined) {
      options.onDeath?.(exit, child.pid);
      return;
    }
    if (exit.code === 0 || !options.follow) return;
    if (exit.at - child.startedAt >= STEADY_MS) backoff = FIRST_BACKOFF_MS;
    yield { kind: 'notice', notice: { type: 'command-restart', detail: `the command exited with code ${exit.code}; starting it again in ${backoff / 1000}s: ${options.command}` } };
    await sleep(backoff, options.signal);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

async function* readOutput(child: Child): AsyncGenerator<SourceItem> {
  const merger = new StreamMerger();
  for await (const { stream, chunk } of child.output) {
    const { bytes } = merger.push(stream, chunk);
    if (bytes.length > 0) yield { kind: 'data', chunk: bytes };
  }
  const rest = merger.end().bytes;
  if (rest.length > 0) yield { kind: 'data', chunk: rest };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
