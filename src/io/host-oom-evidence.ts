import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { systemClock } from './wall-clock.js';

export interface OomEvidenceOptions {
  /** A pid that died; kernel lines naming it are listed first. */
  pid?: number;
  /** Ignore kernel log lines older than this wall-clock time (ms) value (the child's start, typically). */
  sinceMs?: number;
}

const DMESG_TIMEOUT_MS = 1_000;
const DMESG_MAX_BYTES = 4 << 20;
const MAX_KERNEL_LINES = 8;
const OOM_LINE = /out of memory|oom-kill|invoked oom-killer|killed process \d+|memory cgroup out of memory/i;

/**
 * Best-effort lines showing that the kernel OOM killer acted: a non-zero `oom_kill` counter in this process's
 * memory cgroup (v2 `memory.events`, or v1 `memory.oom_control`) and matching `dmesg` lines when dmesg is
 * readable within a second. Never throws; returns [] when nothing is readable or nothing was found.
 * The cgroup counter covers the cgroup's whole life, so it may predate the child.
 */
export async function findOomEvidence(options: OomEvidenceOptions = {}): Promise<string[]> {
  try {
    const [cgroup, kernel] = await Promise.all([cgroupEvidence(), kernelLogEvidence(options)]);
    return [...cgroup, ...kernel];
  } catch {
    return [];
  }
}

async function cgroupEvidence(): Promise<string[]> {
  const text = await readFile('/proc/self/cgroup', 'utf8').catch(() => '');
  const candidates: string[] = [];
  for (const line of text.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    if (controllers === '') {
      candidates.push(`/sys/fs/cgroup${path}/memory.events`, `/sys/fs/cgroup/unified${path}/memory.events`);
    } else if (controllers?.split(',').includes('memory')) {
      candidates.push(`/sys/fs/cgroup/memory${path}/memory.oom_control`);
    }
  }
  const found: string[] = [];
  for (const file of candidates) {
    const count = Number(/^oom_kill (\d+)$/m.exec(await readFile(file, 'utf8').catch(() => ''))?.[1] ?? 0);
    if (count > 0) found.push(`${file}: oom_kill ${count}`);
  }
  return found;
}

async function kernelLogEvidence(options: OomEvidenceOptions): Promise<string[]> {
  const output = await runDmesg();
  if (output === '') return [];
  const bootMs = await bootTimeMs();
  const lines = output.split('\n').filter((line) => OOM_LINE.test(line) && isRecent(line, options.sinceMs, bootMs));
  const pidPattern = options.pid === undefined ? undefined : new RegExp(`\\b(process|pid[= ])\\s*${options.pid}\\b`);
  const aboutPid = pidPattern === undefined ? [] : lines.filter((line) => pidPattern.test(line));
  const ordered = [...aboutPid, ...lines.filter((line) => !aboutPid.includes(line)).slice(-MAX_KERNEL_LINES)];
  return ordered.slice(0, MAX_KERNEL_LINES).map((line) => `dmesg: ${line.trim()}`);
}

// dmesg stamps lines with seconds since boot: `[12345.678901] ...`.
function isRecent(line: string, sinceMs: number | undefined, bootMs: number | undefined): boolean {
  if (sinceMs === undefined) return true;
  const seconds = /^\[\s*(\d+\.\d+)\]/.exec(line)?.[1];
  if (seconds === undefined || bootMs === undefined) return true;
  // One second of slack: uptime and the wall clock are read at slightly different moments.
  return bootMs + Number(seconds) * 1000 >= sinceMs - 1_000;
}

async function bootTimeMs(): Promise<number | undefined> {
  const uptime = Number((await readFile('/proc/uptime', 'utf8').catch(() => '')).split(' ')[0]);
  return Number.isFinite(uptime) && uptime > 0 ? systemClock.now() - uptime * 1000 : undefined;
}

// dmesg may be missing, forbidden (dmesg_restrict) or slow; any of those just means no kernel evidence.
function runDmesg(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let proc: ReturnType<typeof spawn>;
    try {
      proc = spawn('dmesg', [], { stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      resolve('');
      return;
    }
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      resolve('');
    }, DMESG_TIMEOUT_MS);
    proc.on('error', () => {
      clearTimeout(timer);
      resolve('');
    });
    proc.stdout?.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Keep the newest part: the ring buffer is in time order and only recent lines matter.
      chunks.push(chunk);
      while (size > DMESG_MAX_BYTES && chunks.length > 1) size -= chunks.shift()?.length ?? 0;
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? Buffer.concat(chunks).toString('utf8') : '');
    });
  });
}
