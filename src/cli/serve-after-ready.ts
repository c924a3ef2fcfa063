/**
 * `watch --listen` as a sidecar: a probe wants /readyz to answer 200 while the server serves, not
 * a connection refused the moment it is READY. After READY the watch goes on following the log
 * and serving the status API (a crash after READY turns /readyz to 503; a restarted server's new
 * run is judged again) until the server's end as a sidecar sees it: SIGTERM or SIGINT (a pod
 * stopping), or the end of a piped input (the server's output closed).
 */
import type { Verdict } from '../core/events.js';
import { EXIT } from '../core/exit-codes.js';
import type { SessionEvent } from '../core/session.js';
import { exitCodeFor } from './exit-for-verdict.js';
import type { Sinks } from './sinks/all-sinks.js';

export const SERVE_ON_HELP = `With --listen, a watch that reaches READY does not exit: it goes on following the log
and answering the probes (/readyz turns 503 on a crash after READY, 200 again when a
restarted server is READY) until SIGTERM or SIGINT (a pod stopping its sidecar), or until
a piped input ends; it then exits 0, or 1 if the server failed after READY.`;

export class ServeAfterReady {
  private serving = false;
  private failedAfterReady = false;

  constructor(
    private readonly options: {
      sinks: Sinks;
      /** The start's verdict goes to the history once, when it is READY. */
      record: (verdict: Verdict) => void;
      /** The input is a pipe: its end is the server's too. */
      piped: boolean;
    },
  ) {}

  /** The loop settled on its verdict: READY reads on (said now, since the exit is far off); anything else ends the watch. */
  settled(verdict: Verdict): 'stop' | 'read-on' {
    if (verdict.verdict !== 'ready') return 'stop';
    if (this.serving) return 'read-on';
    this.serving = true;
    this.options.sinks.verdict({ verdict, inEvents: true });
    this.options.record(verdict);
    const end = this.options.piped ? 'SIGTERM, SIGINT or the end of the input' : 'SIGTERM or SIGINT';
    this.options.sinks.notice({ type: 'serving', detail: `READY: still following the log and serving the status API until ${end}` });
    return 'read-on';
  }

  /** Events after READY: a crash, a new run and its verdict (printed as it comes: no exit will print it). */
  events(events: readonly SessionEvent[]): void {
    if (!this.serving) return;
    for (const event of events) {
      if (event.type === 'after-ready-failure') this.failedAfterReady = true;
      if (event.type === 'restart') this.failedAfterReady = false;
      if (event.type === 'verdict') this.options.sinks.verdict({ verdict: event.verdict, inEvents: true });
    }
  }

  /** How the server stood at its end, in one line. */
  endText(latest: Verdict | undefined, how: 'stopped' | 'the input ended'): string {
    if (this.failedAfterReady) return `${how}: the server failed after READY`;
    if (latest?.verdict === 'ready') return `${how}: the server was READY and nothing failed since`;
    return `${how}: a new run of the server ${latest ? `ended ${latest.verdict.toUpperCase()}` : 'had no verdict yet'}`;
  }

  /** The server's end: the code of how it stands now (no verdict yet for a new run: interrupted). */
  exitCode(latest: Verdict | undefined): number {
    if (this.failedAfterReady) return EXIT.failed;
    return latest ? exitCodeFor(latest.verdict) : EXIT.interrupted;
  }
}
