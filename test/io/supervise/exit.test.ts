import { describe, expect, it } from 'vitest';
import { describeExit, exitAfterReadyVerdict, exitVerdict } from '../../../src/io/supervise/exit.js';

const base = { stage: 'load_weights' as const, at: 5_000, elapsedMs: 5_000 };

describe('exitVerdict: the cause a death gives when the log gave none', () => {
  it.for([
    { exit: { code: null, signal: 'SIGKILL' }, cause: 'host_oom', rule: 'process/sigkill', message: 'killed by SIGKILL, likely the OOM killer' },
    { exit: { code: 137, signal: null }, cause: 'host_oom', rule: 'process/sigkill', message: 'killed by SIGKILL, likely the OOM killer' },
    { exit: { code: -9, signal: null }, cause: 'host_oom', rule: 'process/sigkill', message: 'killed by SIGKILL, likely the OOM killer' },
    { exit: { code: null, signal: 'SIGSEGV' }, cause: 'native_crash', rule: 'process/native-signal', message: 'native crash: SIGSEGV' },
    { exit: { code: null, signal: 'SIGBUS' }, cause: 'native_crash', rule: 'process/native-signal', message: 'native crash: SIGBUS' },
    { exit: { code: 134, signal: null }, cause: 'native_crash', rule: 'process/native-signal', message: 'native crash: SIGABRT (exit code 134)' },
    { exit: { code: 1, signal: null }, cause: 'crash', rule: 'process/exit-code', message: 'the server exited with code 1 with no error in its log' },
    { exit: { code: null, signal: 'SIGTERM' }, cause: 'crash', rule: 'process/signal', message: 'the server was killed by SIGTERM with no error in its log' },
    { exit: { code: 0, signal: null }, cause: 'unknown', rule: 'process/exit-zero', message: 'exited (code 0) before it was ready' },
  ] as const)('$exit.code/$exit.signal: $cause', ({ exit, cause, rule, message }) => {
    const verdict = exitVerdict({ ...base, exit });
    expect(verdict).toMatchObject({ verdict: 'failed', stage: 'load_weights', cause, rule, message, evidence: [], symptoms: [] });
    expect(verdict.hint).toBeTruthy();
  });

  it('says when the kernel confirmed the OOM kill', () => {
    const verdict = exitVerdict({ ...base, exit: { code: null, signal: 'SIGKILL' }, oomEvidence: ['dmesg: Out of memory: Killed process 42'] });
    expect(verdict.message).toBe('killed by SIGKILL, likely the OOM killer (the kernel confirms it)');
  });

  it('names a death after ready as such', () => {
    const verdict = exitAfterReadyVerdict({ ...base, stage: 'ready', exit: { code: 0, signal: null } });
    expect(verdict).toMatchObject({ cause: 'unknown', rule: 'process/exit-after-ready', message: 'the server exited with code 0 after it was ready' });
  });

  it.for([
    { exit: { code: 1, signal: null }, text: 'exited with code 1' },
    { exit: { code: 137, signal: null }, text: 'exited with code 137 (128+9: SIGKILL)' },
    { exit: { code: null, signal: 'SIGKILL' }, text: 'was killed by SIGKILL' },
  ] as const)('describeExit: $text', ({ exit, text }) => {
    expect(describeExit(exit)).toBe(text);
  });
});
