/** `spinup replay [PATH|GLOB...]`: regression-test the packs against captured logs. */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { EXIT } from '../../core/exit-codes.js';
import type { FixtureCoverage } from '../../replay/coverage.js';
import { discoverFixtures } from '../../replay/discover.js';
import { ExpectationError } from '../../replay/expectation.js';
import { loadPacks } from '../../replay/load-families.js';
import { caseLog, type ReplayCase, type ReplayedCase } from '../../replay/replay-case.js';
import { replayInThread } from '../../replay/replay-in-thread.js';
import { ReplayInterrupted } from '../../replay/replay-interrupted.js';
import { replayOnWorkers } from '../../replay/worker-pool.js';
import { replayReporter, type ReplayFormat } from '../reporters/replay-reporters.js';
import { InputError, UsageError } from '../errors.js';
import { write, type Io } from '../io-context.js';
import { durationOption, packRefOption } from '../options.js';
import { replayHistoryHelp, replayMemory } from '../replay-history-flags.js';
import { parseOptions } from '../parse-options.js';
import { jobsOption, replayThreads } from '../replay-jobs.js';

export const replayHelp = `Usage: spinup replay [options] [PATH|GLOB...]
       spinup replay --record LOG [--family NAME] [--then-idle DURATION] [--force]

Replays captured startup logs (NAME.log with a sibling NAME.expect.yaml) through the
rule packs on the logs' own timestamps, and checks each verdict, stage, cause and
evidence line against the expectation. A folder NAME.group/ of node0.log, node1.log, ...
beside NAME.expect.yaml is one multi-node start: it gets one group verdict, and the
expectation's node: names the node it must blame. Default PATH: fixtures

Options:
  --pack NAME|FILE     use this pack (repeatable; default: the shipped sglang and vllm packs)
  --json               one JSON object per case, then a summary object (= --format json)
  --format FORMAT      text (default), json, or junit (JUnit XML, one testcase per fixture)
  --output FILE        with --format junit: write the XML to FILE, the table to stdout
  -j, --jobs N         replay on N threads (this one and N-1 workers), a case at a
                       time each; the output is the same, in the same order. 1: this
                       thread only. Default: one per idle core (the load average
                       taken off the cores; at most 4); 1 for less than 512 MB of
                       logs, where a worker's memory (~28 MB) buys little time
  --coverage           after the table: rules no replayed fixture exercises (and the
                       'untested:' reasons of those the pack explains), and per fixture
                       the error-like lines no rule claimed
  --record LOG         write LOG's sibling NAME.expect.yaml from spinup's current verdict,
                       for you to check and correct; refuses to replace an existing one
  --family NAME        with --record: the pack to use (default: detect it)
  --then-idle DURATION with --record: quiet time after the last line (records a hang)
  --force              with --record: replace the expect file (its source, notes and
                       then_idle are kept)
${replayHistoryHelp}
  -h, --help           show this help

Exit: 0 all passed, 1 some failed, 64 usage, 66 nothing to replay, 78 invalid pack.
Example: spinup replay fixtures/vllm 'fixtures/**/*oom*.log'
         spinup replay --coverage
         spinup replay --format junit --output replay.xml
         spinup replay --record fixtures/sglang/23-new-failure.log --family sglang`;

const FORMATS: readonly ReplayFormat[] = ['text', 'json', 'junit'];
type Format = ReplayFormat;

export async function replayCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      pack: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      format: { type: 'string' },
      output: { type: 'string' },
      coverage: { type: 'boolean' },
      record: { type: 'string' },
      family: { type: 'string' },
      'then-idle': { type: 'string' },
      force: { type: 'boolean' },
      history: { type: 'string' },
      'learn-from': { type: 'string' },
      jobs: { type: 'string', short: 'j' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    write(io.stdout, `${replayHelp}\n`);
    return EXIT.ok;
  }
  for (const ref of values.pack ?? []) packRefOption(ref);
  if (values.record !== undefined) {
    if (positionals.length > 0 || values.coverage || values.format || values.output || values.jobs) throw new UsageError('--record takes one LOG and no other replay options');
    return record({ log: values.record, family: values.family, thenIdle: values['then-idle'], force: values.force, packRefs: values.pack }, io);
  }
  for (const name of ['family', 'then-idle', 'force'] as const) {
    if (values[name] !== undefined) throw new UsageError(`--${name} only applies with --record`);
  }
  const format = formatOption(values.format, values.json);
  if (values.output !== undefined && format !== 'junit') throw new UsageError('--output only applies with --format junit');
  const jobs = jobsOption(values.jobs);

  const targets = positionals.length > 0 ? positionals : ['fixtures'];
  const { pairs, groups, missing } = discoverFixtures(targets, io.cwd);
  if (missing.length > 0) throw new InputError(`no such file, directory or match: ${missing.join(', ')}`);
  if (pairs.length === 0 && groups.length === 0) throw new InputError(`no fixtures found in ${targets.join(', ')} (a fixture is NAME.log beside NAME.expect.yaml)`);
  const cases: ReplayCase[] = [...pairs.map((pair) => ({ kind: 'pair' as const, pair })), ...groups.map((group) => ({ kind: 'group' as const, group }))];
  const memory = replayMemory(io, values);
  if (memory && jobs !== undefined && jobs > 1) throw new UsageError('--jobs applies without --history and --learn-from (a history is read and written in order, by one thread)');
  const threads = memory ? 1 : replayThreads({ jobs, cases });
  leanHeap();

  const reporter = replayReporter({ format, io, output: values.output, logs: cases.map(caseLog) });
  const coverage = Boolean(values.coverage) && reporter.showsCoverage;
  const fixtures: FixtureCoverage[] = [];
  let passed = 0;
  const onCase = (replayed: ReplayedCase): void => {
    if (replayed.pass) passed++;
    if (replayed.coverage) fixtures.push(...replayed.coverage);
    reporter.case(replayed);
  };
  try {
    const packs = loadPacks(values.pack);
    const inferencePacks = coverage ? loadPacks(values.pack, { withoutCauseRules: 'all' }) : undefined;
    const tools = { packs, inferencePacks, memory };
    if (threads > 1) await replayOnWorkers({ cases, workers: threads - 1, local: tools, packRefs: values.pack, coverage, onCase, signal: io.signal });
    else await replayInThread({ cases, tools, onCase, signal: io.signal });
  } catch (error) {
    // The rows of the cases done come before anything else is said (an error, an interruption).
    reporter.flush();
    if (error instanceof ExpectationError) throw new UsageError(error.message);
    if (error instanceof ReplayInterrupted) {
      write(io.stderr, 'spinup replay: interrupted\n');
      return EXIT.interrupted;
    }
    throw error;
  }
  reporter.flush();
  for (const line of memory?.summary() ?? []) write(io.stderr, `spinup replay: ${line}\n`);
  reporter.casesDone();
  if (coverage) {
    const { weighCoverage } = await import('../../replay/coverage.js');
    reporter.coverage(weighCoverage(fixtures, { packRefs: values.pack, cwd: io.cwd }));
  }
  const failed = cases.length - passed;
  reporter.finish({ passed, failed, total: cases.length });
  return failed === 0 ? EXIT.ok : EXIT.failed;
}

/**
 * Replay allocates fast and keeps little: a case's log, lines and session are garbage once it is
 * reported. V8 lets the old generation grow far past what is live before collecting it; growing
 * it by 25% at most keeps peak memory ~10 MB lower (1,000 fixture logs: 88 -> 77 MB in one
 * thread) at no measurable cost in time. Set before any worker starts, so theirs grow so too.
 */
function leanHeap(): void {
  setFlagsFromString('--heap-growing-percent=25');
}

function formatOption(value: string | undefined, json: boolean | undefined): Format {
  if (value === undefined) return json ? 'json' : 'text';
  if (!(FORMATS as readonly string[]).includes(value)) throw new UsageError(`--format wants one of ${FORMATS.join(', ')}, not "${value}"`);
  if (json && value !== 'json') throw new UsageError(`--json and --format ${value} disagree; pick one`);
  return value as Format;
}

interface RecordArgs {
  log: string;
  family?: string;
  thenIdle?: string;
  force?: boolean;
  packRefs?: string[];
}

async function record(args: RecordArgs, io: Io): Promise<number> {
  const { RecordRefused, recordFixture } = await import('../../replay/record.js');
  const log = resolve(io.cwd, args.log);
  if (!existsSync(log)) throw new InputError(`no such log: ${args.log}`);
  durationOption('then-idle', args.thenIdle);
  const packs = loadPacks(args.packRefs);
  if (args.family !== undefined && !packs.some((p) => p.name === args.family)) {
    throw new UsageError(`--family wants one of ${packs.map((p) => p.name).join(', ')}, not "${args.family}"`);
  }
  try {
    const result = recordFixture({ log, packs, family: args.family, thenIdle: args.thenIdle, force: args.force });
    const shown = relative(io.cwd, result.file);
    write(io.stdout, `${result.replaced ? 'replaced' : 'wrote'} ${shown} (check and correct it):\n${result.text}`);
    for (const m of result.mismatches) write(io.stderr, `spinup replay: the recorded ${m.field} does not replay: expected ${m.expected}, got ${m.actual}\n`);
    return result.mismatches.length === 0 ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (error instanceof RecordRefused) throw new UsageError(error.message);
    throw error;
  }
}
