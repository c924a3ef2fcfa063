/** `spinup attach [ID]`: follow a start that another spinup watches, from any terminal on the host. */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pc from 'picocolors';
import { EXIT } from '../../core/exit-codes.js';
import { formatDuration } from '../../core/duration.js';
import { apiGet, readEvents, type ApiTarget } from '../../serve/api-client.js';
import { pidAlive, readRunFile, type RunEntry } from '../../serve/run-files.js';
import type { StatusSnapshot } from '../../status/status-snapshot.js';
import { statusLineText, verdictLineText } from '../../status/status-text.js';
import { UsageError } from '../errors.js';
import { exitCodeFor } from '../exit-for-verdict.js';
import { verdictFromJson } from '../format/verdict-from-json.js';
import { clip, formatVerdict } from '../format/verdict-text.js';
import { useColor, write, type Io } from '../io-context.js';
import { findRun } from '../run-lookup.js';

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

Exit: 0 ready · 1 failed · 2 stalled · 3 spinup ended with no verdict · 64 usage
      66 no such start · 130 interrupted (the watched start goes on)`;

const RECONNECT_MS = 300;

export async function attachCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
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

type Mode = 'lines' | 'json' | 'quiet';

/** What attach prints: the words of watch's own output, drawn from the API's JSON. */
class AttachView {
  private readonly c: ReturnType<typeof pc.createColors>;
  private statusShown = false;
  private startedAt: number | undefined;
  private family: string | undefined;

  constructor(
    private readonly io: Io,
    private readonly mode: Mode,
  ) {
    this.c = pc.createColors(useColor(io, 'stdout'));
  }

  get tty(): boolean {
    return this.mode === 'lines' && Boolean(this.io.stderr.isTTY);
  }

  header(entry: RunEntry, live: StatusSnapshot | undefined): void {
    const status = live ?? entry.run.status;
    this.family = status.family ?? undefined;
    this.startedAt = status.started_at_ms ?? undefined;
    if (this.mode === 'lines') write(this.io.stderr, `${this.c.dim('spinup:')} attached to ${entry.run.id}: ${entry.run.command} of ${entry.run.log ?? '?'} (pid ${entry.run.pid})\n`);
  }

  event(type: string, json: Record<string, unknown>): void {
    if (this.mode === 'json') {
      write(this.io.stdout, `${JSON.stringify(json)}\n`);
      return;
    }
    if (type === 'family') this.family = String(json.family);
    if (type === 'stage' && this.startedAt === undefined) this.startedAt = Number(json.at_ms);
    if (this.mode !== 'lines' || type === 'verdict') return;
    const line = this.describe(type, json);
    if (!line) return;
    this.clearStatus();
    write(this.io.stderr, `${line}\n`);
  }

  status(status: StatusSnapshot): void {
    if (!this.tty || status.verdict !== 'pending') return;
    write(this.io.stderr, `\r\x1b[2K${clip(statusLineText(status), 119)}`);
    this.statusShown = true;
  }

  verdict(json: Record<string, unknown>): number {
    this.clearStatus();
    const verdict = verdictFromJson(json);
    if (this.mode !== 'json') write(this.io.stdout, `${formatVerdict(verdict, { color: this.c.isColorSupported, family: this.family })}\n`);
    return exitCodeFor(verdict.verdict);
  }

  /** The start is no longer watched: its last status, and the exit code it ended with. */
  over(entry: RunEntry): number {
    const status = entry.run.status;
    const code = entry.run.exit_code ?? (status.verdict === 'pending' ? EXIT.incomplete : exitCodeFor(status.verdict));
    const how = entry.state === 'stale' ? `spinup (pid ${entry.run.pid}) is gone without a last word` : `it ended${entry.run.exit_code !== undefined ? ` with exit ${entry.run.exit_code}` : ''}`;
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify({ type: 'ended', id: entry.run.id, state: entry.state, exit_code: entry.run.exit_code, status })}\n`);
    else write(this.io.stdout, `${entry.run.id} is not running: ${how}. Last status: ${verdictLineText(status)}\n`);
    return code;
  }

  message(text: string, code: number): number {
    this.clearStatus();
    write(this.io.stderr, `${text}\n`);
    return code;
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    write(this.io.stderr, '\r\x1b[2K');
    this.statusShown = false;
  }

  private describe(type: string, json: Record<string, unknown>): string | undefined {
    const at = Number(json.at_ms ?? 0);
    const elapsed = `[${formatDuration(at - (this.startedAt ?? at)).padStart(6)}]`;
    const where = this.c.dim(`line ${String(json.line)}`);
    switch (type) {
      case 'family':
        return `${this.c.dim('spinup:')} family ${String(json.family)}`;
      case 'stage':
        return `${elapsed} stage ${this.c.bold(String(json.stage))}${json.reentered ? ' (again)' : ''}  ${where}`;
      case 'warning':
        return `${elapsed} ${this.c.yellow('warning')} ${String(json.message)}  ${where}`;
      case 'restart':
        return `${elapsed} a new run starts at line ${String(json.line)}; earlier lines no longer count`;
      case 'after_ready_failure':
        return `${elapsed} ${this.c.red('crash after ready')}: ${String(json.message)}  ${where}`;
      default:
        return undefined;
    }
  }
}
