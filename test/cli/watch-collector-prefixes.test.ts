/**
 * Issue 13.6: the log's own clock behind the prefixes log collectors add. A captured fixture is
 * rewritten as `kubectl logs --timestamps`, `docker logs -t` and `journalctl -o short-iso` show
 * it (in a temp dir; the fixture is never touched) and must give the verdict it gives bare.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { behindCollector, type Collector } from '../helpers/collector-prefix.js';
import { repoRoot, runMain } from '../helpers/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-collector-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SGLANG_17 = 'fixtures/sglang/17-tp2-warmup-hang-watchdog-timeout-pyspy.log';
const VLLM_10 = 'fixtures/vllm/10-v0251-dgx-spark-dflash-int4-max-seq-len-kv-too-small-failed.log';

async function watchJson(file: string): Promise<{ code: number; verdict: Record<string, unknown> }> {
  const run = await runMain(['watch', '--no-follow', '--no-history', '--json', file]);
  const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code: run.code, verdict: lines.find((line) => line.type === 'verdict')! };
}

function wrapped(fixture: string, collector: Collector, zoneHours: number): string {
  const file = join(dir, `${collector}-${zoneHours}-${fixture.split('/').pop()}`);
  writeFileSync(file, behindCollector(readFileSync(join(repoRoot, fixture), 'utf8'), collector, { zoneHours }));
  return file;
}

describe('13.6: the log clock behind collector prefixes', () => {
  it.for<[Collector, number]>([
    ['kubectl', 0],
    ['kubectl', -5],
    ['docker', 0],
    ['docker', 8],
    ['journald', 0],
    ['journald-short', 0],
  ])('13.6: sglang/17 behind %s (zone %dh) is STALLED in warmup at 5 minutes', async ([collector, zone]) => {
    const { code, verdict } = await watchJson(wrapped(SGLANG_17, collector, zone));
    expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'warmup', silent_ms: 300_000 });
    expect(code).toBe(2);
  });

  it('13.6: the text verdict behind kubectl says silent for 5m00s, as the bare log does', async () => {
    const run = await runMain(['watch', '--no-follow', '--no-history', wrapped(SGLANG_17, 'kubectl', 0)]);
    expect(run.stdout).toMatch(/^STALLED sglang {2}in stage warmup\n {2}silent for 5m00s /);
    // 7m06s from the first line (16:19:26); the bare log loses the 2 s before its first full date.
    expect(run.stdout).toContain('elapsed    7m06s');
  });

  it.for<Collector>(['kubectl', 'journald', 'journald-short'])('13.6: vllm/10 behind %s keeps its 46 minutes and its process tag', async (collector) => {
    const bare = await watchJson(join(repoRoot, VLLM_10));
    const { code, verdict } = await watchJson(wrapped(VLLM_10, collector, 0));
    expect(verdict).toMatchObject({ verdict: 'failed', stage: 'kv_cache', cause: 'kv_cache_memory', proc: 'EngineCore' });
    // The collector's nanoseconds may add a millisecond to the log's whole seconds.
    expect(Math.abs((verdict.at_ms as number) - (bare.verdict.at_ms as number))).toBeLessThan(1000);
    expect(verdict.at_ms).toBeGreaterThan(46 * 60_000);
    expect(code).toBe(1);
  });
});
