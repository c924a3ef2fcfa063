/** What `spinup attach` prints: the words of watch's own output, drawn from the status API's JSON. */
import pc from 'picocolors';
import { EXIT } from '../../core/exit-codes.js';
import { formatDuration } from '../../core/duration.js';
import type { RunEntry } from '../../serve/run-files.js';
import type { StatusSnapshot } from '../../status/status-snapshot.js';
import { statusLineText, verdictLineText } from '../../status/status-text.js';
import { exitCodeFor } from '../exit-for-verdict.js';
import { useColor, write, type Io } from '../io-context.js';
import { verdictFromJson } from './verdict-from-json.js';
import { formatVerdict } from './verdict-text.js';
import { clip, shownText } from './shown-text.js';

export type AttachMode = 'lines' | 'json' | 'quiet';

export class AttachView {
  private readonly c: ReturnType<typeof pc.createColors>;
  private statusShown = false;
  private startedAt: number | undefined;
  private family: string | undefined;

  constructor(
    private readonly io: Io,
    private readonly mode: AttachMode,
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

  /**
   * The start is no longer watched: its last status, and the exit code it ended with. A watching
   * spinup that was interrupted (130) tells what became of the start, not what became of this
   * attach: its verdict's code, or 3 when it ended with none; attach's own 130 means attach was.
   */
  over(entry: RunEntry): number {
    const status = entry.run.status;
    const fromStatus = status.verdict === 'pending' ? EXIT.incomplete : exitCodeFor(status.verdict);
    const interrupted = entry.run.exit_code === EXIT.interrupted;
    const code = interrupted ? fromStatus : (entry.run.exit_code ?? fromStatus);
    const why = interrupted ? ` (its spinup was interrupted${status.verdict === 'pending' ? ' before a verdict' : ''})` : '';
    const how = entry.state === 'stale' ? `spinup (pid ${entry.run.pid}) is gone without a last word` : `it ended${entry.run.exit_code !== undefined ? ` with exit ${entry.run.exit_code}${why}` : ''}`;
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify({ type: 'ended', id: entry.run.id, state: entry.state, exit_code: entry.run.exit_code, status })}\n`);
    else write(this.io.stdout, `${entry.run.id} is not running: ${how}. Last status: ${shownText(verdictLineText(status))}\n`);
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
        return `${this.c.dim('spinup:')} family ${shownText(String(json.family))}`;
      case 'stage':
        return `${elapsed} stage ${this.c.bold(String(json.stage))}${json.reentered ? ' (again)' : ''}  ${where}`;
      case 'warning':
        return `${elapsed} ${this.c.yellow('warning')} ${shownText(String(json.message))}  ${where}`;
      case 'restart':
        return `${elapsed} a new run starts at line ${String(json.line)}; earlier lines no longer count`;
      case 'after_ready_failure':
        return `${elapsed} ${this.c.red('crash after ready')}: ${shownText(String(json.message))}  ${where}`;
      default:
        return undefined;
    }
  }
}
