/**
 * Coverage for rule owners: which rules no replayed fixture exercises (a rule is exercised
 * when it matched a line the classifier read), and which alarming lines no rule claimed.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative } from 'node:path';
import type { CompiledPack, PackSource, RuleKind } from '../core/pack-types.js';
import { FAMILIES, readPackWithIncludes, resolvePackRef, type PackFile } from '../pack/load-pack.js';
import { ruleKind } from '../core/rule-kinds.js';
import { packRules } from '../pack/pack-rules.js';
import { positionOf } from '../pack/yaml-source.js';
import type { FixturePair } from './discover.js';
import { traceLog, type LogTrace } from './explain-driver.js';
import { readExpectation, type Expectation } from './expectation.js';
import { frameHits } from './frame-hits.js';

export interface RuleInfo {
  id: string;
  kind: RuleKind;
  /** `rules/sglang.yaml:57:9`. */
  where: string;
  untested?: string;
  fixtures?: string[];
}

export interface UnclaimedLine {
  lineNo: number;
  text: string;
  /** Lines alike but for their numbers (one per rank) are counted, not repeated. */
  count: number;
}

export interface FixtureCoverage {
  /** Fixture name as `fixtures:` entries write it: `sglang/04-rocm-glm5-tp8-hip-oom-load`. */
  name: string;
  exercised: Set<string>;
  unclaimed: UnclaimedLine[];
}

export interface CoverageReport {
  rules: RuleInfo[];
  exercised: RuleInfo[];
  /** Neither exercised nor explained: the gaps. */
  never: RuleInfo[];
  /** Not exercised, with the pack's reason. */
  untested: RuleInfo[];
  /** Exercised although the pack says untested: the reason is out of date. */
  staleUntested: RuleInfo[];
  /** `fixtures:` entries that were replayed but did not exercise their rule. */
  staleFixtures: { rule: RuleInfo; fixtures: string[] }[];
  fixtures: FixtureCoverage[];
}

/** Rules of the packs (family files and their includes), each once, in file order. */
export function ruleInfos(files: readonly PackFile[]): RuleInfo[] {
  const seen = new Set<string>();
  const infos: RuleInfo[] = [];
  for (const file of files) {
    for (const entry of packRules(file.data as PackSource)) {
      // Launch commands and argument dumps are no line rules: fixtures cannot exercise them.
      if (!ruleKind(entry.kind).classifies || seen.has(entry.rule.id)) continue;
      seen.add(entry.rule.id);
      const pos = positionOf(file.source, [...entry.path, 'id']);
      const info: RuleInfo = { id: entry.rule.id, kind: entry.kind, where: `${file.source.file}:${pos.line}:${pos.column}` };
      if (entry.rule.untested?.trim()) info.untested = entry.rule.untested.trim();
      if (entry.rule.fixtures?.length) info.fixtures = entry.rule.fixtures;
      infos.push(info);
    }
  }
  return infos;
}

const ERROR_LEVELS = new Set(['ERROR', 'CRITICAL', 'FATAL', 'E', 'F']);
const EXCEPTION_LINE = /^\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)\b(?::|$)/;
const ALARM_WORDS = /\b(?:error|failed|fatal)\b/i;
/** A C++ backtrace frame (`frame #0: c10::Error::Error(...)`): part of a trace, like a Python `File` line. */
const CPP_FRAME = /^\s*frame #\d+:/;
const MAX_UNCLAIMED = 200;

export function fixtureCoverage(name: string, trace: LogTrace): FixtureCoverage {
  const exercised = new Set<string>();
  const unclaimed = new Map<string, UnclaimedLine>();
  for (const line of trace.lines) {
    for (const frame of line.frames) {
      for (const id of frame.prefixes) exercised.add(id);
      for (const rule of trace.pack.detect) if (rule.regex.test(frame.match.frame.text)) exercised.add(rule.id);
      // Source lines of a traceback quote messages; the classifier does not read them.
      if (frame.role === 'code') continue;
      const hits = frameHits(frame, trace.pack, line.events).filter((hit) => hit.kind !== 'exception');
      for (const hit of hits) exercised.add(hit.rule);
      // After the verdict come the wrappers and the other ranks' copies; the cause was before.
      if (hits.length === 0 && !frame.afterVerdict && looksAlarming(frame.match.frame.body, frame.match.frame.level, frame.role)) {
        const key = frame.match.frame.body.trim().replace(/0x[0-9a-f]+/gi, '0x').replace(/\d+/g, '0');
        const known = unclaimed.get(key);
        if (known) known.count++;
        else if (unclaimed.size < MAX_UNCLAIMED) unclaimed.set(key, { lineNo: line.lineNo, text: frame.match.frame.text, count: 1 });
      }
    }
  }
  return { name, exercised, unclaimed: [...unclaimed.values()] };
}

/** An ERROR-level line, a Python exception line, or the words error / failed / fatal. */
export function looksAlarming(body: string, level: string | undefined, role: string): boolean {
  if (body.trim() === '' || role === 'start' || CPP_FRAME.test(body)) return false;
  return (level !== undefined && ERROR_LEVELS.has(level)) || role === 'exception' || EXCEPTION_LINE.test(body) || ALARM_WORDS.test(body);
}

export function coverageReport(rules: RuleInfo[], fixtures: FixtureCoverage[]): CoverageReport {
  const hit = new Set(fixtures.flatMap((f) => [...f.exercised]));
  const byName = new Map(fixtures.map((f) => [f.name, f]));
  const staleFixtures: CoverageReport['staleFixtures'] = [];
  for (const rule of rules) {
    const replayed = (rule.fixtures ?? []).map((name) => name.replace(/\.log$/, '')).filter((name) => byName.has(name));
    const missed = replayed.filter((name) => !byName.get(name)!.exercised.has(rule.id));
    if (missed.length > 0 && missed.length === replayed.length) staleFixtures.push({ rule, fixtures: missed });
  }
  return {
    rules,
    exercised: rules.filter((r) => hit.has(r.id)),
    never: rules.filter((r) => !hit.has(r.id) && r.untested === undefined),
    untested: rules.filter((r) => !hit.has(r.id) && r.untested !== undefined),
    staleUntested: rules.filter((r) => hit.has(r.id) && r.untested !== undefined),
    staleFixtures,
    fixtures,
  };
}

export interface MeasureOptions {
  pairs: readonly FixturePair[];
  packs: readonly CompiledPack[];
  /** The refs the packs were loaded from (default: the shipped families). */
  packRefs?: readonly string[];
  /** The same packs compiled with `withoutCauseRules: 'all'`: what exercises the inference tables. */
  inferencePacks?: readonly CompiledPack[];
  cwd: string;
}

/** Replays every fixture once more, watching each frame, and weighs the rules of the packs. */
export function measureCoverage(options: MeasureOptions): CoverageReport {
  const fixtures = options.pairs.map((pair) =>
    logCoverage({ log: pair.log, expected: readExpectation(pair.expect), packs: options.packs, inferencePacks: options.inferencePacks }),
  );
  return weighCoverage(fixtures, options);
}

/** The rules of the packs weighed against the fixtures' coverage (`logCoverage` of each log). */
export function weighCoverage(fixtures: FixtureCoverage[], options: { packRefs?: readonly string[]; cwd: string }): CoverageReport {
  const display = (file: string): string => {
    const shown = relative(options.cwd, file);
    return shown.startsWith('..') || isAbsolute(shown) ? file : shown;
  };
  const files = (options.packRefs ?? FAMILIES).flatMap((ref) => readPackWithIncludes(resolvePackRef(ref), display).files);
  return coverageReport(ruleInfos(files), fixtures);
}

export interface LogCoverageOptions {
  log: string;
  /** The fixture's expectation (a group's node log: the group's). */
  expected: Expectation;
  packs: readonly CompiledPack[];
  /** The same packs compiled with `withoutCauseRules: 'all'`: what exercises the inference tables. */
  inferencePacks?: readonly CompiledPack[];
}

/** One log traced frame by frame: the rules it exercises and the alarming lines no rule claimed. */
export function logCoverage(options: LogCoverageOptions): FixtureCoverage {
  const { log, expected } = options;
  const text = readFileSync(log, 'utf8');
  const trace = (packs: readonly CompiledPack[]): LogTrace => traceLog(text, { packs, family: expected.family, thenIdleMs: expected.thenIdleMs });
  const coverage = fixtureCoverage(fixtureName(log), trace(options.packs));
  // The inference tables speak only for exceptions no rule names. Replayed once more with the
  // rules that name causes left out (the generalisation check), every exception is theirs.
  if (options.inferencePacks) {
    const inferred = fixtureCoverage(fixtureName(log), trace(options.inferencePacks));
    for (const id of inferred.exercised) if (INFERENCE_KINDS.has(kindOf(options.inferencePacks, id))) coverage.exercised.add(id);
  }
  return coverage;
}

const INFERENCE_KINDS = new Set<RuleKind | undefined>(['inference', 'remedy', 'symptom']);

function kindOf(packs: readonly CompiledPack[], id: string): RuleKind | undefined {
  for (const pack of packs) {
    const rule = pack.allRules.find((r) => r.id === id);
    if (rule) return rule.kind;
  }
  return undefined;
}

/** `sglang/04-rocm-glm5-tp8-hip-oom-load`: how `fixtures:` entries and the replay table name a fixture. */
export function fixtureName(log: string): string {
  return `${basename(dirname(log))}/${basename(log, '.log')}`;
}
