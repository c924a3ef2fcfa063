/**
 * A server's process tree as /proc shows it over time: the root, its descendants, and every process once seen
 * among them (a Ray worker that called setsid, a helper whose parent exited) for as long as it lives. Each
 * `sample` also sums what the tree did: bytes read and written, CPU time; so the judgement of a silent log
 * (core/activity.ts) can tell a slow load from a hang.
 */
import { listProcStats, readProcIo, type ProcessRef, type ProcStat } from './process-table.js';

/** Totals since the tree was first sampled, and what its threads were doing at this sample. */
export interface TreeSample {
  /** Wall time (ms) of the sample. */
  wall: number;
  /** Bytes the tree read: per process the larger of rchar (read() calls) and read_bytes (storage, mmap). */
  readBytes: number;
  writtenBytes: number;
  cpuMs: number;
  /** Live processes in the tree, and their threads. */
  processes: number;
  threads: number;
  /** Processes in uninterruptible sleep (D): waiting on storage or a driver, signals cannot reach them. */
  inKernelWait: number;
  /** Processes whose counters could not be read (another user's): their activity is missing from the sums. */
  unreadable: ProcessRef[];
}

interface Known {
  startTicks: number;
  comm: string;
  ppid: number;
  read: number;
  written: number;
  cpuTicks: number;
  /** Counters of children already summed that this process reaped: its own counters now include them. */
  credit: { read: number; written: number; cpuTicks: number };
}

/** USER_HZ, the unit of /proc's CPU times: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export class ProcessTree {
  private readonly known = new Map<number, Known>();
  private totals = { read: 0, written: 0, cpuTicks: 0 };
  private sampled = false;
  private rootStart: number | undefined;

  /**
   * `root` is the server's pid. `countFromZero`: the root started with us (`run`), so all it did counts; a
   * process found already running (`watch --pid`) counts from the first sample on.
   */
  constructor(
    readonly root: number,
    private readonly countFromZero: boolean,
  ) {}

  /** Reads /proc once: finds the tree, sums its activity since the last sample. */
  sample(wall: number): TreeSample {
    const table = listProcStats();
    this.forgetGone(new Map(table.map((stat) => [stat.pid, stat])));
    const members = this.members(table);
    const unreadable: ProcessRef[] = [];
    let threads = 0;
    let inKernelWait = 0;
    for (const stat of members) {
      threads += stat.threads;
      if (stat.state === 'D') inKernelWait++;
      const io = readProcIo(stat.pid);
      if (io === undefined) unreadable.push({ pid: stat.pid, comm: stat.comm, startTicks: stat.startTicks });
      this.account(stat, io);
    }
    this.sampled = true;
    return {
      wall,
      readBytes: this.totals.read,
      writtenBytes: this.totals.written,
      cpuMs: (this.totals.cpuTicks * 1000) / CLOCK_TICKS_PER_SECOND,
      processes: members.length,
      threads,
      inKernelWait,
      unreadable,
    };
  }

  /** Processes once seen in the tree that are still alive (the same process, not a reused pid). */
  alive(): ProcessRef[] {
    const table = new Map(listProcStats().map((stat) => [stat.pid, stat]));
    return [...this.known].filter(([pid, known]) => isSame(table.get(pid), known)).map(([pid, known]) => ({ pid, comm: known.comm, startTicks: known.startTicks }));
  }

  /** The root and its descendants now, plus the processes seen in the tree before that still live. */
  private members(table: ProcStat[]): ProcStat[] {
    const children = new Map<number, ProcStat[]>();
    for (const stat of table) {
      if (stat.state === 'Z') continue;
      const siblings = children.get(stat.ppid);
      if (siblings) siblings.push(stat);
      else children.set(stat.ppid, [stat]);
    }
    const found = new Map<number, ProcStat>();
    // The root once seen is that process: its pid, reused after its death, is another's.
    const rootStat = table.find((stat) => stat.pid === this.root && stat.state !== 'Z' && (this.rootStart ?? stat.startTicks) === stat.startTicks);
    this.rootStart ??= rootStat?.startTicks;
    const queue = rootStat ? [rootStat] : [];
    for (const stat of table) if (stat.state !== 'Z' && isSame(stat, this.known.get(stat.pid))) queue.push(stat);
    while (queue.length > 0) {
      const stat = queue.pop()!;
      if (found.has(stat.pid)) continue;
      found.set(stat.pid, stat);
      queue.push(...(children.get(stat.pid) ?? []));
    }
    return [...found.values()];
  }

  /** Adds what a process did since its last sample; a new one counts from zero unless it predates us. */
  private account(stat: ProcStat, io: ReturnType<typeof readProcIo>): void {
    const read = io ? Math.max(io.rchar, io.readBytes) : 0;
    const written = io?.wchar ?? 0;
    const known = this.known.get(stat.pid) ?? this.meet(stat, read, written);
    known.ppid = stat.ppid;
    known.comm = stat.comm;
    // Unreadable counters stay where they were rather than dropping to zero and counting again later.
    if (io) {
      this.totals.read += spend(read - known.read, known.credit, 'read');
      this.totals.written += spend(written - known.written, known.credit, 'written');
      known.read = Math.max(known.read, read);
      known.written = Math.max(known.written, written);
    }
    this.totals.cpuTicks += spend(stat.cpuTicks - known.cpuTicks, known.credit, 'cpuTicks');
    known.cpuTicks = Math.max(known.cpuTicks, stat.cpuTicks);
  }

  /** A process seen for the first time: its counters so far count, unless the tree predates us. */
  private meet(stat: ProcStat, read: number, written: number): Known {
    const predates = !this.sampled && !this.countFromZero;
    const known: Known = {
      startTicks: stat.startTicks,
      comm: stat.comm,
      ppid: stat.ppid,
      ...(predates ? { read, written, cpuTicks: stat.cpuTicks } : { read: 0, written: 0, cpuTicks: 0 }),
      credit: { read: 0, written: 0, cpuTicks: 0 },
    };
    this.known.set(stat.pid, known);
    return known;
  }

  /**
   * A process gone from /proc was reaped: its parent's counters now hold all it did, of which the part already
   * summed is a credit against the parent's next growth, so nothing is counted twice and nothing lost. (A child
   * reparented and reaped between two samples leaves its credit with the old parent: a small undercount.)
   */
  private forgetGone(table: Map<number, ProcStat>): void {
    // Still there (a zombie too: not reaped yet, its parent's counters do not hold it) or gone.
    const gone = [...this.known].filter(([pid, known]) => !isSame(table.get(pid), known));
    // Children before their parents (a child starts later), so a credit is passed on up before its holder goes.
    gone.sort(([pidA, a], [pidB, b]) => b.startTicks - a.startTicks || pidB - pidA);
    for (const [pid, known] of gone) {
      this.known.delete(pid);
      const parent = this.known.get(known.ppid);
      if (!parent) continue;
      // Its final counters hold what it reaped too, and of that the credit part was already summed.
      parent.credit.read += known.read + known.credit.read;
      parent.credit.written += known.written + known.credit.written;
      parent.credit.cpuTicks += known.cpuTicks + known.credit.cpuTicks;
    }
  }
}

function isSame(stat: ProcStat | undefined, known: Known | undefined): boolean {
  return stat !== undefined && known !== undefined && stat.startTicks === known.startTicks;
}

/** The growth of a counter, less what of it was already counted through a reaped child. */
function spend(growth: number, credit: Known['credit'], key: keyof Known['credit']): number {
  if (growth <= 0) return 0;
  const used = Math.min(growth, credit[key]);
  credit[key] -= used;
  return growth - used;
}
