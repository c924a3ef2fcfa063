/**
 * Issue 25 item 17, under `run`: the server's fatal traceback arrives on stderr a line at a time
 * while another traceback is printed on stdout line for line in between, and the server does not
 * exit. Each stream's traceback is read on its own: the fatal one's exception line names the
 * cause (vLLM rejected its configuration) and decides at once, with the server still running.
 */
import { describe, expect, it } from 'vitest';
import { runScratch, runSpinup, server } from './run-harness.js';

const { tracker, dir } = runScratch();

describe('run: a traceback on stderr interleaved with one on stdout', () => {
  it('25.17: the stderr traceback gives FAILED bad_argument (vllm/config-rejected) at its exception line, not at the exit', async () => {
    const run = await runSpinup({ tracker, dir, args: ['--json', '--pack', 'vllm', '--grace', '2s'], server: server('interleaved-traceback.mjs') });
    // Both tracebacks reached the log, their lines alternating.
    const log = run.logText();
    expect(log).toMatch(/^ValueError: max_model_len 99999 exceeds the limit$/m);
    expect(log.indexOf('ConnectionError: telemetry')).toBeLessThan(log.indexOf('ValueError: max_model_len'));
    // Decided by the log (the server never exits by itself; spinup stopped it).
    expect(run.verdicts[0], JSON.stringify(run.verdicts)).toMatchObject({ verdict: 'failed', cause: 'bad_argument', rule: 'vllm/config-rejected', decided_by: 'log' });
    expect(JSON.stringify(run.verdicts[0])).toContain('ValueError: max_model_len 99999 exceeds the limit');
    expect(run.code).toBe(1);
  }, 90_000);
});
