/** The live reporters: one output (a Sink) per format, several at once through allSinks. */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Session, type SessionEvent } from '../../../src/core/session.js';
import type { Io } from '../../../src/cli/io-context.js';
import { liveReporter, reportFormat } from '../../../src/cli/reporters/choose-reporter.js';
import { allSinks } from '../../../src/cli/sinks/all-sinks.js';
import { Collect } from '../../helpers/run-main.js';
import { shippedPack } from '../../helpers/classify.js';

const LOG = 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log';

function io(tty: boolean): Io & { stdout: Collect; stderr: Collect } {
  const stdout = new Collect();
  const stderr = new Collect();
  stderr.isTTY = tty;
  return { argv: [], stdin: new PassThrough(), stdout, stderr, env: {}, cwd: process.cwd() };
}

const newSession = (): Session => new Session({ packs: [shippedPack('sglang')], family: 'sglang' });

/** Feeds the fixture's lines through the session, handing every event to `take`. */
function replay(session: Session, take: (events: SessionEvent[]) => void): void {
  const lines = readFileSync(LOG, 'utf8').split('\n');
  lines.forEach((line, index) => take(session.push(line, { lineNo: index + 1 })));
  take(session.end());
}

describe('live reporters', () => {
  it.for([
    [{}, true, 'status'],
    [{}, false, 'lines'],
    [{ json: true }, true, 'json'],
    [{ quiet: true }, true, 'quiet'],
  ] as const)('flags %j on a status-line terminal %s: %s', ([flags, tty, format]) => {
    expect(reportFormat(flags, tty)).toBe(format);
  });

  it('a TTY status line redraws in place and is cleared before the verdict block', () => {
    const out = io(true);
    const session = newSession();
    const reporter = allSinks([liveReporter({ format: 'status', io: out, session, color: false })], { stderr: out.stderr });
    replay(session, (events) => reporter.events(events));
    reporter.verdict({ verdict: session.verdict!, inEvents: true });
    expect(out.stderr.text).toMatch(/^\r\x1b\[2K\S+ /);
    expect(out.stderr.text).not.toContain('\n');
    expect(out.stderr.text.endsWith('\r\x1b[2K')).toBe(true);
    expect(out.stdout.text).toMatch(/^READY/);
  });

  it('lines: one line per stage on stderr, the verdict on stdout; json: every event, the verdict once', () => {
    const lines = io(false);
    const json = io(false);
    const session = newSession();
    const both = allSinks([liveReporter({ format: 'lines', io: lines, session, color: false }), liveReporter({ format: 'json', io: json, session, color: false })], { stderr: lines.stderr });
    replay(session, (events) => both.events(events));
    both.verdict({ verdict: session.verdict!, inEvents: true });
    expect(lines.stderr.text).toMatch(/stage load_weights/);
    expect(lines.stdout.text).toMatch(/^READY/);
    const objects = json.stdout.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(objects.filter((o) => o.type === 'verdict')).toHaveLength(1);
    expect(objects.some((o) => o.type === 'stage')).toBe(true);
  });
});
