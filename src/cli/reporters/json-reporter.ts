/** `--json`: one JSON object per line on stdout: every event (the verdict is one), notice and message. */
import type { Verdict } from '../../core/events.js';
import type { Session, SessionEvent } from '../../core/session.js';
import { insightJson } from '../../history/status-insight.js';
import { write, type Io } from '../io-context.js';
import { eventJson } from '../format/verdict-json.js';
import type { LiveReporter, SourceNotice } from './live-reporter.js';

export class JsonReporter implements LiveReporter {
  constructor(
    private readonly io: Io,
    private readonly session: Session,
  ) {}

  events(events: SessionEvent[]): void {
    for (const event of events) this.line({ ...eventJson(event), ...insightJson(this.session, event) });
  }

  notice(notice: SourceNotice): void {
    this.line({ type: 'notice', notice: notice.type, path: notice.path, detail: notice.detail });
  }

  tick(): void {}

  earlier(_verdict: Verdict, detail: string): void {
    this.notice({ type: 'earlier-verdict', detail });
  }

  /** Already printed: the verdict is one of the events. */
  verdict(_verdict: Verdict): void {}

  message(text: string): void {
    this.line({ type: 'message', text });
  }

  private line(object: Record<string, unknown>): void {
    write(this.io.stdout, `${JSON.stringify(object)}\n`);
  }
}
