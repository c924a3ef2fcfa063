/**
 * `npm run bench`: spinup's speed and memory beside grep on the same large log, in one run.
 *
 *   node test/bench/run.mjs [--size 1GB] [--small 100MB] [--runs 3] [--cold-runs 15]
 *                           [--latency-runs 15] [--seed N] [--dir DIR] [--out bench-results.json]
 *                           [--only TEXT]
 *
 * --only measures just the rows whose name contains TEXT (`--only status-api`: the three rows of
 * the status API's cost) and skips the replay, cold-start and latency figures.
 *
 * The logs are generated (deterministically, see generate-log.mjs) into DIR (default: a
 * spinup-bench folder in the system temp dir) and kept there for the next run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION, generateLog, parseSize } from './generate-log.mjs';
import { detectionLatency } from './latency.mjs';
import { measure, median, rssMethod } from './measure.mjs';
import { chromiumPresent, describeRow, reportRender } from './report-render.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'dist/cli/bin.js');
const SEED_REGEX = 'RuntimeError|Traceback|CUDA error|killed|Segfault|fired up';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const size = parseSize(option('--size', '1GB'));
const smallSize = parseSize(option('--small', '100MB'));
const runs = Number(option('--runs', 3));
const coldRuns = Number(option('--cold-runs', 15));
const latencyRuns = Number(option('--latency-runs', 15));
const seed = Number(option('--seed', 20250308));
const dir = resolve(option('--dir', join(tmpdir(), 'spinup-bench')));
const out = resolve(option('--out', 'bench-results.json'));
const only = option('--only', undefined);

const say = (text) => process.stderr.write(`${text}\n`);

const loadAtStart = loadavg();

async function main() {
  if (!existsSync(BIN)) throw new Error('dist/ is missing: run `npm run build` first');
  ensurePrecompiled();
  mkdirSync(dir, { recursive: true });
  const big = await ensureLog(size);
  const small = await ensureLog(smallSize);
  const rg = spawnSync('rg', ['--version']).status === 0;

  say(`warming the page cache (wc -l on ${big.file})`);
  await measure('wc', ['-l', big.file]);
  await measure('wc', ['-l', small.file]);

  const tools = [
    // The status API: the default serves it on a unix socket; --no-state is without it; --listen adds TCP.
    { name: 'spinup watch --no-follow --pack sglang', log: big, command: BIN, args: ['watch', '--no-follow', '--pack', 'sglang', big.file], check: spinupFailedOom, api: 'socket' },
    { name: 'spinup watch --no-follow --pack sglang --no-state (no status API)', log: big, command: BIN, args: ['watch', '--no-follow', '--pack', 'sglang', '--no-state', big.file], check: spinupFailedOom, api: 'none' },
    { name: 'spinup watch --no-follow --pack sglang --listen 127.0.0.1:0', log: big, command: BIN, args: ['watch', '--no-follow', '--pack', 'sglang', '--listen', '127.0.0.1:0', big.file], check: spinupFailedOom, api: 'listen' },
    { name: `grep -cE '${SEED_REGEX}'`, log: big, command: 'grep', args: ['-cE', SEED_REGEX, big.file], grep: true },
    ...(rg ? [{ name: `rg -c '${SEED_REGEX}'`, log: big, command: 'rg', args: ['-c', SEED_REGEX, big.file] }] : []),
    { name: 'wc -l (floor: read the file)', log: big, command: 'wc', args: ['-l', big.file] },
    { name: 'node: read + count lines (JS floor)', log: big, command: process.execPath, args: [join(ROOT, 'test/bench/node-floor.mjs'), 'lines', big.file] },
    { name: 'node: read + decode every line (JS floor)', log: big, command: process.execPath, args: [join(ROOT, 'test/bench/node-floor.mjs'), 'decode', big.file] },
    { name: 'spinup watch --no-follow --pack sglang', log: small, command: BIN, args: ['watch', '--no-follow', '--pack', 'sglang', small.file], check: spinupFailedOom },
    { name: 'spinup watch --no-follow --pack sglang -  (stdin pipe)', log: big, command: BIN, args: ['watch', '--no-follow', '--pack', 'sglang', '-'], pipe: big.file, check: spinupFailedOom },
  ].filter((tool) => only === undefined || tool.name.includes(only) || (only === 'status-api' && tool.api !== undefined));
  const samples = new Map(tools.map((tool) => [tool, []]));
  for (let run = 0; run < runs; run++) {
    for (const tool of tools) {
      say(`run ${run + 1}/${runs}: ${tool.name} on ${mb(tool.log.bytes)}`);
      const result = tool.pipe ? await measurePiped(tool) : await measure(tool.command, tool.args);
      tool.check?.(result);
      samples.get(tool).push(result);
    }
  }
  const grepRow = tools.find((t) => t.grep);
  const grepMs = grepRow ? median(samples.get(grepRow).map((s) => s.wallMs)) : undefined;
  const throughput = tools.map((tool) => {
    const wallMs = median(samples.get(tool).map((s) => s.wallMs));
    const seconds = wallMs / 1000;
    return {
      name: tool.name,
      input: tool.pipe ? 'stdin' : 'file',
      bytes: tool.log.bytes,
      lines: tool.log.lines,
      wallMs: round(wallMs),
      mbPerS: round(tool.log.bytes / 1e6 / seconds),
      linesPerS: Math.round(tool.log.lines / seconds),
      vsGrep: tool.log === big && grepMs !== undefined ? round(grepMs / wallMs, 3) : null,
      peakRssMb: round(Math.max(...samples.get(tool).map((s) => s.rssKb)) / 1024),
      runs: samples.get(tool).length,
    };
  });

  const statusApi = statusApiCost(tools, samples);
  if (only !== undefined) {
    const results = { when: new Date().toISOString(), machine: machine(), command: `node test/bench/run.mjs ${args.join(' ')}`.trim(), rssMethod, logs: { big, small, generator: GENERATOR_VERSION, seed }, throughput, statusApi };
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    printTable(results);
    say(`\nwritten ${out}`);
    return;
  }

  say('replay of all fixtures');
  const replay = await timeRepeated(5, () => measure(BIN, ['replay', join(ROOT, 'fixtures')]), (r) => {
    const last = r.stdout.trim().split('\n').pop();
    if (!/^\d+ passed, 0 failed$/.test(last ?? '')) throw new Error(`replay did not pass: ${last}`);
    return last;
  });

  say('cold start');
  const smallLog = join(dir, 'cold-start.log');
  writeFileSync(smallLog, firstBytes(join(ROOT, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log'), 1024));
  const coldNode = [];
  const coldWatch = [];
  for (let i = 0; i < coldRuns; i++) {
    coldNode.push((await measure(process.execPath, ['-e', '0'])).wallMs);
    coldWatch.push((await measure(BIN, ['watch', '--no-follow', smallLog])).wallMs);
  }
  const coldStart = { log: smallLog, logBytes: readFileSync(smallLog).length, runs: coldRuns, watchMedianMs: round(median(coldWatch)), nodeMedianMs: round(median(coldNode)) };

  say('detection latency (follow mode)');
  const latency = latencyRuns > 0 ? await detectionLatency({ root: ROOT, dir, runs: latencyRuns }) : [];

  say('report of 100 starts in headless Chromium');
  const report = chromiumPresent() ? await reportRender({ starts: 100, runs: 5 }) : undefined;

  const results = {
    when: new Date().toISOString(),
    machine: machine(),
    command: `node test/bench/run.mjs ${args.join(' ')}`.trim(),
    rssMethod,
    logs: { big, small, generator: GENERATOR_VERSION, seed },
    throughput,
    statusApi,
    replay: { runs: 5, medianMs: round(replay.medianMs), summary: replay.value },
    coldStart,
    latency,
    report,
  };
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  printTable(results);
  say(`\nwritten ${out}`);
}

function machine() {
  return { cpus: availableParallelism(), model: cpus()[0]?.model, node: process.version, platform: `${process.platform} ${process.arch}`, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadavg() };
}

/** What serving the status API costs `watch --no-follow` on the big log: medians of each row against the row without it. */
function statusApiCost(tools, samples) {
  const row = (api) => tools.find((t) => t.api === api);
  const none = row('none');
  if (!none) return undefined;
  const cpu = (tool) => (samples.get(tool).every((s) => s.cpuMs !== undefined) ? median(samples.get(tool).map((s) => s.cpuMs)) : undefined);
  const figures = (tool) => ({ wallMs: median(samples.get(tool).map((s) => s.wallMs)), cpuMs: cpu(tool), rssMb: median(samples.get(tool).map((s) => s.rssKb)) / 1024 });
  const percent = (value, of) => (value === undefined || of === undefined ? undefined : round(((value - of) / of) * 100, 2));
  const base = figures(none);
  const cost = {};
  for (const api of ['socket', 'listen']) {
    const tool = row(api);
    if (!tool) continue;
    const f = figures(tool);
    cost[api] = { wallMs: round(f.wallMs), timePercent: percent(f.wallMs, base.wallMs), cpuMs: f.cpuMs && round(f.cpuMs), cpuPercent: percent(f.cpuMs, base.cpuMs), rssMb: round(f.rssMb), rssDeltaMb: round(f.rssMb - base.rssMb, 2) };
  }
  return { baseline: { wallMs: round(base.wallMs), cpuMs: base.cpuMs && round(base.cpuMs), rssMb: round(base.rssMb) }, ...cost };
}

function spinupFailedOom(result) {
  if (result.code !== 1 || !result.stdout.includes('gpu_oom')) {
    throw new Error(`spinup should report failed/gpu_oom (exit 1), got exit ${result.code}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
  }
}

/** `cat FILE | spinup ... -`: a real pipe, so stdin is read as a stream. */
async function measurePiped(tool) {
  const cat = spawn('cat', [tool.pipe], { stdio: ['ignore', 'pipe', 'inherit'] });
  const result = await measure(tool.command, tool.args, { stdin: cat.stdout });
  cat.kill();
  return result;
}

async function timeRepeated(times, run, check) {
  const walls = [];
  let value;
  for (let i = 0; i < times; i++) {
    const result = await run();
    value = check(result);
    walls.push(result.wallMs);
  }
  return { medianMs: median(walls), value };
}

async function ensureLog(bytes) {
  const file = join(dir, `sglang-${bytes}-seed${seed}-v${GENERATOR_VERSION}.log`);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) return { file, ...JSON.parse(readFileSync(meta, 'utf8')) };
  say(`generating ${mb(bytes)} log ${file}`);
  const started = performance.now();
  const made = await generateLog(file, { size: bytes, seed });
  say(`  ${made.lines} lines in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  writeFileSync(meta, JSON.stringify(made));
  return { file, ...made };
}

/** `npm run build` writes dist/pack/precompiled-packs.json; make it here too if the build script predates it. */
function ensurePrecompiled() {
  if (existsSync(join(ROOT, 'dist/pack/precompiled-packs.json'))) return;
  say('note: dist/pack/precompiled-packs.json is missing; running node dist/pack/precompile-packs.js');
  const made = spawnSync(process.execPath, [join(ROOT, 'dist/pack/precompile-packs.js')], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('precompiling the shipped packs failed');
}

/** The first lines of a log, each cut to 200 characters (its launch line is 3 KB), about `bytes` long. */
function firstBytes(file, bytes) {
  let out = '';
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (out.length >= bytes) break;
    out += `${line.slice(0, 200)}\n`;
  }
  return out;
}

function printTable(results) {
  const rows = [['what', 'input', 'size', 'wall', 'MB/s', 'lines/s', 'x grep', 'peak RSS']];
  for (const r of results.throughput) {
    rows.push([r.name, r.input, mb(r.bytes), `${(r.wallMs / 1000).toFixed(2)} s`, r.mbPerS.toFixed(0), `${(r.linesPerS / 1e6).toFixed(2)} M`, r.vsGrep === null ? '' : r.vsGrep.toFixed(2), `${r.peakRssMb.toFixed(0)} MB`]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
  console.log(`spinup bench: ${results.machine.cpus} cpus, ${results.machine.model}, node ${results.machine.node}, load average ${load(results.machine.loadAverageAtStart)} -> ${load(results.machine.loadAverageAtEnd)}`);
  console.log(`median of ${results.throughput[0].runs} runs each, interleaved; peak RSS (max of the runs) by ${results.rssMethod}`);
  console.log(line(rows[0]));
  for (const row of rows.slice(1)) console.log(line(row));
  console.log('');
  if (results.statusApi) {
    for (const [api, c] of Object.entries(results.statusApi).filter(([k]) => k !== 'baseline')) {
      const signed = (n) => `${n >= 0 ? '+' : ''}${n}`;
      const cpu = c.cpuPercent === undefined ? '' : `, ${signed(c.cpuPercent)}% CPU time (user+sys)`;
      console.log(`status API (${api === 'socket' ? 'unix socket, the default' : 'unix socket + --listen'}) vs --no-state: ${signed(c.timePercent)}% wall time${cpu}, ${signed(c.rssDeltaMb)} MB median peak RSS`);
    }
  }
  if (!results.replay) return;
  console.log(`spinup replay fixtures            ${(results.replay.medianMs / 1000).toFixed(2)} s median of ${results.replay.runs} (${results.replay.summary})`);
  console.log(`cold start watch --no-follow      ${results.coldStart.watchMedianMs.toFixed(0)} ms median of ${results.coldStart.runs} on a ${results.coldStart.logBytes}-byte log; node -e 0: ${results.coldStart.nodeMedianMs.toFixed(0)} ms`);
  console.log(results.report ? describeRow(results.report) : 'report render: skipped (no .tools/chromium; bash scripts/fetch-tools.sh fetches it)');
  for (const l of results.latency) {
    const exit = l.exitMedianMs === null ? `exit: ${l.exitedWithin}` : `exit ${l.exitMedianMs.toFixed(0)} ms (max ${l.exitMaxMs.toFixed(0)})`;
    console.log(`detection latency, ${l.case.padEnd(18)} verdict ${l.verdictMedianMs.toFixed(0)} ms (max ${l.verdictMaxMs.toFixed(0)}), ${exit}; median of ${l.runs}, from the write, spinup watch FILE`);
  }
}

function mb(bytes) {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(0)} MB`;
}

function round(value, digits = 1) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

await main();
