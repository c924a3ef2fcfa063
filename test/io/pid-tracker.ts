import { readFileSync } from 'node:fs';

/**
 * Remembers every pid a test started, directly or through a fixture server, so that `afterEach` can prove none
 * outlived the test. Deliberately independent of src/io, which is what is under test.
 */
export class PidTracker {
  private readonly pids = new Set<number>();

  track(...pids: number[]): void {
    for (const pid of pids) if (pid > 0) this.pids.add(pid);
  }

  /** Picks up the `orphan pid N` / `child pid N` lines the fixture servers print. */
  trackFromOutput(text: string): number[] {
    const found = [...text.matchAll(/\b(?:orphan|child) pid (\d+)/g)].map((match) => Number(match[1]));
    this.track(...found);
    return found;
  }

  /** Kills whatever is still alive, waits for it to die, and returns the pids that had leaked. */
  async sweep(): Promise<number[]> {
    const leaked = [...this.pids].filter(isAlive);
    for (const pid of leaked) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Died in the meantime.
      }
    }
    const deadline = Date.now() + 2_000;
    while (leaked.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    this.pids.clear();
    return leaked;
  }
}

/**
 * `process.kill(pid, 0)` succeeding means alive, except for a zombie: PID 1 of a container (this sandbox
 * included) may never reap orphans, so a killed orphan can stay a zombie forever although it is dead.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  return procState(pid) !== 'Z';
}

export function procState(pid: number): string | undefined {
  return procFields(pid)?.[0];
}

export function procGroup(pid: number): number | undefined {
  const pgid = procFields(pid)?.[2];
  return pgid === undefined ? undefined : Number(pgid);
}

function procFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
