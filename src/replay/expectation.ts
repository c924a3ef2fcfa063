/** A fixture's `.expect.yaml`: what really happened in the captured log. */
import { readFileSync } from 'node:fs';
import { parseDuration } from '../core/duration.js';
import { isCause, isStage, isVerdictKind, type Cause, type Stage, type VerdictKind } from '../core/vocabulary.js';
import { yamlModule } from '../pack/yaml-module.js';
import { parseFlatYaml } from './flat-yaml.js';

export interface Expectation {
  family?: string;
  verdict: VerdictKind[];
  stage?: Stage[];
  cause?: Cause[];
  evidence?: string;
  thenIdleMs?: number;
  /** Groups only: the node the verdict names (the root cause's node when failed), or a list. */
  node?: number[];
  source?: string;
  notes?: string;
}

const KEYS = new Set(['family', 'verdict', 'stage', 'cause', 'evidence', 'then_idle', 'node', 'source', 'notes']);

/** An expectation file that cannot be read as the fixture format says. */
export class ExpectationError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ExpectationError';
  }
}

export function readExpectation(file: string): Expectation {
  let data: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    data = parseFlatYaml(text) ?? yamlModule().parse(text);
  } catch (error) {
    throw new ExpectationError(file, `cannot parse: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ExpectationError(file, 'expected a mapping');
  const record = data as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KEYS.has(key)) throw new ExpectationError(file, `unknown key "${key}" (known: ${[...KEYS].join(', ')})`);
  }
  const expectation: Expectation = {
    verdict: listOf(file, 'verdict', record.verdict, isVerdictKind) ?? fail(file, 'missing "verdict"'),
    stage: listOf(file, 'stage', record.stage, isStage),
    cause: listOf(file, 'cause', record.cause, isCause),
  };
  if (record.family !== undefined) expectation.family = String(record.family);
  if (record.evidence !== undefined) expectation.evidence = String(record.evidence);
  if (record.source !== undefined) expectation.source = String(record.source);
  if (record.notes !== undefined) expectation.notes = String(record.notes);
  if (record.node !== undefined) expectation.node = listOf(file, 'node', record.node, isNodeRank);
  if (record.then_idle !== undefined) {
    const ms = parseDuration(String(record.then_idle));
    if (ms === undefined) throw new ExpectationError(file, `unparsable then_idle "${String(record.then_idle)}"`);
    expectation.thenIdleMs = ms;
  }
  return expectation;
}

function isNodeRank(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function listOf<T>(file: string, key: string, value: unknown, guard: (v: unknown) => v is T): T[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  for (const item of list) if (!guard(item)) throw new ExpectationError(file, `unknown ${key} "${String(item)}"`);
  return list as T[];
}

function fail(file: string, detail: string): never {
  throw new ExpectationError(file, detail);
}
