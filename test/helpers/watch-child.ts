/**
 * Test helper: the built CLI (`node dist/cli/bin.js watch ...`) as a real child process, with
 * its output collected and bounded waits on it. Every child is tracked so afterEach can kill it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './run-main.js';

export const BIN = join(repoRoot, 'dist/cli/bin.js');
/** No wait in these tests may take longer than this: a regression fails, it does not hang. */
export const WAIT_MS = 5000;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface JsonEvent {
  type: string;
  [key: string]: unknown;
}

const live = new Set<WatchChild>();

export class WatchChild {
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;

  constructor(
    readonly child: ChildProcess,
    readonly label: string,
  ) {
    live.add(this);
    child.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) =>
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        resolve(this.exit);
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** stdout as JSON lines (throws on a line that is not JSON: that is a test failure). */
  get events(): JsonEvent[] {
    return this.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as JsonEvent);
  }

  async until(what: string, predicate: (child: WatchChild) => boolean, ms = WAIT_MS): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate(this)) {
      if (this.exit) throw new Error(`${this.label} exited (${JSON.stringify(this.exit)}) before ${what}\n${this.dump()}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${this.dump()}`);
      await sleep(10);
    }
  }

  untilEvent(what: string, match: (event: JsonEvent) => boolean): Promise<void> {
    return this.until(what, (c) => c.stdout.split('\n').some((line) => line.startsWith('{') && lineMatches(line, match)));
  }

  untilStderr(text: string): Promise<void> {
    return this.until(JSON.stringify(text), (c) => c.stderr.includes(text));
  }

  /** Waits until the child has `file` open: the only outward sign of a follower at the end of a file. */
  untilHolds(file: string): Promise<void> {
    return this.until(`${file} held open`, () => holds(this.pid, file));
  }

  async finished(ms = WAIT_MS): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.label} did not exit within ${ms} ms\n${this.dump()}`)), ms);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  dump(): string {
    return `--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`;
  }
}

function lineMatches(line: string, match: (event: JsonEvent) => boolean): boolean {
  try {
    return match(JSON.parse(line) as JsonEvent);
  } catch {
    return false; // a line still being written
  }
}

function holds(pid: number, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** The environment of every child: no colour, and a history store of the test's own. */
export function childEnv(stateDir: string): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, XDG_STATE_HOME: stateDir };
}

/** `node dist/cli/bin.js watch --no-history ARGS...`; stdin is a pipe the test may write to. */
export function spawnWatch(args: string[], options: { cwd: string; stateDir: string }): WatchChild {
  const child = spawn(process.execPath, [BIN, 'watch', '--no-history', ...args], {
    cwd: options.cwd,
    env: childEnv(options.stateDir),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new WatchChild(child, `watch ${args.join(' ')}`);
}

/**
 * A shell pipeline (`producer | node bin watch ...`) in a process group of its own, so that a
 * real OS pipe joins the two processes and afterEach can end the whole group.
 */
export function spawnPipeline(script: string, options: { cwd: string; stateDir: string }): WatchChild {
  const child = spawn('/bin/sh', ['-c', script], {
    cwd: options.cwd,
    env: { ...childEnv(options.stateDir), BIN },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new WatchChild(child, script);
}

/** Kills every child still running (its process group for pipelines), by id. */
export async function killAll(): Promise<void> {
  const running = [...live];
  for (const watch of running) {
    try {
      if (watch.child.spawnargs[0] === '/bin/sh') process.kill(-watch.pid, 'SIGKILL');
      else watch.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  await Promise.all(running.map((w) => w.exited));
}

export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -p tsconfig.build.json)`);
}

export function fixtureLines(name: string): string[] {
  const lines = readFileSync(join(repoRoot, 'fixtures', name), 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Lines `from`..`to` (1-based, inclusive) with their newlines. */
export function slice(lines: string[], from: number, to = lines.length): string {
  return lines.slice(from - 1, to).map((l) => `${l}\n`).join('');
}
