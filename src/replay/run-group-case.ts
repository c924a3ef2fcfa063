/**
 * Replays one group fixture: each node's log classified on its own time (with `then_idle` after
 * its last line, as for a single log), the nodes lined up by their first timestamps, and the
 * group verdict compared with the expectation, `node` included.
 */
import { readFileSync } from 'node:fs';
import { replayGroup, type ReplayedNode } from '../core/group-replay.js';
import type { GroupVerdict } from '../core/group-types.js';
import { namedVerdict } from '../core/group-verdicts.js';
import { addNodeFacts, nodeFactsOf, type NodeFacts } from '../core/node-facts.js';
import type { CompiledPack } from '../core/pack-types.js';
import { compareGroup } from './compare.js';
import type { FixtureGroup } from './discover.js';
import { readExpectation, type Expectation } from './expectation.js';
import { classifyText, logLines, type CaseResult } from './run-case.js';

export interface GroupCaseResult extends CaseResult {
  group: GroupVerdict;
}

export function runGroupCase(group: FixtureGroup, options: { packs: readonly CompiledPack[]; ignoreIdle?: boolean; expected?: Expectation }): GroupCaseResult {
  const expected = options.expected ?? readExpectation(group.expect);
  let family = '';
  const nodes: ReplayedNode[] = group.nodes.map(({ node, log }) => {
    const text = readFileSync(log, 'utf8');
    const classified = classifyText(text, { packs: options.packs, family: expected.family, thenIdleMs: options.ignoreIdle ? undefined : expected.thenIdleMs });
    if (node === 0 || family === '') family = classified.family;
    return { node, events: classified.events, origin: classified.origin, nnodes: factsOf(text).nnodes };
  });
  const { verdict } = replayGroup(nodes, {});
  const named = namedVerdict(verdict);
  const mismatches = compareGroup(expected, named, verdict.node);
  return { log: group.dir, expected, family, verdict: named, pass: mismatches.length === 0, mismatches, events: [], group: verdict };
}

function factsOf(text: string): NodeFacts {
  return logLines(text).reduce<NodeFacts>((known, line) => addNodeFacts(known, nodeFactsOf(line)), {});
}
