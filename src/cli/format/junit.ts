/** Replay results as JUnit XML, so CI systems show each fixture as a test (one suite per fixture directory). */
import { basename, dirname, relative } from 'node:path';
import type { CaseResult } from '../../replay/run-case.js';

export interface JunitCase {
  /** Suite: the fixture directory (`sglang`). */
  suite: string;
  /** Test name: the fixture (`04-rocm-glm5-tp8-hip-oom-load`). */
  name: string;
  file: string;
  seconds: number;
  /** Empty when the case passed. */
  mismatches: string[];
  /** What spinup said, for the log view. */
  output: string;
}

/** A replayed fixture as a testcase: mismatches become the failure, the verdict the log output. */
export function junitCase(result: Pick<CaseResult, 'log' | 'family' | 'verdict' | 'mismatches'>, seconds: number, cwd: string): JunitCase {
  const v = result.verdict;
  const output = [
    `family ${result.family}: ${[v.verdict, v.stage, v.verdict === 'failed' ? v.cause : undefined].filter(Boolean).join(' ')}`,
    v.rule ? `rule ${v.rule}` : '',
    ...v.evidence.map((e) => `line ${e.lineNo}: ${e.text}`),
  ].filter(Boolean);
  return {
    suite: basename(dirname(result.log)),
    name: basename(result.log, '.log'),
    file: relative(cwd, result.log),
    seconds,
    mismatches: result.mismatches.map((m) => `${m.field}: expected ${m.expected}, got ${m.actual}`),
    output: output.join('\n'),
  };
}

export function junitXml(cases: readonly JunitCase[], name = 'spinup replay'): string {
  const suites = new Map<string, JunitCase[]>();
  for (const c of cases) suites.set(c.suite, [...(suites.get(c.suite) ?? []), c]);
  const failures = cases.filter((c) => c.mismatches.length > 0).length;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(name)}" tests="${cases.length}" failures="${failures}" errors="0" time="${seconds(cases)}">`,
  ];
  for (const [suite, members] of suites) {
    const failed = members.filter((c) => c.mismatches.length > 0).length;
    out.push(`  <testsuite name="${attr(suite)}" tests="${members.length}" failures="${failed}" errors="0" skipped="0" time="${seconds(members)}">`);
    for (const c of members) out.push(...testcase(c));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function testcase(c: JunitCase): string[] {
  const open = `    <testcase classname="${attr(`replay.${c.suite}`)}" name="${attr(c.name)}" file="${attr(c.file)}" time="${c.seconds.toFixed(3)}">`;
  const lines = [open];
  if (c.mismatches.length > 0) {
    lines.push(`      <failure message="${attr(c.mismatches.join('; '))}" type="mismatch">${text(c.mismatches.join('\n'))}</failure>`);
  }
  lines.push(`      <system-out>${text(c.output)}</system-out>`, '    </testcase>');
  return lines;
}

function seconds(cases: readonly JunitCase[]): string {
  return cases.reduce((sum, c) => sum + c.seconds, 0).toFixed(3);
}

// XML 1.0 cannot carry most control characters (logs have ANSI escapes): drop them.
const INVALID_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g;

function text(value: string): string {
  return value.replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;');
}
