/**
 * The human reporters: one line per stage change (`lines`), one status line redrawn in place on a
 * TTY (`status`), or only the verdict and what needs saying (`quiet`). Progress goes to stderr,
 * the verdict block to stdout.
 */
import pc from 'picocolors';
import type { Verdict } from '../../core/events.js';
import type { Session, SessionEvent } from '../../core/session.js';
import { write, type Io } from '../io-context.js';
import { clipVisible } from '../format/clip-visible.js';
import { formatVerdict } from '../format/verdict-text.js';
import { eventLine, noticeText } from './event-lines.js';
import type { Sink, SourceNotice, VerdictReport } from '../sinks/sink.js';
import { statusText } from './standing.js';

/** `--quiet`: the verdict, and messages (Ctrl-C, timeouts); no progress, no notices. */
export class QuietReporter implements Sink {
  protected readonly c: ReturnType<typeof pc.createColors>;

  constructor(
    protected readonly io: Io,
    protected readonly session: Session,
    color: boolean,
    /** `run`: stage lines show wall time since the launch, as its verdict does; default: the log's time since its start. */
    protected readonly sinceLaunchMs?: () => number,
  ) {
    this.c = pc.createColors(color);
  }

  verdict({ verdict }: VerdictReport): void {
    write(this.io.stdout, `${formatVerdict(verdict, { color: this.c.isColorSupported, family: this.session.pack?.name })}\n`);
  }

  message(text: string): void {
    write(this.io.stderr, `${text}\n`);
  }

  /** Each line was written whole as it came; the stream flushes on its own. */
  async close(): Promise<void> {}
}

/** Not a TTY: one line per stage change, warning, restart and notice. */
export class LinesReporter extends QuietReporter {
  events(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.type === 'verdict') continue;
      const line = eventLine(event, this.session, this.c, this.sinceLaunchMs);
      if (line) write(this.io.stderr, `${line}\n`);
    }
  }

  notice(notice: SourceNotice): void {
    write(this.io.stderr, `${this.c.dim('spinup:')} ${noticeText(notice)}\n`);
  }

  earlier(_verdict: Verdict, detail: string): void {
    this.message(`spinup: ${detail}`);
  }
}

/** A TTY: one status line, redrawn after each event and tick, cleared before anything else prints. */
export class StatusLineReporter extends LinesReporter {
  private shown = false;

  override events(_events: readonly SessionEvent[]): void {
    this.tick();
  }

  tick(): void {
    const text = statusText(this.session, this.c);
    if (!text) return;
    // 0 columns means the terminal does not say (a serial console): assume 80.
    const columns = (this.io.stderr as { columns?: number }).columns || 80;
    write(this.io.stderr, `\r\x1b[2K${clipVisible(text, columns - 1)}`);
    this.shown = true;
  }

  override notice(notice: SourceNotice): void {
    this.clear();
    super.notice(notice);
  }

  override verdict(report: VerdictReport): void {
    this.clear();
    super.verdict(report);
  }

  override message(text: string): void {
    this.clear();
    super.message(text);
  }

  private clear(): void {
    if (!this.shown) return;
    write(this.io.stderr, '\r\x1b[2K');
    this.shown = false;
  }
}
