/**
 * The conformance suite: every catalog entry, as cases.ts builds it, replayed through the packs;
 * rates by layer and kind, the thresholds they must meet, and every miss with its entry id.
 */
import type { Verdict } from '../core/events.js';
import { stripAnsi } from '../core/line-guard.js';
import type { CompiledPack } from '../core/pack-types.js';
import { classifyText } from '../replay/run-case.js';
import { CATALOG_LAYERS, type CatalogEntry, type CatalogLayer } from './catalog.js';
import { casesFor, type CaseCheck, type ConformanceCase } from './cases.js';
import type { Host } from './hosts.js';

/** What each rate is, and the least it must be (issue 24's "done when"). */
export const RATES = [
  { id: 'fatal-cause', kind: 'fatal', what: 'fatal entries: FAILED with their cause (plain and wrapped)', min: 0.95 },
  { id: 'fatal-root-line', kind: 'fatal', what: 'fatal entries: the example is a root-cause line', min: 0.9 },
  { id: 'survivable-unchanged', kind: 'survivable', what: 'survivable entries: every injection changes nothing', min: 1 },
  { id: 'symptom-keeps-root', kind: 'symptom', what: 'symptoms: the real fatal line stays the root cause', min: 0.95 },
  { id: 'follows-alone-unchanged', kind: 'fatal_if_exception_follows', what: 'fatal if an exception follows: alone, nothing changes', min: 1 },
  { id: 'follows-cause', kind: 'fatal_if_exception_follows', what: 'fatal if an exception follows: then FAILED with its cause', min: 0 },
] as const;

export type RateId = (typeof RATES)[number]['id'];

export interface Miss {
  entry: string;
  layer: CatalogLayer;
  rate: RateId;
  variant: string;
  host: string;
  /** What spinup said instead. */
  got: string;
}

export interface Rate {
  rate: RateId;
  layer: CatalogLayer;
  passed: number;
  total: number;
}

export interface ConformanceReport {
  rates: Rate[];
  misses: Miss[];
}

export function runConformance(entries: readonly CatalogEntry[], hosts: readonly Host[], packs: readonly CompiledPack[]): ConformanceReport {
  const tally = new Map<string, Rate>();
  const misses: Miss[] = [];
  const count = (rate: RateId, layer: CatalogLayer, ok: boolean): void => {
    const key = `${rate}|${layer}`;
    const r = tally.get(key) ?? { rate, layer, passed: 0, total: 0 };
    r.total++;
    if (ok) r.passed++;
    tally.set(key, r);
  };
  entries.forEach((entry, index) => {
    const results = casesFor(entry, hosts, index).map((c) => ({ c, verdict: classifyText(c.text, { packs, family: c.host.split('/')[0] }).verdict }));
    for (const [rate, judged] of judge(entry, results)) {
      count(rate, entry.layer, judged === undefined);
      if (judged) misses.push({ entry: entry.id, layer: entry.layer, rate, ...judged });
    }
  });
  const rates = RATES.flatMap((r) => CATALOG_LAYERS.map((layer) => tally.get(`${r.id}|${layer}`)).filter((x): x is Rate => x !== undefined));
  return { rates, misses };
}

type Judged = { variant: string; host: string; got: string } | undefined;

/** Each rate an entry counts in, and its first failing case (undefined: every case passed). */
function judge(entry: CatalogEntry, results: { c: ConformanceCase; verdict: Verdict }[]): [RateId, Judged][] {
  const first = (filter: (c: ConformanceCase) => boolean, test: (check: CaseCheck, v: Verdict) => boolean): Judged => {
    const bad = results.find(({ c, verdict }) => filter(c) && !test(c.check, verdict));
    return bad && { variant: bad.c.variant, host: bad.c.host, got: describe(bad.verdict) };
  };
  const all = (): boolean => true;
  switch (entry.kind) {
    case 'fatal':
      return [
        ['fatal-cause', first(all, failsWithCause)],
        ['fatal-root-line', first(all, hasRootLine)],
      ];
    case 'survivable':
      return [['survivable-unchanged', first(all, unchanged)]];
    case 'symptom':
      return [['symptom-keeps-root', first(all, keepsRoot)]];
    case 'fatal_if_exception_follows':
      return [
        ['follows-alone-unchanged', first((c) => c.variant === 'injected', unchanged)],
        ['follows-cause', first((c) => c.variant === 'followed', failsWithCause)],
      ];
  }
}

const rootTexts = (v: Verdict): string[] => v.evidence.map((e) => stripAnsi(e.text));

function failsWithCause(check: CaseCheck, v: Verdict): boolean {
  return check.kind === 'fails' && v.verdict === 'failed' && v.cause !== undefined && check.causes.includes(v.cause);
}

function hasRootLine(check: CaseCheck, v: Verdict): boolean {
  if (check.kind !== 'fails' || check.rootLine === undefined) return true;
  return v.verdict === 'failed' && rootTexts(v).some((text) => text.includes(check.rootLine!));
}

function unchanged(check: CaseCheck, v: Verdict): boolean {
  if (check.kind !== 'unchanged') return true;
  const b = check.baseline;
  return v.verdict === b.verdict && v.stage === b.stage && v.decidedBy?.text === b.decidedBy;
}

function keepsRoot(check: CaseCheck, v: Verdict): boolean {
  return check.kind === 'keeps-root' && v.verdict === 'failed' && rootTexts(v).some((text) => text.includes(check.rootLine));
}

function describe(v: Verdict): string {
  const root = v.evidence[0] ? ` at ${stripAnsi(v.evidence[0].text).slice(0, 120)}` : '';
  return v.verdict === 'failed' ? `failed ${v.cause} (${v.rule})${root}` : `${v.verdict} ${v.stage}`;
}

/** Whether every rate meets its threshold (a layer with no entries of a kind has no rate). */
export function meetsThresholds(report: ConformanceReport): boolean {
  return report.rates.every((r) => r.passed >= minimumOf(r.rate) * r.total);
}

export function minimumOf(rate: RateId): number {
  return RATES.find((r) => r.id === rate)!.min;
}
