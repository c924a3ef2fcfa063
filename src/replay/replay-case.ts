/**
 * One case of `spinup replay` as a unit of work that can cross to a worker thread and back: a
 * fixture (log + expectation) or a group, its expectation read beforehand by the thread that
 * prints, and what comes back: only what the reports print (no events, no trace).
 */
import { performance } from 'node:perf_hooks';
import type { Verdict } from '../core/events.js';
import type { CompiledPack } from '../core/pack-types.js';
import type { Mismatch } from './compare.js';
import type { FixtureCoverage } from './coverage.js';
import type { FixtureGroup, FixturePair } from './discover.js';
import { ExpectationError, readExpectation, type Expectation } from './expectation.js';
import { pairExpectation, runCase } from './run-case.js';
import { runGroupCase } from './run-group-case.js';
import type { ReplayMemory } from './replay-memory.js';

export type ReplayCase = { kind: 'pair'; pair: FixturePair } | { kind: 'group'; group: FixtureGroup };

/** A case with its expectation, ready to replay anywhere. */
export interface CaseTask {
  case: ReplayCase;
  expected: Expectation;
}

/** A replayed case: what the table, JSON, JUnit and coverage reports need of it. */
export interface ReplayedCase {
  /** The log (a group: its folder). */
  log: string;
  expected: Expectation;
  family: string;
  verdict: Verdict;
  /** Groups: the node the group verdict names. */
  node?: number;
  pass: boolean;
  mismatches: Mismatch[];
  seconds: number;
  /** With --coverage: one entry per log replayed (a group: one per node). */
  coverage?: FixtureCoverage[];
}

/** The packs a case is replayed with; `inferencePacks` only when coverage is measured. */
export interface CaseTools {
  packs: readonly CompiledPack[];
  inferencePacks?: readonly CompiledPack[];
  /** `--history` / `--learn-from` (main thread only): single logs replay through it. */
  memory?: ReplayMemory;
}

/** Where a case's log is: its file, or its group's folder. */
export function caseLog(c: ReplayCase): string {
  return c.kind === 'pair' ? c.pair.log : c.group.dir;
}

/** Reads a case's expectation; an expectation that cannot be used throws ExpectationError. */
export function caseTask(c: ReplayCase): CaseTask {
  return { case: c, expected: c.kind === 'pair' ? pairExpectation(c.pair) : readExpectation(c.group.expect) };
}

export async function replayCase(task: CaseTask, tools: CaseTools): Promise<ReplayedCase> {
  const start = performance.now();
  const { case: c, expected } = task;
  requirePackOf(task, tools.packs);
  const replayed: ReplayedCase =
    c.kind === 'pair'
      ? { ...summary(tools.memory ? tools.memory.runCase(c.pair, { packs: tools.packs, expected }) : runCase(c.pair, { packs: tools.packs, expected })), seconds: 0 }
      : (() => {
          const result = runGroupCase(c.group, { packs: tools.packs, expected });
          return { ...summary(result), node: result.group.node, seconds: 0 };
        })();
  replayed.seconds = (performance.now() - start) / 1000;
  if (tools.inferencePacks) {
    // Loaded only for --coverage: it traces every frame of the log once more.
    const { logCoverage } = await import('./coverage.js');
    const logs = c.kind === 'pair' ? [c.pair.log] : c.group.nodes.map((node) => node.log);
    replayed.coverage = logs.map((log) => logCoverage({ log, expected, packs: tools.packs, inferencePacks: tools.inferencePacks! }));
  }
  return replayed;
}

/**
 * A case names its family, and only that family's pack can replay it: a curator replaying the
 * fixtures with `--pack` of another family gets told so, not an internal error.
 */
function requirePackOf(task: CaseTask, packs: readonly CompiledPack[]): void {
  const family = task.expected.family;
  if (family === undefined || packs.some((p) => p.name === family)) return;
  const file = task.case.kind === 'pair' ? task.case.pair.expect : task.case.group.expect;
  const names = packs.filter((p) => !p.isShared).map((p) => p.name);
  throw new ExpectationError(file, `family "${family}" has no pack among those in use (${names.join(', ') || 'none'}): add its pack with --pack, or replay only the fixtures of the packs given`);
}

function summary(result: { log: string; expected: Expectation; family: string; verdict: Verdict; pass: boolean; mismatches: Mismatch[] }) {
  const { log, expected, family, verdict, pass, mismatches } = result;
  return { log, expected, family, verdict, pass, mismatches };
}
