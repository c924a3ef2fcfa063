/**
 * The status API's routes: a fixed table from path to handler, so no part of a request ever
 * reaches the file system. `/` is the live HTML page (src/report/live-page.ts), drawn in the
 * browser from `/v1/events` and `/v1/status`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { METRICS_CONTENT_TYPE, metricsText } from '../status/metrics-text.js';
import type { StatusModel } from '../status/status-model.js';

export type Route = (request: IncomingMessage, response: ServerResponse) => void;

export interface RouteContext {
  model: StatusModel;
  /** `/v1/events`: hands the response to the SSE hub. */
  events: Route;
}

export function statusRoutes({ model, events }: RouteContext): Map<string, Route> {
  const status = (): string => `${JSON.stringify(model.snapshot())}\n`;
  // The live page is the same text every time: built on the first visit only, and its drawing
  // code loaded only then (a watch nobody opens in a browser never pays for it).
  let page: Promise<string> | undefined;
  return new Map<string, Route>([
    ['/', (_req, res) => void (page ??= import('../report/live-page.js').then((m) => m.livePageHtml())).then((body) => send(res, { status: 200, type: HTML_TYPE, body }))],
    ['/livez', (_req, res) => send(res, { status: 200, type: TEXT_TYPE, body: 'live\n' })],
    ['/startupz', (_req, res) => send(res, { status: model.started ? 200 : 503, type: JSON_TYPE, body: status() })],
    ['/readyz', (_req, res) => send(res, { status: model.ready ? 200 : 503, type: JSON_TYPE, body: status() })],
    ['/v1/status', (_req, res) => send(res, { status: 200, type: JSON_TYPE, body: status() })],
    [EVENTS_PATH, events],
    ['/metrics', (_req, res) => send(res, { status: 200, type: METRICS_CONTENT_TYPE, body: metricsText(model.snapshot()) })],
  ]);
}

/** The event stream's path: a HEAD there gets the stream's headers, not a stream. */
export const EVENTS_PATH = '/v1/events';
export const SSE_TYPE = 'text/event-stream; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const HTML_TYPE = 'text/html; charset=utf-8';

export interface Answer {
  status: number;
  type: string;
  body: string;
  headers?: Record<string, string>;
}

export function send(response: ServerResponse, { status, type, body, headers = {} }: Answer): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}
