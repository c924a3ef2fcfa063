/** `--json`: one JSON object per line on stdout: every event (the verdict is one), notice and message. */
import type { Verdict } from '../../core/events.js';
import type { Session, SessionEvent } from '../../core/session.js';
import { insightJson } from '../../history/status-insight.js';
import { write, type Io } from '../io-context.js';
import { eventJson } from '../format/verdict-json.js';
import type { Sink, SourceNotice, VerdictReport } from '../sinks/sink.js';
import { verdictObject } from '../sinks/verdict-object.js';

export class JsonReporter implements Sink {
  constructor(
    private readonly io: Io,
    private readonly session: Session,
  ) {}

  events(events: readonly SessionEvent[]): void {
    for (const event of events) this.line({ ...eventJson(event), ...insightJson(this.session, event) });
  }

  notice(notice: SourceNotice): void {
    this.line({ type: 'notice', notice: notice.type, path: notice.path, detail: notice.detail });
  }

  earlier(_verdict: Verdict, detail: string): void {
    this.notice({ type: 'earlier-verdict', detail });
  }

  /** A verdict that was one of the events is printed already. */
  verdict(report: VerdictReport): void {
    if (!report.inEvents) this.line(verdictObject(report, this.session));
  }

  message(text: string): void {
    this.line({ type: 'message', text });
  }

  async close(): Promise<void> {}

  private line(object: Record<string, unknown>): void {
    write(this.io.stdout, `${JSON.stringify(object)}\n`);
  }
}
