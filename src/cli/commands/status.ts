/** `spinup status [ID]`: the starts being watched on this host, and recent ones. */
import { EXIT } from '../../core/exit-codes.js';
import { formatDuration } from '../../core/duration.js';
import { apiGet } from '../../serve/api-client.js';
import { listRuns, type RunEntry } from '../../serve/run-files.js';
import type { StatusSnapshot } from '../../status/status-snapshot.js';
import { statusLineText, verdictLineText } from '../../status/status-text.js';
import { UsageError } from '../errors.js';
import { parseOptions } from '../parse-options.js';
import { shownText } from '../format/shown-text.js';
import { write, type Io } from '../io-context.js';
import { findRun, runsDirOf } from '../find-run.js';
import { systemClock } from '../../io/wall-clock.js';

export const statusHelp = `Usage: spinup status [ID] [--json]

Every 'spinup watch' and 'spinup run' leaves a state file in
$XDG_STATE_HOME/spinup/runs/ (default ~/.local/state/spinup/runs/) and serves its status
API on a unix socket beside it. 'spinup status' lists them, newest first:
  running   spinup is still watching (its live status is read from its socket)
  ended     spinup finished; the last status and exit code are kept
  stale     spinup is gone without saying so (killed, host rebooted)
Entries that no longer run are forgotten after 7 days.
With ID (or spinup's pid), one start in detail. Follow one live with 'spinup attach ID'.

Options:
  --json      one JSON object per start: its state file plus "state"
  -h, --help  show this help

Exit: 0 · 64 usage · 66 no such ID`;

const LIVE_TIMEOUT_MS = 1_000;

export async function statusCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({ args, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    write(io.stdout, `${statusHelp}\n`);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError('name one start ID at most');
  const entries = positionals.length === 1 ? [findRun(io, positionals[0])] : listRuns(runsDirOf(io), systemClock.now());
  const shown = await Promise.all(entries.map(async (entry) => ({ entry, status: await currentStatus(entry) })));
  if (values.json) {
    for (const { entry, status } of shown) write(io.stdout, `${JSON.stringify({ ...entry.run, state: entry.state, status })}\n`);
    return EXIT.ok;
  }
  if (shown.length === 0) {
    write(io.stdout, `no starts recorded on this host (${runsDirOf(io)})\n`);
    return EXIT.ok;
  }
  if (positionals.length === 1) write(io.stdout, `${details(shown[0]!.entry, shown[0]!.status)}\n`);
  else write(io.stdout, `${table(shown)}\n`);
  return EXIT.ok;
}

/** A running start answers on its socket; otherwise the state file's last status stands. */
async function currentStatus(entry: RunEntry): Promise<StatusSnapshot> {
  if (entry.state !== 'running' || !entry.run.socket) return entry.run.status;
  try {
    const answer = await apiGet({ socket: entry.run.socket }, '/v1/status', LIVE_TIMEOUT_MS);
    if (answer.status === 200) return JSON.parse(answer.body) as StatusSnapshot;
  } catch {
    // Busy or going away: the file's status is a little older, still true.
  }
  return entry.run.status;
}

function table(rows: { entry: RunEntry; status: StatusSnapshot }[]): string {
  const cells = [['ID', 'STATE', 'COMMAND', 'VERDICT', 'STAGE', 'ELAPSED', 'LISTEN', 'LOG']];
  for (const { entry, status } of rows) {
    cells.push([entry.run.id, entry.state, entry.run.command, status.verdict, status.stage, formatDuration(status.elapsed_ms), entry.run.listen_url ?? '-', entry.run.log ?? '-']);
  }
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

function details(entry: RunEntry, status: StatusSnapshot): string {
  const { run } = entry;
  const rows: [string, string | undefined][] = [
    ['state', `${entry.state}${run.exit_code !== undefined ? ` (exit ${run.exit_code})` : ''}`],
    ['verdict', shownText(verdictLineText(status))],
    ['now', status.verdict === 'pending' ? shownText(statusLineText(status)) : undefined],
    ['root cause', status.root_cause.map((l) => `line ${l.line}: ${shownText(l.text)}`).join('\n             ') || undefined],
    ['hint', status.hint ?? undefined],
    // Older state files have no `learned`.
    ['budgets', status.learned?.text],
    ['command', `${run.command} (spinup pid ${run.pid}${status.server_pid ? `, server pid ${status.server_pid}` : ''}) on ${run.host}`],
    ['log', run.log],
    ['listen', run.listen_url],
    ['socket', entry.state === 'running' ? run.socket : undefined],
    ['started', run.started_at],
    ['ended', run.ended_at],
    ['attach', entry.state === 'running' ? `spinup attach ${run.id}` : undefined],
  ];
  return [run.id, ...rows.filter(([, v]) => v !== undefined).map(([k, v]) => `  ${k.padEnd(10)} ${v}`)].join('\n');
}
