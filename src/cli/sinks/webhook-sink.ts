/**
 * `--notify URL`: each verdict the start reports, POSTed as the one JSON object `--json` prints
 * for it (verdict-object.ts). The request is sent when the verdict is decided and `close` awaits
 * it, so a receiver that answers slowly still hears the verdict before spinup exits. A failure is
 * one line on stderr and never changes the exit code: the start's verdict is not the webhook's.
 */
import type { Writable } from 'node:stream';
import type { Session } from '../../core/session.js';
import { postJson } from '../../io/post-json.js';
import { write } from '../io-context.js';
import { NOTIFY_TIMEOUT_MS, type NotifyTarget } from './notify-option.js';
import type { Sink, VerdictReport } from './sink.js';
import { verdictObject } from './verdict-object.js';

export class WebhookSink implements Sink {
  readonly name: string;
  /** The POSTs so far, one after another, so a receiver hears the verdicts in their order. */
  private sent: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: { target: NotifyTarget; session: Session; stderr: Writable; timeoutMs?: number },
  ) {
    this.name = `--notify ${options.target.shown}`;
  }

  verdict(report: VerdictReport): void {
    const body = JSON.stringify(verdictObject(report, this.options.session));
    this.sent = this.sent.then(() => this.post(body));
  }

  close(): Promise<void> {
    return this.sent;
  }

  private async post(body: string): Promise<void> {
    const problem = await postJson(this.options.target.url, body, this.options.timeoutMs ?? NOTIFY_TIMEOUT_MS);
    if (problem !== undefined) write(this.options.stderr, `spinup: ${this.name}: ${problem}\n`);
  }
}
