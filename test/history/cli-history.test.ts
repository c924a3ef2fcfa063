/** watch, replay and history with a real history file, through `main` in-process. */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readHistory } from '../../src/history/history-store.js';
import { discoverFixtures } from '../../src/replay/discover.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'spinup-cli-history-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshDir = (): string => {
  const dir = join(scratch, `d${++n}`);
  mkdirSync(dir);
  return dir;
};
const QWQ = 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log';

async function spinup(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d) => (stdout += d));
  err.on('data', (d) => (stderr += d));
  const code = await main({ argv, stdin: Readable.from([]), stdout: out, stderr: err, env: { NO_COLOR: '1', ...env }, cwd: root });
  return { code, stdout, stderr };
}

describe('watch records each start', () => {
  it('appends one record to --history PATH, and learns from it next time', async () => {
    const history = join(freshDir(), 'history.jsonl');
    const first = await spinup(['watch', '--no-follow', '--history', history, QWQ]);
    expect(first.code).toBe(0);
    expect(readHistory(history).records).toMatchObject([{ source: 'watch', family: 'sglang', model: '/home/user/Qwen/QwQ-32B', tp: 4, verdict: 'ready', total_ms: 29_000 }]);
    await spinup(['watch', '--no-follow', '--history', history, QWQ]);
    const third = await spinup(['watch', '--no-follow', '--history', history, QWQ]);
    expect(third.stderr).toContain('stage load_weights  line 24  usually 8s here');
    expect(readHistory(history).records).toHaveLength(3);
  });

  it('defaults to $XDG_STATE_HOME/spinup/history.jsonl, then ~/.local/state; a bare env writes nowhere', async () => {
    const state = freshDir();
    await spinup(['watch', '--no-follow', QWQ], { XDG_STATE_HOME: state });
    expect(readHistory(join(state, 'spinup', 'history.jsonl')).records).toHaveLength(1);
    const home = freshDir();
    await spinup(['watch', '--no-follow', QWQ], { HOME: home, XDG_STATE_HOME: 'relative/ignored' });
    expect(readHistory(join(home, '.local', 'state', 'spinup', 'history.jsonl')).records).toHaveLength(1);
    expect((await spinup(['watch', '--no-follow', QWQ])).code).toBe(0);
  });

  it('--no-history neither reads nor writes; with --history it is a usage error', async () => {
    const state = freshDir();
    await spinup(['watch', '--no-follow', '--no-history', QWQ], { XDG_STATE_HOME: state });
    expect(existsSync(join(state, 'spinup', 'history.jsonl'))).toBe(false);
    // The run's state file (for status/attach) is not history; --no-state leaves it out too.
    const bare = freshDir();
    await spinup(['watch', '--no-follow', '--no-history', '--no-state', QWQ], { XDG_STATE_HOME: bare });
    expect(existsSync(join(bare, 'spinup'))).toBe(false);
    expect((await spinup(['watch', '--no-history', '--history', 'x', QWQ])).code).toBe(64);
  });

  it('a damaged history costs a warning, never the watch', async () => {
    const history = join(freshDir(), 'history.jsonl');
    writeFileSync(history, 'garbage\n');
    appendFileSync(history, '{"v":1,"when":"2025-06-01T10:00:00Z","host":"h","sour');
    const result = await spinup(['watch', '--no-follow', '--history', history, QWQ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`spinup: history: 2 unreadable line(s) of ${history} skipped (line 1: not JSON; line 2: a record cut off mid-write)`);
    expect(readHistory(history).records).toHaveLength(1);
  });

  it('an unwritable history costs a warning, never the verdict', async () => {
    const dir = freshDir(); // a directory where the file should be
    const result = await spinup(['watch', '--no-follow', '--history', dir, 'fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FAILED');
    expect(result.stderr).toMatch(/spinup: history: cannot (read|write) the history/);
  });

  it('--json progress events carry the rate and the time left; stage events the budget', async () => {
    const result = await spinup(['watch', '--no-follow', '--no-history', '--json', QWQ]);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(events.find((e) => e.type === 'progress' && e.line === 36)).toMatchObject({ current: 4, total: 14, rate_per_s: 1.77, eta_ms: 5000, eta_basis: 'tqdm' });
    expect(events.find((e) => e.type === 'stage' && e.stage === 'load_weights')).toMatchObject({ budget: { ms: 4_500_000, source: 'pack' } });
  });
});

describe('replay --history / --learn-from, then history', () => {
  it('records every fixture, replays with what it learned, and shows it all', async () => {
    const history = join(freshDir(), 'h.jsonl');
    const recorded = await spinup(['replay', 'fixtures', '--history', history]);
    expect(recorded.code).toBe(0);
    const total = readHistory(history).records.length;
    expect(recorded.stderr).toBe(`spinup replay: recorded ${total} starts in ${history}\n`);
    // Group fixtures (NAME.group/) are replayed too, but a group is not one start on one host: not recorded.
    const groups = discoverFixtures(['fixtures'], root).groups.length;
    expect(groups).toBeGreaterThan(0);
    expect(recorded.stdout.trimEnd().split('\n').at(-1)).toBe(`${total + groups} passed, 0 failed`);

    const learned = await spinup(['replay', 'fixtures', '--learn-from', history, '--json']);
    expect(learned.code).toBe(0);
    const cases = learned.stdout.trim().split('\n').slice(0, -1).map((line) => JSON.parse(line)).filter((o) => o.type === 'case');
    expect(cases.find((c) => c.file === 'fixtures/sglang/15-tp2-hang-cudagraph-flashinfer-jit.log').actual.budget.source).toBe('learned');

    const shown = await spinup(['history', '--history', history, '--model', 'qwq']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`2 starts matching "qwq" in ${history}`);
    expect(shown.stdout).toMatch(/when +family +model +settings +total +slowest stage +verdict +cause/);
    expect(shown.stdout).toContain('sglang /home/user/Qwen/QwQ-32B tp4: 2 ready of 2 starts');
    expect(shown.stdout).toMatch(/ {2}load_weights +2 +8s +8s +8s/);

    const json = await spinup(['history', '--history', history, '--json']);
    const objects = json.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(objects.filter((o) => o.type === 'start')).toHaveLength(total);
    expect(objects.at(-1)).toEqual({ type: 'summary', path: history, starts: total, skipped: 0, upgraded: 0 });
  });

  it('says so when there is no history yet', async () => {
    const result = await spinup(['history', '--history', join(freshDir(), 'none.jsonl')]);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('No starts recorded') });
    expect((await spinup(['history', 'qwq'])).code).toBe(64);
  });
});

describe('unfinished starts', () => {
  it('are recorded (the input ended before a verdict) but teach nothing', async () => {
    const history = join(freshDir(), 'h.jsonl');
    const hang = 'fixtures/sglang/10-tp2-stuck-nccl-init-hang.log';
    for (let i = 0; i < 3; i++) expect((await spinup(['watch', '--no-follow', '--history', history, hang])).code).toBe(3);
    expect(readFileSync(history, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line).verdict)).toEqual(['incomplete', 'incomplete', 'incomplete']);
    const json = await spinup(['watch', '--no-follow', '--json', '--history', history, hang]);
    const stage = json.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((e) => e.type === 'stage');
    expect(stage.expected).toBeUndefined();
    expect(stage.budget.source).toBe('pack');
  });
});
