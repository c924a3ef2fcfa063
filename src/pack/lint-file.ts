/** Checks that need one pack file only: patterns, placeholders, stages, provenance. */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FailureRuleSource } from '../core/pack-types.js';
import { breadcrumb, type Diagnostic, type Severity } from './diagnostic.js';
import type { PackFile } from './load-pack.js';
import { packRules, rulePatterns, type RuleEntry } from './pack-rules.js';
import { scalarOffset } from './scalar-offset.js';
import { nodeAt, position, positionOf } from './yaml-source.js';

type CheckPattern = typeof import('./regex-check.js').checkPattern;

export interface FileLintContext {
  checkPattern: CheckPattern;
  groupNames: (pattern: string) => Set<string> | undefined;
  /** Where `fixtures:` entries live; undefined skips that check (no fixture corpus installed). */
  fixturesDir?: string;
  cwd: string;
}

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

export function lintFile(file: PackFile, context: FileLintContext): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = (path: (string | number)[], severity: Severity, code: string, message: string, index?: number): void => {
    const { node } = nodeAt(file.source, path);
    const pos = index === undefined ? positionOf(file.source, path) : position(file.source, scalarOffset(file.source.text, node, index));
    diagnostics.push({ file: file.source.file, ...pos, severity, code, message, path: breadcrumb(path) });
  };
  for (const entry of packRules(file.data)) {
    checkPatterns(entry, context, report);
    if (entry.kind === 'failure') {
      checkPlaceholders(entry, context, report);
      checkProvenance(entry, report);
    }
    checkFixtures(entry, context, report);
    if (!entry.rule.id.startsWith(`${file.data.pack}/`)) {
      report([...entry.path, 'id'], 'warning', 'pack/id-prefix', `Rule id "${entry.rule.id}" should start with "${file.data.pack}/", the name of the pack that defines it.`);
    }
  }
  checkStages(file, report);
  return diagnostics;
}

type Report = (path: (string | number)[], severity: Severity, code: string, message: string, index?: number) => void;

function checkPatterns(entry: RuleEntry, context: FileLintContext, report: Report): void {
  for (const pattern of rulePatterns(entry)) {
    for (const problem of context.checkPattern(pattern.source, { ignoreCase: entry.rule.ignore_case })) {
      report(pattern.path, 'error', problem.code, `Rule ${entry.rule.id} ${pattern.field}: ${problem.message}.`.replace(/\.\.$/, '.'), problem.offset);
    }
  }
}

function checkPlaceholders(entry: RuleEntry, context: FileLintContext, report: Report): void {
  const rule = entry.rule as FailureRuleSource;
  const groups = context.groupNames(rule.pattern);
  if (!groups) return; // the pattern itself is broken; that is reported already
  for (const field of ['message', 'hint'] as const) {
    const text = rule[field];
    if (typeof text !== 'string') continue;
    for (const match of text.matchAll(PLACEHOLDER)) {
      const name = match[1]!;
      if (groups.has(name)) continue;
      const known = groups.size > 0 ? ` (its groups: ${[...groups].join(', ')})` : '';
      report(
        [...entry.path, field],
        'error',
        'pack/unknown-placeholder',
        `Placeholder {{${name}}} in the ${field} of ${rule.id} has no named group "${name}" in the pattern${known}. Add (?<${name}>...) to the pattern, or remove the placeholder.`,
        match.index,
      );
    }
  }
}

function checkProvenance(entry: RuleEntry, report: Report): void {
  const { fixtures, source, untested } = entry.rule;
  if ((fixtures ?? []).length > 0 || nonBlank(source) || nonBlank(untested)) return;
  report(
    entry.path,
    'warning',
    'pack/no-provenance',
    `Failure rule ${entry.rule.id} has no provenance. Add fixtures: (logs that show it), source: (where upstream prints it) or untested: (why no fixture shows it yet).`,
  );
}

function checkFixtures(entry: RuleEntry, context: FileLintContext, report: Report): void {
  if (context.fixturesDir === undefined) return;
  const dir = context.fixturesDir;
  (entry.rule.fixtures ?? []).forEach((name, index) => {
    if (fixtureExists(dir, name)) return;
    const shown = relative(context.cwd, join(dir, name.endsWith('.log') ? name : `${name}.log`)) || name;
    report([...entry.path, 'fixtures', index], 'error', 'pack/missing-fixture', `Fixture "${name}" of ${entry.rule.id} does not exist (looked for ${shown}). Name a fixture as DIR/NAME under fixtures/, without .log.`);
  });
}

/** `sglang/04-rocm-glm5-tp8-hip-oom-load`, with or without `.log`. */
export function fixtureExists(dir: string, name: string): boolean {
  if (name.includes('..')) return false;
  return existsSync(join(dir, name.endsWith('.log') ? name : `${name}.log`));
}

function checkStages(file: PackFile, report: Report): void {
  const first = new Map<string, number>();
  (file.data.stages ?? []).forEach((stage, index) => {
    if (stage.markers.length === 0) {
      report(['stages', index, 'markers'], 'error', 'pack/no-markers', `Stage "${stage.stage}" (stages[${index}]) has no markers, so no line can enter it. Add a marker rule, or remove the stage.`);
    }
    const earlier = first.get(stage.stage);
    if (earlier === undefined) first.set(stage.stage, index);
    else report(['stages', index, 'stage'], 'error', 'pack/duplicate-stage', `Stage "${stage.stage}" is listed twice (stages[${earlier}] and stages[${index}]). Merge their markers into one entry.`);
  });
}

function nonBlank(text: string | undefined): boolean {
  return typeof text === 'string' && text.trim() !== '';
}
