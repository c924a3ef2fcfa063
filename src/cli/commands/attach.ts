/** `spinup attach [ID]`: follow a start that another spinup watches, from any terminal on the host. */
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT } from '../../core/exit-codes.js';
import { apiGet, readEvents, type ApiTarget } from '../../serve/api-client.js';
import { pidAlive, readRunFile, type RunEntry } from '../../serve/run-files.js';
import type { StatusSnapshot } from '../../status/status-snapshot.js';
import { UsageError } from '../errors.js';
import { parseOptions } from '../parse-options.js';
import { AttachView } from '../format/attach-view.js';
import { write, type Io } from '../io-context.js';
import { findRun } from '../find-run.js';

export const attachHelp = `Usage: spinup attach [ID] [--json]

Follows a start that a 'spinup watch' or 'spinup run' on this host is watching, from any
terminal: it replays what happened so far, then follows live with the same status line,
and exits with the verdict's code. Without ID, the newest running start. 'spinup status'
lists them. The answer to a dropped SSH session:
  ssh gpu-host spinup attach
spinup keeps watching when the terminal that started it goes away; if logind kills the
user's processes at logout (KillUserProcesses=yes), start it in its own scope:
  systemd-run --user --scope spinup run -- vllm serve ...
or let the user's processes outlive the session: loginctl enable-linger $USER

Options:
  --json      the events as JSON lines (what --json of watch prints), then the verdict
  -q, --quiet print only the verdict
  -h, --help  show this help

Exit: 0 ready · 1 failed · 2 stalled · 3 spinup ended with no verdict (or was
      interrupted before one) · 64 usage · 66 no such start
      130 attach itself interrupted (the watched start goes on)`;

const RECONNECT_MS = 300;

export async function attachCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    write(io.stdout, `${attachHelp}\n`);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError('attach to one start at a time');
  const entry = findRun(io, positionals[0]);
  const view = new AttachView(io, values.json ? 'json' : values.quiet ? 'quiet' : 'lines');
  if (entry.state !== 'running' || !entry.run.socket) return view.over(entry);
  return follow(entry, view, io.signal);
}

async function follow(entry: RunEntry, view: AttachView, signal: AbortSignal | undefined): Promise<number> {
  const target: ApiTarget = { socket: entry.run.socket! };
  view.header(entry, await liveStatus(target));
  let lastId = 0;
  let verdict: Record<string, unknown> | undefined;
  const stop = new AbortController();
  signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const ticker = view.tty ? setInterval(() => void refresh(view, target), 1_000) : undefined;
  try {
    while (!stop.signal.aborted && verdict === undefined) {
      try {
        lastId = await readEvents({
          target,
          afterId: lastId,
          signal: stop.signal,
          onEvent: (event) => {
            const json = JSON.parse(event.data) as Record<string, unknown>;
            view.event(event.type, json);
            if (event.type === 'verdict') {
              verdict = json;
              stop.abort();
            }
          },
        });
      } catch {
        // The socket is gone or refused: spinup is ending, or restarting its server. Check below.
      }
      if (verdict !== undefined || stop.signal.aborted) break;
      if (!pidAlive(entry.run.pid)) break;
      await sleep(RECONNECT_MS);
    }
  } finally {
    if (ticker) clearInterval(ticker);
  }
  if (verdict !== undefined) return view.verdict(verdict);
  if (signal?.aborted) return view.message(`interrupted: stopped following ${entry.run.id} (it goes on)`, EXIT.interrupted);
  const again = readRunFile(entry.file);
  return view.over(again ? { ...entry, run: again, state: again.ended_at ? 'ended' : 'stale' } : entry);
}

async function refresh(view: AttachView, target: ApiTarget): Promise<void> {
  const status = await liveStatus(target);
  if (status) view.status(status);
}

async function liveStatus(target: ApiTarget): Promise<StatusSnapshot | undefined> {
  try {
    const answer = await apiGet(target, '/v1/status', 1_000);
    if (answer.status === 200) return JSON.parse(answer.body) as StatusSnapshot;
  } catch {
    // A missed refresh; the next one will do.
  }
  return undefined;
}
