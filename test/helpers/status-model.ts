/** Test helper: a status model over a real session, fed the lines of a fixture log (on the log's own time). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventJson } from '../../src/cli/format/verdict-json.js';
import type { SessionEvent } from '../../src/core/session.js';
import { Session } from '../../src/core/session.js';
import { StatusModel } from '../../src/status/status-model.js';
import type { EventLogLimits } from '../../src/status/event-log.js';
import { shippedPack } from './classify.js';
import { repoRoot } from './run-main.js';

export function fixtureLines(relative: string): string[] {
  return readFileSync(join(repoRoot, 'fixtures', relative), 'utf8').split('\n');
}

export function statusModel(options: { toJson?: (event: SessionEvent) => Record<string, unknown>; limits?: EventLogLimits; command?: string } = {}): { session: Session; model: StatusModel; feed: (lines: string[]) => void; end: () => void } {
  const session = new Session({ packs: [shippedPack('sglang'), shippedPack('vllm')] });
  const model = new StatusModel({
    session,
    facts: { command: options.command ?? 'watch', pid: 4242, host: 'test-host', version: '0.0.0-test', log: '/var/log/server.log' },
    verdictsFromEvents: (options.command ?? 'watch') === 'watch',
    toJson: options.toJson ?? eventJson,
    limits: options.limits,
  });
  let lineNo = 0;
  return {
    session,
    model,
    feed: (lines) => {
      for (const line of lines) model.events(session.push(line, { lineNo: ++lineNo }));
    },
    end: () => model.events(session.end()),
  };
}
