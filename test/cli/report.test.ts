/** `spinup report` through main(): what it writes, where, and what it never overwrites. */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { repoRoot, runMain } from '../helpers/run-main.js';
import { AFTER_READY, FAILED, READY, STALLED } from '../report/fixture-trace.js';

const abs = (file: string): string => join(repoRoot, file);

describe('spinup report', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'spinup-report-'));
  });

  it('writes one self-contained page for one log under a default name it prints', async () => {
    const run = await runMain(['report', abs(READY)], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = join(dir, '09-tp4-l4-qwq32b-ready-health-polls.report.html');
    expect(run.stdout).toBe(`wrote ${out} (1 start, ${Math.ceil(statSync(out).size / 1024)} kB)\n`);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    // Nothing to fetch: no external URL in any src/href, and a policy that forbids it anyway.
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'/);
    expect(html.match(/<section class="start"/g)).toHaveLength(1);
    expect(html).toMatch(/data-verdict="ready"/);
  });

  it('stacks several logs on one axis, a section each', async () => {
    const run = await runMain(['report', abs(READY), abs(FAILED), abs(STALLED), abs(AFTER_READY)], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^wrote .*spinup-report\.html \(4 starts, \d+ kB\)\n$/);
    const html = readFileSync(join(dir, 'spinup-report.html'), 'utf8');
    expect([...html.matchAll(/<section class="start" data-start="\d+" data-verdict="(\w+)"/g)].map((m) => m[1])).toEqual(['ready', 'failed', 'stalled', 'ready']);
  });

  it('never overwrites: a default name that exists gets a new one, an -o FILE that exists is refused', async () => {
    writeFileSync(join(dir, 'spinup-report.html'), 'mine');
    const again = await runMain(['report', abs(READY), abs(FAILED)], { cwd: dir });
    expect(again.stdout).toMatch(/spinup-report-2\.html/);
    expect(readFileSync(join(dir, 'spinup-report.html'), 'utf8')).toBe('mine');
    const refused = await runMain(['report', abs(READY), '-o', 'spinup-report.html'], { cwd: dir });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toBe("spinup report: spinup-report.html already exists; pass --force to overwrite it, or choose another -o FILE\nRun 'spinup report --help' for usage.\n");
    expect(readFileSync(join(dir, 'spinup-report.html'), 'utf8')).toBe('mine');
    const forced = await runMain(['report', abs(READY), '-o', 'spinup-report.html', '--force'], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'spinup-report.html'), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('draws a group start with a lane per node (--node NAME=LOG)', async () => {
    const head = abs('fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log');
    const worker = abs('fixtures/sglang/19-multinode-h20-node1-hang-after-nccl-init.log');
    const run = await runMain(['report', '--node', `node0=${head}`, '--node', `node1=${worker}`, abs(READY)], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const html = readFileSync(join(dir, 'spinup-report.html'), 'utf8');
    const sections = html.split('<section class="start"').slice(1);
    expect(sections).toHaveLength(2);
    expect([...sections[1]!.matchAll(/<div class="lane" data-lane="[^"]+" data-node="([^"]+)"/g)].map((m) => m[1])).toEqual(['node0', 'node1']);
    // node0 sits 30 minutes in NCCL init (00:25:32 to torch's own `[W208 00:55:32.44…]` stamps,
    // read as time since 13.6): stalled at its 15-minute budget before the store timeout fails it.
    expect(sections[1]).toMatch(/data-verdict="stalled stalled"/);
    expect(sections[0]).not.toMatch(/data-node=/);
  });

  it('-o - writes the page to stdout', async () => {
    const run = await runMain(['report', abs(FAILED), '-o', '-'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^<!doctype html>[\s\S]*FAILED[\s\S]*<\/html>\n$/);
    expect(existsSync(join(dir, '05-rocm-kimi-k25-tp8-slowload-cudagraph-fail.report.html'))).toBe(false);
  });

  it.for([
    { args: [], code: 64, message: /name the LOG file\(s\) to draw, or pass --history/ },
    { args: ['--history', 'x.log'], code: 64, message: /give LOG files or --history, not both/ },
    { args: ['--model', 'qwen', 'x.log'], code: 64, message: /--model and --last go with --history/ },
    { args: ['--history', '--last', '0', '--history-file', 'h.jsonl'], code: 64, message: /--last wants a whole number/ },
    { args: ['--node', 'head'], code: 64, message: /--node wants NAME=LOG, e\.g\. --node head=node0\.log, not "head"/ },
    { args: ['--history'], code: 64, message: /no history path: HOME and XDG_STATE_HOME are unset; pass --history-file PATH/ },
    { args: ['missing.log'], code: 66, message: /^spinup report: no such file: missing\.log\n$/ },
    { args: ['--history', '--history-file', 'none.jsonl'], code: 66, message: /no history at .*none\.jsonl/ },
  ])('says what is wrong with $args', async ({ args, code, message }) => {
    writeFileSync(join(dir, 'h.jsonl'), '');
    const run = await runMain(['report', ...args], { cwd: dir });
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('--history draws recorded starts, with the usual durations of their model as bands', async () => {
    const history = join(dir, 'history.jsonl');
    for (const file of [READY, READY, FAILED]) await runMain(['replay', '--history', history, abs(file)], { cwd: dir });
    const run = await runMain(['report', '--history', '--history-file', history, '--model', 'qwq', '-o', 'h.html'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const html = readFileSync(join(dir, 'h.html'), 'utf8');
    expect(html.match(/<section class="start"/g)).toHaveLength(2);
    expect(html).toMatch(/stage order from the record/);
    expect(html).toMatch(/<rect class="usual stage-load_weights"[^>]* data-median-ms="8000"/);
  });

  it('draws a log with the usual durations the history knows for its model', async () => {
    const history = join(dir, 'history.jsonl');
    for (let i = 0; i < 2; i++) await runMain(['replay', '--history', history, abs(READY)], { cwd: dir });
    const run = await runMain(['report', abs(READY), '--history-file', history, '-o', 'r.html'], { cwd: dir });
    expect(run.code).toBe(0);
    const html = readFileSync(join(dir, 'r.html'), 'utf8');
    expect(html.match(/<rect class="usual /g)!.length).toBe(7);
  });

  it('keeps a report of 100 starts under 2 MB', async () => {
    const files = Array.from({ length: 100 }, (_, i) => abs([READY, FAILED, STALLED, AFTER_READY][i % 4]!));
    const run = await runMain(['report', ...files, '-o', 'big.html'], { cwd: dir });
    expect(run.code).toBe(0);
    const html = readFileSync(join(dir, 'big.html'), 'utf8');
    expect(html.match(/<section class="start"/g)).toHaveLength(100);
    expect(statSync(join(dir, 'big.html')).size).toBeLessThan(2 * 1024 * 1024);
  });
});
