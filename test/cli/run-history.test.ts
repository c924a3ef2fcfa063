/** `spinup run` records its start in the history like `watch`, and takes the same history flags. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHistory } from '../../src/history/history-store.js';
import { OOM_LOG, READY_LOG, replayServer, runScratch, runSpinup } from './run-harness.js';

const { tracker, dir } = runScratch();


describe('spinup run and the start history', () => {
  it('records a READY start (--then) and a FAILED one in --history PATH, read back as source run', async () => {
    const history = join(dir, 'history.jsonl');
    const ready = await runSpinup({ tracker, dir, args: ['--json', '--history', history, '--then', 'exit 0'], server: replayServer(READY_LOG, 'exit0') });
    expect(ready.code).toBe(0);
    const failed = await runSpinup({ tracker, dir, args: ['--json', '--history', history], server: replayServer(OOM_LOG, 'exit1') });
    expect(failed.code).toBe(1);
    const { records, skipped } = readHistory(history);
    expect(skipped).toEqual([]);
    expect(records.map((r) => [r.source, r.verdict, r.log])).toEqual([
      ['run', 'ready', ready.log],
      ['run', 'failed', failed.log],
    ]);
    expect(records[1]!.cause).toBe('gpu_oom');
    expect(Object.keys(records[0]!.stages_ms).length).toBeGreaterThan(0);
  });

  it('--no-history records nothing; --no-learn still records', async () => {
    const none = join(dir, 'none.jsonl');
    const off = await runSpinup({ tracker, dir, args: ['--json', '--no-history', '--then', 'exit 0'], server: replayServer(READY_LOG, 'exit0'), env: { XDG_STATE_HOME: join(dir, 'state') } });
    expect(off.code).toBe(0);
    expect(existsSync(join(dir, 'state', 'spinup', 'history.jsonl'))).toBe(false);
    const kept = await runSpinup({ tracker, dir, args: ['--json', '--no-learn', '--history', none, '--then', 'exit 0'], server: replayServer(READY_LOG, 'exit0') });
    expect(kept.code).toBe(0);
    expect(readHistory(none).records.map((r) => r.source)).toEqual(['run']);
  });

  it('--history with --no-history is a usage error (exit 64), nothing launched', async () => {
    const result = await runSpinup({ tracker, dir, args: ['--history', join(dir, 'h.jsonl'), '--no-history'], server: replayServer(READY_LOG, 'exit0') });
    expect(result.code).toBe(64);
    expect(result.stderr.text()).toContain('--history and --no-history disagree');
  });
});
