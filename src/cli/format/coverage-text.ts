/** The `replay --coverage` report: rules no fixture exercises, and alarming lines no rule claimed. */
import pc from 'picocolors';
import type { CoverageReport, RuleInfo } from '../../replay/coverage.js';
import { clip } from './shown-text.js';

/** Per fixture, the unclaimed lines shown; the rest are counted (`spinup explain` shows them all). */
const MAX_LINES_PER_FIXTURE = 8;

export function formatCoverage(report: CoverageReport, options: { color: boolean }): string {
  const c = pc.createColors(options.color);
  const out: string[] = [''];
  out.push(
    c.bold(`Coverage: ${report.exercised.length} of ${report.rules.length} rules exercised by ${report.fixtures.length} fixture logs`) +
      `; ${report.untested.length} untested with a reason; ${report.never.length} never exercised`,
  );
  section(out, c.red('Never exercised (add a fixture, or say why in the pack with untested:):'), report.never, (r) => `  ${r.where}  ${c.bold(r.id)} (${r.kind})`);
  section(out, 'Untested, with the pack\'s reason:', report.untested, (r) => `  ${r.id.padEnd(width(report.untested))}  ${c.dim(r.untested ?? '')}`);
  section(out, c.yellow('Exercised although marked untested (replace untested: with fixtures:):'), report.staleUntested, (r) => `  ${r.where}  ${r.id}`);
  section(out, c.yellow('fixtures: entries that do not exercise their rule:'), report.staleFixtures, (s) => `  ${s.rule.where}  ${s.rule.id}: ${s.fixtures.join(', ')}`);
  const withLines = report.fixtures.filter((f) => f.unclaimed.length > 0);
  out.push('', `Error-like lines no rule claimed (${withLines.length} of ${report.fixtures.length} fixture logs):`);
  if (withLines.length === 0) out.push('  none');
  for (const fixture of withLines) {
    out.push(`  ${c.bold(fixture.name)}`);
    for (const line of fixture.unclaimed.slice(0, MAX_LINES_PER_FIXTURE)) {
      const count = line.count > 1 ? c.dim(` (x${line.count})`) : '';
      out.push(`    ${c.dim(`line ${line.lineNo}:`)} ${clip(line.text.trim(), 160)}${count}`);
    }
    const more = fixture.unclaimed.length - MAX_LINES_PER_FIXTURE;
    if (more > 0) out.push(c.dim(`    ... ${more} more (spinup explain shows every line)`));
  }
  return `${out.join('\n')}\n`;
}

function section<T>(out: string[], title: string, items: readonly T[], row: (item: T) => string): void {
  if (items.length === 0) return;
  out.push('', title, ...items.map(row));
}

function width(rules: readonly RuleInfo[]): number {
  return Math.max(0, ...rules.map((r) => r.id.length));
}

/** One JSON object per rule and per unclaimed line, then the coverage summary. */
export function coverageJson(report: CoverageReport): Record<string, unknown>[] {
  const status = (r: RuleInfo): string => (report.exercised.includes(r) ? 'exercised' : r.untested !== undefined ? 'untested' : 'never');
  return [
    ...report.rules.map((r) => ({
      type: 'coverage_rule',
      id: r.id,
      kind: r.kind,
      where: r.where,
      status: status(r),
      untested: r.untested,
      exercised_by: report.fixtures.filter((f) => f.exercised.has(r.id)).map((f) => f.name),
    })),
    ...report.fixtures.flatMap((f) => f.unclaimed.map((l) => ({ type: 'unclaimed_line', fixture: f.name, line: l.lineNo, text: l.text, count: l.count }))),
    {
      type: 'coverage',
      rules: report.rules.length,
      exercised: report.exercised.length,
      untested: report.untested.map((r) => r.id),
      never: report.never.map((r) => r.id),
      stale_untested: report.staleUntested.map((r) => r.id),
      stale_fixtures: report.staleFixtures.map((s) => ({ rule: s.rule.id, fixtures: s.fixtures })),
    },
  ];
}
