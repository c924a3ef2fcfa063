/**
 * The built CLI as a real child process for the hostile-input suite: bounded waits, peak memory
 * from /proc, and a kill switch so that no test leaves a process behind. Every child gets a history
 * store of its own (XDG_STATE_HOME in the test's temp dir), so tests never write to a real home.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/run-main.js';

export const BIN = join(repoRoot, 'dist/cli/bin.js');
export const SERVERS = join(repoRoot, 'test/fixture-servers');
export const FIXTURES = join(repoRoot, 'fixtures');

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const running = new Set<CliChild>();

export class CliChild {
  stdout = '';
  stderr = '';
  exit: Exit | undefined;
  readonly exited: Promise<Exit>;
  /** Highest VmHWM (peak resident set, kB) seen while polling /proc; 0 when not polled. */
  peakRssKb = 0;
  #poll: NodeJS.Timeout | undefined;

  constructor(
    readonly child: ChildProcess,
    readonly label: string,
  ) {
    running.add(this);
    child.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    // A test that closes our end of a pipe early must not crash the test worker with EPIPE.
    child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) =>
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        clearInterval(this.#poll);
        running.delete(this);
        resolve(this.exit);
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Samples the child's peak RSS every `ms` until it exits (VmHWM only grows, so sampling late is fine). */
  watchMemory(ms = 25): this {
    const sample = (): void => {
      const kb = vmHwmKb(this.pid);
      if (kb !== undefined) this.peakRssKb = Math.max(this.peakRssKb, kb);
    };
    sample();
    this.#poll = setInterval(sample, ms);
    return this;
  }

  async until(what: string, predicate: () => boolean, ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (this.exit) throw new Error(`${this.label} exited (${JSON.stringify(this.exit)}) before ${what}\n${this.dump()}`);
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${this.dump()}`);
      await sleep(10);
    }
  }

  untilStderr(text: string | RegExp, ms?: number): Promise<void> {
    return this.until(String(text), () => (typeof text === 'string' ? this.stderr.includes(text) : text.test(this.stderr)), ms);
  }

  /** Resolves with the exit, or rejects (after killing the child) once `ms` have passed: a regression fails, it does not hang. */
  async finished(ms = 5_000): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill();
        reject(new Error(`${this.label} did not exit within ${ms} ms\n${this.dump()}`));
      }, ms);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    try {
      if (this.child.spawnargs[0] === '/bin/sh') process.kill(-this.pid, signal);
      else this.child.kill(signal);
    } catch {
      // already gone
    }
  }

  dump(): string {
    return `--- stdout\n${this.stdout.slice(-4000)}\n--- stderr\n${this.stderr.slice(-4000)}`;
  }
}

/** A temp dir for one test file, with the history store inside it. */
export function scratch(prefix: string): { dir: string; env: NodeJS.ProcessEnv; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `spinup-hostile-${prefix}-`));
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, XDG_STATE_HOME: join(dir, 'state') };
  return { dir, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `node dist/cli/bin.js ARGS...`; stdin and stdout are pipes the test holds, unless given an fd. */
export function spawnCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: 'pipe' | 'ignore' | number; stdout?: 'pipe' | number }): CliChild {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: options.env, stdio: [options.stdin ?? 'pipe', options.stdout ?? 'pipe', 'pipe'] });
  return new CliChild(child, `spinup ${args.join(' ')}`);
}

/** A shell pipeline in a process group of its own (`$BIN` is the CLI), so a real OS pipe joins its parts. */
export function spawnShell(script: string, options: { cwd: string; env: NodeJS.ProcessEnv }): CliChild {
  const child = spawn('/bin/sh', ['-c', script], { cwd: options.cwd, env: { ...options.env, BIN }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return new CliChild(child, script);
}

/** Kills every child still running (by id, or by its own process group for pipelines). */
export async function killAll(): Promise<void> {
  const left = [...running];
  for (const child of left) child.kill();
  await Promise.all(left.map((c) => c.exited));
}

export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -p tsconfig.build.json)`);
}

/** Writes `chunk` `times` times to a child's stdin, honouring back-pressure, then optionally ends it. */
export async function pump(child: CliChild, chunk: Buffer, times: number, end = true): Promise<void> {
  const stdin = child.child.stdin!;
  for (let i = 0; i < times; i++) {
    if (child.exit || stdin.destroyed) return;
    if (!stdin.write(chunk)) await new Promise<void>((resolve) => { stdin.once('drain', resolve); child.exited.then(() => resolve()); });
  }
  if (end) stdin.end();
}

function vmHwmKb(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** A stack trace line (`    at fn (file:1:2)`), which a user-caused error must never print. */
export const STACK_TRACE = /^\s+at .+[(:]\d+/m;
