/**
 * `npm run bench`: spinup's speed and memory beside grep on the same large log, in one run.
 *
 *   node test/bench/run.mjs [--size 1GB] [--small 100MB] [--flood 300MB] [--runs 3] [--cold-runs 15]
 *                           [--latency-runs 15] [--replay-logs 1000] [--seed N] [--dir DIR]
 *                           [--out bench-results.json] [--only TEXT]
 *
 * --only measures just the rows whose name contains TEXT (`--only status-api`: the three rows of
 * the status API's cost) and skips the replay, cold-start and latency figures. `--only group`:
 * just the simulated 16-node group (group-16.mjs). `--only sea`: just the single executable's rows
 * (h: size, first start, cold start beside the bin; single-executable.mjs).
 *
 * The logs are generated (deterministically, see generate-log.mjs and generate-flood.mjs) into
 * DIR (default: a spinup-bench folder in the system temp dir) and kept there for the next run.
 * Rows (issue 18): (a) a pre-verdict NCCL_DEBUG=INFO flood start, (b) the same with one line in
 * five a shard-bar frame, (c) (a) through stdin (a pipe, as a shell's `cat LOG | spinup watch -`
 * gives; a row beside it with stdin a socketpair, as Node's 'pipe' stdio gives), (d) the
 * after-verdict serving log, (e) a user's pack (the shipped sglang pack copied with one failure
 * rule added), (f) replay of copies of the fixture corpus, (g) cold start. Each throughput row is a ratio to `grep -cE` with the seed
 * regex on the same log, its output to a pipe (GNU grep stops at the first match when its
 * output is /dev/null); by wall time and by CPU time (user + system), which a loaded machine
 * distorts less.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLOOD_VERSION, generateFloodStart } from './generate-flood.mjs';
import { GENERATOR_VERSION, generateLog, optionIn, parseSize } from './generate-log.mjs';
import { archiveCorpus, replayCorpus, userPack } from './bench-inputs.mjs';
import { generateRankBars, RANK_BARS_VERSION } from './generate-rank-bars.mjs';
import { detectionLatency } from './latency.mjs';
import { checkGroupRow, describeGroupRow, groupBench } from './group-16.mjs';
import { measure, median, rssMethod, warmPageCache } from './measure.mjs';
import { chromiumPresent, describeRow, reportRender } from './report-render.mjs';
import { describeSeaRow, seaRows } from './single-executable.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The package's bin, what `spinup` runs once installed (dist/cli/bin.js is the same CLI behind an
// ES module loader, which costs a cold start about 5 ms).
const BIN = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.spinup);
const SEED_REGEX = 'RuntimeError|Traceback|CUDA error|killed|Segfault|fired up';

const args = process.argv.slice(2);
const option = optionIn(args);
const size = parseSize(option('--size', '1GB'));
const smallSize = parseSize(option('--small', '100MB'));
const floodSize = parseSize(option('--flood', '300MB'));
const replayLogs = Number(option('--replay-logs', 1000));
const archiveLogs = Number(option('--archive-logs', 10000));
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
  if (only === 'group') {
    const group = await groupRows();
    writeFileSync(out, `${JSON.stringify({ when: new Date().toISOString(), machine: machine(), command: `node test/bench/run.mjs ${args.join(' ')}`, group }, null, 2)}\n`);
    for (const row of group) console.log(describeGroupRow(row));
    say(`\nwritten ${out}`);
    return;
  }
  mkdirSync(dir, { recursive: true });
  if (only === 'sea') {
    const sea = await seaRows({ root: ROOT, bin: BIN, log: coldStartLog(), runs: coldRuns });
    writeFileSync(out, `${JSON.stringify({ when: new Date().toISOString(), machine: machine(), command: `node test/bench/run.mjs ${args.join(' ')}`, sea }, null, 2)}\n`);
    console.log(describeSeaRow(sea));
    say(`\nwritten ${out}`);
    return;
  }
  const big = await ensureLog(size);
  const small = await ensureLog(smallSize);
  const rg = spawnSync('rg', ['--version']).status === 0;

  say(`warming the page cache (wc -l on ${big.file})`);
  await measure('wc', ['-l', big.file]);
  await measure('wc', ['-l', small.file]);

  const flood = await ensureFlood(floodSize, 0);
  const floodBars = await ensureFlood(floodSize, 5);
  const floodSmall = await ensureFlood(smallSize, 0);
  const floodBig = await ensureFlood(size, 0);
  const pack = userPack(dir);
  const packState = join(dir, 'user-pack-state');
  const watch = (log, extra = {}) => ({ log, command: BIN, args: ['watch', '--no-follow', '--pack', extra.pack ?? 'sglang', extra.pipe ? '-' : log.file], pipe: extra.pipe ? log.file : undefined, socketpair: extra.socketpair, stateDir: extra.stateDir, check: spinupFailedOom });
  const grep = (log, row) => ({ row, name: `grep -cE '${SEED_REGEX}'`, log, command: 'grep', args: ['-cE', SEED_REGEX, log.file], grep: true });
  const allTools = [
    { row: 'a', name: 'spinup watch --no-follow --pack sglang  (NCCL flood, pre-verdict)', ...watch(flood), vs: 'grep a' },
    grep(flood, 'grep a'),
    { row: 'b', name: 'spinup watch ... (NCCL flood, 1 line in 5 a shard bar)', ...watch(floodBars), vs: 'grep b' },
    grep(floodBars, 'grep b'),
    { row: 'c', name: 'spinup watch ... -  (NCCL flood through stdin)', ...watch(flood, { pipe: true }), vs: 'a' },
    { name: 'spinup watch ... -  (NCCL flood through stdin, a socketpair)', ...watch(flood, { pipe: true, socketpair: true }), vs: 'a' },
    // The status API: the default serves it on a unix socket; --no-state is without it; --listen adds TCP.
    { row: 'd', name: 'spinup watch --no-follow --pack sglang  (after-verdict serving log)', ...watch(big), vs: 'grep d', api: 'socket' },
    grep(big, 'grep d'),
    { name: 'spinup watch --no-follow --pack sglang --no-state (no status API)', log: big, command: BIN, args: ['watch', '--no-follow', '--pack', 'sglang', '--no-state', big.file], check: spinupFailedOom, api: 'none', vs: 'grep d' },
    { name: 'spinup watch --no-follow --pack sglang --listen 127.0.0.1:0', log: big, command: BIN, args: ['watch', '--no-follow', '--pack', 'sglang', '--listen', '127.0.0.1:0', big.file], check: spinupFailedOom, api: 'listen', vs: 'grep d' },
    { row: 'e', name: "spinup watch --no-follow --pack COPY/sglang.yaml  (user's pack, cache warm)", ...watch(big, { pack: pack.file, stateDir: packState }), vs: 'd', warmUp: true },
    { row: 'e0', name: "spinup watch --no-follow --pack COPY/sglang.yaml  (user's pack, first start)", ...watch(big, { pack: pack.file }), vs: 'd' },
    ...(rg ? [{ name: `rg -c '${SEED_REGEX}'`, log: big, command: 'rg', args: ['-c', SEED_REGEX, big.file] }] : []),
    { name: 'wc -l (floor: read the file)', log: big, command: 'wc', args: ['-l', big.file] },
    { name: 'node: read + count lines (JS floor)', log: big, command: process.execPath, args: [join(ROOT, 'test/bench/node-floor.mjs'), 'lines', big.file] },
    { name: 'node: read + decode every line (JS floor)', log: big, command: process.execPath, args: [join(ROOT, 'test/bench/node-floor.mjs'), 'decode', big.file] },
    { name: 'spinup watch --no-follow --pack sglang  (serving log)', ...watch(small) },
    { name: 'spinup watch --no-follow --pack sglang -  (serving log, stdin pipe)', ...watch(big, { pipe: true }), vs: 'd' },
    { name: 'spinup watch --no-follow --pack sglang  (NCCL flood)', ...watch(floodSmall) },
    { name: 'spinup watch --no-follow --pack sglang  (NCCL flood)', ...watch(floodBig) },
    // Issue 26: 8 ranks' shard bars, every frame new, 40% of the lines; the inputs are made only for the rows measured.
    { row: 'h', name: 'spinup watch ... (8 ranks\' bars, every frame new, \\n-separated)', lazy: () => watch(rankBars(smallSize, '\n')), vs: 'grep h' },
    { row: 'grep h', name: `grep -ciE '${SEED_REGEX}'  (rank bars, \\n)`, grep: true, lazy: () => grepi(rankBars(smallSize, '\n')) },
    { row: 'i', name: 'spinup watch ... (8 ranks\' bars, every frame new, \\r-separated)', lazy: () => watch(rankBars(smallSize, '\r')), vs: 'grep i' },
    { row: 'grep i', name: `grep -ciE '${SEED_REGEX}'  (rank bars, \\r)`, grep: true, lazy: () => grepi(rankBars(smallSize, '\r')) },
    { row: 'j', name: 'spinup watch ... (8 ranks\' bars, \\n-separated, 10x row h)', lazy: () => watch(rankBars(size, '\n')), vs: 'h' },
    { row: 'k', name: `spinup replay ARCHIVE  (${archiveLogs} fixture logs, varied)`, lazy: () => archiveReplay(archiveCorpus(dir, archiveLogs)) },
  ];
  const grepi = (log) => ({ log, command: 'grep', args: ['-ciE', SEED_REGEX, log.file] });
  const chosen = (tool) => only === undefined || tool.name.includes(only) || (tool.row !== undefined && only === `row ${tool.row}`) || (only === 'status-api' && tool.api !== undefined) || (tool.grep && tool.row === 'grep d' && tool.lazy === undefined);
  // A row measured is measured beside what it is a ratio to (`--only NCCL`: rows a, b, c and their greps).
  const referenced = new Set(allTools.filter(chosen).map((tool) => tool.vs));
  const tools = allTools.filter((tool) => chosen(tool) || (tool.row !== undefined && referenced.has(tool.row)));
  for (const tool of tools) if (tool.lazy) Object.assign(tool, tool.lazy());
  const samples = new Map(tools.map((tool) => [tool, []]));
  for (const tool of tools.filter((t) => t.warmUp)) {
    say(`warming up (not measured): ${tool.name}`);
    await measure(tool.command, [...tool.args.slice(0, -1), headOfLog(tool)], { stateDir: tool.stateDir });
  }
  for (let run = 0; run < runs; run++) {
    for (const tool of tools) {
      say(`run ${run + 1}/${runs}: ${tool.name} on ${mb(tool.log.bytes)}`);
      // Each run reads its input from the page cache, grep's and spinup's alike. This machine's
      // cache holds about 4.5 GB, less than the inputs together: a file the rows before had
      // pushed out was read from the disk by whichever command came first (spinup; grep, right
      // after it, found it cached): 3.49 s of wall for 0.76 s of CPU in row a, 10.18 s for 1.21 s in b.
      warmPageCache(tool.pipe ?? tool.log.file);
      const result = tool.pipe ? await measurePiped(tool) : await measure(tool.command, tool.args, { stateDir: tool.stateDir });
      tool.check?.(result);
      samples.get(tool).push(result);
    }
  }
  const wallOf = (tool) => median(samples.get(tool).map((s) => s.wallMs));
  const cpuOf = (tool) => (samples.get(tool).every((s) => s.cpuMs !== null) ? median(samples.get(tool).map((s) => s.cpuMs)) : null);
  const throughput = tools.map((tool) => {
    const wallMs = wallOf(tool);
    const cpuMs = cpuOf(tool);
    const seconds = wallMs / 1000;
    const reference = tool.vs && tools.find((t) => t.row === tool.vs);
    return {
      row: tool.row ?? null,
      name: tool.name,
      input: tool.pipe ? 'stdin' : 'file',
      bytes: tool.log.bytes,
      lines: tool.log.lines,
      wallMs: round(wallMs),
      cpuMs: cpuMs === null ? null : round(cpuMs),
      mbPerS: round(tool.log.bytes / 1e6 / seconds),
      linesPerS: Math.round(tool.log.lines / seconds),
      vs: reference ? reference.row : null,
      ratioWall: reference ? round(wallOf(reference) / wallMs, 3) : null,
      ratioCpu: reference && cpuMs !== null && cpuOf(reference) !== null ? round(cpuOf(reference) / cpuMs, 3) : null,
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

  say(`replay of ${replayLogs} fixture logs (copies of the corpus)`);
  const corpus = replayCorpus(dir, replayLogs);
  const replayMany = await timeRepeated(runs, () => measure(BIN, ['replay', corpus.dir]), (r) => {
    const last = r.stdout.trim().split('\n').pop();
    if (!new RegExp(`^${corpus.logs} passed, 0 failed$`).test(last ?? '')) throw new Error(`replay of the copies did not pass: ${last}`);
    return last;
  });

  say('cold start');
  const smallLog = coldStartLog();
  const coldNode = [];
  const coldWatch = [];
  for (let i = 0; i < coldRuns; i++) {
    coldNode.push(await measure(process.execPath, ['-e', '0']));
    coldWatch.push(await measure(BIN, ['watch', '--no-follow', smallLog]));
  }
  const medianOf = (samples, key) => (samples.every((s) => typeof s[key] === 'number') ? round(median(samples.map((s) => s[key]))) : null);
  const coldStart = {
    log: smallLog,
    logBytes: readFileSync(smallLog).length,
    runs: coldRuns,
    watchMedianMs: medianOf(coldWatch, 'wallMs'),
    nodeMedianMs: medianOf(coldNode, 'wallMs'),
    watchCpuMs: medianOf(coldWatch, 'cpuMs'),
    nodeCpuMs: medianOf(coldNode, 'cpuMs'),
  };

  say('single executable: size, first start, cold start');
  const sea = await seaRows({ root: ROOT, bin: BIN, log: smallLog, runs: coldRuns });

  say('detection latency (follow mode)');
  const latency = latencyRuns > 0 ? await detectionLatency({ root: ROOT, dir, runs: latencyRuns }) : [];

  const group = await groupRows();

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
    replayMany: { runs, logs: corpus.logs, medianMs: round(replayMany.medianMs), cpuMs: round(replayMany.cpuMs), peakRssMb: round(replayMany.rssKb / 1024), summary: replayMany.value },
    coldStart,
    sea,
    latency,
    group,
    report,
  };
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  printTable(results);
  say(`\nwritten ${out}`);
}

async function groupRows() {
  say('a simulated 16-node group on loopback (15 followers pushing to the head)');
  const rows = await groupBench({ runs: 3 });
  rows.forEach(checkGroupRow);
  return rows;
}

/** A few lines of the tool's log: enough to load its pack (and so write the pack cache). */
function headOfLog(tool) {
  const file = join(dir, 'warm-up.log');
  const head = Buffer.alloc(65536);
  const fd = openSync(tool.log.file, 'r');
  const got = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  writeFileSync(file, head.subarray(0, head.lastIndexOf(10, got - 1) + 1));
  return file;
}

function machine() {
  return { cpus: availableParallelism(), model: cpus()[0]?.model, node: process.version, platform: `${process.platform} ${process.arch}`, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadavg() };
}

/** What serving the status API costs `watch --no-follow` on the big log: medians of each row against the row without it. */
function statusApiCost(tools, samples) {
  const row = (api) => tools.find((t) => t.api === api);
  const none = row('none');
  if (!none) return undefined;
  const cpu = (tool) => (samples.get(tool).every((s) => typeof s.cpuMs === 'number') ? median(samples.get(tool).map((s) => s.cpuMs)) : undefined);
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
/**
 * `cat LOG | spinup watch -` as a shell runs it: stdin a pipe (a FIFO, what `|` gives), cat
 * started first and blocked on it full. With `socketpair`, stdin is what Node's 'pipe' stdio
 * gives a child instead: a unix socketpair (a Node parent, some supervisors).
 */
async function measurePiped(tool) {
  if (tool.socketpair) {
    const cat = spawn('cat', [tool.pipe], { stdio: ['ignore', 'pipe', 'inherit'] });
    const result = await measure(tool.command, tool.args, { stdin: cat.stdout });
    cat.kill();
    return result;
  }
  const fifo = join(dir, `stdin-${process.pid}.fifo`);
  rmSync(fifo, { force: true });
  if (spawnSync('mkfifo', [fifo]).status !== 0) throw new Error(`mkfifo ${fifo} failed`);
  // The read end first, without waiting for a writer; then the write end, which a reader lets open.
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(fifo, constants.O_WRONLY);
  const cat = spawn('cat', [tool.pipe], { stdio: ['ignore', writeFd, 'inherit'] });
  closeSync(writeFd);
  try {
    return await measure(tool.command, tool.args, { stdin: readFd });
  } finally {
    closeSync(readFd);
    cat.kill();
    rmSync(fifo, { force: true });
  }
}

async function timeRepeated(times, run, check) {
  const walls = [];
  const cpus = [];
  let value;
  let rssKb = 0;
  for (let i = 0; i < times; i++) {
    const result = await run();
    value = check(result);
    walls.push(result.wallMs);
    cpus.push(result.cpuMs ?? Number.NaN);
    rssKb = Math.max(rssKb, result.rssKb);
  }
  return { medianMs: median(walls), cpuMs: median(cpus), rssKb, value };
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

/** Row k's command: replay of the archive, every case passing. */
function archiveReplay(corpus) {
  let bytes = 0;
  let lines = 0;
  for (const entry of readdirSync(corpus.dir, { recursive: true })) {
    if (!String(entry).endsWith('.log')) continue;
    const text = readFileSync(join(corpus.dir, String(entry)));
    bytes += text.length;
    for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) lines++;
  }
  const check = (result) => {
    const last = result.stdout.trim().split('\n').pop();
    if (!new RegExp(`^${corpus.logs} passed, 0 failed$`).test(last ?? '')) throw new Error(`replay of the archive did not pass: ${last}`);
  };
  return { log: { file: corpus.dir, bytes, lines }, command: BIN, args: ['replay', corpus.dir], check };
}

/** Rows h, i, j's log: 8 ranks' shard bars (generate-rank-bars.mjs), frames on lines of their own or `\r`-separated. */
function rankBars(bytes, separator) {
  const file = join(dir, `rank-bars-${bytes}-${separator === '\r' ? 'cr' : 'lf'}-seed${seed}-v${RANK_BARS_VERSION}.log`);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) return { file, ...JSON.parse(readFileSync(meta, 'utf8')) };
  say(`generating ${mb(bytes)} rank-bar start ${file}`);
  const made = generateRankBars(file, { size: bytes, seed, separator });
  writeFileSync(meta, JSON.stringify(made));
  return { file, ...made };
}

async function ensureFlood(bytes, progressEvery) {
  const file = join(dir, `flood-${bytes}-bars${progressEvery}-seed${seed}-v${FLOOD_VERSION}.log`);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) return { file, ...JSON.parse(readFileSync(meta, 'utf8')) };
  say(`generating ${mb(bytes)} NCCL flood start ${file}`);
  const made = generateFloodStart(file, { size: bytes, seed, progressEvery });
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

/** Row g's log (and row h's): the first KB of a short ready start. */
function coldStartLog() {
  const log = join(dir, 'cold-start.log');
  writeFileSync(log, firstBytes(join(ROOT, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log'), 1024));
  return log;
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
  const rows = [['row', 'what', 'input', 'size', 'wall', 'cpu', 'MB/s', 'lines/s', 'vs', 'x wall', 'x cpu', 'peak RSS']];
  for (const r of results.throughput) {
    const cpu = r.cpuMs === null ? '' : `${(r.cpuMs / 1000).toFixed(2)} s`;
    const ratio = (x) => (x === null ? '' : x.toFixed(2));
    rows.push([r.row ?? '', r.name, r.input, mb(r.bytes), `${(r.wallMs / 1000).toFixed(2)} s`, cpu, r.mbPerS.toFixed(0), `${(r.linesPerS / 1e6).toFixed(2)} M`, r.vs ?? '', ratio(r.ratioWall), ratio(r.ratioCpu), `${r.peakRssMb.toFixed(0)} MB`]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (i <= 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
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
  const many = results.replayMany;
  console.log(`(f) spinup replay ${many.logs} logs         ${(many.medianMs / 1000).toFixed(2)} s wall, ${(many.cpuMs / 1000).toFixed(2)} s cpu, median of ${many.runs} (${many.summary}), peak RSS ${many.peakRssMb.toFixed(0)} MB`);
  console.log(`(g) cold start watch --no-follow  ${results.coldStart.watchMedianMs.toFixed(0)} ms median of ${results.coldStart.runs} on a ${results.coldStart.logBytes}-byte log; node -e 0: ${results.coldStart.nodeMedianMs.toFixed(0)} ms; CPU ${results.coldStart.watchCpuMs ?? '?'} ms vs ${results.coldStart.nodeCpuMs ?? '?'} ms`);
  console.log(describeSeaRow(results.sea));
  console.log(results.report ? describeRow(results.report) : 'report render: skipped (no .tools/chromium; bash scripts/fetch-tools.sh fetches it)');
  for (const row of results.group ?? []) console.log(describeGroupRow(row));
  for (const l of results.latency) {
    const exit = l.exitMedianMs === null ? `exit: ${l.exitedWithin}` : `exit ${l.exitMedianMs.toFixed(0)} ms (max ${l.exitMaxMs.toFixed(0)})`;
    console.log(`detection latency, ${l.case.padEnd(18)} verdict ${l.verdictMedianMs.toFixed(0)} ms (max ${l.verdictMaxMs.toFixed(0)}), ${exit}; median of ${l.runs}, ${l.case.includes('corroborated') ? 'from the death sign (the pipe closing), ... | spinup watch -' : 'from the write, spinup watch FILE'}`);
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
