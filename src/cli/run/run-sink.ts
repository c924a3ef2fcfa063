/**
 * What `spinup run` says, as one of its outputs. The server's own lines own stdout (unless --json), so everything
 * spinup says goes to stderr: stage lines, notes and the verdict block. With --json, stdout carries one JSON event
 * per line instead.
 */
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import { describeLoadProgress, type LoadProgress } from '../../core/load-progress.js';
import type { Session, SessionEvent } from '../../core/session.js';
import type { ProbeResult } from '../../io/health-probe.js';
import { describeExit } from '../../io/supervise/exit.js';
import { probeText } from '../../io/supervise/verdicts.js';
import { formatVerdict } from '../format/verdict-text.js';
import { clip, shownText } from '../format/shown-text.js';
import { liveReporter } from '../reporters/choose-reporter.js';
import { verdictStream, write, type Io } from '../io-context.js';
import type { RunNote, Sink, VerdictReport } from '../sinks/sink.js';
import { verdictObject } from '../sinks/verdict-object.js';
import { systemClock } from '../../io/wall-clock.js';

export type RunReportMode = 'lines' | 'json' | 'quiet';

/** How often a load's progress is printed: a person reads a line every half minute, a program every 5 s. */
const PROGRESS_EVERY_MS: Record<RunReportMode, number> = { lines: 30_000, json: 5_000, quiet: Infinity };

export class RunSink implements Sink {
  /** The session's own events, as `watch` would show them. */
  private readonly watch: Sink;
  private readonly c: ReturnType<typeof pc.createColors>;
  private progressShownAt: number | undefined;

  constructor(
    private readonly io: Io,
    private readonly mode: RunReportMode,
    color: boolean,
    private readonly session: Session,
    /** Wall time of the launch: what the run's text times count from. */
    launchedAt: () => number,
  ) {
    this.c = pc.createColors(color);
    this.watch = liveReporter({ format: mode, io, session, color, sinceLaunchMs: () => systemClock.now() - launchedAt() });
  }

  /**
   * Session events, except verdicts: the run decides its own (the probe, the process), see `verdict`.
   * `readyDeclared` false: `--health` still waits, so a fatal line is not called a crash after ready.
   */
  events(events: readonly SessionEvent[], readyDeclared = true): void {
    const beforeReady = (event: SessionEvent): boolean => !readyDeclared && event.type === 'after-ready-failure';
    const shown = events.filter((event) => event.type !== 'verdict' && !(this.mode === 'lines' && beforeReady(event)));
    if (shown.length > 0) this.watch.events?.(shown);
    for (const event of events) {
      if (this.mode === 'lines' && event.type === 'after-ready-failure' && beforeReady(event)) {
        this.message(`${this.c.red('fatal error after the ready line')}, before READY (the health probe has not answered 200): ${shownText(event.message)}  ${this.c.dim(`line ${event.line.lineNo}`)}`);
      }
    }
  }

  /** A run event: one line on stderr, or a JSON object `{ type, ... }` on stdout. `important` shows even with --quiet. */
  note({ text, json, important = false }: RunNote): void {
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify(json)}\n`);
    else if (this.mode === 'lines' || important) write(this.io.stderr, `${this.c.dim('spinup:')} ${text}\n`);
  }

  /**
   * A silent weight load's progress from the bytes the server's processes read (the status API takes every
   * sample): a line (or JSON event) at most every PROGRESS_EVERY_MS, so the log's own lines are not drowned.
   */
  loadProgress(progress: LoadProgress, final: boolean): void {
    const now = systemClock.now();
    if (!final && this.progressShownAt !== undefined && now - this.progressShownAt < PROGRESS_EVERY_MS[this.mode]) return;
    this.progressShownAt = now;
    const text = describeLoadProgress(progress);
    this.note({
      text: `load_weights: ${text} (the server's processes, from /proc)`,
      json: {
        type: 'load_progress',
        stage: 'load_weights',
        read_bytes: progress.readBytes,
        total_bytes: progress.totalBytes,
        bytes_per_second: progress.bytesPerSecond === undefined ? undefined : Math.round(progress.bytesPerSecond),
        eta_ms: progress.etaMs === undefined ? undefined : Math.round(progress.etaMs),
        final,
        text,
      },
    });
  }

  /** Ctrl-C, timeouts and the like, where there is no verdict to print. */
  message(text: string): void {
    this.watch.message?.(text);
  }

  /** The run's own verdicts; a group's (the head's) are the group's to print (group-sink.ts). */
  verdict(report: VerdictReport): void {
    if (!report.run || report.group) return;
    if (this.mode === 'json') {
      write(this.io.stdout, `${JSON.stringify(verdictObject(report, this.session))}\n`);
      return;
    }
    const { decision, facts } = report.run;
    // One clock in `run`: the verdict's time and the process line's are both wall time since the launch.
    const decidedAt = decision.by === 'process' && decision.exit ? decision.exit.at : systemClock.now();
    const block = formatVerdict(decision.verdict, { color: this.c.isColorSupported, family: this.session.pack?.name, sinceLaunchMs: Math.max(0, decidedAt - facts.startedAt) });
    write(verdictStream(this.io), `${[block, ...this.rows(report.run)].join('\n')}\n`);
  }

  async close(): Promise<void> {}

  private rows({ decision, facts }: NonNullable<VerdictReport['run']>): string[] {
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

  private healthRow(decision: NonNullable<VerdictReport['run']>['decision'], url: string): string {
    const result = decision.health;
    if (decision.by === 'health' && result?.ok && decision.verdict.verdict === 'ready') return `${url} answered 200 after the ready line: the probe agrees`;
    if (result?.ok) return `${url} answered 200, yet the ${decision.verdict.verdict === 'failed' ? 'server failed' : 'start stalled'}: a 200 alone proves nothing`;
    return `${url}: ${probeText(result)}`;
  }

  private row(label: string, value: string): string {
    return `  ${this.c.dim(label.padEnd(10))} ${value}`;
  }
}

/** What the health probe answers, when it changes. */
export function healthNote(result: ProbeResult, url: string): RunNote {
  const text = result.ok ? `health ${url} answers 200` : `health ${url}: ${probeText(result)}`;
  return { text, json: { type: 'health', url, ok: result.ok, status: result.status, error: result.error } };
}
