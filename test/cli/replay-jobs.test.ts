/** How many threads replay a corpus: --jobs as given, else one per idle core for logs that repay a worker. */
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_AUTO_JOBS, MIN_WORKER_BYTES, jobsOption, replayThreads } from '../../src/cli/replay-jobs.js';
import type { ReplayCase } from '../../src/replay/replay-case.js';

function cases(count: number, bytesEach: number): ReplayCase[] {
  const dir = mkdtempSync(join(tmpdir(), 'spinup-jobs-'));
  return Array.from({ length: count }, (_, i) => {
    const log = join(dir, `${i}.log`);
    // Sparse: only their size is read, and MIN_WORKER_BYTES is hundreds of MB.
    writeFileSync(log, '');
    truncateSync(log, bytesEach);
    return { kind: 'pair', pair: { log, expect: join(dir, `${i}.expect.yaml`) } };
  });
}

describe('jobsOption', () => {
  it.for([['1', 1], ['2', 2], ['16', 16]] as const)('--jobs %s is %i', ([value, jobs]) => expect(jobsOption(value)).toBe(jobs));
  it.for(['0', 'x', '-1', '1.5', '', '2x'])('--jobs "%s" is refused', (value) => expect(() => jobsOption(value)).toThrow(/--jobs wants a whole number of 1 or more/));
  it('left out: chosen later', () => expect(jobsOption(undefined)).toBeUndefined());
});

describe('replayThreads', () => {
  const big = cases(4, Math.ceil(MIN_WORKER_BYTES / 2));
  const small = cases(4, 1000);

  it('--jobs N is N threads, never more than the cases', () => {
    expect(replayThreads({ jobs: 1, cases: big, cores: 8 })).toBe(1);
    expect(replayThreads({ jobs: 3, cases: small, cores: 1 })).toBe(3);
    expect(replayThreads({ jobs: 9, cases: small, cores: 8 })).toBe(4);
  });

  it('left out: one per core, at most MAX_AUTO_JOBS, for logs that repay a worker', () => {
    expect(replayThreads({ jobs: undefined, cases: big, cores: 2, load: 0 })).toBe(2);
    expect(replayThreads({ jobs: undefined, cases: [...big, ...big], cores: 64, load: 0 })).toBe(MAX_AUTO_JOBS);
  });

  it('left out: one thread on one core, or for a few small logs', () => {
    expect(replayThreads({ jobs: undefined, cases: big, cores: 1, load: 0 })).toBe(1);
    expect(replayThreads({ jobs: undefined, cases: small, cores: 8, load: 0 })).toBe(1);
    expect(replayThreads({ jobs: undefined, cases: big.slice(0, 1), cores: 8, load: 0 })).toBe(1);
  });

  it('left out: one thread for an archive of 10,000 logs (178 MB), which a worker would take past 100 MB', () => {
    const archive = cases(2, 89 * 1024 * 1024);
    expect(replayThreads({ jobs: undefined, cases: archive, cores: 2, load: 0 })).toBe(1);
    expect(replayThreads({ jobs: undefined, cases: archive, cores: 8, load: 0 })).toBe(1);
  });

  it('left out: only the cores the load average leaves idle, a core partly idle counted', () => {
    expect(replayThreads({ jobs: undefined, cases: big, cores: 2, load: 4.5 })).toBe(1);
    expect(replayThreads({ jobs: undefined, cases: big, cores: 2, load: 1.2 })).toBe(1);
    expect(replayThreads({ jobs: undefined, cases: big, cores: 2, load: 0.6 })).toBe(2);
    expect(replayThreads({ jobs: undefined, cases: [...big, ...big], cores: 8, load: 5.5 })).toBe(3);
  });

  it('--jobs N is N threads however busy the machine is', () => {
    expect(replayThreads({ jobs: 2, cases: big, cores: 2, load: 9 })).toBe(2);
  });
});
