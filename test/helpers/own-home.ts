/**
 * Vitest's global setup: the whole test run gets a HOME and an XDG_STATE_HOME of its own, in a
 * temp dir, so no test (nor any spinup it starts, whose env spreads process.env) writes to the
 * user's real ~/.local/state/spinup: its history, run files, code and pack caches. The workers
 * are forked after this runs, and inherit the env.
 *
 * At the end, what this run may still have left in the real state dir is looked for: history
 * records and run files of logs in this checkout (other checkouts on the host may run their
 * tests at the same time; their records name their own paths). Any found fail the run.
 * test/house.test.ts checks the isolation itself from inside the run.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { defaultStateDir } from '../../src/history/history-path.js';
import { repoRoot } from './run-main.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The user's own spinup state dir, which no test may touch (undefined: the user has none). */
    realStateDir: string | undefined;
    realHome: string | undefined;
  }
}

export default function setup(project: TestProject): () => void {
  const realStateDir = defaultStateDir(process.env);
  const realHome = process.env.HOME;
  const root = mkdtempSync(join(tmpdir(), 'spinup-test-home-'));
  mkdirSync(join(root, 'home'));
  process.env.HOME = join(root, 'home');
  process.env.XDG_STATE_HOME = join(root, 'state');
  project.provide('realStateDir', realStateDir);
  project.provide('realHome', realHome);
  const before = realStateDir === undefined ? undefined : snapshot(realStateDir);
  return () => {
    rmSync(root, { recursive: true, force: true });
    if (realStateDir === undefined || before === undefined) return;
    const touched = leftBehind(realStateDir, before);
    if (touched.length === 0) return;
    process.stderr.write(`\nThe test run wrote to the user's own state dir ${realStateDir} (tests must use their own HOME / XDG_STATE_HOME):\n${touched.map((t) => `  ${t}\n`).join('')}`);
    process.exitCode = 1;
  };
}

interface Snapshot {
  historyBytes: number;
  runFiles: Set<string>;
}

function snapshot(dir: string): Snapshot {
  const history = join(dir, 'history.jsonl');
  return { historyBytes: existsSync(history) ? statSync(history).size : 0, runFiles: new Set(runFileNames(dir)) };
}

/** Records and run files added since `before` that name a log in this checkout. */
function leftBehind(dir: string, before: Snapshot): string[] {
  const ours = (log: unknown): boolean => typeof log === 'string' && log.startsWith(`${repoRoot}/`);
  const found: string[] = [];
  const history = join(dir, 'history.jsonl');
  if (existsSync(history)) {
    const added = readFileSync(history).subarray(before.historyBytes).toString('utf8');
    for (const line of added.split('\n')) {
      const record = parse(line);
      if (ours(record?.log)) found.push(`history.jsonl: a ${String(record!.source)} of ${String(record!.log)}`);
    }
  }
  for (const name of runFileNames(dir)) {
    if (before.runFiles.has(name)) continue;
    const run = parse(readText(join(dir, 'runs', name)));
    if (ours(run?.log)) found.push(`runs/${name}: a ${String(run!.command)} of ${String(run!.log)}`);
  }
  return found;
}

function runFileNames(dir: string): string[] {
  const runs = join(dir, 'runs');
  return existsSync(runs) ? readdirSync(runs).filter((name) => name.endsWith('.json')) : [];
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
