/**
 * `--keep-on-fail` leaves the server running after spinup exits. Its stdout and stderr are pipes
 * spinup reads: were they simply closed, the server's next print() or progress bar would die of
 * EPIPE, and the state the user kept it for would be gone. So before leaving, spinup hands the
 * pipes to a small drainer of their own: a detached node process (its own session, so neither a
 * hang-up nor a Ctrl-C of spinup's terminal reaches it) that appends the server's lines to the log
 * file and ends when the last writer of the pipes is gone. Lines stay whole, as spinup's own tee
 * keeps them: each pipe has its own partial line, written only once its newline comes.
 */
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { StreamName } from './merge.js';

/** A held partial line goes to the drainer on its command line (the kernel's cap on one argument is 128 KiB). */
const MAX_PASSED_BYTES = 64 * 1024;

/**
 * The drainer's program, a function of each pipe's partial line that spinup held (base64) and of
 * `require`. fd 3 and 4: the server's stdout and stderr; fd 1: the log, at spinup's own offset.
 * Node runs it with `node -e`; the single executable, which takes no Node options, by its hidden
 * command DRAIN_COMMAND (runDrainer).
 */
const DRAINER = String.raw`(held, require) => {
const { Socket } = require('node:net');
const { writeSync } = require('node:fs');
// A line that never ends (a progress bar redrawn with \r) is written as it is past this size.
const LONGEST_LINE = 65536;
const write = (bytes) => {
  // A full disk loses lines, never the server: reading goes on whatever happens to the log.
  try { for (let at = 0; at < bytes.length; ) at += writeSync(1, bytes, at); } catch {}
};
for (const [index, fd] of [3, 4].entries()) {
  // The line spinup had begun on this pipe: the pipe's next bytes complete it.
  let partial = Buffer.from(held[index] ?? '', 'base64');
  let pipe;
  try {
    pipe = new Socket({ fd, readable: true, writable: false });
  } catch {
    // Handed over closed: nothing more comes there.
    if (partial.length > 0) write(Buffer.concat([partial, Buffer.from('\n')]));
    continue;
  }
  pipe.on('data', (chunk) => {
    const bytes = partial.length > 0 ? Buffer.concat([partial, chunk]) : chunk;
    const end = bytes.length > LONGEST_LINE ? bytes.length : bytes.lastIndexOf(10) + 1;
    if (end > 0) write(bytes.subarray(0, end));
    partial = Buffer.from(bytes.subarray(end));
  });
  pipe.on('error', () => {});
  pipe.on('close', () => {
    if (partial.length > 0) write(Buffer.concat([partial, Buffer.from('\n')]));
  });
}
}`;

/** The single executable's hidden command that runs the drainer (cli/main.ts). */
export const DRAIN_COMMAND = '__drain';

/** The drainer's arguments to this executable: Node's `-e`, or the single executable's hidden command. */
function drainerArgs(held: string[]): string[] {
  return runningAsSingleExecutable() ? [DRAIN_COMMAND, ...held] : ['-e', `(${DRAINER})(process.argv.slice(1), require)`, ...held];
}

/** In the single executable (DRAIN_COMMAND): drains the pipes on fd 3 and 4 into fd 1 until they close. */
export function runDrainer(held: string[]): void {
  const program = new Function(`return ${DRAINER}`) as () => (held: string[], require: NodeRequire) => void;
  program()(held, createRequire(import.meta.url));
}

function runningAsSingleExecutable(): boolean {
  try {
    return (createRequire(import.meta.url)('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    // A Node without node:sea (before 20.12) runs no single executable.
    return false;
  }
}

/**
 * Starts the drainer on the server's two pipes and the log's descriptor; returns its pid, or
 * undefined when there is nothing left to drain (both pipes already closed) or it could not start.
 */
export function startLogDrainer(options: { stdout: Readable; stderr: Readable; held: Record<StreamName, Buffer>; logFd: number }): number | undefined {
  // A pipe whose writers are all gone was closed on our side: nothing comes through it any more.
  const pipes = [options.stdout, options.stderr].map((pipe) => (pipe.destroyed ? 'ignore' : pipe));
  const held = [options.held.stdout, options.held.stderr].map((partial) => passedOrWritten(partial, options.logFd));
  if (pipes.every((pipe) => pipe === 'ignore')) {
    for (const partial of held) writeLine(options.logFd, Buffer.from(partial, 'base64'));
    return undefined;
  }
  try {
    const drainer = spawn(process.execPath, drainerArgs(held), { detached: true, stdio: ['ignore', options.logFd, 'ignore', ...pipes] });
    drainer.on('error', () => {});
    drainer.unref();
    return drainer.pid;
  } catch {
    // Out of processes or descriptors: the server is still left running, as asked; the note says its output is lost.
    return undefined;
  }
}

/** The partial line, base64, for the drainer's command line; one too long for it is closed and logged here. */
function passedOrWritten(partial: Buffer, logFd: number): string {
  if (partial.length <= MAX_PASSED_BYTES) return partial.toString('base64');
  writeLine(logFd, partial);
  return '';
}

function writeLine(fd: number, partial: Buffer): void {
  if (partial.length === 0) return;
  const bytes = Buffer.concat([partial, Buffer.from('\n')]);
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
  } catch {
    // The log is not writable (a full disk): the line is lost, the server is not.
  }
}
