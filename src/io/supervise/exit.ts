/**
 * Verdicts the process itself gives, for when its log has no cause to tell: how it ended (exit code, signal)
 * and where the log had got to. A cause found in the log always wins over these; they are the last resort.
 */
import { constants } from 'node:os';
import type { LogLine, Verdict } from '../../core/events.js';
import type { Cause, Stage } from '../../core/vocabulary.js';
import type { ChildExit } from '../child-process.js';

/** Signals (and the shell's 128+N exit codes for them) that mean a crash in native code. */
const NATIVE_SIGNALS = new Set<string>(['SIGSEGV', 'SIGBUS', 'SIGABRT', 'SIGILL', 'SIGFPE']);

/** How the main process ended, in words: `exited with code 1`, `was killed by SIGKILL`. */
export function describeExit(exit: Pick<ChildExit, 'code' | 'signal'>): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  const code = exit.code ?? 0;
  const viaShell = code > 128 ? signalName(code - 128) : undefined;
  return `exited with code ${code}${viaShell ? ` (128+${code - 128}: ${viaShell})` : ''}`;
}

/** The signal an exit stands for: its own, or the one a shell encodes as 128+N (137 = SIGKILL). */
export function exitSignal(exit: Pick<ChildExit, 'code' | 'signal'>): string | undefined {
  if (exit.signal) return exit.signal;
  if (exit.code === -9) return 'SIGKILL';
  return exit.code !== null && exit.code > 128 ? signalName(exit.code - 128) : undefined;
}

export interface ExitVerdictOptions {
  exit: Pick<ChildExit, 'code' | 'signal'>;
  /** Where the log had got to. */
  stage: Stage;
  lastLine?: LogLine;
  /** Session time for `at`. */
  at: number;
  /** Wall time from the launch to the death. */
  elapsedMs: number;
  /** Kernel or cgroup lines showing the OOM killer acted. */
  oomEvidence?: string[];
  /** The log had printed its ready line (not yet confirmed) before the process died. */
  afterReadyLine?: boolean;
}

/** A FAILED verdict made from the death of the process, for a log that named no cause. */
export function exitVerdict(options: ExitVerdictOptions): Verdict {
  const { exit } = options;
  const { cause, rule, message, hint } = classifyExit(exit, options.oomEvidence ?? []);
  const before = options.afterReadyLine ? 'after its ready line, before that was confirmed' : 'before it was ready';
  return {
    verdict: 'failed',
    stage: options.stage,
    at: options.at,
    elapsedMs: options.elapsedMs,
    reason: `the server process ${describeExit(exit)} ${before}, and its log names no cause`,
    cause,
    rule,
    message,
    hint,
    evidence: [],
    symptoms: [],
    lastLine: options.lastLine,
  };
}

/** A FAILED verdict for a server that died after it was ready. */
export function exitAfterReadyVerdict(options: Omit<ExitVerdictOptions, 'afterReadyLine'>): Verdict {
  const verdict = exitVerdict(options);
  verdict.reason = `the server process ${describeExit(options.exit)} after it was ready`;
  if (verdict.cause === 'unknown') {
    verdict.rule = 'process/exit-after-ready';
    verdict.message = `the server ${describeExit(options.exit)} after it was ready`;
    verdict.hint = 'Something asked the server to shut down (a signal it handled, or its own shutdown logic); the end of the log says more.';
  }
  return verdict;
}

function classifyExit(
  exit: Pick<ChildExit, 'code' | 'signal'>,
  oomEvidence: string[],
): { cause: Cause; rule: string; message: string; hint: string } {
  const signal = exitSignal(exit);
  if (signal === 'SIGKILL') {
    return {
      cause: 'host_oom',
      rule: 'process/sigkill',
      message: `killed by SIGKILL, likely the OOM killer${oomEvidence.length > 0 ? ' (the kernel confirms it)' : ''}`,
      hint: 'Check `dmesg -T | grep -i oom` or the container\'s memory limit (memory.events); give it more host RAM or load with less (fewer parallel loaders, no mmap).',
    };
  }
  if (signal !== undefined && NATIVE_SIGNALS.has(signal)) {
    return {
      cause: 'native_crash',
      rule: 'process/native-signal',
      message: `native crash: ${signal}${exit.signal ? '' : ` (exit code ${exit.code})`}`,
      hint: 'A C++/CUDA extension crashed without a Python traceback: run with PYTHONFAULTHANDLER=1 to get one; mismatched builds (torch, the driver, flashinfer) are the usual cause.',
    };
  }
  if (signal !== undefined || (exit.code !== null && exit.code !== 0)) {
    return {
      cause: 'crash',
      rule: signal !== undefined ? 'process/signal' : 'process/exit-code',
      message: `the server ${describeExit(exit)} with no error in its log`,
      hint: signal !== undefined
        ? `Something outside the server sent ${signal}: a scheduler, a job time limit, or a person.`
        : 'Read the last lines of the log; raise the log level (--log-level debug) if they say nothing.',
    };
  }
  return {
    cause: 'unknown',
    rule: 'process/exit-zero',
    message: 'exited (code 0) before it was ready',
    hint: 'A launcher that starts the server in the background and returns cannot be supervised: run the server itself in the foreground.',
  };
}

function signalName(number: number): string | undefined {
  return Object.entries(constants.signals).find(([, value]) => value === number)?.[0];
}
