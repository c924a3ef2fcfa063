/** Replays one fixture on log time and compares what spinup says with what really happened. */
import { readFileSync } from 'node:fs';
import type { SessionEvent } from '../core/session.js';
import { Session } from '../core/session.js';
import type { Verdict } from '../core/events.js';
import type { CompiledPack } from '../core/pack-types.js';
import { compare, type Mismatch } from './compare.js';
import { ExpectationError, readExpectation, type Expectation } from './expectation.js';
import type { FixturePair } from './discover.js';

export interface CaseResult {
  log: string;
  expected: Expectation;
  family: string;
  verdict: Verdict;
  pass: boolean;
  mismatches: Mismatch[];
  events: SessionEvent[];
}

export interface ReplayOptions {
  packs: readonly CompiledPack[];
  /** Ignore `then_idle` (what a closed pipe sees: the input ends, no quiet time follows). */
  ignoreIdle?: boolean;
  keepEvents?: boolean;
  /** The fixture's expectation when the caller has read it already (default: read the expect file). */
  expected?: Expectation;
}

/** Splits a log into physical lines (keeping `\r` frames inside them for the guard). */
export function logLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function classifyText(
  text: string,
  options: { packs: readonly CompiledPack[]; family?: string; thenIdleMs?: number; keepEvents?: boolean },
): { verdict: Verdict; family: string; events: SessionEvent[]; origin?: number } {
  const session = new Session({ packs: options.packs, family: options.family });
  const events: SessionEvent[] = [];
  // A replay that only compares the verdict need not hold every event of the log until its end.
  const keep = options.keepEvents === false ? (): void => {} : (some: SessionEvent[]): void => void events.push(...some);
  for (const line of logLines(text)) keep(session.push(line));
  if (options.thenIdleMs) keep(session.tick({ idleMs: options.thenIdleMs }));
  keep(session.end());
  return { verdict: session.verdict!, family: session.pack && !session.pack.isShared ? session.pack.name : 'unknown', events, origin: session.logOrigin };
}

/** A single log's expectation; `node` belongs to groups only. */
export function pairExpectation(pair: FixturePair): Expectation {
  const expected = readExpectation(pair.expect);
  if (expected.node) throw new ExpectationError(pair.expect, '"node" only applies to a group fixture (a NAME.group/ folder beside it)');
  return expected;
}

export function runCase(pair: FixturePair, options: ReplayOptions): CaseResult {
  const expected = options.expected ?? pairExpectation(pair);
  // Read once: an archive replay of 10,000 logs spent a tenth of its time reading each twice.
  const text = readFileSync(pair.log, 'utf8');
  const { verdict, family, events } = classifyText(text, {
    packs: options.packs,
    family: expected.family,
    thenIdleMs: options.ignoreIdle ? undefined : expected.thenIdleMs,
    keepEvents: options.keepEvents ?? false,
  });
  const mismatches = compare(expected, verdict);
  return { log: pair.log, expected, family, verdict, pass: mismatches.length === 0, mismatches, events: options.keepEvents ? events : [] };
}
