import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { OutputQueue, type OutputChunk } from '../output-queue.js';
import { holdersOf, isProcessAlive, listGroupMembers, ownLineage, ownProcessGroup, readFdLinks, readProcStat, type ProcessRef } from '../process-table.js';
import { ProcessTree } from '../process-tree.js';
import { signalProcessGroup, terminateGroup, type StopReport } from '../terminate-group.js';
import { systemClock } from '../wall-clock.js';

/** How the main process ended. Exactly one of `code` and `signal` is non-null. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** wall-clock time (ms) when the exit was observed (within milliseconds of the death). */
  at: number;
}

/** A server started by `startChild`: the leader of its own process group. */
export interface Child {
  pid: number;
  /** Equal to `pid`: the child leads a new session and process group. */
  pgid: number;
  /** wall-clock time (ms) right after the process was started. */
  startedAt: number;
  /**
   * Raw stdout and stderr chunks in arrival order; iterate once. Chunks are not lines, and the two streams
   * interleave, so keep one partial-line buffer per stream. Ends when every writer of the pipes is gone
   * (orphans in the group keep it open) or after `stop` / `reapGroup`. Not consuming it makes the child
   * block on write once about 1 MiB is buffered.
   */
  output: AsyncIterable<OutputChunk>;
  /** Resolves as soon as the main process exits; its last output may still be in flight. Never rejects. */
  exited: Promise<ChildExit>;
  /** Whether the main process is running; a zombie counts as dead. */
  isAlive(): boolean;
  /** Sends `signal` to the whole group; false when no process of the group was left to receive it. */
  signalGroup(signal: NodeJS.Signals): boolean;
  /**
   * SIGTERM the group, wait up to `graceMs` for every member (not only the main process) to be gone, then
   * SIGKILL it. Also ends `output`. Safe to call at any time and more than once; concurrent calls share one run.
   */
  /** `outsiders`: those already found (and named) by the caller, so the ones stopped are the ones said. */
  stop(options: { graceMs: number; outsiders?: ProcessRef[] }): Promise<StopReport>;
  /** The same as `stop`, named for the case where the main process already exited and left orphans. */
  reapGroup(graceMs: number): Promise<StopReport>;
  /** Live (non-zombie) pids in the group, read from /proc; includes `pid` while it runs. */
  groupMembers(): number[];
  /**
   * Live processes outside the group that belong to the server: seen in its tree (they called setsid, or
   * their parent exited) or holding its stdout/stderr. `stop` stops them too.
   */
  outsiders(): ProcessRef[];
  /** The server's process tree, for sampling its activity (io/process-tree.ts). */
  readonly tree: ProcessTree;
  /** Lets go of the child: it keeps running, and no longer keeps this process alive (`--keep-on-fail`). */
  release(): void;
  /** Stops taking the pipes' output into `output`; what they deliver from now on is held back for `handOver`. */
  holdOutput(): void;
  /** Takes the output out of our hands (`--keep-on-fail`, after `holdOutput`): see OutputHandover. */
  handOver(): OutputHandover;
}

/** What a drainer that outlives spinup needs: the bytes read but not yet taken, and the pipes to read on. */
export interface OutputHandover {
  /** Read from the pipes and not yet taken from `output`, oldest first: they belong before what the pipes hold. */
  rest: OutputChunk[];
  stdout: Readable;
  stderr: Readable;
  /** Closes our copies of the pipes, once the drainer has its own. */
  close(): void;
}

// After the group is gone, give the pipes this long to deliver their last bytes before closing them.
const OUTPUT_DRAIN_MS = 200;
const HIGH_WATER_BYTES = 1 << 20;

/** What `startChild` spawns: stdin ignored, stdout and stderr piped. */
export type PipedProcess = ChildProcessByStdio<null, Readable, Readable>;

/** The `Child` implementation; construct it synchronously right after `spawn` so no event is missed. */
export class SupervisedChild implements Child {
  readonly pid: number;
  readonly pgid: number;
  readonly startedAt = systemClock.now();
  readonly output: OutputQueue;
  readonly exited: Promise<ChildExit>;
  private exit: ChildExit | undefined;
  private readonly outputClosed: Promise<void>;
  private stopping: Promise<StopReport> | undefined;
  /** Set by `holdOutput`: chunks read from then on, kept out of `output`. */
  private heldBack: OutputChunk[] | undefined;
  readonly tree: ProcessTree;
  /** The child's ends of its stdout and stderr (`socket:[inode]`): whoever holds them writes into our log. */
  private readonly pipeLinks: Set<string>;

  constructor(private readonly proc: PipedProcess) {
    // Before 'spawn' succeeds pid is undefined; 0 is refused by signalProcessGroup, never our own group.
    this.pid = proc.pid ?? 0;
    this.pgid = this.pid;
    this.tree = new ProcessTree(this.pid, true);
    // spawn returns once the child exec'd, its fds 1 and 2 in place; but it may already have pointed them
    // elsewhere (`exec >/dev/null`): only our pipe, never a file that every process holds, names a holder.
    this.pipeLinks = new Set((this.pid > 0 ? readFdLinks(this.pid, [1, 2]) : []).filter((link) => /^(socket|pipe):\[\d+\]$/.test(link)));
    this.output = new OutputQueue({ highWaterBytes: HIGH_WATER_BYTES, onPressure: (paused) => this.pause(paused) });
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.exit = { code, signal, at: systemClock.now() };
        resolve(this.exit);
      });
    });
    // Errors after a successful spawn (a failed kill, say) carry no news about the process itself.
    proc.on('error', () => {});
    this.outputClosed = Promise.all([this.pipe(proc.stdout, 'stdout'), this.pipe(proc.stderr, 'stderr')]).then(
      () => this.output.end(),
    );
  }

  isAlive(): boolean {
    return this.exit === undefined && this.pid > 0 && isProcessAlive(this.pid);
  }

  signalGroup(signal: NodeJS.Signals): boolean {
    return signalProcessGroup(this.pgid, signal);
  }

  stop(options: { graceMs: number; outsiders?: ProcessRef[] }): Promise<StopReport> {
    this.stopping ??= this.runStop(options.graceMs, options.outsiders ?? this.outsiders()).finally(() => (this.stopping = undefined));
    return this.stopping;
  }

  reapGroup(graceMs: number): Promise<StopReport> {
    return this.stop({ graceMs });
  }

  release(): void {
    // The pipes are sockets underneath; unref them too or they keep the event loop alive.
    for (const pipe of [this.proc.stdout, this.proc.stderr]) (pipe as unknown as { unref?: () => void }).unref?.();
    this.proc.unref();
  }

  holdOutput(): void {
    this.heldBack ??= [];
    this.pause(true);
  }

  handOver(): OutputHandover {
    const { stdout, stderr } = this.proc;
    // A paused stream may still have read up to its high-water mark: read() gives that (as 'data', held back).
    for (const stream of [stdout, stderr]) while (stream.read() !== null);
    const rest = [...this.output.takeRest(), ...(this.heldBack ?? [])];
    this.heldBack = [];
    return {
      rest,
      stdout,
      stderr,
      close: () => {
        stdout.destroy();
        stderr.destroy();
      },
    };
  }

  groupMembers(): number[] {
    return listGroupMembers(this.pgid);
  }

  outsiders(): ProcessRef[] {
    if (this.pid <= 0) return [];
    this.tree.sample(systemClock.now());
    const found = new Map(this.tree.alive().map((ref) => [ref.pid, ref]));
    for (const pid of holdersOf(this.pipeLinks)) {
      const stat = readProcStat(pid);
      if (stat && !found.has(pid)) found.set(pid, { pid, comm: stat.comm, startTicks: stat.startTicks });
    }
    // Never us, our ancestors or our group (a broken table must not make spinup signal its own shell).
    const ours = ownLineage();
    const ownGroup = ownProcessGroup();
    return [...found.values()].filter((ref) => {
      const pgid = readProcStat(ref.pid)?.pgid;
      return !ours.has(ref.pid) && ref.pid > 1 && pgid !== this.pgid && pgid !== ownGroup;
    });
  }

  private async runStop(graceMs: number, outsiders: ProcessRef[]): Promise<StopReport> {
    const report = await terminateGroup({
      pgid: this.pgid,
      graceMs,
      outsiders,
      isLeaderAlive: () => this.isAlive(),
      leaderExited: this.exited,
    });
    let timer: NodeJS.Timeout | undefined;
    const drained = new Promise<void>((resolve) => (timer = setTimeout(resolve, OUTPUT_DRAIN_MS)));
    await Promise.race([this.outputClosed, drained]);
    clearTimeout(timer);
    // A process outside the group may still hold the pipes; the caller asked to stop, so stop reading.
    this.proc.stdout.destroy();
    this.proc.stderr.destroy();
    return report;
  }

  private pipe(stream: Readable, name: OutputChunk['stream']): Promise<void> {
    stream.on('data', (chunk: Buffer) => {
      if (this.heldBack) this.heldBack.push({ stream: name, chunk });
      else this.output.push({ stream: name, chunk });
    });
    stream.on('error', () => {});
    return new Promise((resolve) => stream.once('close', resolve));
  }

  private pause(paused: boolean): void {
    // Held output stays held, whatever the queue's pressure says.
    if (!paused && this.heldBack) return;
    for (const stream of [this.proc.stdout, this.proc.stderr]) {
      if (paused) stream.pause();
      else stream.resume();
    }
  }
}
