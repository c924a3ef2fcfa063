/**
 * `run --health URL`: READY needs the log's ready line AND an HTTP 200 after it. The probe runs
 * on its own interval from the launch (each answer reported as it changes); once the ready line
 * is in, READY waits for a 200, and a wait longer than `waitMs` is STALLED, checked on the live
 * loop's turns.
 */
import type { Verdict } from '../../core/events.js';
import { HealthPoller, probeHealth, type ProbeResult } from '../health-probe.js';
import { healthStallVerdict } from './verdicts.js';

const PROBE_TIMEOUT_MS = 2_000;

export interface HealthGateOptions {
  url: string;
  intervalMs?: number;
  waitMs: number;
  /** Every probe result; `changed` when its outcome differs from the previous one. */
  onResult?: (result: ProbeResult, changed: boolean) => void;
  /** A 200 came after the ready line. */
  onAgreed: (result: ProbeResult) => void;
}

export class HealthGate {
  private readonly poller: HealthPoller;
  private last: ProbeResult | undefined;
  /** Wall time of the log's ready line: from then on a 200 agrees. */
  private since: number | undefined;

  constructor(private readonly options: HealthGateOptions) {
    this.poller = new HealthPoller({ url: options.url, intervalMs: options.intervalMs, onResult: (result) => this.take(result) });
    this.poller.start();
  }

  /** The latest probe result. */
  get latest(): ProbeResult | undefined {
    return this.last;
  }

  /** The log printed its ready line at `now`: READY waits for a 200, asked for at once. */
  wait(now: number): void {
    this.since = now;
    void probeHealth(this.options.url, { timeoutMs: PROBE_TIMEOUT_MS }).then((result) => this.take(result));
  }

  /** STALLED once `waitMs` passed since the ready line with no 200. */
  overdue(ready: Verdict, now: number): Verdict | undefined {
    if (this.since === undefined || now - this.since < this.options.waitMs) return undefined;
    return healthStallVerdict({ ready, url: this.options.url, waitMs: this.options.waitMs, last: this.last });
  }

  stop(): void {
    this.poller.stop();
  }

  private take(result: ProbeResult): void {
    const previous = this.last;
    this.last = result;
    this.options.onResult?.(result, previous?.ok !== result.ok || previous?.status !== result.status);
    if (this.since !== undefined && result.ok) this.options.onAgreed(result);
  }
}
