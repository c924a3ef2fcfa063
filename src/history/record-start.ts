/**
 * The two ends of a start's life in the history: read what earlier starts say before it
 * begins, append its record when it ends. Neither ever throws: a missing, corrupt or
 * unwritable history costs a warning, never a watch.
 */
import type { Verdict } from '../core/events.js';
import { appendRecord, readHistory, skippedSummary } from './history-store.js';
import { LEARNING } from './learn-budgets.js';
import type { StartRecord } from './start-record.js';
import type { Memory, StartTracker } from './start-tracker.js';

export interface OpenedMemory {
  memory: Memory;
  /** Set when some of the history could not be read. */
  warning?: string;
}

export function openMemory(params: { path: string; host: string; learn: boolean }): OpenedMemory {
  try {
    const read = readHistory(params.path, { tailBytes: LEARNING.windowBytes });
    return { memory: { records: read.records, host: params.host, learn: params.learn }, warning: skippedSummary(params.path, read) };
  } catch (error) {
    return {
      memory: { records: [], host: params.host, learn: params.learn },
      warning: `cannot read the history ${params.path} (${messageOf(error)}); going on without it`,
    };
  }
}

export interface RecordStartParams {
  path: string;
  tracker: StartTracker;
  verdict: Verdict;
  host: string;
  /** Wall clock at the end of the start. */
  when: Date;
  source: StartRecord['source'];
  /** The log read: a path, or `-`. */
  log?: string;
}

/**
 * Whether the log showed a start at all: an empty file, binary data or another program's log ends
 * INCOMPLETE in stage none, and recording it would count a start of the guessed family that never
 * happened (and teach budgets from it).
 */
export function showsAStart(verdict: Verdict): boolean {
  return verdict.verdict !== 'incomplete' || verdict.stage !== 'none';
}

/** Appends the record of a finished start (for `watch`, `run` and `replay`). */
export function recordStart(params: RecordStartParams): { record: StartRecord; written: boolean; warning?: string } {
  const record = params.tracker.toRecord(params);
  try {
    const { locked } = appendRecord(params.path, record);
    return { record, written: true, warning: locked ? undefined : `the history lock ${params.path}.lock stayed busy; appended without it` };
  } catch (error) {
    return { record, written: false, warning: `cannot write the history ${params.path} (${messageOf(error)}); this start was not recorded` };
  }
}

function messageOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}
