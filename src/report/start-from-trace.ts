/** One replayed log as a start on the report: its lane, its title, and what it is (model, settings). */
import { describeSettings, extractStartFacts, mergeFacts, type StartFacts } from '../core/start-facts.js';
import type { LogTrace } from '../replay/explain-driver.js';
import { laneFromTrace } from './lane-from-trace.js';
import type { StartView } from './report-model.js';

export function startFromTrace(trace: LogTrace, title: string): StartView {
  const facts = traceFacts(trace);
  const subtitle = [trace.family, facts.model, describeSettings(facts) === '-' ? undefined : describeSettings(facts)].filter(Boolean).join(' · ');
  return { title, subtitle, lanes: [laneFromTrace(trace)] };
}

/** The model and settings the log's argument dumps state (the last run's, as history keeps them). */
export function traceFacts(trace: LogTrace): StartFacts {
  let facts: StartFacts = {};
  for (const line of trace.lines) {
    if (line.events.some((e) => e.type === 'restart')) facts = {};
    for (const frame of line.frames) {
      const found = extractStartFacts(frame.match.frame.text);
      if (found) facts = mergeFacts(facts, found);
    }
  }
  return facts;
}
