/**
 * What `replay` prints, behind one interface: a table for people, one JSON object per case, or
 * JUnit XML (to stdout, or to a file with the table beside it). Chosen once, from --format.
 */
import { writeFileSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import pc from 'picocolors';
import type { CoverageReport } from '../../replay/coverage.js';
import type { CaseResult } from '../../replay/run-case.js';
import type { GroupCaseResult } from '../../replay/run-group-case.js';
import { coverageJson, formatCoverage } from '../format/coverage-text.js';
import { junitCase, junitXml } from '../format/junit.js';
import { verdictJson } from '../format/verdict-json.js';
import { useColor, write, type Io } from '../io-context.js';

export interface TimedCase {
  result: CaseResult;
  seconds: number;
}

export interface ReplaySummary {
  passed: number;
  failed: number;
  total: number;
}

export interface ReplayReporter {
  /** False when the output has no room for coverage (JUnit XML on stdout): it is not measured. */
  readonly showsCoverage: boolean;
  cases(cases: readonly TimedCase[]): void;
  coverage(report: CoverageReport): void;
  finish(summary: ReplaySummary): void;
}

export type ReplayFormat = 'text' | 'json' | 'junit';

export function replayReporter(params: { format: ReplayFormat; io: Io; output?: string }): ReplayReporter {
  const { format, io, output } = params;
  if (format === 'json') return new JsonCasesReporter(io);
  if (format === 'junit') return output === undefined ? new JunitStdoutReporter(io) : new JunitFileReporter(io, output);
  return new TableReporter(io);
}

class TableReporter implements ReplayReporter {
  readonly showsCoverage = true;
  constructor(protected readonly io: Io) {}

  cases(cases: readonly TimedCase[]): void {
    write(this.io.stdout, formatTable(cases.map((c) => c.result), this.io));
  }

  coverage(report: CoverageReport): void {
    write(this.io.stdout, formatCoverage(report, { color: useColor(this.io) }));
  }

  finish({ passed, failed }: ReplaySummary): void {
    write(this.io.stdout, `${passed} passed, ${failed} failed\n`);
  }
}

class JsonCasesReporter extends TableReporter {
  override cases(cases: readonly TimedCase[]): void {
    for (const { result } of cases) write(this.io.stdout, `${JSON.stringify(caseJson(result, this.io.cwd))}\n`);
  }

  override coverage(report: CoverageReport): void {
    for (const object of coverageJson(report)) write(this.io.stdout, `${JSON.stringify(object)}\n`);
  }

  override finish(summary: ReplaySummary): void {
    write(this.io.stdout, `${JSON.stringify({ type: 'summary', ...summary })}\n`);
    super.finish(summary);
  }
}

/** The XML is stdout: nothing else may be printed there. */
class JunitStdoutReporter implements ReplayReporter {
  readonly showsCoverage = false;
  constructor(private readonly io: Io) {}

  cases(cases: readonly TimedCase[]): void {
    write(this.io.stdout, junitXml(cases.map((c) => junitCase(c.result, c.seconds, this.io.cwd))));
  }

  coverage(): void {}
  finish(): void {}
}

/** The XML to a file for CI, the table for the person reading the job's log. */
class JunitFileReporter extends TableReporter {
  constructor(
    io: Io,
    private readonly output: string,
  ) {
    super(io);
  }

  override cases(cases: readonly TimedCase[]): void {
    writeFileSync(resolve(this.io.cwd, this.output), junitXml(cases.map((c) => junitCase(c.result, c.seconds, this.io.cwd))));
    super.cases(cases);
  }

  override finish(summary: ReplaySummary): void {
    write(this.io.stdout, `JUnit XML written to ${this.output}\n`);
    super.finish(summary);
  }
}

/** `sglang/04-rocm-glm5-tp8-hip-oom-load`: how the table and `fixtures:` entries name a fixture. */
function fixtureName(log: string): string {
  return `${basename(dirname(log))}/${log.endsWith('.group') ? basename(log) : basename(log, '.log')}`;
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
      node: result.expected.node,
    },
    actual: verdictJson(result.verdict, 'group' in result ? { node: (result as GroupCaseResult).group.node } : {}),
    mismatches: result.mismatches,
  };
}

function formatTable(results: CaseResult[], io: Io): string {
  const c = pc.createColors(useColor(io));
  const rows = results.map((r) => {
    const name = fixtureName(r.log);
    const node = 'group' in r ? (r as GroupCaseResult).group.node : undefined;
    const actual = [r.verdict.verdict, r.verdict.stage, r.verdict.verdict === 'failed' ? r.verdict.cause : undefined, node !== undefined ? `node ${node}` : undefined].filter(Boolean).join(' ');
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
