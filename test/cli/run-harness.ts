import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, afterEach, expect } from 'vitest';
import { main } from '../../src/cli/main.js';
import { PidTracker } from '../io/pid-tracker.js';

export const SERVERS = resolve('test/fixture-servers');
export const FIXTURES = resolve('fixtures/sglang');
export const READY_LOG = `${FIXTURES}/40-docs-ci-2024-11-single-gpu-llama32-1b-ready.log`;
export const OOM_LOG = `${FIXTURES}/23-gemma3-12b-16gb-cuda-oom-load-weight.log`;
export const TAIL_OOM_LOG = `${FIXTURES}/07-dsv4-multinode-cudagraph-oom-scheduler-dead.log`;
export const READY_THEN_CRASH_LOG = `${FIXTURES}/22-tp4-l4-qwq-ready-then-scheduler-crash-health-200.log`;

/** A writable that keeps what was written and when, and reports pids as soon as they appear. */
export class Capture extends Writable {
  readonly chunks: Array<{ text: string; at: number }> = [];
  isTTY = false;

  constructor(private readonly onText: (text: string) => void = () => {}) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const text = chunk.toString('utf8');
    this.chunks.push({ text, at: Date.now() });
    this.onText(text);
    callback();
  }

  text(): string {
    return this.chunks.map((c) => c.text).join('');
  }

  /** JSON events printed so far (stdout with --json), each with the time it was written. */
  events(): Array<Record<string, unknown> & { type: string; writtenAt: number }> {
    const out: Array<Record<string, unknown> & { type: string; writtenAt: number }> = [];
    for (const chunk of this.chunks) {
      for (const line of chunk.text.split('\n')) {
        if (line.startsWith('{')) out.push({ ...JSON.parse(line), writtenAt: chunk.at });
      }
    }
    return out;
  }
}

export interface RunResult {
  code: number;
  stdout: Capture;
  stderr: Capture;
  log: string;
  logText: () => string;
  events: ReturnType<Capture['events']>;
  verdicts: Array<Record<string, unknown>>;
}

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'spinup-run-'));
}

/**
 * A test file's set-up for runs of real servers: a scratch dir removed at the end, and a pid
 * tracker swept after each test (no process may outlive it). Call at the file's top level.
 */
export function runScratch(): { tracker: PidTracker; dir: string } {
  const tracker = new PidTracker();
  const dir = scratchDir();
  afterEach(async () => {
    expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return { tracker, dir };
}

/**
 * Runs `spinup run` in-process through `main`, with a fresh log path in `dir`. Every pid the run mentions (the
 * server, and orphans or children the fixture servers print) goes to `tracker` as soon as it is written.
 */
export async function runSpinup(options: {
  tracker: PidTracker;
  dir: string;
  args: string[];
  server: string[];
  signal?: AbortSignal;
  /** The --log path; false = none (the default name in `dir`). */
  log?: string | false;
  env?: NodeJS.ProcessEnv;
  /** Sees stdout as it is written (to react to an event, say). */
  onStdout?: (text: string) => void;
  /** Sees stderr as it is written (run's own words, without --json). */
  onStderr?: (text: string) => void;
}): Promise<RunResult> {
  const { tracker } = options;
  const spot = (text: string): void => {
    for (const match of text.matchAll(/"pid":(\d+)|started pid (\d+)/g)) tracker.track(Number(match[1] ?? match[2]));
    tracker.trackFromOutput(text);
  };
  const stdout = new Capture((text) => {
    spot(text);
    options.onStdout?.(text);
  });
  const stderr = new Capture((text) => {
    spot(text);
    options.onStderr?.(text);
  });
  const log = options.log === false ? '' : (options.log ?? join(options.dir, `run-${Math.random().toString(36).slice(2)}.log`));
  const code = await main({
    argv: ['run', ...(log === '' ? [] : ['--log', log]), ...options.args, '--', ...options.server],
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    cwd: options.dir,
    signal: options.signal,
  });
  const logText = (): string => {
    try {
      return readFileSync(log, 'utf8');
    } catch {
      return '';
    }
  };
  tracker.trackFromOutput(logText());
  const events = stdout.events();
  return { code, stdout, stderr, log, logText, events, verdicts: events.filter((e) => e.type === 'verdict') };
}

/** The fixture server command: `node SERVERS/NAME ARGS...`. */
export function server(name: string, ...args: string[]): string[] {
  return [process.execPath, `${SERVERS}/${name}`, ...args];
}

/** A server that replays `log` fast (gaps of 2 ms at most), then does `then` (exit0, exit1, sigkill, ...). */
export function replayServer(log: string, then: string): string[] {
  return server('replay-log.mjs', '--log', log, '--max-gap-ms', '2', '--then', then);
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}
