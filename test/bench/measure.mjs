/** Runs a command and measures its wall time, CPU time and peak RSS (GNU time when present, else /proc polling). */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = ['/usr/bin/time', '/bin/time'].find((path) => existsSync(path));
export const rssMethod = GNU_TIME ? `${GNU_TIME} -f %M` : 'polling /proc/PID/status VmHWM every 10 ms';

/**
 * Runs `command args` (stdout captured, stderr captured) and resolves
 * { wallMs, cpuMs (GNU time only, else null), rssKb, code, stdout, stderr }. `shell` runs a pipeline; then only the last stage's
 * RSS is known when it is wrapped by the caller.
 */
export function measure(command, args, { cwd, stdin = 'ignore', stateDir, env: extraEnv = {} } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'spinup-measure-'));
  const timeFile = join(scratch, 'time');
  // %U %S: CPU seconds, a figure the other load on a shared machine disturbs less than wall time.
  const [file, argv] = GNU_TIME ? [GNU_TIME, ['-o', timeFile, '-f', '%M %U %S', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // spinup records each start in $XDG_STATE_HOME/spinup/history.jsonl: keep the cost in the
    // figures but the runs out of the user's history (a benchmark is no start to learn from).
    // `stateDir` keeps one state dir across runs (a curator's pack cache, as on a real machine).
    const env = { ...process.env, XDG_STATE_HOME: stateDir ?? scratch, ...extraEnv };
    const child = spawn(file, argv, { cwd, env, stdio: [stdin, 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let polled = 0;
    const poll = GNU_TIME
      ? undefined
      : setInterval(() => {
          try {
            const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (match) polled = Math.max(polled, Number(match[1]));
          } catch {
            // The process just ended.
          }
        }, 10);
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (poll) clearInterval(poll);
      let rssKb = polled;
      let cpuMs = null;
      if (GNU_TIME) {
        const lines = readFileSync(timeFile, 'utf8').trim().split('\n');
        const [rss, user, system] = lines[lines.length - 1].split(' ').map(Number);
        rssKb = rss;
        cpuMs = (user + system) * 1000;
      }
      rmSync(scratch, { recursive: true, force: true });
      resolve({ wallMs, cpuMs, rssKb, code, stdout, stderr });
    });
  });
}

/**
 * Reads `path` (a file, or every file under a directory) once, unmeasured, so that the run
 * timed next reads it from the page cache: see run.mjs, where each run of a row is preceded by it.
 */
export function warmPageCache(path) {
  const [command, args] = statSync(path).isDirectory() ? ['find', [path, '-type', 'f', '-exec', 'cat', '{}', '+']] : ['cat', [path]];
  const done = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (done.status !== 0) throw new Error(`reading ${path} into the page cache failed: ${command} exited ${done.status}`);
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
