/**
 * What `watch` and `run` print while a start goes on: on a TTY one status line updated in
 * place, otherwise one line per stage change; with --json one JSON event per line.
 */
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { Verdict } from '../../core/events.js';
import type { Session, SessionEvent } from '../../core/session.js';
import { insightJson, stageNote, statusInsight } from '../../history/status-insight.js';
import { write, type Io } from '../io-context.js';
import { eventJson } from './verdict-json.js';
import { clipVisible } from './clip-visible.js';
import { clip, formatVerdict } from './verdict-text.js';

export type ReportMode = 'status' | 'lines' | 'json' | 'quiet';

export class WatchReporter {
  private statusShown = false;
  private readonly c: ReturnType<typeof pc.createColors>;

  constructor(
    private readonly io: Io,
    private readonly mode: ReportMode,
    color: boolean,
    private readonly session: Session,
    private readonly extraJson: Record<string, unknown> = {},
    /** `run`: stage lines show wall time since the launch, as its verdict does; default: the log's time since its start. */
    private readonly sinceLaunchMs?: () => number,
  ) {
    this.c = pc.createColors(color);
  }

  events(events: SessionEvent[]): void {
    for (const event of events) {
      if (this.mode === 'json') {
        write(this.io.stdout, `${JSON.stringify({ ...eventJson(event), ...insightJson(this.session, event) })}\n`);
      } else if (this.mode === 'lines' && event.type !== 'verdict') {
        const line = this.describe(event);
        if (line) write(this.io.stderr, `${line}\n`);
      }
    }
    if (this.mode === 'status') this.refresh();
  }

  notice(notice: { type: string; path?: string; detail?: string }): void {
    if (this.mode === 'json') {
      write(this.io.stdout, `${JSON.stringify({ type: 'notice', notice: notice.type, path: notice.path, detail: notice.detail })}\n`);
      return;
    }
    if (this.mode === 'quiet') return;
    this.clearStatus();
    write(this.io.stderr, `${this.c.dim('spinup:')} ${noticeText(notice)}\n`);
  }

  refresh(): void {
    if (this.mode !== 'status') return;
    const text = this.statusText();
    if (!text) return;
    // 0 columns means the terminal does not say (a serial console): assume 80.
    const columns = (this.io.stderr as { columns?: number }).columns || 80;
    write(this.io.stderr, `\r\x1b[2K${clipVisible(text, columns - 1)}`);
    this.statusShown = true;
  }

  /** The final block: the verdict, or where things stood. */
  verdict(verdict: Verdict): void {
    this.clearStatus();
    if (this.mode === 'json') return; // the verdict event was already printed
    write(this.io.stdout, `${formatVerdict(verdict, { color: this.c.isColorSupported, family: this.session.pack?.name })}\n`);
  }

  message(text: string): void {
    this.clearStatus();
    if (this.mode === 'json') {
      write(this.io.stdout, `${JSON.stringify({ type: 'message', text, ...this.extraJson })}\n`);
    } else {
      write(this.io.stderr, `${text}\n`);
    }
  }

  /** One line: stage, time in stage, total time, last progress. */
  statusText(): string | undefined {
    const classifier = this.session.classifier;
    if (!classifier) return undefined;
    const state = classifier.state;
    if (state.startedAt === undefined) return undefined;
    const now = this.session.now;
    const insight = statusInsight(this.session, now);
    const progress = insight.progress
      ? ` (${insight.progress})`
      : state.progress
        ? ` (${state.progress.unit} ${state.progress.current}${state.progress.total !== undefined ? `/${state.progress.total}` : ''})`
        : '';
    const usual = insight.usual ? ` · ${insight.usual}` : '';
    return `${this.c.bold(state.stage)} ${formatDuration(now - state.stageSince)}${progress}${usual} · total ${formatDuration(now - state.startedAt)}`;
  }

  /** Where things stood, for Ctrl-C and timeouts. */
  standing(): string {
    const state = this.session.classifier?.state;
    const waiting = this.session.linesBeforeFamily;
    const status = this.statusText() ?? (waiting > 0 ? `${waiting} line(s) seen, none yet says which server wrote them` : 'no log line seen yet');
    const last = state?.lastLine ? `\n  last line ${state.lastLine.lineNo}: ${clip(state.lastLine.text, 200)}` : '';
    return `${status}${last}`;
  }

  private clearStatus(): void {
    if (this.statusShown) {
      write(this.io.stderr, '\r\x1b[2K');
      this.statusShown = false;
    }
  }

  private describe(event: SessionEvent): string | undefined {
    const elapsed = (at: number): string => {
      const start = this.session.classifier?.state.startedAt ?? at;
      return `[${formatDuration(this.sinceLaunchMs ? this.sinceLaunchMs() : at - start).padStart(6)}]`;
    };
    switch (event.type) {
      case 'family':
        if (event.detected && !event.certain) return `${this.c.dim('spinup:')} family not known: the lines do not say which server this is; only the shared rules apply (--pack names it)`;
        return `${this.c.dim('spinup:')} family ${event.family}${event.detected ? ' (detected)' : ''}`;
      case 'stage': {
        const note = stageNote(this.session, event.stage);
        return `${elapsed(event.at)} stage ${this.c.bold(event.stage)}${event.reentered ? ' (again)' : ''}  ${this.c.dim(`line ${event.line.lineNo}`)}${note ? `  ${this.c.dim(note)}` : ''}`;
      }
      case 'warning':
        return `${elapsed(event.at)} ${this.c.yellow('warning')} ${event.message}  ${this.c.dim(`line ${event.line.lineNo}`)}`;
      case 'restart':
        return `${elapsed(event.at)} a new run starts at line ${event.line.lineNo}; earlier lines no longer count`;
      case 'after-ready-failure':
        return `${elapsed(event.at)} ${this.c.red('crash after ready')}: ${event.message}  ${this.c.dim(`line ${event.line.lineNo}`)}`;
      default:
        return undefined;
    }
  }
}

export function noticeText(notice: { type: string; path?: string; detail?: string }): string {
  const path = notice.path ?? 'the log';
  switch (notice.type) {
    case 'waiting':
      return `waiting for ${path} to appear`;
    case 'appeared':
      return `${path} appeared`;
    case 'rotated':
      return `${path} was rotated; following the new file`;
    case 'truncated':
      return `${path} was truncated; reading it from the start`;
    case 'deleted':
      return `${path} was deleted; waiting for it to come back`;
    case 'not-a-file':
      return `${path} is not a regular file${notice.detail ? ` (${notice.detail})` : ''}; waiting`;
    case 'decoded':
      return `${path}: ${notice.detail ?? 'decoded'}`;
    case 'unreadable':
      return `cannot read ${path}${notice.detail ? `: ${notice.detail}` : ''}; retrying`;
    default:
      return `${notice.type}${notice.detail ? `: ${notice.detail}` : ''}`;
  }
}
