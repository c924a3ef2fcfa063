/**
 * The one shape of what a live start (`watch`, `run`, a group of nodes) says: every output (the
 * terminal's text, JSON lines, the status API, a follower's push to its head, a webhook) is a Sink,
 * and the commands hand each thing that happens to all of them at once (all-sinks.ts). Each output
 * implements only what it shows; `close` is where an output that still has something in flight
 * (a request, a push) finishes it, and the command awaits it before it returns its exit code.
 */
import type { Verdict } from '../../core/events.js';
import type { GroupEvent, GroupVerdict } from '../../core/group-types.js';
import type { LoadProgress } from '../../core/load-progress.js';
import type { SessionEvent } from '../../core/session.js';
import type { Decision } from '../../io/supervise/decision.js';

/** The input said something about itself (a rotation, a history warning). */
export interface SourceNotice {
  type: string;
  path?: string;
  detail?: string;
}

/** What `run` knows of its server, for the rows under its verdict. */
export interface RunFacts {
  pid: number;
  startedAt: number;
  log: string;
  healthUrl?: string;
}

/** A verdict, with what the command that decided it knows besides. */
export interface VerdictReport {
  verdict: Verdict;
  /** Also one of the session events already given (`watch`): an output that shows events has shown it. */
  inEvents?: boolean;
  /** `run`: how it was decided (the log, the process, the probe) and the server's process. */
  run?: { decision: Decision; facts: RunFacts };
  /** The verdict of a group of nodes (`watch` of several logs, `run`'s head). */
  group?: GroupVerdict;
  /** A node that failed after the group was READY: the verdict is that node's. */
  node?: number;
}

/** A word from `run` itself (started, stopping, --then...): a line on stderr, or its JSON object. */
export interface RunNote {
  text: string;
  json: { type: string } & Record<string, unknown>;
  /** Said even with --quiet. */
  important?: boolean;
}

export interface Sink {
  /** Session events as they happen. `readyDeclared` false (`run --health` still waits): no crash after ready yet. */
  events?(events: readonly SessionEvent[], readyDeclared?: boolean): void;
  /** A group's events: its nodes' own (with their node), joins, losses, the group's verdict. */
  groupEvents?(events: readonly GroupEvent[]): void;
  /** `run`: the server's own output, whole lines as it wrote them (the log file has them already). */
  output?(bytes: Buffer): void;
  /** `node`: the node of a group the notice is about. */
  notice?(notice: SourceNotice, node?: number): void;
  note?(note: RunNote): void;
  /** Once a second on the wall clock: a status line redraws. */
  tick?(): void;
  /** A verdict the log decided before the watch began, reported unless a new run starts. */
  earlier?(verdict: Verdict, detail: string): void;
  verdict?(report: VerdictReport): void;
  /** A silent load's progress from the process tree's reads; `final`: its last count. */
  loadProgress?(progress: LoadProgress, final: boolean): void;
  /** Where there is no verdict to print: Ctrl-C, timeouts, notes. */
  message?(text: string): void;
  /** Finish what is in flight. `exitCode`: the command's, for outputs that record it (the state file). */
  close(end?: { exitCode?: number }): Promise<void>;
  /** How a failed close is named on stderr (`spinup: NAME: why`). */
  readonly name?: string;
}
