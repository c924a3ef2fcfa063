/** `spinup replay [PATH|GLOB...]`: regression-test the packs against captured logs. */
import { parseArgs } from 'node:util';
import { basename, dirname, relative } from 'node:path';
import pc from 'picocolors';
import { EXIT } from '../../core/exit-codes.js';
import { discoverFixtures } from '../../replay/discover.js';
import { loadPacks } from '../../replay/load-families.js';
import { runCase, type CaseResult } from '../../replay/run-case.js';
import { ExpectationError } from '../../replay/expectation.js';
import { verdictJson } from '../format/verdict-json.js';
import { InputError, UsageError } from '../errors.js';
import { useColor, write, type Io } from '../io-context.js';

export const replayHelp = `Usage: spinup replay [options] [PATH|GLOB...]

Replays captured startup logs (NAME.log with a sibling NAME.expect.yaml) through the
rule packs on the logs' own timestamps, and checks each verdict, stage, cause and
evidence line against the expectation. Default PATH: fixtures

Options:
  --pack NAME|FILE   use this pack (repeatable; default: the shipped sglang and vllm packs)
  --json             one JSON object per case, then a summary object
  -h, --help         show this help

Exit: 0 all passed, 1 some failed, 66 nothing to replay, 78 invalid pack.
Example: spinup replay fixtures/vllm 'fixtures/**/*oom*.log'`;

export async function replayCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { pack: { type: 'string', multiple: true }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    write(io.stdout, `${replayHelp}\n`);
    return EXIT.ok;
  }
  const targets = positionals.length > 0 ? positionals : ['fixtures'];
  const { pairs, missing } = discoverFixtures(targets, io.cwd);
  if (missing.length > 0) throw new InputError(`no such file, directory or match: ${missing.join(', ')}`);
  if (pairs.length === 0) throw new InputError(`no fixtures found in ${targets.join(', ')} (a fixture is NAME.log beside NAME.expect.yaml)`);
  const packs = loadPacks(values.pack);
  const results: CaseResult[] = [];
  for (const pair of pairs) {
    try {
      results.push(runCase(pair, { packs }));
    } catch (error) {
      if (error instanceof ExpectationError) throw new UsageError(error.message);
      throw error;
    }
  }
  const passed = results.filter((r) => r.pass).length;
  const failed = results.length - passed;
  if (values.json) {
    for (const result of results) write(io.stdout, `${JSON.stringify(caseJson(result, io.cwd))}\n`);
    write(io.stdout, `${JSON.stringify({ type: 'summary', passed, failed, total: results.length })}\n`);
  } else {
    write(io.stdout, formatTable(results, io));
  }
  write(io.stdout, `${passed} passed, ${failed} failed\n`);
  return failed === 0 ? EXIT.ok : EXIT.failed;
}

function caseJson(result: CaseResult, cwd: string): Record<string, unknown> {
  return {
    type: 'case',
    file: relative(cwd, result.log),
    pass: result.pass,
    family: result.family,
    expected: {
      verdict: result.expected.verdict,
      stage: result.expected.stage,
      cause: result.expected.cause,
      evidence: result.expected.evidence,
    },
    actual: verdictJson(result.verdict),
    mismatches: result.mismatches,
  };
}

function formatTable(results: CaseResult[], io: Io): string {
  const c = pc.createColors(useColor(io));
  const rows = results.map((r) => {
    const name = `${basename(dirname(r.log))}/${basename(r.log, '.log')}`;
    const actual = [r.verdict.verdict, r.verdict.stage, r.verdict.verdict === 'failed' ? r.verdict.cause : undefined].filter(Boolean).join(' ');
    const status = r.pass ? c.green('pass') : c.red('FAIL');
    const why = r.mismatches.map((m) => `${m.field}: expected ${m.expected}, got ${m.actual}`).join('; ');
    return { status, name, actual, why };
  });
  const width = Math.min(72, Math.max(...rows.map((r) => r.name.length)));
  return rows
    .map((r) => `${r.status}  ${r.name.padEnd(width)}  ${r.actual}${r.why ? `\n      ${c.red(r.why)}` : ''}`)
    .join('\n')
    .concat('\n');
}
