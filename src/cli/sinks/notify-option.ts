/**
 * `--notify URL` of `watch` and `run`: the option, its help, and the webhook output it makes,
 * whose HTTP(S) client is loaded only when a URL is given (a start that posts nowhere never pays
 * for TLS).
 */
import type { Writable } from 'node:stream';
import type { Session } from '../../core/session.js';
import { UsageError } from '../errors.js';
import { urlOption } from '../options.js';
import type { Sink } from './sink.js';

/** How long a receiver has to answer each POST: `close` waits no longer. */
export const NOTIFY_TIMEOUT_MS = 5_000;

export const notifyHelp = `  --notify URL        POST the verdict, as the JSON object --json prints for it, to URL
                      (http:// or https://) when it is decided; spinup waits up to 5s
                      for the answer before it exits. A failure is said on stderr and
                      does not change the exit code`;

/** Where to POST, and the URL as messages show it (shownUrl). */
export interface NotifyTarget {
  url: URL;
  shown: string;
}

/**
 * The URL as a message shows it: its scheme and host alone. A webhook's secret is in its path
 * (`https://hooks.slack.com/services/T0/B0/XXXX`), its query or its user, and stderr is often
 * kept in a log others read.
 */
export function shownUrl(url: URL): string {
  const hidden = url.pathname !== '/' || url.search !== '' || url.username !== '' || url.password !== '';
  return `${url.protocol}//${url.host}${hidden ? '/…' : ''}`;
}

/** `--notify URL`: checked before the start, so a typo is a usage error, not a lost verdict. */
export function notifyOption(value: string | undefined): NotifyTarget | undefined {
  if (value === undefined) return undefined;
  const url = urlOption(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`--notify wants an http:// or https:// URL such as http://127.0.0.1:8080/hook, not "${value}"`);
  }
  return { url, shown: shownUrl(url) };
}

/** The webhook output of `--notify`, or none. */
export async function notifySink(target: NotifyTarget | undefined, { session, stderr }: { session: Session; stderr: Writable }): Promise<Sink | undefined> {
  if (target === undefined) return undefined;
  const { WebhookSink } = await import('./webhook-sink.js');
  return new WebhookSink({ target, session, stderr });
}
