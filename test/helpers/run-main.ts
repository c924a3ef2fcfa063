/** Test helper: runs the whole CLI in-process with fake streams (no TTY, no colour unless asked). */
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';

export const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A writable stream that keeps what was written, standing in for stdout or stderr. */
export class Collect extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

export async function runMain(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; tty?: boolean } = {}): Promise<CliRun> {
  const stdout = new Collect();
  const stderr = new Collect();
  stdout.isTTY = options.tty ?? false;
  const stdin = new PassThrough();
  stdin.end();
  const code = await main({ argv, stdin, stdout, stderr, env: options.env ?? {}, cwd: options.cwd ?? repoRoot });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
