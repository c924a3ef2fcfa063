/**
 * What `replay` prints, behind one interface: a table for people, one JSON object per case, or
 * JUnit XML (to stdout, or to a file with the table beside it). Chosen once, from --format.
 * Cases arrive one by one, in discovery order, and are printed as they come; only what the end
 * needs is kept (JUnit's testcases, which its header counts).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { basename, dirname, relative, resolve } from 'node:path';
import pc from 'picocolors';
import type { CoverageReport } from '../../replay/coverage.js';
import type { ReplayedCase } from '../../replay/replay-case.js';
import { coverageJson, formatCoverage } from '../format/coverage-text.js';
import { junitCase, junitXml, type JunitCase } from '../format/junit.js';
import { verdictJson } from '../format/verdict-json.js';
import { useColor, write, type Io } from '../io-context.js';
import { shownText } from '../format/shown-text.js';

export interface ReplaySummary {
  passed: number;
  failed: number;
  total: number;
}

export interface ReplayReporter {
  /** False when the output has no room for coverage (JUnit XML on stdout): it is not measured. */
  readonly showsCoverage: boolean;
  case(replayed: ReplayedCase): void;
  /** Every case was given. */
  casesDone(): void;
  coverage(report: CoverageReport): void;
  finish(summary: ReplaySummary): void;
  /** Writes out the rows held back (`CaseRows`); called however the replay ends. */
  flush(): void;
}

export type ReplayFormat = 'text' | 'json' | 'junit';

export interface ReplayReporterParams {
  format: ReplayFormat;
  io: Io;
  output?: string;
  /** Every case's log (a group: its folder), known before any is replayed: the table's width. */
  logs: readonly string[];
}

export function replayReporter(params: ReplayReporterParams): ReplayReporter {
  const { format, io, output, logs } = params;
  if (format === 'json') return new JsonCasesReporter(io, logs);
  if (format === 'junit') return output === undefined ? new JunitStdoutReporter(io) : new JunitFileReporter(io, logs, output);
  return new TableReporter(io, logs);
}

/**
 * The per-case rows on their way to stdout. A terminal gets each row as its case is done; a pipe
 * or a file gets them in batches (the same bytes, in the same order): a replay of 10,000 logs
 * into a pipe spent 8% of its time in one write(2) per row. A batch is written when it is large,
 * or when a row joins it a second or more after its first: a slow replay piped to `tee` shows its
 * rows at most a second (or one slow case) late, and all of them before anything else it says.
 */
class CaseRows {
  private pending = '';
  private since = 0;
  private readonly live: boolean;

  constructor(private readonly stdout: Io['stdout']) {
    this.live = Boolean(stdout.isTTY);
  }

  add(text: string): void {
    if (this.live) return write(this.stdout, text);
    if (this.pending === '') this.since = performance.now();
    this.pending += text;
    if (this.pending.length >= BATCH_CHARS || performance.now() - this.since >= BATCH_MS) this.flush();
  }

  flush(): void {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    write(this.stdout, text);
  }
}

const BATCH_CHARS = 32 * 1024;
const BATCH_MS = 1000;

class TableReporter implements ReplayReporter {
  readonly showsCoverage: boolean = true;
  private readonly width: number;
  private readonly colors: ReturnType<typeof pc.createColors>;
  protected readonly rows: CaseRows;

  constructor(
    protected readonly io: Io,
    logs: readonly string[],
  ) {
    this.width = Math.min(72, Math.max(...logs.map((log) => fixtureName(log).length)));
    this.colors = pc.createColors(useColor(io));
    this.rows = new CaseRows(io.stdout);
  }

  case(replayed: ReplayedCase): void {
    this.rows.add(tableRow(replayed, this.width, this.colors));
  }

  casesDone(): void {
    this.rows.flush();
  }

  flush(): void {
    this.rows.flush();
  }

  coverage(report: CoverageReport): void {
    write(this.io.stdout, formatCoverage(report, { color: useColor(this.io) }));
  }

  finish({ passed, failed }: ReplaySummary): void {
    write(this.io.stdout, `${passed} passed, ${failed} failed\n`);
  }
}

class JsonCasesReporter extends TableReporter {
  override case(replayed: ReplayedCase): void {
    this.rows.add(`${JSON.stringify(caseJson(replayed, this.io.cwd))}\n`);
  }

  override coverage(report: CoverageReport): void {
    for (const object of coverageJson(report)) write(this.io.stdout, `${JSON.stringify(object)}\n`);
  }

  /** The summary as an object and nothing after it: every line of `--json` is JSON (`| jq` reads it all). */
  override finish(summary: ReplaySummary): void {
    write(this.io.stdout, `${JSON.stringify({ type: 'summary', ...summary })}\n`);
  }
}

/** The XML is stdout: nothing else may be printed there. */
class JunitStdoutReporter implements ReplayReporter {
  readonly showsCoverage = false;
  private readonly cases: JunitCase[] = [];
  constructor(private readonly io: Io) {}

  case(replayed: ReplayedCase): void {
    this.cases.push(junitCase(replayed, replayed.seconds, this.io.cwd));
  }

  casesDone(): void {
    write(this.io.stdout, junitXml(this.cases));
  }

  coverage(): void {}
  finish(): void {}
  flush(): void {}
}

/** The XML to a file for CI, the table for the person reading the job's log. */
class JunitFileReporter extends TableReporter {
  private readonly cases: JunitCase[] = [];

  constructor(
    io: Io,
    logs: readonly string[],
    private readonly output: string,
  ) {
    super(io, logs);
  }

  override case(replayed: ReplayedCase): void {
    this.cases.push(junitCase(replayed, replayed.seconds, this.io.cwd));
    super.case(replayed);
  }

  override casesDone(): void {
    super.casesDone();
    writeFileSync(resolve(this.io.cwd, this.output), junitXml(this.cases));
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

function caseJson(replayed: ReplayedCase, cwd: string): Record<string, unknown> {
  const { expected } = replayed;
  return {
    type: 'case',
    file: relative(cwd, replayed.log),
    pass: replayed.pass,
    family: replayed.family,
    expected: {
      verdict: expected.verdict,
      stage: expected.stage,
      cause: expected.cause,
      evidence: expected.evidence,
      node: expected.node,
    },
    actual: verdictJson(replayed.verdict, replayed.node !== undefined ? { node: replayed.node } : {}),
    mismatches: replayed.mismatches,
  };
}

function tableRow(r: ReplayedCase, width: number, c: ReturnType<typeof pc.createColors>): string {
  const actual = [r.verdict.verdict, r.verdict.stage, r.verdict.verdict === 'failed' ? r.verdict.cause : undefined, r.node !== undefined ? `node ${r.node}` : undefined]
    .filter(Boolean)
    .join(' ');
  const status = r.pass ? c.green('pass') : c.red('FAIL');
  const why = shownText(r.mismatches.map((m) => `${m.field}: expected ${m.expected}, got ${m.actual}`).join('; '));
  return `${status}  ${fixtureName(r.log).padEnd(width)}  ${actual}${why ? `\n      ${c.red(why)}` : ''}\n`;
}
