/**
 * `/v1/events`: Server-Sent Events. Each event of the start goes to every subscriber as
 * `id: N` (its number), `event: TYPE` and `data: JSON`; a subscriber that says `Last-Event-ID: N`
 * (or `?last_event_id=N`, which a first EventSource connection cannot send as a header) gets the
 * events after N again first. Comment lines keep quiet streams open.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StatusModel } from '../status/status-model.js';
import { DEFAULT_SSE_BUFFER_BYTES, SseClient } from './sse-client.js';
import { SSE_TYPE } from './status-routes.js';

export interface SseHubOptions {
  model: StatusModel;
  keepaliveMs?: number;
  bufferBytes?: number;
}

const DEFAULT_KEEPALIVE_MS = 15_000;

export class SseHub {
  private readonly clients = new Set<SseClient>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  /** How many clients were dropped for falling behind the event log (for tests and curiosity). */
  dropped = 0;

  constructor(private readonly options: SseHubOptions) {
    this.unsubscribe = options.model.subscribe(() => {
      for (const client of this.clients) client.pump();
    });
    this.timer = setInterval(() => {
      for (const client of this.clients) client.comment('keepalive');
    }, options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS);
    this.timer.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** The most any client has waiting right now. */
  get maxBuffered(): number {
    let most = 0;
    for (const client of this.clients) most = Math.max(most, client.buffered);
    return most;
  }

  add(req: IncomingMessage, res: ServerResponse): void {
    const after = lastEventId(req);
    res.writeHead(200, { 'content-type': SSE_TYPE, 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const log = this.options.model.log;
    res.write(`: spinup events; ${log.latestId} so far\n\n`);
    const client = new SseClient({
      response: res,
      log,
      afterId: after,
      maxBufferedBytes: this.options.bufferBytes ?? DEFAULT_SSE_BUFFER_BYTES,
      onGone: (gone) => {
        if (this.clients.delete(gone) && gone.overflowed) this.dropped++;
      },
    });
    this.clients.add(client);
    client.pump();
  }

  close(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    for (const client of [...this.clients]) client.end();
    this.clients.clear();
  }
}

function lastEventId(req: IncomingMessage): number {
  const header = req.headers['last-event-id'];
  const query = /[?&]last_event_id=(\d+)/.exec(req.url ?? '')?.[1];
  const text = (Array.isArray(header) ? header[0] : header) ?? query ?? '0';
  const id = Number(text.trim());
  return Number.isSafeInteger(id) && id > 0 ? id : 0;
}
