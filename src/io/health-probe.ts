import { createRequire } from 'node:module';
import { extraCaTrust } from './extra-ca-certs.js';
import { systemClock } from './wall-clock.js';
/** One health check. `ok` means the endpoint answered HTTP 200. */
export interface ProbeResult {
  ok: boolean;
  /** The HTTP status, when a response arrived. */
  status?: number;
  /** Why there was no response: `ECONNREFUSED ...`, `timeout after 2000 ms`, `aborted`... */
  error?: string;
  /** wall-clock time (ms) when the result was known. */
  at: number;
}

export interface ProbeOptions {
  timeoutMs: number;
  /** Aborts the request early (when the supervisor stops, say). */
  signal?: AbortSignal;
}

/** GETs `url` once. Never throws: a failure is a result with `ok: false` and an `error`. */
export async function probeHealth(url: string, options: ProbeOptions): Promise<ProbeResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  // Linked by hand rather than AbortSignal.any, so a long-lived caller signal collects no listeners.
  const forward = (): void => controller.abort();
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener('abort', forward, { once: true });
  try {
    const { ca } = extraCaTrust(url);
    const status = ca ? await httpsStatus(url, ca, controller.signal) : await fetchStatus(url, controller.signal);
    return { ok: status === 200, status, at: systemClock.now() };
  } catch (error) {
    const reason = timedOut ? `timeout after ${options.timeoutMs} ms` : describeFetchError(error);
    return { ok: false, error: reason, at: systemClock.now() };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', forward);
  }
}

async function fetchStatus(url: string, signal: AbortSignal): Promise<number> {
  const response = await fetch(url, { signal, redirect: 'manual' });
  // Drain the body so the connection is released rather than held until garbage collection.
  await response.arrayBuffer().catch(() => undefined);
  return response.status;
}

// Node 20's fetch takes no CAs: an https check that has to trust NODE_EXTRA_CA_CERTS's itself
// (io/extra-ca-certs.ts) goes through node:https, a connection of its own each time, its body drained.
function httpsStatus(url: string, ca: string[], signal: AbortSignal): Promise<number> {
  const { get } = createRequire(import.meta.url)('node:https') as typeof import('node:https');
  return new Promise((resolve, reject) => {
    const req = get(url, { ca, signal, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

// fetch wraps the useful part (ECONNREFUSED, ENOTFOUND...) in `cause` behind a generic "fetch failed";
// node:https gives it as the error itself. Either way: its code, then its words.
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'AbortError') return 'aborted';
  const useful = error.cause instanceof Error ? error.cause : error;
  const code = (useful as NodeJS.ErrnoException).code;
  return code !== undefined && !useful.message.includes(code) ? `${code}: ${useful.message}` : useful.message;
}

export interface HealthPollerOptions {
  url: string;
  /** Pause between the end of one probe and the start of the next. Default 1000 ms. */
  intervalMs?: number;
  /** Per-probe timeout. Default: `intervalMs`, at least 1000 ms. */
  timeoutMs?: number;
  /** Called with every result, in order. */
  onResult?: (result: ProbeResult) => void;
}

/**
 * Probes a URL repeatedly, one request at a time, and remembers the latest result. The health endpoint is
 * only corroboration: a server can answer 200 while its scheduler process is dead, so never trust it alone.
 * Its timers do not keep the process alive.
 */
export class HealthPoller {
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private last: ProbeResult | undefined;
  private running: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: HealthPollerOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? Math.max(this.intervalMs, 1000);
  }

  /** Starts polling now; does nothing when already started. */
  start(): void {
    if (this.running !== undefined) return;
    const run = new AbortController();
    this.running = run;
    void this.loop(run);
  }

  /** Stops polling and aborts a probe in flight; `latest()` keeps the last completed result. */
  stop(): void {
    this.running?.abort();
    this.running = undefined;
    clearTimeout(this.timer);
  }

  /** The most recent completed probe, or undefined before the first one completes. */
  latest(): ProbeResult | undefined {
    return this.last;
  }

  private async loop(run: AbortController): Promise<void> {
    while (!run.signal.aborted) {
      const result = await probeHealth(this.options.url, { timeoutMs: this.timeoutMs, signal: run.signal });
      if (run.signal.aborted) return;
      this.last = result;
      this.options.onResult?.(result);
      await this.pause(run.signal);
    }
  }

  private pause(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(this.timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.timer = setTimeout(done, this.intervalMs);
      this.timer.unref();
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
