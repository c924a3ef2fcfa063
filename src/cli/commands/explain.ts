/** `spinup explain FILE`: which rule matched which line, the stage timeline, and why the verdict. */
import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { EXIT } from '../../core/exit-codes.js';
import { compare } from '../../replay/compare.js';
import { expectFileFor } from '../../replay/discover.js';
import { traceLog, type LogTrace } from '../../replay/explain-driver.js';
import { readExpectationArg } from '../read-expectation.js';
import { lineHits } from '../../replay/frame-hits.js';
import { InputError, UsageError } from '../errors.js';
import { exitCodeFor } from '../exit-for-verdict.js';
import { rankCandidates } from '../format/explain-reasons.js';
import { formatExplain, stageRows } from '../format/explain-text.js';
import { verdictJson } from '../format/verdict-json.js';
import { useColor, write, type Io } from '../io-context.js';
import { durationOption, packRefOption, packsOption } from '../options.js';
import { laneFromTrace } from '../../report/lane-from-trace.js';
import { laneTimelineText } from '../../report/text-timeline.js';
import { parseOptions } from '../parse-options.js';
import { readLogText } from '../../io/open-source.js';
import { noticeText } from '../reporters/event-lines.js';

export const explainHelp = `Usage: spinup explain [options] FILE

Replays one log on its own timestamps and shows how spinup read it: every line a rule
matched, annotated with the rule id, its kind (stage, progress, ready, heartbeat, benign,
failure; 'inference' for an exception whose cause the inference tables name, 'exception'
for one nothing names, 'remedy' for generic advice) and the captured groups; the stage
timeline with durations; then the verdict and the reasoning behind it (the line that
decided it, the lines set aside as symptoms or benign, the ranked root-cause candidates).
For a fixture (NAME.log beside NAME.expect.yaml) the family and then_idle come from the
expectation, and the verdict is checked against it.

Options:
  --pack NAME|FILE      sglang, vllm or a pack file (default: the fixture's family, else detect)
  --then-idle DURATION  quiet time after the last line (replays a hang; default: the fixture's)
  --only-matches        show only the lines some rule matched
  --timeline            draw only the stages as text bars (80 columns) and the verdict
  --json                one JSON object per matched line, stage, the verdict, the expectation
  -h, --help            show this help

Exit: the verdict's code (0 ready, 1 failed, 2 stalled, 3 incomplete) · 64 usage
      66 file not found · 78 invalid pack
Example: spinup explain --only-matches fixtures/sglang/04-rocm-glm5-tp8-hip-oom-load.log`;

export async function explainCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      pack: { type: 'string' },
      'then-idle': { type: 'string' },
      'only-matches': { type: 'boolean' },
      timeline: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    write(io.stdout, `${explainHelp}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'name the log FILE to explain' : 'explain one log at a time');
  const file = positionals[0]!;
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) throw new InputError(`no such file: ${file}`);
  if (!statSync(path).isFile()) throw new InputError(`not a regular file: ${file}`);
  const idleFlag = durationOption('then-idle', values['then-idle']);
  const { packs, family } = await packsOption(values.pack === undefined ? undefined : resolvePackArg(values.pack, io.cwd), io.env);
  const expectFile = path.endsWith('.log') && existsSync(expectFileFor(path)) ? expectFileFor(path) : undefined;
  const expected = expectFile ? readExpectationArg(expectFile) : undefined;
  const thenIdleMs = idleFlag ?? expected?.thenIdleMs;
  const { text, notices } = await readLogText(path, file);
  for (const notice of notices) if (notice.type === 'damaged') write(io.stderr, `spinup explain: ${noticeText(notice)}\n`);
  const trace = traceLog(text, { packs, family: family ?? expected?.family, thenIdleMs });
  const mismatches = expected ? compare(expected, trace.verdict) : undefined;
  const shownExpect = expectFile ? basename(expectFile) : undefined;
  if (values.timeline && values.json) throw new UsageError('--timeline draws for people; --json is for scripts: pick one');
  if (values.timeline) {
    const about = ` (pack ${trace.family}), on the log's own clock`;
    const room = 80 - about.length;
    const name = basename(file).length > room ? `…${basename(file).slice(1 - room)}` : basename(file);
    write(io.stdout, `${name}${about}\n${laneTimelineText(laneFromTrace(trace), { color: useColor(io) })}`);
  } else if (values.json) {
    for (const object of explainJson(trace, { file, thenIdleMs, mismatches, expectFile: shownExpect })) write(io.stdout, `${JSON.stringify(object)}\n`);
  } else {
    const familyFrom = family !== undefined ? '--pack' : trace.pack.isShared ? 'no family detected: the shared rules only' : trace.detected ? 'detected' : `family of ${shownExpect}`;
    const idleFrom = idleFlag === undefined && thenIdleMs !== undefined ? `then_idle of ${shownExpect}` : undefined;
    const view = { file, color: useColor(io), onlyMatches: values['only-matches'] ?? false, thenIdleMs, familyFrom, idleFrom, mismatches, expectFile: shownExpect };
    write(io.stdout, formatExplain(trace, view));
  }
  return exitCodeFor(trace.verdict.verdict);
}

/** A relative pack path is relative to the working directory the CLI was given. */
function resolvePackArg(value: string, cwd: string): string {
  packRefOption(value);
  return /[\\/]/.test(value) || /\.ya?ml$/.test(value) ? resolve(cwd, value) : value;
}


interface JsonView {
  file: string;
  thenIdleMs?: number;
  expectFile?: string;
  mismatches?: ReturnType<typeof compare>;
}

function explainJson(trace: LogTrace, view: JsonView): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [
    { type: 'explain', file: view.file, family: trace.family, detected: trace.detected, lines: trace.lines.length, then_idle_ms: view.thenIdleMs },
  ];
  for (const line of trace.lines) {
    const { hits, read, afterVerdict } = lineHits(line, trace.pack);
    if (hits.length === 0) continue;
    const last = line.frames[line.frames.length - 1];
    objects.push({ type: 'line', line: line.lineNo, text: last?.match.frame.text ?? line.raw, at_ms: last?.at, read, after_verdict: afterVerdict, matches: hits });
  }
  for (const row of stageRows(trace)) {
    objects.push(row.restart ? { type: 'restart', line: row.lineNo, at_ms: row.at, rule: row.rule } : { type: 'stage', stage: row.stage, line: row.lineNo, at_ms: row.at, duration_ms: row.durationMs, rule: row.rule, reentered: row.reentered });
  }
  const candidates = rankCandidates(trace.candidates).map((c, index) => ({
    rank: index + 1,
    tier: c.tier,
    cause: c.cause,
    rule: c.ruleId,
    message: c.message,
    line: c.evidence[0]?.lineNo,
    superseded: c.superseded,
  }));
  objects.push({ type: 'verdict', ...verdictJson(trace.verdict, { family: trace.family }), candidates });
  if (view.mismatches) objects.push({ type: 'expectation', file: view.expectFile, pass: view.mismatches.length === 0, mismatches: view.mismatches });
  return objects;
}
