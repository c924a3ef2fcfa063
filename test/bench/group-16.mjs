/**
 * A simulated 16-node start on loopback: the head (`spinup run --listen --group-size 16`) replays
 * node 0's real log of sglang#3398 (its 30 minutes of rendezvous silence stretched so the group
 * has time to form); 14 followers (`spinup run --group-leader`) replay the same start's real
 * node-1 log and then wait, as that node did; the last follower replays a real node that dies of
 * CUDA OOM while loading (fixtures/sglang/23): the deciding line. Measured: from that line
 * reaching its follower (seen in the follower's tee'd log) to the head's group verdict, and the
 * head's peak RSS.
 *
 *   node test/bench/group-16.mjs [--nodes 16] [--runs 1]
 *
 * Prints one JSON row per run on stdout. Followers are real spinup processes (a node process
 * each, plus its replayed server): on a small machine they take a few seconds to join.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionIn } from './generate-log.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'dist/cli/bin.js');
const REPLAY = join(ROOT, 'test/fixture-servers/replay-log.mjs');
const HEAD_LOG = join(ROOT, 'fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log');
const WORKER_LOG = join(ROOT, 'fixtures/sglang/19-multinode-h20-node1-hang-after-nccl-init.log');
const DYING_LOG = join(ROOT, 'fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const GIVE_UP_MS = 120_000;

const args = process.argv.slice(2);
const option = optionIn(args);
const nodes = Number(option('--nodes', 16));
const runs = Number(option('--runs', 1));

function start(name, argv, scratch) {
  const child = spawn(process.execPath, [BIN, ...argv], { env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: scratch }, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { name, child, out: '', err: '', lines: [] };
  child.stdout.on('data', (d) => {
    const at = performance.now();
    proc.out += d;
    for (const line of String(d).split('\n')) if (line.startsWith('{')) proc.lines.push({ at, json: safeJson(line) });
  });
  child.stderr.on('data', (d) => (proc.err += d));
  proc.closed = new Promise((resolve) => child.once('close', resolve));
  return proc;
}

function safeJson(line) {
  try {
    return JSON.parse(line);
  } catch {
    return {};
  }
}

async function until(what, probe, ms = GIVE_UP_MS) {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function peakRssKb(pid) {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function run(argv, log, extra, scratch, name) {
  return start(name, ['run', '--json', '--no-state', '--heartbeat', '1s', '--log', log, ...extra, '--', process.execPath, REPLAY, '--log', argv.log, '--then', 'hang', ...(argv.pace ?? [])], scratch);
}

async function once() {
  const scratch = mkdtempSync(join(tmpdir(), 'spinup-group16-'));
  const all = [];
  let rss = 0;
  try {
    const head = run({ log: HEAD_LOG, pace: ['--speed', '20', '--max-gap-ms', '600000', '--pace-gaps'] }, join(scratch, 'node0.log'), ['--listen', '127.0.0.1:0', '--group-size', String(nodes)], scratch, 'node 0');
    all.push(head);
    const sampler = setInterval(() => (rss = Math.max(rss, peakRssKb(head.child.pid))), 20);
    const url = (await until('the head URL', () => /status API on (http:\/\/\S+) /.exec(head.err)))[1];
    const joined = (n) => head.lines.some((l) => l.json.type === 'node_joined' && l.json.node === n);
    for (let n = 1; n < nodes - 1; n++) all.push(run({ log: WORKER_LOG }, join(scratch, `node${n}.log`), ['--group-leader', url, '--node-rank', String(n)], scratch, `node ${n}`));
    const joinStarted = performance.now();
    await until('every worker joined', () => Array.from({ length: nodes - 2 }, (_, i) => i + 1).every(joined));
    const joinMs = performance.now() - joinStarted;
    // The last node: its log is polled so the moment its fatal line reaches its spinup is known.
    const dyingLog = join(scratch, `node${nodes - 1}.log`);
    const sizes = [];
    const poll = setInterval(() => {
      try {
        sizes.push({ at: performance.now(), bytes: statSync(dyingLog).size });
      } catch {
        // Not created yet.
      }
    }, 2);
    const dying = run({ log: DYING_LOG }, dyingLog, ['--group-leader', url, '--node-rank', String(nodes - 1)], scratch, `node ${nodes - 1}`);
    all.push(dying);
    const verdict = await until('the group verdict', () => head.lines.find((l) => l.json.type === 'group_verdict'));
    await head.closed;
    clearInterval(poll);
    clearInterval(sampler);
    const text = readFileSync(dyingLog, 'latin1');
    const evidence = verdict.json.evidence?.[0]?.text;
    const end = evidence ? text.indexOf(evidence) + evidence.length : -1;
    // The last look at the log before the line was in it: the line came after, so this bounds the latency from above.
    const before = sizes.filter((s) => s.bytes < end).at(-1)?.at;
    return {
      nodes,
      verdict: verdict.json.verdict,
      node: verdict.json.node,
      cause: verdict.json.cause,
      followersJoinMs: Math.round(joinMs),
      lineToGroupVerdictMsAtMost: before === undefined || end < 0 ? null : Math.round(verdict.at - before),
      headPeakRssMb: Math.round((rss / 1024) * 10) / 10,
      rssLimitMb: 100 + 5 * nodes,
    };
  } finally {
    for (const p of all) {
      const server = /"type":"started","pid":(\d+)/.exec(p.out)?.[1];
      for (const pid of [server ? -Number(server) : 0, p.child.pid]) {
        try {
          if (pid) process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
    await Promise.all(all.map((p) => p.closed));
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The group's verdict must be the dying node's OOM: anything else is a broken bench, not a figure. */
export function checkGroupRow(row) {
  if (row.verdict !== 'failed' || row.node !== row.nodes - 1 || row.cause !== 'gpu_oom') throw new Error(`the ${row.nodes}-node group should fail on node ${row.nodes - 1} (gpu_oom), got ${JSON.stringify(row)}`);
}

export function describeGroupRow(row) {
  const latency = row.lineToGroupVerdictMsAtMost === null ? 'latency not measured' : `group verdict <= ${row.lineToGroupVerdictMsAtMost} ms after node ${row.node}'s fatal line (limit 1000)`;
  return `${row.nodes}-node group on loopback   ${latency}; head peak RSS ${row.headPeakRssMb} MB (limit ${row.rssLimitMb}); the ${row.nodes - 2} waiting followers joined in ${row.followersJoinMs} ms`;
}

export async function groupBench({ runs: times = runs } = {}) {
  const rows = [];
  for (let i = 0; i < times; i++) rows.push(await once());
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await groupBench()) console.log(JSON.stringify(row));
}
