/** `spinup report`: one self-contained HTML timeline of one or more starts (logs, or the history). */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, resolve } from 'node:path';
import { EXIT } from '../../core/exit-codes.js';
import { readHistory, skippedSummary } from '../../history/history-store.js';
import { shortModel } from '../../history/history-table.js';
import type { StartRecord } from '../../history/start-record.js';
import { factsOf } from '../../history/start-record.js';
import { expectFileFor } from '../../replay/discover.js';
import { traceLog, type LogTrace } from '../../replay/explain-driver.js';
import { readExpectationArg } from '../read-expectation.js';
import { laneFromRecord } from '../../report/lane-from-record.js';
import { renderReport } from '../../report/render-report.js';
import type { ReportModel, StartView, UsualStage } from '../../report/report-model.js';
import { groupStart, startFromTrace, traceFacts } from '../../report/start-from-trace.js';
import { usualStages } from '../../report/usual-stages.js';
import { InputError, UsageError } from '../errors.js';
import { write, type Io } from '../io-context.js';
import { durationOption, packsOption } from '../options.js';
import { historyPath } from '../history-flags.js';
import { parseOptions } from '../parse-options.js';
import { readLogText } from '../../io/open-source.js';
import { noticeText } from '../reporters/event-lines.js';

export const reportHelp = `Usage: spinup report [options] LOG... [--node NAME=LOG...]
       spinup report --history [--model SUBSTR] [--last N] [options]

Writes one self-contained HTML page (inline style, SVG and script; it fetches nothing and
opens from disk offline) with a timeline per start on one shared time axis: a bar per stage
on the log's own clock (colour, pattern and label, duration written on it), the progress of
load_weights and cuda_graph, the verdict at its time (the cause, rule and root-cause line
of a failure; the silent stretch and the budget of a stall), failures after ready, and each
stage's usual duration for the same model on this host (from the history) as a faint band.
Click a bar to see the lines that opened and closed it.

LOG files are replayed like 'spinup explain' (a fixture's family and then_idle come from its
NAME.expect.yaml). --history draws recorded starts instead (a record keeps stage durations,
not lines).

Options:
  -o, --output FILE    where to write (default: NAME.report.html for one log, else
                       spinup-report.html, in the working directory; '-' = stdout);
                       an existing DIRECTORY gets that default name inside it
  --force              overwrite FILE if it exists (without it, an existing FILE is kept)
  --node NAME=LOG      a node of one group (multi-node) start: the --node logs are one
                       start with a lane per node (each on its own log's clock)
  --history            draw the starts recorded in the history instead of LOG files
  --model SUBSTR       with --history: only starts whose model contains SUBSTR
  --last N             with --history: only the N most recent starts (default 20)
  --history-file PATH  the history (default: $XDG_STATE_HOME/spinup/history.jsonl); it also
                       gives the usual stage durations drawn behind a LOG's bars
  --pack NAME|FILE     sglang, vllm or a pack file (default: the fixture's family, else detect)
  --then-idle DURATION quiet time after each log's last line (replays a hang)
  -h, --help           show this help

Exit: 0 written · 64 usage (or FILE exists without --force) · 66 LOG not found, FILE not writable
Example: spinup report fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log -o start.html`;

export async function reportCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      force: { type: 'boolean' },
      node: { type: 'string', multiple: true },
      history: { type: 'boolean' },
      model: { type: 'string' },
      last: { type: 'string' },
      'history-file': { type: 'string' },
      pack: { type: 'string' },
      'then-idle': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    write(io.stdout, `${reportHelp}\n`);
    return EXIT.ok;
  }
  const nodes = (values.node ?? []).map(nodeOption);
  if (values.history && (positionals.length > 0 || nodes.length > 0)) throw new UsageError('give LOG files or --history, not both');
  if (!values.history && positionals.length === 0 && nodes.length === 0) throw new UsageError('name the LOG file(s) to draw, or pass --history');
  if (!values.history && (values.model !== undefined || values.last !== undefined)) throw new UsageError('--model and --last go with --history');
  const store = historyPath(io, values['history-file']);
  if (values.history && store === undefined) throw new UsageError('no history path: HOME and XDG_STATE_HOME are unset; pass --history-file PATH');
  const records = store === undefined ? [] : readRecords(store, io, values.history === true);
  const model = values.history
    ? historyModel(records, { model: values.model, last: lastOption(values.last) })
    : await logsModel({ io, files: positionals, nodes, records, pack: values.pack, thenIdle: values['then-idle'] });
  const html = renderReport(model, { note: `made by spinup report from ${model.starts.length} start${model.starts.length === 1 ? '' : 's'}` });
  if (values.output === '-') {
    write(io.stdout, html);
    return EXIT.ok;
  }
  const target = outputPath({ io, output: values.output, force: values.force === true, files: positionals, nodes: nodes.length });
  writeReport(target, html, values.force === true);
  write(io.stdout, `wrote ${target} (${model.starts.length} start${model.starts.length === 1 ? '' : 's'}, ${Math.ceil(Buffer.byteLength(html) / 1024)} kB)\n`);
  return EXIT.ok;
}

/** `--node NAME=LOG`: one node of a group start. */
function nodeOption(value: string): { node: string; file: string } {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1) throw new UsageError(`--node wants NAME=LOG, e.g. --node head=node0.log, not "${value}"`);
  return { node: value.slice(0, at), file: value.slice(at + 1) };
}

function lastOption(value: string | undefined): number {
  if (value === undefined) return 20;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--last wants a whole number of starts, not "${value}"`);
  return n;
}

function readRecords(path: string, io: Io, required: boolean): StartRecord[] {
  if (!existsSync(path)) {
    if (required) throw new InputError(`no history at ${path}: 'spinup watch' records each start it sees (or pass --history-file PATH)`);
    return [];
  }
  let read: ReturnType<typeof readHistory>;
  try {
    read = readHistory(path);
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const skipped = skippedSummary(path, read);
  if (skipped) write(io.stderr, `spinup report: ${skipped}\n`);
  return read.records;
}

async function logsModel(params: { io: Io; files: string[]; nodes: { node: string; file: string }[]; records: StartRecord[]; pack?: string; thenIdle?: string }): Promise<ReportModel> {
  const { packs, family } = await packsOption(params.pack === undefined ? undefined : /[\\/]|\.ya?ml$/.test(params.pack) ? resolve(params.io.cwd, params.pack) : params.pack, params.io.env);
  const idleFlag = durationOption('then-idle', params.thenIdle);
  const host = hostname();
  const replay = async (file: string): Promise<{ trace: LogTrace; path: string }> => {
    const path = resolve(params.io.cwd, file);
    if (!existsSync(path)) throw new InputError(`no such file: ${file}`);
    if (!statSync(path).isFile()) throw new InputError(`not a regular file: ${file}`);
    const expected = path.endsWith('.log') && existsSync(expectFileFor(path)) ? readExpectationArg(expectFileFor(path)) : undefined;
    const { text, notices } = await readLogText(path, file);
    for (const notice of notices) if (notice.type === 'damaged') write(params.io.stderr, `spinup report: ${noticeText(notice)}\n`);
    return { trace: traceLog(text, { packs, family: family ?? expected?.family, thenIdleMs: idleFlag ?? expected?.thenIdleMs }), path };
  };
  // A fixture's log often names no model: the history keeps it under the log's name (replay --history).
  const usualOf = (trace: LogTrace, path: string): Record<string, UsualStage> => {
    const facts = traceFacts(trace);
    return usualStages({ records: params.records, host, family: trace.family, facts: { ...facts, model: facts.model ?? basename(path, '.log') } });
  };
  const starts: StartView[] = [];
  const usual: Record<string, UsualStage>[] = [];
  for (const file of params.files) {
    const { trace, path } = await replay(file);
    starts.push(startFromTrace(trace, file));
    usual.push(usualOf(trace, path));
  }
  if (params.nodes.length > 0) {
    const replayed = [];
    for (const { node, file } of params.nodes) replayed.push({ node, file, ...(await replay(file)) });
    starts.push(groupStart(replayed.map(({ node, file, trace }) => ({ node, file, trace }))));
    usual.push(usualOf(replayed[0]!.trace, replayed[0]!.path));
  }
  const title = starts.length === 1 ? `spinup report: ${params.files.length === 1 ? basename(params.files[0]!) : `a start of ${params.nodes.length} nodes`}` : `spinup report: ${starts.length} starts`;
  return { title, starts, usual };
}

function historyModel(records: StartRecord[], filter: { model?: string; last: number }): ReportModel {
  const needle = filter.model?.toLowerCase();
  const chosen = records.filter((r) => needle === undefined || (r.model ?? '').toLowerCase().includes(needle)).slice(-filter.last);
  const starts = chosen.map((r) => ({ title: `${r.when} · ${shortModel(r, 60)}`, subtitle: `${r.family} on ${r.host}${r.log ? ` · ${r.log}` : ''}`, lanes: [laneFromRecord(r)] }));
  const usual = chosen.map((r) => usualStages({ records, host: r.host, family: r.family, facts: factsOf(r) }));
  const what = filter.model !== undefined ? ` of models matching "${filter.model}"` : '';
  return { title: `spinup report: the last ${chosen.length} recorded start${chosen.length === 1 ? '' : 's'}${what}`, starts, usual };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Written whole or not at all over nothing: `wx` refuses a file that appeared since the check. */
function writeReport(target: string, html: string, force: boolean): void {
  try {
    writeFileSync(target, html, { flag: force ? 'w' : 'wx' });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') throw new UsageError(`${target} already exists; pass --force to overwrite it, or choose another -o FILE`);
    throw new InputError(`cannot write ${target}: ${message}`, { cause: error });
  }
}


/**
 * -o FILE as given (kept unless --force); by default a name that does not exist yet. -o DIR (an
 * existing directory) is where that default name goes, as `cp LOG DIR` keeps the name: a
 * directory is never a file to overwrite.
 */
function outputPath(params: { io: Io; output?: string; force: boolean; files: string[]; nodes: number }): string {
  let dir = params.io.cwd;
  if (params.output !== undefined) {
    const path = resolve(params.io.cwd, params.output);
    if (!isDirectory(path)) {
      if (existsSync(path) && !params.force) throw new UsageError(`${params.output} already exists; pass --force to overwrite it, or choose another -o FILE`);
      return path;
    }
    dir = path;
  }
  const stem = params.files.length === 1 && params.nodes === 0 ? basename(params.files[0]!).replace(/\.log$/, '') + '.report' : 'spinup-report';
  for (let n = 1; ; n++) {
    const path = resolve(dir, n === 1 ? `${stem}.html` : `${stem}-${n}.html`);
    if (params.force || !existsSync(path)) return path;
  }
}
