/**
 * The status API over HTTP (node:http): on a TCP address with `--listen`, and always on the run's
 * unix socket. GET (and HEAD) only, with one exception: a multi-node head takes its followers' pushes
 * (POST /v1/nodes/N/events, node-push.ts). The paths are a fixed table (status-routes.ts).
 */
import { chmodSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { listenUrl, type ListenAddress } from '../status/listen-address.js';
import type { StatusModel } from '../status/status-model.js';
import { handleNodePush, NODE_EVENTS_PATH, type NodePushReceiver } from './node-push.js';
import { SseHub } from './sse-hub.js';
import { EVENTS_PATH, send, SSE_TYPE, statusRoutes, TEXT_TYPE, type Route } from './status-routes.js';

export interface StatusServerOptions {
  model: StatusModel;
  /** Comment lines on quiet event streams; default 15 s. */
  keepaliveMs?: number;
  /** What one event-stream client may leave unread before it is dropped; default 256 KiB. */
  sseBufferBytes?: number;
}

export class StatusServer {
  readonly hub: SseHub;
  private readonly routes: Map<string, Route>;
  private readonly servers: Server[] = [];
  private socketPath: string | undefined;
  private push: NodePushReceiver | undefined;

  constructor(options: StatusServerOptions) {
    this.hub = new SseHub({ model: options.model, keepaliveMs: options.keepaliveMs, bufferBytes: options.sseBufferBytes });
    this.routes = statusRoutes({ model: options.model, events: (req, res) => this.hub.add(req, res) });
  }

  /** A multi-node head: from now on, its followers' pushes go to `receiver`. */
  acceptPushes(receiver: NodePushReceiver): void {
    this.push = receiver;
  }

  /** Resolves with the URL once bound; rejects with the system error (EADDRINUSE, EACCES...). */
  async listenTcp(address: ListenAddress): Promise<string> {
    const server = await this.bind((s, done) => s.listen({ host: address.host, port: address.port, exclusive: true }, done));
    const bound = server.address();
    const port = typeof bound === 'object' && bound ? bound.port : address.port;
    return listenUrl(address.host, port);
  }

  /** Serves the same API on a unix socket, readable and writable by this user only. */
  async listenUnix(path: string): Promise<void> {
    rmSync(path, { force: true });
    await this.bind((s, done) => s.listen(path, done));
    chmodSync(path, 0o600);
    this.socketPath = path;
  }

  /** Ends the event streams (their clients see the end), stops listening, removes the socket. */
  async close(): Promise<void> {
    this.hub.close();
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    if (this.socketPath) rmSync(this.socketPath, { force: true });
  }

  private bind(listen: (server: Server, done: () => void) => void): Promise<Server> {
    // Required when first listening: a short watch, over before its socket is due, never loads it.
    const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');
    const server = createServer((req, res) => this.handle(req, res));
    // Probes and scrapes are short; a client that opens a connection and sends nothing is let go.
    server.headersTimeout = 10_000;
    server.requestTimeout = 0; // the event stream is one long response
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      listen(server, () => {
        server.removeListener('error', reject);
        server.on('error', () => undefined);
        server.unref();
        this.servers.push(server);
        resolve(server);
      });
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req.url);
    const pushed = this.push && path !== undefined ? NODE_EVENTS_PATH.exec(path) : null;
    if (pushed && this.push) {
      if (req.method === 'POST') return handleNodePush(req, res, Number(pushed[1]), this.push);
      return send(res, { status: 405, type: TEXT_TYPE, body: 'method not allowed: followers POST their events here\n', headers: { allow: 'POST' } });
    }
    const route = path === undefined ? undefined : this.routes.get(path);
    if (!route) return send(res, { status: 404, type: TEXT_TYPE, body: `not found: the API serves ${[...this.routes.keys()].join(' ')}\n` });
    if (req.method === 'HEAD') return this.head(path!, req, res, route);
    if (req.method !== 'GET') return send(res, { status: 405, type: TEXT_TYPE, body: 'method not allowed: the status API is read-only (GET, HEAD)\n', headers: { allow: 'GET, HEAD' } });
    route(req, res);
  }

  /**
   * HEAD as GET without a body (probers and `wget --spider` ask with HEAD): node:http sends the
   * status and headers of a HEAD's answer and drops its body. The event stream has no end to
   * wait for: its headers alone.
   */
  private head(path: string, req: IncomingMessage, res: ServerResponse, route: Route): void {
    if (path === EVENTS_PATH) return send(res, { status: 200, type: SSE_TYPE, body: '' });
    route(req, res);
  }
}

/** The path of a request target, without its query; undefined when it is not one. */
function pathOf(target: string | undefined): string | undefined {
  if (!target?.startsWith('/')) return undefined;
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}
