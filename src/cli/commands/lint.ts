/** `spinup lint [PACK...]`: validate rule packs and say where each problem is. */
import pc from 'picocolors';
import { EXIT } from '../../core/exit-codes.js';
import type { Diagnostic } from '../../pack/diagnostic.js';
import { lintPacks, type LintResult } from '../../pack/lint-packs.js';
import { useColor, write, type Io } from '../io-context.js';
import { parseOptions } from '../parse-options.js';

export const lintHelp = `Usage: spinup lint [options] [PACK...]

Validates rule packs: YAML syntax; the schema (unknown keys with a did-you-mean, missing
keys, wrong types, unknown causes and stages, bad ids, unparsable durations); every
pattern (regex syntax, backreferences, lookbehind, super-linear backtracking, patterns
that match the empty string), with the column inside the YAML string; duplicate ids
across a pack and its includes; {{placeholders}} without a named group; stages with no
marker; rules that name a stage the family does not list; missing includes; and
provenance: a failure rule should say which fixtures, upstream source or 'untested:'
reason justify it, and every 'fixtures:' entry must exist.

PACK is a shipped pack name (sglang, vllm, common) or a pack file.
Default: the shipped sglang and vllm packs and the common pack they include.

Options:
  --fixtures DIR   where 'fixtures:' entries live (default: ./fixtures, else the installation's)
  --json           one JSON object per diagnostic, then a summary object
  -h, --help       show this help

Exit: 0 no errors (warnings are printed but allowed) · 78 errors found.
Example: spinup lint rules/sglang.yaml my-pack.yaml`;

export async function lintCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: { fixtures: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    write(io.stdout, `${lintHelp}\n`);
    return EXIT.ok;
  }
  const result = await lintPacks({ refs: positionals, cwd: io.cwd, fixturesDir: values.fixtures });
  if (values.json) {
    for (const d of result.diagnostics) write(io.stdout, `${JSON.stringify({ type: 'diagnostic', ...d })}\n`);
    write(io.stdout, `${JSON.stringify({ type: 'summary', files: result.files, errors: result.errors, warnings: result.warnings })}\n`);
  } else {
    const c = pc.createColors(useColor(io));
    for (const d of result.diagnostics) write(io.stdout, `${formatColored(d, c)}\n`);
    write(io.stdout, `${summary(result)}\n`);
  }
  return result.errors > 0 ? EXIT.badPack : EXIT.ok;
}

function formatColored(d: Diagnostic, c: ReturnType<typeof pc.createColors>): string {
  const severity = d.severity === 'error' ? c.red(d.severity) : c.yellow(d.severity);
  return `${c.bold(`${d.file}:${d.line}:${d.column}`)} ${severity} ${c.dim(d.code)} ${d.message}`;
}

export function summary(result: LintResult): string {
  const files = `${result.files.length} file${result.files.length === 1 ? '' : 's'}`;
  if (result.errors === 0 && result.warnings === 0) return `${files} checked: no problems`;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${files} checked: ${plural(result.errors, 'error')}, ${plural(result.warnings, 'warning')}`;
}
