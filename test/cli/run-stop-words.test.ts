import { describe, expect, it } from 'vitest';
import { freePort, READY_LOG, READY_THEN_CRASH_LOG, replayServer, runScratch, runSpinup } from './run-harness.js';

// The words for how a supervised start ended must match what happened: the user's own Ctrl-C is
// not a crash, and a fatal line before READY was declared is not one "after the server was ready".
const { tracker, dir } = runScratch();

describe('spinup run: words that match the state', () => {
  it('Ctrl-C on a READY server: its KeyboardInterrupt traceback is no crash; the server was stopped by the user', async () => {
    const controller = new AbortController();
    let said = '';
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--grace', '5s'],
      server: replayServer(READY_LOG, 'keyboard-interrupt'),
      signal: controller.signal,
      onStderr: (text) => {
        said += text;
        if (said.includes('spinup: attached:') && !controller.signal.aborted) controller.abort();
      },
    });
    const stderr = run.stderr.text();
    expect(run.code, stderr).toBe(130);
    // The server did answer the SIGINT with its traceback, and the log has it.
    expect(run.logText()).toMatch(/^KeyboardInterrupt$/m);
    expect(stderr).not.toMatch(/crash after ready/);
    expect(stderr).not.toMatch(/^FAILED/m);
    expect(stderr).toContain('spinup: stopped by the user (Ctrl-C): the server exited on SIGINT');
  }, 60_000);

  it('a fatal line while --health still waits: FAILED, worded as before READY, which was never declared', async () => {
    const closed = await freePort();
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--grace', '2s', '--health', `http://127.0.0.1:${closed}/health`, '--health-wait', '1m'],
      server: replayServer(READY_THEN_CRASH_LOG, 'hang'),
    });
    const stderr = run.stderr.text();
    expect(run.code, stderr).toBe(1);
    expect(stderr).toMatch(/^FAILED /m);
    expect(stderr).not.toContain('after the server was ready');
    expect(stderr).not.toMatch(/crash after ready/);
    expect(stderr).toMatch(/^ {2}why +a fatal error appeared after the log's ready line, while the health probe had not yet answered 200: READY was never declared$/m);
    expect(stderr).toMatch(/fatal error after the ready line, before READY \(the health probe has not answered 200\): /);
  }, 60_000);
});
