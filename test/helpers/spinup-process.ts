/** Test helper: the built bin as a real process, its output collected, with bounded waits on what it prints. */
import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from './run-main.js';

export const BIN = `${repoRoot}/dist/cli/bin.js`;

export interface SpinupProcess {
  child: ChildProcess;
  pid: number;
  code: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` on stderr (or stdout), within `ms`. */
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpMatchArray>;
}

export function spinup(args: string[], env: NodeJS.ProcessEnv): SpinupProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const waitFor = async (pattern: RegExp, ms = 20_000): Promise<RegExpMatchArray> => {
    for (let waited = 0; ; waited += 20) {
      const found = pattern.exec(err) ?? pattern.exec(out);
      if (found) return found;
      if (waited > ms) throw new Error(`no ${pattern} within ${ms} ms\nstderr:\n${err}\nstdout:\n${out.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { child, pid: child.pid ?? 0, code, stdout: () => out, stderr: () => err, waitFor };
}

export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  for (let waited = 0; ; waited += 25) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (waited > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
