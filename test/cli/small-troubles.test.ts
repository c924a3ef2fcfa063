/**
 * The smaller troubles of issue 13 (item 11), each as a user meets it: a tiny terminal, an ETA
 * that has passed, `--stall 0`, a mistyped flag, an unknown pack, a verdict with no family, inputs
 * that are no start at all, and what `history --help` promises.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatProgress, ProgressTracker } from '../../src/core/eta.js';
import type { ClassifierEvent, Verdict } from '../../src/core/events.js';
import { Session } from '../../src/core/session.js';
import { StatusLineReporter } from '../../src/cli/reporters/text-reporters.js';
import { formatVerdict } from '../../src/cli/format/verdict-text.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';
import { Collect, runMain } from '../helpers/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-small-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A complete CSI escape, or the ones picocolors writes; anything else starting with ESC is cut.
const WHOLE_ESCAPES = /\x1b\[[0-9;?]*[ -\/]*[@-~]/g;

describe('13.11: smaller troubles', () => {
  it.for([0, 1, 5, 12, 30])('13.11: the status line on a %i-column terminal never cuts an ANSI escape in half', (columns) => {
    const stderr = new Collect();
    Object.assign(stderr, { isTTY: true, columns });
    const io = { argv: [], stdin: process.stdin, stdout: new Collect(), stderr, env: {}, cwd: dir };
    const session = new Session({ packs: FAMILIES.map((f) => loadPack(f)), family: 'sglang' });
    session.push("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')", { lineNo: 1 });
    session.push('[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB', { lineNo: 2 });
    new StatusLineReporter(io, session, true).tick();
    expect(stderr.text).toContain('\x1b['); // coloured: there is an escape to cut
    const left = stderr.text.replace(WHOLE_ESCAPES, '');
    expect(left, JSON.stringify(stderr.text)).not.toContain('\x1b');
    const visible = stderr.text.replace(/^\r/, '').replace(WHOLE_ESCAPES, '');
    if (columns >= 2) expect(visible.length).toBeLessThan(columns);
  });

  it('13.11: an ETA that has passed says overdue, not ~0ms left', () => {
    const tracker = new ProgressTracker();
    const bar = (at: number, current: number): ClassifierEvent => ({
      type: 'progress',
      stage: 'cuda_graph',
      at,
      line: { lineNo: 1, text: `Capturing ${current}/100`, at },
      progress: { rule: 'r', unit: 'batches', current, total: 100 },
    });
    tracker.observe(bar(0, 0));
    tracker.observe(bar(10_000, 20));
    expect(formatProgress(tracker.estimate(25_000)!)).toBe('20/100 batches, 2.0/s, ~25s left');
    expect(formatProgress(tracker.estimate(65_000)!)).toBe('20/100 batches, 2.0/s, overdue by 15s');
  });

  it.for(['--stall', '--timeout'])('13.11: %s 0 says it must be more than 0', async (flag) => {
    const { code, stderr } = await runMain(['watch', flag, '0', 'x.log']);
    expect(code).toBe(64);
    expect(stderr).toContain(`${flag} must be more than 0`);
  });

  it.for([
    { argv: ['watch', '--jsn', 'x.log'], says: 'unknown option --jsn. Did you mean --json?' },
    { argv: ['watch', '--no-folow', 'x.log'], says: 'unknown option --no-folow. Did you mean --no-follow?' },
    { argv: ['run', '--helth', 'http://x', '--', 'true'], says: 'unknown option --helth. Did you mean --health?' },
    { argv: ['replay', '--jsno'], says: 'unknown option --jsno. Did you mean --json?' },
    { argv: ['history', '--modle', 'qwq'], says: 'unknown option --modle. Did you mean --model?' },
    { argv: ['watch', '--zzzzzz', 'x.log'], says: 'unknown option --zzzzzz.' },
    { argv: ['watch', '--pack'], says: '--pack wants a value' },
  ])('13.11: $argv.1 gets a usage error in our words, with a did-you-mean', async ({ argv, says }) => {
    const { code, stderr } = await runMain(argv);
    expect(code).toBe(64);
    expect(stderr).toContain(says);
    expect(stderr).not.toMatch(/To specify a positional argument|ERR_PARSE_ARGS|Unknown option '/);
  });

  it.for(['watch', 'run', 'replay', 'explain'])('13.11: %s --pack nope is a usage error (64) that lists the shipped packs', async (command) => {
    writeFileSync(join(dir, 'x.log'), '');
    const argv = command === 'run' ? ['run', '--pack', 'nope', '--', 'true'] : [command, '--pack', 'nope', join(dir, 'x.log')];
    const { code, stderr } = await runMain(argv, { cwd: dir });
    expect(code, stderr).toBe(64);
    expect(stderr).toContain('unknown pack "nope": the shipped packs are sglang, vllm (or name a pack FILE)');
  });

  it('13.11: a verdict with no family has no double space ("STALLED in", "FAILED host_oom")', () => {
    const base = { stage: 'load_weights', elapsedMs: 5_000, reason: 'r', evidence: [], symptoms: [] } as unknown as Verdict;
    const shown = (v: Partial<Verdict>, family?: string): string => formatVerdict({ ...base, ...v } as Verdict, { color: false, family }).split('\n')[0]!;
    expect(shown({ verdict: 'stalled', silentMs: 1, budget: { ms: 1, source: 'pack', detail: 'd' } } as Partial<Verdict>)).toBe('STALLED in stage load_weights');
    expect(shown({ verdict: 'failed', cause: 'host_oom', message: 'killed' })).toBe('FAILED host_oom: killed');
    expect(shown({ verdict: 'ready' })).toBe('READY after 5s');
    expect(shown({ verdict: 'ready' }, 'sglang')).toBe('READY sglang  after 5s');
  });

  it.for([
    { name: 'empty', bytes: Buffer.alloc(0) },
    { name: 'binary', bytes: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)) },
  ])('13.11: an $name input is not recorded in the history as a start', async ({ name, bytes }) => {
    const log = join(dir, `${name}.log`);
    const history = join(dir, `${name}-history.jsonl`);
    writeFileSync(log, bytes);
    const { code, stderr } = await runMain(['watch', '--no-follow', '--history', history, log]);
    expect(code, stderr).toBe(3);
    expect(existsSync(history) ? readFileSync(history, 'utf8') : '').toBe('');
  });

  it('13.11: history --help tells the truth about exit codes: no file yet is 0, an unreadable one 66', async () => {
    const help = (await runMain(['history', '--help'])).stdout;
    expect(help).toContain('0 (also when no start was recorded yet: the file does not exist)');
    expect(help).toContain('66 the history file cannot be read');
    expect(help).not.toContain('66 no history file');
    const missing = await runMain(['history', '--history', join(dir, 'no-such-history.jsonl')]);
    expect(missing.code).toBe(0);
    expect(missing.stdout).toContain('No starts recorded');
    const unreadable = await runMain(['history', '--history', dir]); // a directory
    expect(unreadable.code).toBe(66);
    expect(unreadable.stderr).toContain(`cannot read ${dir}`);
  });
});
