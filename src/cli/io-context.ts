/** What a command may touch of the outside world; tests pass fakes, `bin.ts` passes the process's own. */
import type { Readable, Writable } from 'node:stream';

export interface Io {
  argv: string[];
  stdin: Readable;
  /**
   * The process's own stdin as a descriptor (bin.ts gives 0): a pipe there is read without
   * Node's stream (io/pipe-source.ts), and `stdin` is then never touched. Tests that pass a
   * stream of their own leave it out.
   */
  stdinFd?: number;
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C / SIGTERM. */
  signal?: AbortSignal;
}

export function useColor(io: Io, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return Boolean(io[stream].isTTY);
}

// Streams that failed once (EPIPE, EIO, ENOSPC): every later write would fail the same way.
const lost = new WeakSet<Writable>();

export function markLost(stream: Writable): void {
  lost.add(stream);
}

export function isWritable(stream: Writable): boolean {
  return !lost.has(stream) && !stream.destroyed && stream.writable;
}

export function write(stream: Writable, text: string): void {
  if (isWritable(stream)) stream.write(text);
}

/**
 * Where a verdict printed on stderr goes: stdout when stderr is lost (`2>&-`, or failed), since
 * the verdict is the one message that must reach someone; the other messages are dropped.
 */
export function verdictStream(io: Io): Writable {
  return isWritable(io.stderr) ? io.stderr : io.stdout;
}
