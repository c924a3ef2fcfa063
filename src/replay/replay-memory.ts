/**
 * Replay with a history: `--learn-from PATH` replays each fixture with the budgets learned from
 * that history (read once, before any fixture runs, so the order of fixtures never matters),
 * and `--history PATH` appends one record per fixture, so a corpus of logs teaches budgets.
 * A fixture whose log names no model is recorded under its file name.
 */
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import type { Verdict } from '../core/events.js';
import type { CompiledPack } from '../core/pack-types.js';
import { compare } from './compare.js';
import type { FixturePair } from './discover.js';
import { readExpectation, type Expectation } from './expectation.js';
import { logLines, type CaseResult } from './run-case.js';
import { openMemory, recordStart } from '../history/record-start.js';
import { trackedSession, type Memory, type StartTracker } from '../history/start-tracker.js';

export interface ReplayMemoryOptions {
  /** Append a record per fixture here. */
  historyPath?: string;
  /** Learn budgets from this history. */
  learnFrom?: string;
  host: string;
  cwd: string;
  now: () => Date;
}

export class ReplayMemory {
  readonly warnings: string[] = [];
  recorded = 0;
  private readonly memory: Memory | undefined;

  constructor(private readonly options: ReplayMemoryOptions) {
    if (options.learnFrom !== undefined) {
      const opened = openMemory({ path: options.learnFrom, host: options.host, learn: true });
      if (opened.warning) this.warnings.push(opened.warning);
      this.memory = opened.memory;
    }
  }

  /** The same comparison as `runCase`, on a session that learns and is recorded. */
  runCase(pair: FixturePair, options: { packs: readonly CompiledPack[]; expected?: Expectation }): CaseResult {
    const expected = options.expected ?? readExpectation(pair.expect);
    const { session, tracker } = trackedSession({
      packs: options.packs,
      family: expected.family,
      memory: this.memory,
      fallbackModel: basename(pair.log, '.log'),
    });
    for (const line of logLines(readFileSync(pair.log, 'utf8'))) session.push(line);
    if (expected.thenIdleMs) session.tick({ idleMs: expected.thenIdleMs });
    session.end();
    const verdict = session.verdict!;
    const mismatches = compare(expected, verdict);
    if (this.options.historyPath !== undefined) this.record(tracker, session.verdict!, pair);
    return { log: pair.log, expected, family: session.pack!.name, verdict, pass: mismatches.length === 0, mismatches, events: [] };
  }

  /** `recorded 98 starts in PATH`, and any warnings, for stderr (stdout ends with the tally). */
  summary(): string[] {
    const lines = [...new Set(this.warnings)];
    if (this.options.historyPath !== undefined) lines.push(`recorded ${this.recorded} start${this.recorded === 1 ? '' : 's'} in ${this.options.historyPath}`);
    return lines;
  }

  private record(tracker: StartTracker, verdict: Verdict, pair: FixturePair): void {
    const outcome = recordStart({
      path: this.options.historyPath!,
      tracker,
      verdict,
      host: this.options.host,
      when: this.options.now(),
      source: 'replay',
      log: relative(this.options.cwd, pair.log),
    });
    if (outcome.written) this.recorded++;
    if (outcome.warning) this.warnings.push(outcome.warning);
  }
}
