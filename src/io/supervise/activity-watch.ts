/**
 * The supervisor's eye on what the server's processes do while its log is silent: samples the tree
 * (io/activity-sampler.ts), lets core/activity.ts judge the silence, and in load_weights turns the bytes read
 * into progress against the checkpoint's size.
 */
import { ActivityJudge, limitsInStage, type ActivityStall, type SilenceLimits } from '../../core/activity.js';
import type { LogLine } from '../../core/events.js';
import type { Session } from '../../core/session.js';
import { loadProgress, type LoadProgress } from '../../core/load-progress.js';
import type { Stage } from '../../core/vocabulary.js';
import { ActivitySampler } from '../activity-sampler.js';
import { procAvailable, type ProcessRef } from '../process-table.js';
import type { ProcessTree, TreeSample } from '../process-tree.js';

export interface ActivityOptions {
  tree: ProcessTree;
  limits: SilenceLimits;
  /** One node of a multi-node start: how long its ranks may wait idle for peers in distributed_init (limitsInStage). */
  peerWaitMs?: number;
  /** Sampling interval floor (default 1 s). */
  sampleMs?: number;
  /** The checkpoint's size, asked once load_weights begins (the model is known from the log by then). */
  checkpointBytes?: () => number | undefined;
  /** Every sample taken in load_weights, with the progress it shows; `final` when the stage or the watch ends. */
  onProgress?: (progress: LoadProgress, final: boolean) => void;
  /** Once: processes of the tree whose activity cannot be read (another user's); empty: no /proc on this host. */
  onUnreadable?: (processes: ProcessRef[]) => void;
}

/** The read rate is taken over this much of the recent past. */
const RATE_WINDOW_MS = 10_000;

export class ActivityWatch {
  private readonly sampler: ActivitySampler;
  private readonly judge: ActivityJudge;
  private recent: TreeSample[] = [];
  private load: { fromBytes: number; totalBytes: number | undefined } | undefined;
  private toldUnreadable = false;
  /** Wall time of the last line that counts against silence (heartbeats do not), or of the start. */
  private lastLineAt: number;
  private lastLineSeen: LogLine | undefined;

  constructor(
    private readonly options: ActivityOptions,
    startedAt: number,
  ) {
    this.sampler = new ActivitySampler(options.tree, options.sampleMs);
    this.judge = new ActivityJudge(options.limits);
    this.lastLineAt = startedAt;
  }

  /** After each line the session read: it counts as the classifier counts it (heartbeats do not, lines before a family do). */
  noteLine(session: Session, wall: number): void {
    const state = session.classifier?.state;
    // The classifier sets lastLine for every line it reads, lastActivityAt (to the line's time) for a sign of life.
    const heartbeat = state !== undefined && (state.lastLine === this.lastLineSeen || state.lastActivityAt !== state.lastLine?.at);
    this.lastLineSeen = state?.lastLine;
    if (!heartbeat) this.lastLineAt = wall;
  }

  /** Samples when due; a silence the tree does not excuse comes back as a stall. */
  tick(wall: number, stage: Stage): ActivityStall | undefined {
    const sample = this.sampler.maybeSample(wall);
    if (sample) this.take(sample, stage);
    const stall = this.judge.judge(wall, this.lastLineAt, limitsInStage(this.options.limits, stage, this.options.peerWaitMs));
    if (stall && this.recent.length > 0) stall.inKernelWait = this.recent.at(-1)!.inKernelWait;
    return stall;
  }

  private take(sample: TreeSample, stage: Stage): void {
    const noProc = sample.processes === 0 && !procAvailable();
    if ((sample.unreadable.length > 0 || noProc) && !this.toldUnreadable) {
      this.toldUnreadable = true;
      this.options.onUnreadable?.(sample.unreadable);
    }
    // A process whose counters cannot be read may be the one at work: blind, the log alone judges, and
    // the bytes read are not known either.
    if (sample.unreadable.length > 0 || sample.processes === 0) {
      this.judge.blind(sample.wall);
      this.recent = [];
      return;
    }
    this.judge.push(sample);
    this.recent.push(sample);
    while (this.recent.length > 2 && sample.wall - this.recent[1]!.wall >= RATE_WINDOW_MS) this.recent.shift();
    if (stage !== 'load_weights') {
      // The stage is over: what it read in all, once.
      if (this.load) this.tellProgress(sample, true);
      this.load = undefined;
      return;
    }
    this.load ??= { fromBytes: this.previousReadBytes(sample), totalBytes: this.options.checkpointBytes?.() };
    this.tellProgress(sample, false);
  }

  /** The watch ends (a verdict): a load still going says how far it got, from a sample taken now. */
  finish(wall: number): void {
    if (!this.load) return;
    const sample = this.sampler.sampleNow(wall);
    if (sample.unreadable.length === 0 && sample.processes > 0) {
      this.recent.push(sample);
      this.tellProgress(sample, true);
    }
    this.load = undefined;
  }

  private tellProgress(sample: TreeSample, final: boolean): void {
    const load = this.load!;
    const oldest = this.recent[0]!;
    const seconds = (sample.wall - oldest.wall) / 1000;
    const rate = seconds > 0 ? (sample.readBytes - oldest.readBytes) / seconds : undefined;
    // One sample gives no rate yet: wait for the second.
    if (rate === undefined && !final) return;
    this.options.onProgress?.(loadProgress(sample.readBytes - load.fromBytes, load.totalBytes, rate), final);
  }

  /** The stage began between the last sample and this one: count from the last, so no byte is missed. */
  private previousReadBytes(sample: TreeSample): number {
    return this.recent.length >= 2 ? this.recent[this.recent.length - 2]!.readBytes : sample.readBytes;
  }
}
