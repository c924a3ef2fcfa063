/**
 * What a live start looks like from outside: fed every event the session gives (and, for `run`,
 * the verdict the supervisor decided), it answers /v1/status, the probes and /metrics, and keeps
 * the numbered events for /v1/events. Pure: the session holds the log's clock; the facts about
 * the process (pid, host, log path) are handed in as data.
 */
import { describeLoadProgress, type LoadProgress } from '../core/load-progress.js';
import { ProgressTracker } from '../core/eta.js';
import type { Verdict } from '../core/events.js';
import type { Session, SessionEvent } from '../core/session.js';
import { stripAnsi } from '../core/line-guard.js';
import { suspectOf, type Suspect } from '../core/suspect.js';
import { trackerOf } from '../history/start-tracker.js';
import { EventLog, type EventLogLimits } from './event-log.js';
import type { GroupStatus } from './group-status.js';
import { StageDurations } from './stage-durations.js';
import { STATUS_SCHEMA, type StatusSnapshot, type StatusVerdict } from './status-snapshot.js';

export interface StatusFacts {
  command: string;
  pid: number;
  host: string;
  version: string;
  log?: string;
  serverPid?: number;
  /** The model the launch command names (`run`), when the log has not named one. */
  commandModel?: string;
}

export interface StatusModelOptions {
  session: Session;
  facts: StatusFacts;
  /**
   * `watch`: the session's verdict events are the verdicts. `run`: they are not (READY may wait
   * for the health probe; a death decides without a line): `verdict()` is called instead.
   */
  verdictsFromEvents: boolean;
  /** Turns an event into its JSON (the same objects `--json` prints). */
  toJson: (event: SessionEvent) => Record<string, unknown>;
  limits?: EventLogLimits;
}

/** Called with each event as it is numbered: the SSE broadcast. */
export type EventListener = (entry: { id: number; type: string; data: string }) => void;

function loadProgressJson(load: LoadProgress): NonNullable<StatusSnapshot['load_progress']> {
  return {
    read_bytes: load.readBytes,
    total_bytes: load.totalBytes ?? null,
    bytes_per_second: load.bytesPerSecond === undefined ? null : Math.round(load.bytesPerSecond),
    eta_ms: load.etaMs === undefined ? null : Math.round(load.etaMs),
    text: describeLoadProgress(load),
  };
}

export class StatusModel {
  readonly log: EventLog;
  private verdictNow: Verdict | undefined;
  private afterReady: { cause: string; rule: string; message: string; line: number } | undefined;
  private readonly progress = new ProgressTracker();
  private load: LoadProgress | undefined;
  private readonly durations = new StageDurations();
  private model: string | undefined;
  private maxLine = 0;
  private readonly listeners = new Set<EventListener>();
  /** Bumped on every change a state file should carry (stage, verdict); not on progress. */
  private revision = 0;
  private groupNow: GroupStatus | undefined;

  constructor(private readonly options: StatusModelOptions) {
    this.log = new EventLog(options.limits);
  }

  get facts(): StatusFacts {
    return this.options.facts;
  }

  get changes(): number {
    return this.revision;
  }

  /** A silent load's progress from the process tree (io/supervise/activity-watch.ts). */
  loadProgress(progress: LoadProgress): void {
    this.load = progress;
  }

  setFacts(facts: Partial<StatusFacts>): void {
    Object.assign(this.options.facts, facts);
    this.revision++;
  }

  /** A multi-node head: where the group stands (its verdict comes through `verdict`). */
  group(status: GroupStatus): void {
    this.groupNow = status;
    this.revision++;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  events(events: readonly SessionEvent[]): void {
    for (const event of events) this.take(event);
  }

  /**
   * The start's verdict as the command decided it (`run`); with `verdictsFromEvents`, events suffice.
   * `node`: a group's node failed after READY, so the event replay (`attach`, /v1/events) names it.
   */
  verdict(verdict: Verdict, node?: number): void {
    this.settle(verdict);
    const json = this.options.toJson({ type: 'verdict', verdict });
    this.publish('verdict', node === undefined ? json : { ...json, node });
  }

  get verdictKind(): StatusVerdict {
    return this.verdictNow?.verdict ?? 'pending';
  }

  /** `/startupz`: the start is READY (Kubernetes stops asking once it said yes). */
  get started(): boolean {
    return this.verdictNow?.verdict === 'ready';
  }

  /** `/readyz`: READY now, and nothing fatal since. */
  get ready(): boolean {
    return this.verdictNow?.verdict === 'ready' && this.afterReady === undefined;
  }

  snapshot(): StatusSnapshot {
    const { session, facts } = this.options;
    const state = session.classifier?.state;
    const verdict = this.verdictNow;
    const now = verdict ? verdict.at : session.now;
    const startedAt = state?.startedAt;
    const stage = verdict?.stage ?? state?.stage ?? 'none';
    const elapsed = verdict ? verdict.elapsedMs : startedAt === undefined ? 0 : Math.max(0, now - startedAt);
    const stageSince = state?.stageSince ?? now;
    const estimate = verdict ? undefined : this.progress.estimate(session.now);
    const budget = verdict?.budget ?? (session.classifier && !verdict ? session.classifier.currentBudget() : undefined);
    const last = verdict?.lastLine ?? state?.lastLine;
    const tracker = trackerOf(session);
    const stageElapsed = Math.max(0, now - stageSince);
    return {
      schema: STATUS_SCHEMA,
      command: facts.command,
      family: session.pack?.name ?? null,
      model: this.modelName() ?? null,
      verdict: this.verdictKind,
      stage,
      stage_elapsed_ms: stageElapsed,
      elapsed_ms: elapsed,
      started_at_ms: startedAt ?? null,
      progress: estimate
        ? {
            unit: estimate.unit,
            current: estimate.current,
            total: estimate.total ?? null,
            ratio: estimate.total ? Math.min(1, estimate.current / estimate.total) : null,
            rate_per_s: estimate.ratePerS === undefined ? null : Number(estimate.ratePerS.toPrecision(4)),
            eta_ms: estimate.etaMs ?? null,
            label: estimate.label ?? null,
          }
        : null,
      learned: tracker?.learned ?? null,
      eta_ready_ms: verdict ? null : (tracker?.readyEta(stage, stageElapsed)?.etaMs ?? null),
      load_progress: this.load && !verdict && stage === 'load_weights' ? loadProgressJson(this.load) : null,
      budget: budget ?? null,
      stages: this.durations.list(),
      reason: verdict?.reason ?? null,
      cause: verdict?.cause ?? null,
      rule: verdict?.rule ?? null,
      message: verdict?.message ?? null,
      hint: verdict?.hint ?? null,
      root_cause: (verdict?.evidence ?? []).map((e) => ({ line: e.lineNo, text: e.text, rank: e.rank, proc: e.proc })),
      suspect: suspectJson(state && !verdict ? suspectOf(state) : undefined),
      after_ready_failure: this.afterReady ?? null,
      last_line: last ? { line: last.lineNo, text: last.text } : null,
      lines: Math.max(this.maxLine, last?.lineNo ?? 0),
      last_event_id: this.log.latestId,
      log: facts.log ?? null,
      pid: facts.pid,
      server_pid: facts.serverPid ?? null,
      host: facts.host,
      version: facts.version,
      ...(this.groupNow ? { group: this.groupNow } : {}),
    };
  }

  private take(event: SessionEvent): void {
    if ('line' in event) this.maxLine = Math.max(this.maxLine, event.line.lineNo);
    this.progress.observe(event);
    switch (event.type) {
      case 'stage':
        this.durations.enter(event.stage, event.at);
        this.noteModel(event.line.text);
        this.revision++;
        break;
      case 'restart':
        this.durations.reset();
        this.verdictNow = undefined;
        this.afterReady = undefined;
        this.revision++;
        break;
      case 'after-ready-failure':
        this.afterReady = { cause: event.cause, rule: event.rule, message: event.message, line: event.line.lineNo };
        this.revision++;
        break;
      case 'family':
        this.revision++;
        break;
      case 'verdict':
        if (!this.options.verdictsFromEvents) return; // `run` publishes its own decision
        this.settle(event.verdict);
        break;
      default:
        break;
    }
    this.publish(event.type === 'after-ready-failure' ? 'after_ready_failure' : event.type, this.options.toJson(event));
  }

  private settle(verdict: Verdict): void {
    this.verdictNow = verdict;
    this.durations.close(verdict.at);
    if (verdict.verdict === 'failed' && verdict.stage === 'ready') this.afterReady ??= { cause: verdict.cause ?? 'unknown', rule: verdict.rule ?? '', message: verdict.message ?? verdict.reason, line: verdict.decidedBy?.lineNo ?? 0 };
    this.revision++;
  }

  /**
   * The log's argument dump says best: a start tracker following the session read it from every
   * line; else the stage lines (SGLang's launch marker is its dump); else the command.
   */
  private modelName(): string | undefined {
    return trackerOf(this.options.session)?.startFacts.model ?? this.model ?? this.options.facts.commandModel;
  }

  private noteModel(text: string): void {
    if (this.model !== undefined) return;
    const facts = this.options.session.startFactsReader.read(stripAnsi(text));
    if (facts?.model) this.model = facts.model;
  }

  private publish(type: string, json: Record<string, unknown>): void {
    const entry = this.log.append(type, JSON.stringify(json));
    for (const listener of this.listeners) listener(entry);
  }
}

function suspectJson(suspect: Suspect | undefined): StatusSnapshot['suspect'] {
  return suspect ? { cause: suspect.cause, rule: suspect.rule, message: suspect.message, line: suspect.line?.lineNo ?? null, since_ms: suspect.since } : null;
}
