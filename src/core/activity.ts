/**
 * Judging a silent log with what the server's processes do. A loading server reads bytes; a hung one reads
 * nothing and sleeps; a rank stuck in a collective burns CPU with no I/O. From samples of the process tree's
 * totals (io/process-tree.ts) this says which, and when a silence has lasted too long for what the tree does.
 * Pure: samples in, judgement out; no /proc here.
 */
import { formatDuration } from './duration.js';

/** The tree's running totals at one moment (from the first sample on). */
export interface ActivitySample {
  /** Wall time (ms). */
  wall: number;
  readBytes: number;
  writtenBytes: number;
  cpuMs: number;
}

/** What the tree did between two samples. */
export type TreeActivity = 'moving' | 'spinning' | 'idle';

/**
 * Below these the tree is idle: a hung server still wakes now and then (a heartbeat thread, a ZMQ poll, a log
 * flush), a loading one moves megabytes a second. CPU is a share of one core.
 */
export const ACTIVITY_FLOORS = { bytesPerSecond: 256 * 1024, cpuShare: 0.1 } as const;

/** How long a silent log may last, by what the tree does meanwhile. */
export interface SilenceLimits {
  /** No line, no I/O, no CPU: STALLED after this (`--idle`). */
  idleMs: number;
  /** No line, no I/O, but CPU: STALLED after this (`--spin`). */
  spinMs: number;
}

export const DEFAULT_SILENCE_LIMITS: SilenceLimits = { idleMs: 5 * 60_000, spinMs: 15 * 60_000 };

/**
 * The limits in `stage` of a start whose ranks may wait for peers (`peerWaitMs`: one node of a multi-node
 * start). In distributed_init a rank sleeps in its rendezvous until every node is up, and another node's
 * pod may start minutes later (an image pull): that idle wait is no hang before the wait the group allows
 * a node to join (the head's join budget), which names the missing node itself.
 */
export function limitsInStage(limits: SilenceLimits, stage: string, peerWaitMs: number | undefined): SilenceLimits {
  if (peerWaitMs === undefined || stage !== 'distributed_init') return limits;
  return { idleMs: Math.max(limits.idleMs, peerWaitMs), spinMs: Math.max(limits.spinMs, peerWaitMs) };
}

/** A silence the tree's activity does not excuse: STALLED. */
export interface ActivityStall {
  kind: 'idle' | 'spin';
  /** How long the log and the tree have been quiet (for `spin`, the log and the I/O). */
  quietMs: number;
  limitMs: number;
  /** Processes of the tree in uninterruptible sleep at the last sample: a hang in storage or a driver. */
  inKernelWait?: number;
}

/** For people: `no log line, no I/O and no CPU for 5m00s in stage load_weights`. */
export function describeStall(stall: ActivityStall, stage: string): string {
  const quiet = formatDuration(stall.quietMs);
  const waits = stall.inKernelWait ? `; ${stall.inKernelWait === 1 ? '1 of its processes waits' : `${stall.inKernelWait} of its processes wait`} in the kernel (D state: storage or a driver)` : '';
  if (stall.kind === 'idle') return `no log line, no I/O and no CPU for ${quiet} in stage ${stage}${waits}`;
  return `no log line and no I/O for ${quiet} in stage ${stage}, only CPU: a spin (a hung collective, a busy loop)${waits}`;
}

/** The activity of one interval, by the floors above; a zero-length interval says nothing (idle). */
export function activityBetween(from: ActivitySample, to: ActivitySample): TreeActivity {
  const seconds = (to.wall - from.wall) / 1000;
  if (seconds <= 0) return 'idle';
  const bytes = to.readBytes - from.readBytes + (to.writtenBytes - from.writtenBytes);
  if (bytes / seconds >= ACTIVITY_FLOORS.bytesPerSecond) return 'moving';
  const cpuShare = (to.cpuMs - from.cpuMs) / 1000 / seconds;
  return cpuShare >= ACTIVITY_FLOORS.cpuShare ? 'spinning' : 'idle';
}

/**
 * Remembers when the tree last moved bytes and last used CPU, and judges a silence against the limits. The
 * quiet is counted from the first sample: before it, nothing is known.
 */
export class ActivityJudge {
  private previous: ActivitySample | undefined;
  private lastIoAt: number | undefined;
  private lastCpuAt: number | undefined;
  private latestActivity: TreeActivity | undefined;
  // Set by blind(), cleared by the next sample seen whole: while it is set no silence is judged, however
  // long the next sample takes (samples come late on a loaded machine, and a gap past --idle was a stall).
  private blinded = false;

  constructor(private readonly limits: SilenceLimits) {}

  push(sample: ActivitySample): void {
    this.blinded = false;
    const previous = this.previous;
    this.previous = sample;
    if (!previous) {
      this.lastIoAt = this.lastCpuAt = sample.wall;
      return;
    }
    const activity = activityBetween(previous, sample);
    this.latestActivity = activity;
    if (activity === 'moving') this.lastIoAt = this.lastCpuAt = sample.wall;
    if (activity === 'spinning') this.lastCpuAt = sample.wall;
  }

  /**
   * The tree could not be seen whole at `wall` (a process not ours, or none left): no silence is held against
   * it, and the next sample starts afresh.
   */
  blind(wall: number): void {
    this.blinded = true;
    this.previous = undefined;
    this.lastIoAt = this.lastCpuAt = wall;
    this.latestActivity = undefined;
  }

  /** What the tree did in the latest interval; undefined before two samples. */
  get activity(): TreeActivity | undefined {
    return this.latestActivity;
  }

  /**
   * `lastLineAt`: wall time of the log's last line that counts (heartbeats do not), or of the launch;
   * `limits`: those of the current stage (limitsInStage), else the judge's own.
   */
  judge(now: number, lastLineAt: number, limits: SilenceLimits = this.limits): ActivityStall | undefined {
    if (this.blinded || this.lastIoAt === undefined || this.lastCpuAt === undefined) return undefined;
    const ioQuietMs = now - Math.max(lastLineAt, this.lastIoAt);
    const quietMs = now - Math.max(lastLineAt, this.lastIoAt, this.lastCpuAt);
    if (quietMs >= limits.idleMs) {
      return { kind: 'idle', quietMs, limitMs: limits.idleMs };
    }
    if (ioQuietMs >= limits.spinMs) {
      return { kind: 'spin', quietMs: ioQuietMs, limitMs: limits.spinMs };
    }
    return undefined;
  }
}
