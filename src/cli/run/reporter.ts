/**
 * What `spinup run` says. The server's own lines own stdout (unless --json), so everything spinup says goes to
 * stderr: stage lines, notes and the verdict block. With --json, stdout carries one JSON event per line instead.
 */
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import { describeLoadProgress, type LoadProgress } from '../../core/load-progress.js';
import type { Session, SessionEvent } from '../../core/session.js';
import type { ProbeResult } from '../../io/health-probe.js';
import type { Decision } from '../../io/supervise/decision.js';
import { describeExit } from '../../io/supervise/exit.js';
import { probeText } from '../../io/supervise/verdicts.js';
import { verdictJson } from '../format/verdict-json.js';
import { formatVerdict } from '../format/verdict-text.js';
import { clip, shownText } from '../format/shown-text.js';
import { liveReporter } from '../reporters/choose-reporter.js';
import type { LiveReporter } from '../reporters/live-reporter.js';
import { standing } from '../reporters/standing.js';
import { verdictStream, write, type Io } from '../io-context.js';
import type { EventSink } from '../live-status.js';
import { systemClock } from '../../io/wall-clock.js';

export type RunReportMode = 'lines' | 'json' | 'quiet';

/** How often a load's progress is printed: a person reads a line every half minute, a program every 5 s. */
const PROGRESS_EVERY_MS: Record<RunReportMode, number> = { lines: 30_000, json: 5_000, quiet: Infinity };

export interface RunFacts {
  pid: number;
  startedAt: number;
  log: string;
  healthUrl?: string;
}

export class RunReporter {
  /** The session's own events, as `watch` would show them. */
  private readonly watch: LiveReporter;
  private readonly c: ReturnType<typeof pc.createColors>;
  private readonly sink?: EventSink;
  private progressShownAt: number | undefined;

  constructor(
    private readonly io: Io,
    private readonly mode: RunReportMode,
    color: boolean,
    private readonly session: Session,
    clock: {
      /** Wall time of the launch: what the run's text times count from. */
      launchedAt: number;
      /** The status API: every event, and the verdict the run decided. */
      sink?: EventSink;
    },
  ) {
    this.c = pc.createColors(color);
    this.sink = clock.sink;
    this.watch = liveReporter({ format: mode, io, session, color, sinceLaunchMs: () => systemClock.now() - clock.launchedAt });
  }

  /**
   * Session events, except verdicts: the run decides its own (the probe, the process), see `verdict`.
   * `readyDeclared` false: `--health` still waits, so a fatal line is not called a crash after ready.
   */
  events(events: SessionEvent[], readyDeclared = true): void {
    this.sink?.events(events);
    const beforeReady = (event: SessionEvent): boolean => !readyDeclared && event.type === 'after-ready-failure';
    const shown = events.filter((event) => event.type !== 'verdict' && !(this.mode === 'lines' && beforeReady(event)));
    if (shown.length > 0) this.watch.events(shown);
    for (const event of events) {
      if (this.mode === 'lines' && event.type === 'after-ready-failure' && beforeReady(event)) {
        this.watch.message(`${this.c.red('fatal error after the ready line')}, before READY (the health probe has not answered 200): ${shownText(event.message)}  ${this.c.dim(`line ${event.line.lineNo}`)}`);
      }
    }
  }

  /** A run event: one line on stderr, or a JSON object `{ type, ... }` on stdout. `important` shows even with --quiet. */
  note(text: string, json: { type: string } & Record<string, unknown>, important = false): void {
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify(json)}\n`);
    else if (this.mode === 'lines' || important) write(this.io.stderr, `${this.c.dim('spinup:')} ${text}\n`);
  }

  /**
   * A silent weight load's progress from the bytes the server's processes read. Each sample goes to the status
   * API; a line (or JSON event) at most every PROGRESS_EVERY_MS, so the log's own lines are not drowned.
   */
  loadProgress(progress: LoadProgress, final: boolean): void {
    this.sink?.loadProgress?.(progress);
    const now = systemClock.now();
    if (!final && this.progressShownAt !== undefined && now - this.progressShownAt < PROGRESS_EVERY_MS[this.mode]) return;
    this.progressShownAt = now;
    const text = describeLoadProgress(progress);
    this.note(`load_weights: ${text} (the server's processes, from /proc)`, {
      type: 'load_progress',
      stage: 'load_weights',
      read_bytes: progress.readBytes,
      total_bytes: progress.totalBytes,
      bytes_per_second: progress.bytesPerSecond === undefined ? undefined : Math.round(progress.bytesPerSecond),
      eta_ms: progress.etaMs === undefined ? undefined : Math.round(progress.etaMs),
      final,
      text,
    });
  }

  health(result: ProbeResult, url: string): void {
    const text = result.ok ? `health ${url} answers 200` : `health ${url}: ${probeText(result)}`;
    this.note(text, { type: 'health', url, ok: result.ok, status: result.status, error: result.error });
  }

  /** Ctrl-C, timeouts and the like, where there is no verdict to print. */
  message(text: string): void {
    this.watch.message(text);
  }

  standing(): string {
    return standing(this.session, this.c);
  }

  verdict(decision: Decision, facts: RunFacts): void {
    const { verdict } = decision;
    this.sink?.verdict(verdict);
    if (this.mode === 'json') {
      const json = verdictJson(verdict, {
        family: this.session.pack?.isShared ? undefined : this.session.pack?.name,
        decided_by: decision.by,
        process: {
          pid: facts.pid,
          code: decision.exit?.code,
          signal: decision.exit?.signal,
          started_wall_ms: facts.startedAt,
          exited_wall_ms: decision.exit?.at,
        },
        health: facts.healthUrl ? { url: facts.healthUrl, ...probeJson(decision.health) } : undefined,
        oom_evidence: decision.oomEvidence?.length ? decision.oomEvidence : undefined,
        log: facts.log,
        wall_ms: systemClock.now(),
      });
      write(this.io.stdout, `${JSON.stringify({ type: 'verdict', ...json })}\n`);
      return;
    }
    // One clock in `run`: the verdict's time and the process line's are both wall time since the launch.
    const decidedAt = decision.by === 'process' && decision.exit ? decision.exit.at : systemClock.now();
    const block = formatVerdict(verdict, { color: this.c.isColorSupported, family: this.session.pack?.name, sinceLaunchMs: Math.max(0, decidedAt - facts.startedAt) });
    write(verdictStream(this.io), `${[block, ...this.rows(decision, facts)].join('\n')}\n`);
  }

  private rows(decision: Decision, facts: RunFacts): string[] {
    const { verdict, exit } = decision;
    const rows: string[] = [];
    if (decision.by === 'process' || (verdict.stage === 'ready' && verdict.verdict === 'failed')) rows.push(this.row('why', shownText(verdict.reason)));
    if (decision.by === 'process' && verdict.lastLine) {
      rows.push(this.row('last line', `${this.c.dim(`line ${verdict.lastLine.lineNo}:`)} ${clip(verdict.lastLine.text, 200)}`));
    }
    for (const [index, line] of (decision.oomEvidence ?? []).entries()) rows.push(this.row(index === 0 ? 'kernel' : '', clip(line, 200)));
    if (exit) rows.push(this.row('process', `pid ${facts.pid} ${describeExit(exit)}, ${formatDuration(exit.at - facts.startedAt)} after launch`));
    if (facts.healthUrl) rows.push(this.row('health', this.healthRow(decision, facts.healthUrl)));
    rows.push(this.row('log', facts.log));
    return rows;
  }

  private healthRow(decision: Decision, url: string): string {
    const result = decision.health;
    if (decision.by === 'health' && result?.ok && decision.verdict.verdict === 'ready') return `${url} answered 200 after the ready line: the probe agrees`;
    if (result?.ok) return `${url} answered 200, yet the ${decision.verdict.verdict === 'failed' ? 'server failed' : 'start stalled'}: a 200 alone proves nothing`;
    return `${url}: ${probeText(result)}`;
  }

  private row(label: string, value: string): string {
    return `  ${this.c.dim(label.padEnd(10))} ${value}`;
  }
}

function probeJson(result: ProbeResult | undefined): Record<string, unknown> {
  return result ? { ok: result.ok, status: result.status, error: result.error, wall_ms: result.at } : { ok: false };
}
