/** Replay reports for rule owners: --coverage, --format junit, --record; plain output stays as it was. */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { junitXml } from '../../src/cli/format/junit.js';
import { readExpectation } from '../../src/replay/expectation.js';
import { repoRoot, runMain } from '../helpers/run-main.js';

/** 235 single logs and 2 groups (of 2 node logs each). */
const FIXTURES = 237;
const FIXTURE_LOGS = 239;
const OOM = 'fixtures/sglang/04-rocm-glm5-tp8-hip-oom-load';
const HANG = 'fixtures/sglang/10-tp2-stuck-nccl-init-hang';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'spinup-reports-'));
}

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1)!;
}

describe('spinup replay --coverage', () => {
  it('reports every shipped rule exercised or explained, and keeps the last line', async () => {
    const run = await runMain(['replay', '--coverage', 'fixtures']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Coverage: (\\d+) of (\\d+) rules exercised by ${FIXTURE_LOGS} fixture logs; (\\d+) untested with a reason; 0 never exercised$`, 'm'));
    expect(run.stdout).not.toMatch(/^Never exercised/m);
    expect(run.stdout).toMatch(/^Untested, with the pack's reason:\n {2}sglang\/prefix-time-rank +SGLang v0\.2\.14/m);
    expect(run.stdout).toMatch(new RegExp(`^Error-like lines no rule claimed \\(\\d+ of ${FIXTURE_LOGS} fixture logs\\):$`, 'm'));
    expect(lastLine(run.stdout)).toBe(`${FIXTURES} passed, 0 failed`);
  });

  it('--json adds one object per rule and unclaimed line, then the coverage summary', async () => {
    const run = await runMain(['replay', '--coverage', '--json', 'fixtures/vllm']);
    const lines = run.stdout.trimEnd().split('\n');
    // Every line is JSON, the tally included (issue 25, item 11): `| jq` reads it all.
    const objects = lines.map((l) => JSON.parse(l) as Record<string, any>);
    expect(objects.at(-1)).toEqual({ type: 'summary', passed: expect.any(Number), failed: 0, total: expect.any(Number) });
    const rules = objects.filter((o) => o.type === 'coverage_rule');
    expect(rules.find((r) => r.id === 'vllm/startup-complete')).toMatchObject({ status: 'exercised', kind: 'ready' });
    expect(rules.find((r) => r.id === 'vllm/startup-complete')?.exercised_by).toContain('vllm/02-v085post1-smollm-single-gpu-ready');
    // Only vLLM fixtures were replayed: SGLang's own rules show up as gaps.
    expect(rules.find((r) => r.id === 'sglang/fired-up')?.status).toBe('never');
    expect(objects.at(-1)?.type).toBe('summary');
    expect(objects.at(-2)?.type).toBe('coverage');
  });
});

describe('spinup replay --format junit', () => {
  it('prints JUnit XML with one testcase per fixture', async () => {
    const run = await runMain(['replay', '--format', 'junit', 'fixtures']);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="spinup replay" tests="${FIXTURES}" failures="0"`)).toBe(true);
    expect(run.stdout.match(/<testcase /g)).toHaveLength(FIXTURES);
    expect(run.stdout).toMatch(/<testsuite name="sglang" tests="\d+" failures="0"/);
    expect(run.stdout).toMatch(/<testcase classname="replay\.vllm" name="02-v085post1-smollm-single-gpu-ready" file="fixtures\/vllm\/02-v085post1-smollm-single-gpu-ready\.log" time="\d+\.\d{3}">/);
    expect(run.stdout).not.toMatch(/\u001b/);
    expect(lastLine(run.stdout)).toBe('</testsuites>');
  });

  it('--output writes the file and keeps the table and its last line on stdout', async () => {
    const dir = scratch();
    const run = await runMain(['replay', '--format', 'junit', '--output', join(dir, 'replay.xml'), 'fixtures/vllm']);
    expect(run.stdout).toMatch(/^pass {2}vllm\/02-/m);
    expect(lastLine(run.stdout)).toMatch(/^\d+ passed, 0 failed$/);
    expect(readFileSync(join(dir, 'replay.xml'), 'utf8')).toMatch(/^<\?xml/);
  });

  it('reports a mismatch as the testcase failure', async () => {
    const dir = scratch();
    copyFileSync(join(repoRoot, `${OOM}.log`), join(dir, 'oom.log'));
    writeFileSync(join(dir, 'oom.expect.yaml'), 'family: sglang\nverdict: failed\ncause: host_oom\n');
    const run = await runMain(['replay', '--format', 'junit', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/<testsuites name="spinup replay" tests="1" failures="1"/);
    expect(run.stdout).toMatch(/<failure message="cause: expected host_oom, got gpu_oom" type="mismatch">cause: expected host_oom, got gpu_oom<\/failure>/);
  });

  it('escapes markup and drops characters XML cannot carry', () => {
    const xml = junitXml([{ suite: 's', name: 'a<b>&"c"', file: 'f', seconds: 0.5, mismatches: ['x < y'], output: 'colour \u001b[31mred\u001b[0m & more' }]);
    expect(xml).toContain('name="a&lt;b&gt;&amp;&quot;c&quot;"');
    expect(xml).toContain('<failure message="x &lt; y" type="mismatch">x &lt; y</failure>');
    expect(xml).toContain('<system-out>colour [31mred[0m &amp; more</system-out>');
  });
});

describe('spinup replay --record', () => {
  it('writes the expect file from the current verdict, which then replays', async () => {
    const dir = scratch();
    copyFileSync(join(repoRoot, `${OOM}.log`), join(dir, 'oom.log'));
    const run = await runMain(['replay', '--record', 'oom.log', '--family', 'sglang'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const written = readFileSync(join(dir, 'oom.expect.yaml'), 'utf8');
    expect(written).toBe(
      [
        'family: sglang',
        'verdict: failed',
        'stage: load_weights',
        'cause: gpu_oom',
        "evidence: 'torch.OutOfMemoryError: HIP out of memory.'",
        "notes: 'recorded by spinup replay --record; check and correct'",
        '',
      ].join('\n'),
    );
    expect(run.stdout).toBe(`wrote oom.expect.yaml (check and correct it):\n${written}`);
    expect(lastLine((await runMain(['replay', dir])).stdout)).toBe('1 passed, 0 failed');
  });

  it('refuses to replace an existing expect file, and --force keeps what a person wrote', async () => {
    const dir = scratch();
    copyFileSync(join(repoRoot, `${HANG}.log`), join(dir, 'hang.log'));
    const mine = "verdict: ready\nthen_idle: 3h\nsource: 'https://example.org/issue/1'\nnotes: 'TP2 hang, captured by hand'\n";
    writeFileSync(join(dir, 'hang.expect.yaml'), mine);
    const refused = await runMain(['replay', '--record', 'hang.log'], { cwd: dir });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toMatch(/hang\.expect\.yaml already exists; check it by hand, or pass --force/);
    expect(readFileSync(join(dir, 'hang.expect.yaml'), 'utf8')).toBe(mine);

    const forced = await runMain(['replay', '--record', 'hang.log', '--force'], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(forced.stdout.split('\n')[0]).toBe('replaced hang.expect.yaml (check and correct it):');
    const expectation = readExpectation(join(dir, 'hang.expect.yaml'));
    expect(expectation).toMatchObject({ family: 'sglang', verdict: ['stalled'], stage: ['distributed_init'], thenIdleMs: 3 * 3_600_000, source: 'https://example.org/issue/1', notes: 'TP2 hang, captured by hand' });
  });

  it('--then-idle records a hang as stalled', async () => {
    const dir = scratch();
    copyFileSync(join(repoRoot, `${HANG}.log`), join(dir, 'hang.log'));
    const run = await runMain(['replay', '--record', join(dir, 'hang.log'), '--then-idle', '3h']);
    expect(run.code).toBe(0);
    expect(readFileSync(join(dir, 'hang.expect.yaml'), 'utf8')).toMatch(/^family: sglang\nverdict: stalled\nstage: distributed_init\nthen_idle: '3h'\n/);
  });

  it.for([
    { name: 'a missing log', args: ['replay', '--record', 'nope.log'], code: 66, stderr: /no such log: nope\.log/ },
    { name: 'an unknown family', args: ['replay', '--record', `${OOM}.log`, '--family', 'tgi'], code: 64, stderr: /--family wants one of sglang, vllm/ },
    { name: 'a log not named .log', args: ['replay', '--record', 'README.md'], code: 64, stderr: /a fixture log is named NAME\.log/ },
    { name: 'paths besides --record', args: ['replay', '--record', `${OOM}.log`, 'fixtures'], code: 64, stderr: /--record takes one LOG/ },
    { name: '--family without --record', args: ['replay', '--family', 'vllm'], code: 64, stderr: /--family only applies with --record/ },
    { name: '--output without junit', args: ['replay', '--output', 'x.xml'], code: 64, stderr: /--output only applies with --format junit/ },
    { name: 'an unknown format', args: ['replay', '--format', 'tap'], code: 64, stderr: /--format wants one of text, json, junit/ },
  ])('refuses $name', async ({ args, code, stderr }) => {
    const run = await runMain(args);
    expect(run.stderr).toMatch(stderr);
    expect(run.code).toBe(code);
    expect(existsSync(join(repoRoot, `${OOM}.expect.yaml`))).toBe(true);
  });
});
