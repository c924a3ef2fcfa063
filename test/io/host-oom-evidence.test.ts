import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { findOomEvidence } from '../../src/io/host-oom-evidence.js';

describe('findOomEvidence', () => {
  it.for([
    { name: 'no options', options: {} },
    { name: 'a pid and a start time', options: { pid: process.pid, sinceMs: Date.now() - 60_000 } },
    { name: 'a start time in the future', options: { sinceMs: Date.now() + 3_600_000 } },
    { name: 'a pid that never existed', options: { pid: 2 ** 22 + 1 } },
  ])('never throws, with $name, and answers within ~1 s', async ({ options }) => {
    const before = Date.now();
    const lines = await findOomEvidence(options);
    expect(Date.now() - before).toBeLessThan(1_500);
    expect(Array.isArray(lines)).toBe(true);
    for (const line of lines) expect(line).toMatch(/^(dmesg: |\/sys\/fs\/cgroup\/.*: oom_kill [1-9])/);
  });

  it('reports no kernel line older than the start time it was given', async () => {
    const lines = await findOomEvidence({ sinceMs: Date.now() + 3_600_000 });
    expect(lines.filter((line) => line.startsWith('dmesg: '))).toEqual([]);
  });
});

describe('findOomEvidence with a stand-in dmesg', () => {
  const bin = mkdtempSync(join(tmpdir(), 'spinup-dmesg-'));
  const realPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = realPath;
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  function fakeDmesg(script: string): void {
    writeFileSync(join(bin, 'dmesg'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
    process.env.PATH = `${bin}:${realPath}`;
  }

  it('keeps recent OOM lines, the dead pid first, and drops older or unrelated ones', async () => {
    const uptime = Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0]);
    const at = (secondsAgo: number): string => `[${(uptime - secondsAgo).toFixed(6).padStart(12)}]`;
    fakeDmesg(`cat <<'LOG'
${at(30)} Out of memory: Killed process 4242 (python3) total-vm:1000kB
${at(5)} python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0
${at(4)} eth0: link up
${at(3)} oom-kill:constraint=CONSTRAINT_NONE,task=python3,pid=777,uid=0
${at(3)} Out of memory: Killed process 777 (python3) total-vm:123456kB, anon-rss:99999kB
LOG`);
    const lines = (await findOomEvidence({ pid: 777, sinceMs: Date.now() - 10_000 })).filter((line) =>
      line.startsWith('dmesg: '),
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('pid=777');
    expect(lines[1]).toContain('Killed process 777');
    expect(lines[2]).toContain('invoked oom-killer');
  });

  it.for([
    { name: 'fails', script: 'echo "dmesg: read kernel buffer failed: Operation not permitted" >&2; exit 1' },
    { name: 'hangs', script: 'exec sleep 5' },
  ])('returns no kernel line when dmesg $name', async ({ script }) => {
    fakeDmesg(script);
    const before = Date.now();
    expect((await findOomEvidence({})).filter((line) => line.startsWith('dmesg: '))).toEqual([]);
    expect(Date.now() - before).toBeLessThan(1_500);
  });
});
