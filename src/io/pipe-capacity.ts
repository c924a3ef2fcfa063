/**
 * A bigger pipe on stdin, on Linux. A pipe holds 64 KiB there, and a log piped in
 * (`cat server.log | spinup watch -`, `zcat old.log.gz | spinup watch -`) then comes 64 KiB at a
 * time: the writer fills it, waits, the watch reads it, and each turn cost the watch about 50 µs
 * of hand-over (a 300 MB log: 4,600 turns, 0.64 s against 0.44 s for the same file by name).
 * A pipe of 1 MiB (the most an unprivileged process may ask for, /proc/sys/fs/pipe-max-size)
 * gives reads of up to 1 MiB: 0.50 s.
 *
 * The size is a property of the pipe, set by fcntl(F_SETPIPE_SZ) through any descriptor of it;
 * Node has no fcntl, so a one-line perl (Essential on Debian and Ubuntu; python3 where perl is
 * missing) does it on the descriptor it inherits (as its fd 3), reading nothing from it. A pipe
 * already that big is left as it is. Where neither program runs, or the kernel says no, nothing
 * changes but the speed.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const WANTED_BYTES = 1 << 20;
const F_SETPIPE_SZ = 1031;
const F_GETPIPE_SZ = 1032;

export interface Widener {
  command: string;
  args(bytes: number): string[];
}

/**
 * The pipe's descriptor in the child. Not 0: libuv makes a child's stdin, stdout and stderr
 * blocking, and that flag belongs to the open file, shared with the watch, whose reads of the
 * pipe must not block.
 */
export const CHILD_FD = 3;

/** Each one exits 0 when the pipe on its descriptor CHILD_FD holds at least `bytes` (made so, or already). */
export const WIDENERS: readonly Widener[] = [
  {
    command: 'perl',
    args: (bytes) => [
      '-e',
      `open(my $p, "<&=${CHILD_FD}") or exit 1; exit 0 if fcntl($p, ${F_GETPIPE_SZ}, 0) >= ${bytes}; fcntl($p, ${F_SETPIPE_SZ}, ${bytes}) or exit 1`,
    ],
  },
  {
    command: 'python3',
    args: (bytes) => ['-c', `import fcntl; fcntl.fcntl(${CHILD_FD}, ${F_GETPIPE_SZ}) >= ${bytes} or fcntl.fcntl(${CHILD_FD}, ${F_SETPIPE_SZ}, ${bytes})`],
  },
];

/**
 * Asks for a pipe of 1 MiB (or pipe-max-size, if smaller) behind `fd`, a FIFO; resolves whether
 * it holds that much now. Never throws, and never keeps the process alive.
 */
export function widenPipe(fd: number, wideners: readonly Widener[] = WIDENERS): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false);
  const bytes = Math.min(WANTED_BYTES, pipeMaxSize());
  // Loaded here, not with the module: a watch of a file never needs it (about 2 ms of a cold start).
  const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const attempt = (k: number): Promise<boolean> => {
    const widener = wideners[k];
    if (!widener) return Promise.resolve(false);
    return new Promise((resolve) => {
      let child: ChildProcess;
      try {
        child = spawn(widener.command, widener.args(bytes), { stdio: ['ignore', 'ignore', 'ignore', fd] });
      } catch {
        return resolve(false); // a descriptor spawn cannot pass on, say
      }
      child.unref();
      // Not there (ENOENT): the next one. Any other failure: the pipe stays as it is.
      child.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ENOENT' ? attempt(k + 1) : false));
      child.on('exit', (code) => resolve(code === 0));
    });
  };
  return attempt(0);
}

function pipeMaxSize(): number {
  try {
    const max = Number(readFileSync('/proc/sys/fs/pipe-max-size', 'utf8').trim());
    return Number.isInteger(max) && max > 0 ? max : WANTED_BYTES;
  } catch {
    return WANTED_BYTES;
  }
}
