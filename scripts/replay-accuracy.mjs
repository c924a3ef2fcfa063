#!/usr/bin/env node
// Cause and root-cause-line accuracy from `spinup replay --json` output (stdin or a file argument).
//   npx spinup replay fixtures --json | node scripts/replay-accuracy.mjs [--list NAMES.txt]
// cause: of the cases expected to fail with a stated cause, those whose verdict is failed with a listed cause.
// evidence: of the cases expected to fail with `evidence`, those whose reported lines contain it.
// --list FILE (one fixture path fragment a line) adds a row for the cases it names and one for the others.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const listAt = args.indexOf('--list');
const listed = listAt >= 0 ? readFileSync(args.splice(listAt, 2)[1], 'utf8').split('\n').map((l) => l.replace(/\.(log|expect\.yaml)$/, '').trim()).filter(Boolean) : undefined;
const input = readFileSync(args[0] ?? 0, 'utf8');
const cases = input.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((o) => o.type === 'case');

function score(group) {
  const withCause = group.filter((c) => c.expected.verdict.includes('failed') && c.expected.cause);
  const causeRight = withCause.filter((c) => c.actual.verdict === 'failed' && c.expected.cause.includes(c.actual.cause ?? 'unknown'));
  const withEvidence = group.filter((c) => c.expected.verdict.includes('failed') && c.expected.evidence !== undefined);
  const evidenceRight = withEvidence.filter((c) => c.actual.verdict === 'failed' && c.actual.evidence.some((e) => e.text.includes(c.expected.evidence)));
  const pct = (a, b) => (b.length === 0 ? '  -  ' : `${((100 * a.length) / b.length).toFixed(1)}%`);
  return { cases: group.length, passed: group.filter((c) => c.pass).length, cause: `${causeRight.length}/${withCause.length} ${pct(causeRight, withCause)}`, evidence: `${evidenceRight.length}/${withEvidence.length} ${pct(evidenceRight, withEvidence)}` };
}

const groups = [['all', cases]];
for (const family of [...new Set(cases.map((c) => c.family))].sort()) groups.push([family, cases.filter((c) => c.family === family)]);
if (listed) {
  const inList = (c) => listed.some((name) => c.file.includes(name));
  groups.push(['listed', cases.filter(inList)], ['others', cases.filter((c) => !inList(c))]);
}
console.log('group    cases  passed  cause           evidence');
for (const [name, group] of groups) {
  const s = score(group);
  console.log(`${name.padEnd(8)} ${String(s.cases).padStart(5)}  ${String(s.passed).padStart(6)}  ${s.cause.padEnd(14)}  ${s.evidence}`);
}
