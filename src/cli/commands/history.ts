/**
 * `spinup history`: past starts and what is normal for a model on this host. Also the
 * history flags `watch` and `run` share: where the store is, and a start's memory.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { EXIT } from '../../core/exit-codes.js';
import type { Verdict } from '../../core/events.js';
import type { SessionOptions } from '../../core/session.js';
import { defaultHistoryPath } from '../../history/history-path.js';
import { readHistory, skippedSummary } from '../../history/history-store.js';
import { formatGroups, formatStarts, groupStarts, shortModel, slowestStage } from '../../history/history-table.js';
import { openMemory, recordStart, showsAStart } from '../../history/record-start.js';
import { ReplayMemory } from '../../history/replay-memory.js';
import type { StartRecord } from '../../history/start-record.js';
import { TrackedSession } from '../../history/tracked-session.js';
import { InputError, UsageError } from '../errors.js';
import { useColor, write, type Io } from '../io-context.js';
import { laneFromRecord } from '../../report/lane-from-record.js';
import { startsTimelineText } from '../../report/text-timeline.js';
import { parseOptions } from '../parse-options.js';

export const historyHelp = `Usage: spinup history [options]

Past starts recorded by 'watch', 'run' (and 'replay --history'), then, per model and settings,
how long each stage took in the starts that got ready: what is normal on this host, and
what learned stall budgets are made of.

Options:
  --model SUBSTR   only starts whose model contains SUBSTR (case-insensitive)
  --history PATH   the history file (default: $XDG_STATE_HOME/spinup/history.jsonl,
                   i.e. ~/.local/state/spinup/history.jsonl)
  --timeline       draw the starts as text bars on one time axis (80 columns)
  --json           one JSON object per start, one per model+settings, then a summary
  -h, --help       show this help

Exit: 0 (also when no start was recorded yet: the file does not exist) · 64 usage
      66 the history file cannot be read (a directory, no permission)`;

export async function historyCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: { model: { type: 'string' }, history: { type: 'string' }, timeline: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    write(io.stdout, `${historyHelp}\n`);
    return EXIT.ok;
  }
  if (values.timeline && values.json) throw new UsageError('--timeline draws for people; --json is for scripts: pick one');
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (did you mean --model ${positionals[0]}?)`);
  const path = historyPath(io, values.history);
  const shown = values.history ?? path;
  if (path === undefined) throw new UsageError('no history path: HOME and XDG_STATE_HOME are unset; pass --history PATH');
  let read: ReturnType<typeof readHistory>;
  try {
    read = readHistory(path);
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const needle = values.model?.toLowerCase();
  const records = read.records.filter((r) => needle === undefined || (r.model ?? '').toLowerCase().includes(needle));
  const skipped = skippedSummary(path, read);
  if (skipped) write(io.stderr, `spinup history: ${skipped}\n`);
  const groups = groupStarts(records);
  if (values.json) {
    for (const r of records) write(io.stdout, `${JSON.stringify({ type: 'start', ...r, slowest_stage: slowestStage(r)?.stage })}\n`);
    for (const g of groups) write(io.stdout, `${JSON.stringify({ type: 'stats', ...g })}\n`);
    write(io.stdout, `${JSON.stringify({ type: 'summary', path, starts: records.length, skipped: read.skipped.length, upgraded: read.upgraded })}\n`);
    return EXIT.ok;
  }
  if (read.records.length === 0) {
    write(io.stdout, `No starts recorded in ${shown} yet: 'spinup watch' and 'spinup run' record each start they see.\n`);
    return EXIT.ok;
  }
  const filtered = needle === undefined ? '' : ` matching "${values.model}"`;
  write(io.stdout, `${records.length} start${records.length === 1 ? '' : 's'}${filtered} in ${shown}\n\n`);
  if (records.length === 0) return EXIT.ok;
  if (values.timeline) {
    const rows = records.map((r) => ({ title: `${localTime(r.when).slice(5)} ${shortModel(r, 14)}`, lane: laneFromRecord(r) }));
    write(io.stdout, startsTimelineText(rows, { color: useColor(io) }));
    return EXIT.ok;
  }
  write(io.stdout, formatStarts(records, localTime));
  const stats = formatGroups(groups, new Set(records.map((r) => r.host)).size > 1);
  if (stats) write(io.stdout, `\nTime per stage in ready starts (count, min, median, max):\n${stats}`);
  return EXIT.ok;
}

function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** `--history PATH` resolved, or the XDG default (undefined when the env names no home). */
export function historyPath(io: Io, value: string | undefined): string | undefined {
  return value !== undefined ? resolve(io.cwd, value) : defaultHistoryPath(io.env);
}

/** The flags `watch` and `run` take, for their parseArgs and help. */
export const historyFlags = {
  history: { type: 'string' },
  'no-history': { type: 'boolean' },
  'no-learn': { type: 'boolean' },
} as const;

export const historyFlagsHelp = `  --history PATH      the start history to learn from and add to
                      (default: $XDG_STATE_HOME/spinup/history.jsonl)
  --no-history        neither read nor record the start history
  --no-learn          record, but keep the pack's stall budgets (no learned ones)`;

/** What one start remembers: a session that knows the history, and the record it leaves. */
export interface StartMemory {
  session: TrackedSession;
  /** Set when the history could not be (fully) read. */
  warning?: string;
  /** Appends this start's record (`log`: the log read, when only known later); returns a warning when that failed. */
  record(verdict: Verdict | undefined, log?: string): string | undefined;
}

export function startMemory(params: {
  io: Io;
  flags: { history?: string; 'no-history'?: boolean; 'no-learn'?: boolean };
  session: SessionOptions;
  source: StartRecord['source'];
  /** The log read; `run` names its log file at the record instead. */
  log?: string;
}): StartMemory {
  const { io, flags } = params;
  if (flags['no-history'] && flags.history !== undefined) throw new UsageError('--history and --no-history disagree; pick one');
  const path = flags['no-history'] ? undefined : historyPath(io, flags.history);
  if (path === undefined) return { session: new TrackedSession(params.session), record: () => undefined };
  const host = hostname();
  const opened = openMemory({ path, host, learn: !flags['no-learn'] });
  const session = new TrackedSession({ ...params.session, memory: opened.memory });
  const record = (verdict: Verdict | undefined, log = params.log): string | undefined => {
    if (!verdict || !showsAStart(verdict)) return undefined;
    return recordStart({ path, session, verdict, host, when: new Date(), source: params.source, log }).warning;
  };
  return { session, warning: opened.warning, record };
}

export const replayHistoryHelp = `  --history PATH       append one start record per fixture to the history PATH
                       (a fixture whose log names no model is kept under its file name)
  --learn-from PATH    replay with stall budgets learned from the history PATH`;

/** `replay --history PATH` / `--learn-from PATH`; undefined when neither is given. */
export function replayMemory(io: Io, flags: { history?: string; 'learn-from'?: string }): ReplayMemory | undefined {
  if (flags.history === undefined && flags['learn-from'] === undefined) return undefined;
  return new ReplayMemory({
    historyPath: flags.history === undefined ? undefined : resolve(io.cwd, flags.history),
    learnFrom: flags['learn-from'] === undefined ? undefined : resolve(io.cwd, flags['learn-from']),
    host: hostname(),
    cwd: io.cwd,
    now: () => new Date(),
  });
}
