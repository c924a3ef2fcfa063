/**
 * `replay --record`: turns a captured log into a fixture in one step by writing its
 * `.expect.yaml` from what spinup says now, for a person to check and correct.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseDuration } from '../core/duration.js';
import type { Verdict } from '../core/events.js';
import type { CompiledPack } from '../core/pack-types.js';
import { parseFrame } from '../core/parse-line.js';
import { compare, type Mismatch } from './compare.js';
import { expectFileFor } from './discover.js';
import { readExpectation } from './expectation.js';
import { classifyText } from './run-case.js';

export const RECORD_NOTE = 'recorded by spinup replay --record; check and correct';
const MAX_EVIDENCE = 120;
const TQDM_BAR = /^.*?\d+%\|[^|]*\|[^\]]*\]/;
const STAMPED_PREFIX = /^(?:\[[^\]]*\d\d:\d\d:\d\d[^\]]*\]\s*)+/;

export interface RecordOptions {
  log: string;
  packs: readonly CompiledPack[];
  /** Pack name; default: the existing file's `family`, else detected. */
  family?: string;
  /** `then_idle` as the user wrote it (`3h`); default: the existing file's. */
  thenIdle?: string;
  /** Replace an existing expect file (its `source`, `notes` and `then_idle` are kept). */
  force?: boolean;
}

export interface RecordResult {
  file: string;
  text: string;
  verdict: Verdict;
  family: string;
  replaced: boolean;
  /** The written file read back and compared with the verdict: empty unless something is off. */
  mismatches: Mismatch[];
}

/** A record that would lose what a person wrote. */
export class RecordRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordRefused';
  }
}

export function recordFixture(options: RecordOptions): RecordResult {
  if (!options.log.endsWith('.log')) throw new RecordRefused(`a fixture log is named NAME.log (got ${options.log}); rename it first`);
  const file = expectFileFor(options.log);
  const replaced = existsSync(file);
  if (replaced && !options.force) {
    throw new RecordRefused(`${file} already exists; check it by hand, or pass --force to replace it (its source, notes and then_idle are kept)`);
  }
  const kept = replaced ? keptFields(file) : {};
  const thenIdle = options.thenIdle ?? kept.then_idle;
  const family = options.family ?? kept.family;
  const { verdict, family: used } = classifyText(readFileSync(options.log, 'utf8'), {
    packs: options.packs,
    family,
    thenIdleMs: thenIdle === undefined ? undefined : parseDuration(thenIdle),
  });
  const pack = options.packs.find((p) => p.name === used)!;
  const text = expectYaml({ verdict, family: used, pack, thenIdle, source: kept.source, notes: kept.notes });
  writeFileSync(file, text, { flag: options.force ? 'w' : 'wx' });
  return { file, text, verdict, family: used, replaced, mismatches: compare(readExpectation(file), verdict) };
}

function keptFields(file: string): Record<string, string | undefined> {
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new RecordRefused(`${file} is not valid YAML (${(error as Error).message.split('\n')[0]}); fix or move it before recording`);
  }
  const record = (data ?? {}) as Record<string, unknown>;
  const text = (key: string): string | undefined => (record[key] === undefined || record[key] === null ? undefined : String(record[key]));
  return { family: text('family'), then_idle: text('then_idle'), source: text('source'), notes: text('notes') };
}

interface ExpectFields {
  verdict: Verdict;
  family: string;
  pack: CompiledPack;
  thenIdle?: string;
  source?: string;
  notes?: string;
}

export function expectYaml(fields: ExpectFields): string {
  const { verdict } = fields;
  const lines = [`family: ${fields.family}`, `verdict: ${verdict.verdict}`, `stage: ${verdict.stage}`];
  if (verdict.verdict === 'failed') {
    lines.push(`cause: ${verdict.cause ?? 'unknown'}`);
    const evidence = verdict.evidence[0] ? distinctive(verdict.evidence[0].text, fields.pack) : undefined;
    if (evidence) lines.push(`evidence: ${quote(evidence)}`);
  }
  if (fields.thenIdle !== undefined) lines.push(`then_idle: ${quote(fields.thenIdle)}`);
  if (fields.source !== undefined) lines.push(`source: ${quote(fields.source)}`);
  lines.push(`notes: ${quote(fields.notes ?? RECORD_NOTE)}`);
  return `${lines.join('\n')}\n`;
}

/** The message of a root-cause line without its timestamp and rank prefixes, cut at a word. */
export function distinctive(text: string, pack: CompiledPack): string {
  let body = parseFrame(text, pack.prefixes).body.trim() || text.trim();
  // A tqdm bar the error was glued to, or a timestamp no prefix rule knows, varies from run to run.
  body = body.replace(TQDM_BAR, '').replace(STAMPED_PREFIX, '').trim() || body;
  // Control characters cannot be quoted in YAML; stop before the first one.
  body = body.split(/[\x00-\x08\x0b-\x1f\x7f]/)[0]!.trim();
  // The first sentence is usually the part that does not vary between ranks and runs.
  const sentence = /^.{40,}?[.!:](?= )/.exec(body.slice(0, MAX_EVIDENCE));
  if (sentence) return sentence[0];
  if (body.length <= MAX_EVIDENCE) return body;
  const cut = body.lastIndexOf(' ', MAX_EVIDENCE);
  return body.slice(0, cut > MAX_EVIDENCE / 2 ? cut : MAX_EVIDENCE).trimEnd();
}

/** Single quotes as the fixtures write them; JSON (valid YAML double quotes) for anything multi-line. */
function quote(value: string): string {
  if (/[\x00-\x1f\x7f]/.test(value)) return JSON.stringify(value);
  return `'${value.replace(/'/g, "''")}'`;
}
