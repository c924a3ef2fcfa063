/**
 * The status API of one `watch` or `run`, one of its outputs (a Sink: every session event, and the
 * verdict the command decided), behind which sit the status model, the HTTP server (`--listen`
 * and the unix socket) and the state file `status` and `attach` find it by.
 */
import type { LoadProgress } from '../core/load-progress.js';
import { hostname, tmpdir } from 'node:os';
import { wallDate } from '../io/wall-clock.js';
import type { Session, SessionEvent } from '../core/session.js';
import { ensureRunsDir, newRunId, runsDir, socketPathFor, writeRunFile, RUN_SCHEMA, type RunFile } from '../serve/run-files.js';
import { StatusServer } from '../serve/status-server.js';
import type { ListenAddress } from '../status/listen-address.js';
import { StatusModel, type StatusFacts } from '../status/status-model.js';
import { ListenError, UsageError } from './errors.js';
import { eventJson } from './format/verdict-json.js';
import { write, type Io } from './io-context.js';
import type { Sink, VerdictReport } from './sinks/sink.js';
import { version } from './version.js';

export interface LiveStatusOptions {
  io: Io;
  command: 'watch' | 'run';
  session: Session;
  listen?: ListenAddress;
  log?: string;
  /** false: no state file and no unix socket (`--no-state`). */
  state: boolean;
  /** The command reads a finished file (`watch --no-follow FILE`): see STATE_AFTER_MS. */
  finishedFile?: boolean;
}

/** How often a changed status is written to the state file. */
const STATE_WRITE_MS = 1_000;
/**
 * How long after the start the unix socket is opened and the state file first written. A run
 * over before then never pays for a socket it would take down at once (listening loads Node's
 * http, cluster and child_process modules: a twentieth of a short run, 12 to 14 ms of CPU in a
 * watch of 100 MB); its state file is written when it ends, so `status` lists it all the same.
 *
 * | the run reads                       | after   | why                                              |
 * |-------------------------------------|---------|--------------------------------------------------|
 * | a live log (a followed file, stdin) | 200 ms  | a start takes minutes: attach soon               |
 * | a finished file (`--no-follow`)     | 1 s     | read at full speed, most are over within it; a   |
 * |                                     |         | longer one (a GB) can still be attached to after |
 */
export const STATE_AFTER_MS = { live: 200, finishedFile: 1_000 } as const;

export class LiveStatus implements Sink {
  readonly name = 'the status API';
  readonly model: StatusModel;
  readonly server: StatusServer;
  url: string | undefined;
  socket: string | undefined;
  /** Why there is no state file or socket, when there is none though one was wanted. */
  stateProblem: string | undefined;
  private dir: string | undefined;
  private run: RunFile | undefined;
  private written = -1;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = wallDate();
  /** The run's id, from its start: the socket's name and the state file's. */
  private readonly runId = newRunId(this.startedAt, process.pid);
  private log: string | undefined;
  /** Until STATE_AFTER_MS: the state file and socket are still to come. */
  private stateTimer: NodeJS.Timeout | undefined;
  private opening: Promise<void> | undefined;

  private constructor(private readonly options: LiveStatusOptions) {
    this.log = options.log;
    const facts: StatusFacts = { command: options.command, pid: process.pid, host: hostname(), version: version(), log: options.log };
    this.model = new StatusModel({ session: options.session, facts, verdictsFromEvents: options.command === 'watch', toJson: eventJson });
    this.server = new StatusServer({ model: this.model });
  }

  /** Binds `--listen` first: a taken port fails the command before anything starts. */
  static async start(options: LiveStatusOptions): Promise<LiveStatus> {
    const live = new LiveStatus(options);
    if (options.listen) live.url = await listenOrExplain(live.server, options.listen);
    if (options.state) {
      live.stateTimer = setTimeout(() => {
        live.stateTimer = undefined;
        live.opening = live.openState();
      }, options.finishedFile ? STATE_AFTER_MS.finishedFile : STATE_AFTER_MS.live);
      live.stateTimer.unref();
    }
    return live;
  }

  events(events: readonly SessionEvent[]): void {
    this.model.events(events);
  }

  loadProgress(progress: LoadProgress): void {
    this.model.loadProgress(progress);
  }

  /**
   * The start's verdict as the command decided it (`run`: the log, the process or the probe; a
   * group's; a node's failure after the group was READY). One that was a session event (`watch`)
   * the model has taken already.
   */
  verdict({ verdict, node, inEvents }: VerdictReport): void {
    if (inEvents) return;
    this.model.verdict(verdict, node);
    this.writeState();
  }

  setFacts(facts: Partial<StatusFacts>): void {
    this.model.setFacts(facts);
    if (facts.log !== undefined) this.log = facts.log;
    if (facts.log !== undefined && this.run) this.run.log = facts.log;
    this.writeState();
  }

  /** The last state (with the exit code), then the server and socket go away. */
  async close(end: { exitCode?: number } = {}): Promise<void> {
    const { exitCode } = end;
    if (this.stateTimer) {
      // Over before its socket was due: only the state file, of a start that has ended.
      clearTimeout(this.stateTimer);
      this.stateTimer = undefined;
      this.recordEnded();
    }
    await this.opening;
    if (this.timer) clearInterval(this.timer);
    if (this.run) {
      this.run.ended_at = wallDate().toISOString();
      if (exitCode !== undefined) this.run.exit_code = exitCode;
      this.writeState(true);
    }
    await this.server.close();
  }

  /** The unix socket, then the state file that tells `status` and `attach` where it is. */
  private async openState(): Promise<void> {
    const dir = runsDir(this.options.io.env);
    if (dir === undefined) return;
    try {
      ensureRunsDir(dir);
      const socket = socketPathFor({ dir, id: this.runId, uid: process.getuid?.() ?? 0, tmp: tmpdir() });
      await this.server.listenUnix(socket);
      this.socket = socket;
    } catch (error) {
      this.noState(error);
      return;
    }
    this.createRun(dir, this.socket);
    this.writeState(true);
    this.timer = setInterval(() => this.writeState(), STATE_WRITE_MS);
    this.timer.unref();
  }

  /** The state file of a start over before its socket was due (`close` writes it). */
  private recordEnded(): void {
    const dir = runsDir(this.options.io.env);
    if (dir === undefined) return;
    try {
      ensureRunsDir(dir);
    } catch (error) {
      this.noState(error);
      return;
    }
    this.createRun(dir, undefined);
  }

  private noState(error: unknown): void {
    this.stateProblem = `no state file or socket for attach: ${(error as Error).message}`;
    write(this.options.io.stderr, `spinup: ${this.stateProblem}\n`);
  }

  private createRun(dir: string, socket: string | undefined): void {
    this.dir = dir;
    const stamp = this.startedAt.toISOString();
    this.run = { schema: RUN_SCHEMA, id: this.runId, command: this.options.command, pid: process.pid, host: hostname(), started_at: stamp, updated_at: stamp, listen_url: this.url, socket, log: this.log, status: this.model.snapshot() };
  }

  get id(): string | undefined {
    return this.run?.id;
  }

  private writeState(force = false): void {
    if (!this.run || !this.dir) return;
    if (!force && this.written === this.model.changes) return;
    this.written = this.model.changes;
    this.run.updated_at = wallDate().toISOString();
    this.run.status = this.model.snapshot();
    try {
      writeRunFile(this.dir, this.run);
    } catch {
      // A full disk must not end the watch; `status` then shows the last state that was written.
    }
  }
}

/** Where the status API is, on stderr (stdout may carry --json or the server's own lines). */
export function announceLiveStatus(io: Io, status: LiveStatus): void {
  if (status.url) write(io.stderr, `spinup: status API on ${status.url} (/v1/status /metrics /readyz ...)\n`);
}

async function listenOrExplain(server: StatusServer, address: ListenAddress): Promise<string> {
  try {
    return await server.listenTcp(address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `--listen ${address.text}`;
    if (code === 'EADDRINUSE') throw new ListenError(`${where}: the port is already in use (another spinup or server?); pick another, or :0 for a free one`, { cause: error });
    if (code === 'EACCES') throw new ListenError(`${where}: permission denied (ports below 1024 need privileges)`, { cause: error });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new UsageError(`${where}: ${address.host} is not an address of this host`);
    throw new ListenError(`${where}: cannot listen: ${(error as Error).message}`, { cause: error });
  }
}
