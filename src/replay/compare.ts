/** Compares a verdict with a fixture's expectation exactly as the design contract says. */
import type { Verdict } from '../core/events.js';
import type { Expectation } from './expectation.js';

export interface Mismatch {
  field: 'verdict' | 'stage' | 'cause' | 'evidence' | 'node';
  expected: string;
  actual: string;
}

export function compare(expected: Expectation, actual: Verdict): Mismatch[] {
  const mismatches: Mismatch[] = [];
  if (!expected.verdict.includes(actual.verdict)) {
    mismatches.push({ field: 'verdict', expected: expected.verdict.join('|'), actual: actual.verdict });
  }
  if (expected.stage && !expected.stage.includes(actual.stage)) {
    mismatches.push({ field: 'stage', expected: expected.stage.join('|'), actual: actual.stage });
  }
  // Cause and evidence describe a failure; they are checked when the verdict is failed.
  if (actual.verdict === 'failed') {
    if (expected.cause && !expected.cause.includes(actual.cause ?? 'unknown')) {
      mismatches.push({ field: 'cause', expected: expected.cause.join('|'), actual: actual.cause ?? 'unknown' });
    }
    if (expected.evidence !== undefined && !actual.evidence.some((line) => line.text.includes(expected.evidence!))) {
      mismatches.push({ field: 'evidence', expected: expected.evidence, actual: actual.evidence.map((e) => e.text).join(' / ') || '(none)' });
    }
  }
  return mismatches;
}

/** A group's verdict: the same checks on the named node's verdict, and `node` on the node it names. */
export function compareGroup(expected: Expectation, actual: Verdict, node: number | undefined): Mismatch[] {
  const mismatches = compare(expected, actual);
  if (expected.node && (node === undefined || !expected.node.includes(node))) {
    mismatches.push({ field: 'node', expected: expected.node.join('|'), actual: node === undefined ? '(none)' : String(node) });
  }
  return mismatches;
}
