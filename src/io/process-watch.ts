/**
 * `watch --pid PID` / `--pid-of PATTERN`: a server started elsewhere on this host (a sidecar sharing the pod's
 * process namespace, say) is judged by the same signals as under `run`: a silent log with an idle tree is
 * STALLED after --idle, a spin after --spin, and a silent load shows its progress. A decider of the watch loop
 * beside the log; it never signals the process, which is not ours.
 */
import type { SilenceLimits } from '../core/activity.js';
import type { Verdict } from '../core/events.js';
import type { LoadProgress } from '../core/load-progress.js';
import type { Session } from '../core/session.js';
import { findProcessByCommand, procAvailable, readProcStat, type ProcessRef } from './process-table.js';
import { ProcessTree } from './process-tree.js';
import { ActivityWatch } from './supervise/activity-watch.js';
import { activityStallVerdict } from './supervise/verdicts.js';
import type { LoopDecider } from './watch-loop.js';
import { systemClock } from './wall-clock.js';

export type ProcessTarget = { pid: number } | { pattern: string };

export interface ProcessWatchOptions {
  target: ProcessTarget;
  session: Session;
  limits: SilenceLimits;
  startedAt: number;
  checkpointBytes?: () => number | undefined;
  onStall: (verdict: Verdict) => void;
  onProgress?: (progress: LoadProgress, final: boolean) => void;
  /** Said once each: the process was found, or what it does cannot be read. */
  onNote: (text: string) => void;
}

export class ProcessWatch implements LoopDecider {
  private activity: ActivityWatch | undefined;
  private stalled = false;
  private toldNoProc = false;
  private readonly unfollow: () => void;

  constructor(private readonly options: ProcessWatchOptions) {
    this.unfollow = options.session.observe({
      events: () => {},
      line: (_raw, session, where) => this.activity?.noteLine(session, where.wall ?? systemClock.now()),
    });
  }

  tick(wall: number): void {
    if (this.stalled || this.options.session.verdict) return;
    this.activity ??= this.find(wall);
    const stall = this.activity?.tick(wall, this.options.session.classifier?.state.stage ?? 'none');
    if (!stall) return;
    this.stalled = true;
    this.activity!.finish(wall);
    this.options.onStall(activityStallVerdict({ session: this.options.session, stall, elapsedMs: wall - this.options.startedAt }));
  }

  close(): void {
    this.unfollow();
  }

  /** The process to watch, once it is there (a sidecar may start before the server). */
  private find(wall: number): ActivityWatch | undefined {
    const { target } = this.options;
    if (!procAvailable()) {
      if (!this.toldNoProc) this.options.onNote('no /proc on this host: the log alone judges a silence, as without --pid (--idle and --spin need Linux)');
      this.toldNoProc = true;
      return undefined;
    }
    const stat = 'pid' in target ? readProcStat(target.pid) : findProcessByCommand(target.pattern);
    if (!stat) return undefined;
    const how = 'pid' in target ? `pid ${stat.pid}` : `pid ${stat.pid}, the first whose command line holds "${target.pattern}"`;
    this.options.onNote(`watching the server's processes too: ${stat.pid} (${stat.comm}), ${how}`);
    // Silence counts from now: what the log said before we looked is the log's to judge.
    return new ActivityWatch(
      {
        tree: new ProcessTree(stat.pid, false),
        limits: this.options.limits,
        checkpointBytes: this.options.checkpointBytes,
        onProgress: this.options.onProgress,
        onUnreadable: (processes) => this.options.onNote(`cannot read what ${names(processes)} do (not ours: run spinup as their user, or with CAP_SYS_PTRACE); the log alone judges a silence, as without --pid`),
      },
      wall,
    );
  }
}

function names(processes: ProcessRef[]): string {
  return processes.map(({ pid, comm }) => `${pid} (${comm})`).join(', ');
}
