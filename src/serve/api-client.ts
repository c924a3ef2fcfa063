/**
 * The client side of the status API, for `status`, `attach` and `probe`: a GET over a TCP URL or
 * a run's unix socket, and an event-stream reader that reconnects with Last-Event-ID.
 */
import { request, type IncomingMessage } from 'node:http';

/** Where an API is: a base URL (`http://host:9464`) or a unix socket path. */
export type ApiTarget = { url: string } | { socket: string };

export interface ApiResponse {
  status: number;
  body: string;
}

export function apiGet(target: ApiTarget, path: string, timeoutMs: number): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = open(target, path, { accept: 'application/json' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        // A probe needs the status line; an endless or huge body must not hold it.
        if (body.length < 1_000_000) body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

export interface StreamedEvent {
  id: number;
  type: string;
  data: string;
}

/**
 * Reads `/v1/events` until the server ends the stream or `signal` aborts. Resolves with the id of
 * the last event seen, for a reconnect with `Last-Event-ID`.
 */
export function readEvents(options: { target: ApiTarget; afterId: number; onEvent: (event: StreamedEvent) => void; signal?: AbortSignal }): Promise<number> {
  const { target, onEvent, signal } = options;
  let lastId = options.afterId;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastId > 0) headers['last-event-id'] = String(lastId);
    const req = open(target, '/v1/events', headers, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`the event stream answered HTTP ${res.statusCode}`));
        return;
      }
      const parser = new SseParser((event) => {
        lastId = event.id;
        onEvent(event);
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.push(chunk));
      res.on('end', () => resolve(lastId));
      res.on('close', () => resolve(lastId));
      res.on('error', () => resolve(lastId));
    });
    const abort = (): void => {
      req.destroy();
      resolve(lastId);
    };
    signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.on('error', (error) => (signal?.aborted ? resolve(lastId) : reject(error)));
    req.end();
  });
}

function open(target: ApiTarget, path: string, headers: Record<string, string>, onResponse: (res: IncomingMessage) => void) {
  if ('socket' in target) return request({ socketPath: target.socket, path, headers, method: 'GET' }, onResponse);
  const url = new URL(path, target.url.endsWith('/') ? target.url : `${target.url}/`);
  return request(url, { headers, method: 'GET' }, onResponse);
}

/** The event-stream format: `field: value` lines, a blank line ends an event, `:` lines are comments. */
export class SseParser {
  private buffer = '';
  private id = 0;
  private type = 'message';
  private data: string[] = [];

  constructor(private readonly onEvent: (event: StreamedEvent) => void) {}

  push(text: string): void {
    this.buffer += text;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.onEvent({ id: this.id, type: this.type, data: this.data.join('\n') });
      this.type = 'message';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') this.id = Number(value) || this.id;
    else if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
  }
}
