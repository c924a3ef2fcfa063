/** `spinup history`: past starts and what is normal for a model on this host. */
import { EXIT } from '../../core/exit-codes.js';
import { readHistory, skippedSummary } from '../../history/history-store.js';
import { formatGroups, formatStarts, groupStarts, shortModel, slowestStage } from '../../history/history-table.js';
import { InputError, UsageError } from '../errors.js';
import { historyPath } from '../history-flags.js';
import { useColor, write, type Io } from '../io-context.js';
import { laneFromRecord } from '../../report/lane-from-record.js';
import { startsTimelineText } from '../../report/text-timeline.js';
import { parseOptions } from '../parse-options.js';
import { resolve } from 'node:path';
import { askFleet } from '../../history/fleet-client.js';
import { HISTORY_QUERIES } from '../../history/fleet-queries.js';
import { formatFleet } from '../../history/fleet-table.js';
import { fleetSource } from '../fleet-flags.js';
import { shownText } from '../format/shown-text.js';

export const historyHelp = `Usage: spinup history [options]

Past starts recorded by 'watch' and 'run' (and 'replay --history'), then, per model and settings,
how long each stage took in the starts that got ready: what is normal on this host, and
what learned stall budgets are made of.

With --from URL, the fleet's instead: what the Prometheus at URL, scraping every spinup's
/metrics, kept of the starts of each model (starts, p50/p95 per stage, failure causes).

Options:
  --model SUBSTR   only starts whose model contains SUBSTR (case-insensitive)
  --from URL       the fleet's table, from the Prometheus at URL (as watch --learn-from asks it)
  --window W       with --from: how far back, in Prometheus's words (default 14d)
  --token-file F   with --from: a bearer token for it (env SPINUP_LEARN_TOKEN_FILE)
  --ca-file F      with --from: the CA of its https certificate (env SPINUP_LEARN_CA_FILE)
  --history PATH   the history file (default: $XDG_STATE_HOME/spinup/history.jsonl,
                   i.e. ~/.local/state/spinup/history.jsonl)
  --timeline       draw the starts as text bars on one time axis (80 columns)
  --json           one JSON object per start, one per model+settings, then a summary
  -h, --help       show this help

Exit: 0 (also when no start was recorded yet: the file does not exist) · 64 usage
      66 the history file cannot be read (a directory, no permission)
      69 --from: the Prometheus did not answer, or not as a Prometheus does`;

export async function historyCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      model: { type: 'string' },
      history: { type: 'string' },
      timeline: { type: 'boolean' },
      json: { type: 'boolean' },
      from: { type: 'string' },
      window: { type: 'string' },
      'token-file': { type: 'string' },
      'ca-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    write(io.stdout, `${historyHelp}\n`);
    return EXIT.ok;
  }
  if (values.from !== undefined) return fleetHistory(values, io);
  const onlyWithFrom = (['window', 'token-file', 'ca-file'] as const).find((key) => values[key] !== undefined);
  if (onlyWithFrom) throw new UsageError(`--${onlyWithFrom} goes with --from URL`);
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
  if (values.json) {
    const groups = groupStarts(records);
    for (const r of records) write(io.stdout, `${JSON.stringify({ type: 'start', ...r, slowest_stage: slowestStage(r)?.stage })}\n`);
    for (const g of groups) write(io.stdout, `${JSON.stringify({ type: 'stats', ...g })}\n`);
    write(io.stdout, `${JSON.stringify({ type: 'summary', path, starts: records.length, skipped: read.skipped.length, upgraded: read.upgraded })}\n`);
    return EXIT.ok;
  }
  // A model name is read from the log: shown with its control characters as escapes, like all log text.
  const shownRecords = records.map((r) => (r.model === undefined ? r : { ...r, model: shownText(r.model) }));
  const groups = groupStarts(shownRecords);
  if (read.records.length === 0) {
    write(io.stdout, `No starts recorded in ${shown} yet: 'spinup watch' and 'spinup run' record each start they see.\n`);
    return EXIT.ok;
  }
  const filtered = needle === undefined ? '' : ` matching "${values.model}"`;
  write(io.stdout, `${records.length} start${records.length === 1 ? '' : 's'}${filtered} in ${shown}\n\n`);
  if (records.length === 0) return EXIT.ok;
  if (values.timeline) {
    const rows = shownRecords.map((r) => ({ title: `${localTime(r.when).slice(5)} ${shortModel(r, 14)}`, lane: laneFromRecord(r) }));
    write(io.stdout, startsTimelineText(rows, { color: useColor(io) }));
    return EXIT.ok;
  }
  write(io.stdout, formatStarts(shownRecords, localTime));
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

/** `--from URL`: the fleet's table, from the same queries `--learn-from` asks (and a few more). */
async function fleetHistory(values: { from?: string; window?: string; 'token-file'?: string; 'ca-file'?: string; model?: string; json?: boolean; timeline?: boolean; history?: string }, io: Io): Promise<number> {
  if (values.timeline) throw new UsageError('--timeline draws this host\'s starts; the fleet has no single starts to draw');
  if (values.history !== undefined) throw new UsageError('--history and --from name two sources; pick one');
  const source = fleetSource(
    { 'learn-from': values.from, 'learn-window': values.window, 'learn-token-file': values['token-file'], 'learn-ca-file': values['ca-file'] },
    { SPINUP_LEARN_TOKEN_FILE: io.env.SPINUP_LEARN_TOKEN_FILE, SPINUP_LEARN_CA_FILE: io.env.SPINUP_LEARN_CA_FILE },
    (file) => resolve(io.cwd, file),
    { 'learn-from': 'from', 'learn-window': 'window', 'learn-token-file': 'token-file', 'learn-ca-file': 'ca-file' },
  )!;
  const answer = await askFleet(source, HISTORY_QUERIES);
  if ('problem' in answer) {
    write(io.stderr, `spinup history: the fleet at ${source.url} did not answer as a Prometheus: ${answer.problem}\n`);
    return EXIT.unavailable;
  }
  const needle = values.model?.toLowerCase();
  const figures = { ...answer.figures, models: answer.figures.models.filter((m) => needle === undefined || m.model.toLowerCase().includes(needle)) };
  if (values.json) {
    for (const m of figures.models) write(io.stdout, `${JSON.stringify({ type: 'fleet_model', ...m })}\n`);
    write(io.stdout, `${JSON.stringify({ type: 'summary', from: figures.url, window: figures.window, models: figures.models.length })}\n`);
    return EXIT.ok;
  }
  write(io.stdout, formatFleet(figures, shownText));
  return EXIT.ok;
}
