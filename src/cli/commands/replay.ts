/** `spinup replay [PATH|GLOB...]`: regression-test the packs against captured logs. */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EXIT } from '../../core/exit-codes.js';
import { discoverFixtures, type FixtureGroup, type FixturePair } from '../../replay/discover.js';
import { runGroupCase } from '../../replay/run-group-case.js';
import { loadPacks } from '../../replay/load-families.js';
import { runCase, type CaseResult } from '../../replay/run-case.js';
import { ExpectationError } from '../../replay/expectation.js';
import { replayReporter, type ReplayFormat } from '../reporters/replay-reporters.js';
import { InputError, UsageError } from '../errors.js';
import { write, type Io } from '../io-context.js';
import { durationOption, packRefOption } from '../options.js';
import { replayHistoryHelp, replayMemory } from '../replay-history-flags.js';
import type { ReplayMemory } from '../../replay/replay-memory.js';
import { parseOptions } from '../parse-options.js';

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
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    write(io.stdout, `${replayHelp}\n`);
    return EXIT.ok;
  }
  for (const ref of values.pack ?? []) packRefOption(ref);
  if (values.record !== undefined) {
    if (positionals.length > 0 || values.coverage || values.format || values.output) throw new UsageError('--record takes one LOG and no other replay options');
    return record({ log: values.record, family: values.family, thenIdle: values['then-idle'], force: values.force, packRefs: values.pack }, io);
  }
  for (const name of ['family', 'then-idle', 'force'] as const) {
    if (values[name] !== undefined) throw new UsageError(`--${name} only applies with --record`);
  }
  const format = formatOption(values.format, values.json);
  if (values.output !== undefined && format !== 'junit') throw new UsageError('--output only applies with --format junit');

  const targets = positionals.length > 0 ? positionals : ['fixtures'];
  const { pairs, groups, missing } = discoverFixtures(targets, io.cwd);
  if (missing.length > 0) throw new InputError(`no such file, directory or match: ${missing.join(', ')}`);
  if (pairs.length === 0 && groups.length === 0) throw new InputError(`no fixtures found in ${targets.join(', ')} (a fixture is NAME.log beside NAME.expect.yaml)`);
  const packs = loadPacks(values.pack);
  const memory = replayMemory(io, values);
  const timed = [...pairs.map((pair) => runTimed(pair, packs, memory)), ...groups.map((group) => runGroupTimed(group, packs))];
  for (const line of memory?.summary() ?? []) write(io.stderr, `spinup replay: ${line}\n`);
  const results = timed.map((t) => t.result);
  const passed = results.filter((r) => r.pass).length;
  const failed = results.length - passed;

  const reporter = replayReporter({ format, io, output: values.output });
  reporter.cases(timed);
  if (values.coverage && reporter.showsCoverage) {
    const { measureCoverage } = await import('../../replay/coverage.js');
    // The node logs of a group are exercised like any log (with the group's expectation).
    const nodePairs = groups.flatMap((group) => group.nodes.map((node) => ({ log: node.log, expect: group.expect })));
    const inferencePacks = loadPacks(values.pack, { withoutCauseRules: 'all' });
    reporter.coverage(measureCoverage({ pairs: [...pairs, ...nodePairs], packs, packRefs: values.pack, inferencePacks, cwd: io.cwd }));
  }
  reporter.finish({ passed, failed, total: results.length });
  return failed === 0 ? EXIT.ok : EXIT.failed;
}

function formatOption(value: string | undefined, json: boolean | undefined): Format {
  if (value === undefined) return json ? 'json' : 'text';
  if (!(FORMATS as readonly string[]).includes(value)) throw new UsageError(`--format wants one of ${FORMATS.join(', ')}, not "${value}"`);
  if (json && value !== 'json') throw new UsageError(`--json and --format ${value} disagree; pick one`);
  return value as Format;
}

function runTimed(pair: FixturePair, packs: ReturnType<typeof loadPacks>, memory?: ReplayMemory): { result: CaseResult; seconds: number } {
  const start = performance.now();
  try {
    const result = memory ? memory.runCase(pair, { packs }) : runCase(pair, { packs });
    return { result, seconds: (performance.now() - start) / 1000 };
  } catch (error) {
    if (error instanceof ExpectationError) throw new UsageError(error.message);
    throw error;
  }
}

function runGroupTimed(group: FixtureGroup, packs: ReturnType<typeof loadPacks>): { result: CaseResult; seconds: number } {
  const start = performance.now();
  try {
    return { result: runGroupCase(group, { packs }), seconds: (performance.now() - start) / 1000 };
  } catch (error) {
    if (error instanceof ExpectationError) throw new UsageError(error.message);
    throw error;
  }
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
