/**
 * A follower's side of a multi-node start (`run --group-leader URL --node-rank N`): every event
 * its session gives (the objects `--json` prints) and its verdict, pushed to the head's spinup as
 * NDJSON (`POST /v1/nodes/N/events`), and a push at least every heartbeat interval, even empty,
 * so the head knows the node is alive. A head that is not up yet (or gone a while) is retried
 * with backoff, the events kept for it. Nothing here can change the follower's own verdict or
 * exit code: problems are said once, through `onProblem`.
 */
import { request } from 'node:http';
import { hostname } from 'node:os';
import { FOLLOWER_HEADER } from './node-push.js';
import type { Verdict } from '../core/events.js';
import type { SessionEvent } from '../core/session.js';

export interface GroupPusherOptions {
  /** The head's --listen URL, e.g. http://head:9464. */
  leader: string;
  node: number;
  token?: string;
  heartbeatMs: number;
  /** An event as its JSON (the objects `--json` prints). */
  toJson: (event: SessionEvent) => Record<string, unknown>;
  /** Said once per kind of problem (the head refuses the token, cannot be reached). */
  onProblem: (text: string) => void;
  /**
   * The head refused this node outright (409: a rank out of range, or taken by another follower):
   * pushing stops; the text is the head's reason.
   */
  onRefused?: (text: string) => void;
  /** The head's answer changed: the group's verdict so far (`pending`, `ready`, `failed`...). */
  onGroup?: (verdict: string) => void;
}

/** Events kept for a head that cannot be reached; past this the oldest go (the verdict is never dropped). */
const QUEUE_LIMIT = 10_000;
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5_000;
const REQUEST_TIMEOUT_MS = 5_000;

export class GroupPusher {
  private queue: string[] = [];
  private inFlight = false;
  private retryMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly said = new Set<string>();
  private readonly url: URL;
  private idle: (() => void) | undefined;
  private group = 'pending';
  /** Who we are to the head: two followers given the same --node-rank differ here. */
  private readonly id = `${hostname()} pid ${process.pid} ${Math.random().toString(16).slice(2, 8)}`;

  constructor(private readonly options: GroupPusherOptions) {
    this.url = new URL(`/v1/nodes/${options.node}/events`, options.leader);
  }

  /** The first push (the node joins), then one at least every heartbeat interval. */
  start(): void {
    this.send();
    this.heartbeat = setInterval(() => {
      if (!this.inFlight && this.timer === undefined) this.send();
    }, this.options.heartbeatMs);
  }

  /** Session events; not its verdict events: `run` decides its own verdict (see `verdict`). */
  events(events: readonly SessionEvent[]): void {
    for (const event of events) if (event.type !== 'verdict') this.enqueue(JSON.stringify(this.options.toJson(event)));
  }

  verdict(verdict: Verdict): void {
    this.enqueue(JSON.stringify(this.options.toJson({ type: 'verdict', verdict })));
  }

  /** Stops the heartbeat; waits up to `waitMs` for what is queued (the verdict) to reach the head. */
  async close(waitMs: number): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.queue.length > 0 || this.inFlight) {
      await new Promise<void>((resolve) => {
        const give = setTimeout(resolve, waitMs);
        this.idle = () => {
          clearTimeout(give);
          resolve();
        };
        if (!this.inFlight && this.timer === undefined) this.send();
      });
    }
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private enqueue(line: string): void {
    this.queue.push(line);
    if (this.queue.length > QUEUE_LIMIT) this.queue.splice(0, this.queue.length - QUEUE_LIMIT);
    if (!this.inFlight && this.timer === undefined && this.heartbeat !== undefined) setImmediate(() => !this.inFlight && this.timer === undefined && this.send());
  }

  private send(): void {
    if (this.closed) return;
    const lines = this.queue;
    this.queue = [];
    this.inFlight = true;
    const body = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    const headers: Record<string, string | number> = { 'content-type': 'application/x-ndjson', 'content-length': Buffer.byteLength(body) };
    if (this.options.token !== undefined) headers.authorization = `Bearer ${this.options.token}`;
    headers[FOLLOWER_HEADER] = this.id;
    const req = request(this.url, { method: 'POST', headers }, (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => answer.length < 4096 && (answer += chunk));
      res.on('end', () => {
        if (res.statusCode === 409 && this.options.onRefused) return this.refused(answer.trim());
        this.heard(answer);
        this.done(res.statusCode ?? 0, lines);
      });
      res.on('error', () => this.done(0, lines));
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', (error) => this.done(0, lines, error));
    req.end(body);
  }

  private done(status: number, lines: string[], error?: Error): void {
    this.inFlight = false;
    if (status >= 200 && status < 300) {
      this.retryMs = 0;
      if (this.queue.length > 0) this.send();
      else this.idle?.();
      return;
    }
    if (status === 401) this.sayOnce('token', `the group leader ${this.options.leader} refuses our token (401): give every node the same --group-token or SPINUP_GROUP_TOKEN`);
    else if (status === 0) this.sayOnce('unreachable', `cannot reach the group leader ${this.options.leader} yet (${error?.message ?? 'no answer'}); retrying with backoff`);
    else this.sayOnce(`status ${status}`, `the group leader ${this.options.leader} answered ${status} to node ${this.options.node}'s events`);
    // Kept for the next try, except what the head refused outright (it will refuse it again).
    if (status === 0 || status >= 500) this.queue = [...lines, ...this.queue];
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs === 0 ? FIRST_RETRY_MS : this.retryMs * 2);
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send();
    }, this.retryMs);
    this.timer.unref();
  }

  private refused(text: string): void {
    this.inFlight = false;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.idle?.();
    this.options.onRefused?.(text || `the group leader ${this.options.leader} refused node ${this.options.node} (409)`);
  }

  private heard(answer: string): void {
    let group: unknown;
    try {
      group = (JSON.parse(answer) as { group?: unknown }).group;
    } catch {
      return;
    }
    if (typeof group !== 'string' || group === this.group) return;
    this.group = group;
    this.options.onGroup?.(group);
  }

  private sayOnce(kind: string, text: string): void {
    if (this.said.has(kind)) return;
    this.said.add(kind);
    this.options.onProblem(text);
  }
}
