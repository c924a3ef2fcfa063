/** One replayed log as a start on the report: its lane, its title, and what it is (model, settings). */
import { describeSettings, mergeFacts, StartFactsReader, type StartFacts } from '../core/start-facts.js';
import type { LogTrace } from '../replay/explain-driver.js';
import { laneFromTrace } from './lane-from-trace.js';
import type { StartView } from './report-model.js';

export function startFromTrace(trace: LogTrace, title: string): StartView {
  const facts = traceFacts(trace);
  const subtitle = [trace.family, facts.model, describeSettings(facts) === '-' ? undefined : describeSettings(facts)].filter(Boolean).join(' · ');
  return { title, subtitle, lanes: [laneFromTrace(trace)] };
}

/** A group (multi-node) start: one lane per node, each on its own log's clock. */
export function groupStart(nodes: readonly { node: string; file: string; trace: LogTrace }[]): StartView {
  const facts = nodes.map(({ trace }) => traceFacts(trace)).find((f) => f.model !== undefined) ?? {};
  const subtitle = [nodes[0]?.trace.family, facts.model, `${nodes.length} nodes: ${nodes.map((n) => `${n.node}=${n.file}`).join(', ')}`].filter(Boolean).join(' · ');
  return { title: `a start of ${nodes.length} nodes`, subtitle, lanes: nodes.map(({ node, trace }) => laneFromTrace(trace, node)) };
}

/** The model and settings the log's argument dumps state (the last run's, as history keeps them). */
export function traceFacts(trace: LogTrace): StartFacts {
  let facts: StartFacts = {};
  const reader = new StartFactsReader([trace.pack]);
  for (const line of trace.lines) {
    if (line.events.some((e) => e.type === 'restart')) facts = {};
    for (const frame of line.frames) {
      const found = reader.read(frame.match.frame.text);
      if (found) facts = mergeFacts(facts, found);
    }
  }
  return facts;
}
