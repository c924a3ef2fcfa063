/**
 * An error thrown in a replay worker, carried to the main thread as data and rebuilt there as
 * the kind `main` knows how to report: a pack's diagnostics (exit 78), an expectation the case
 * cannot be replayed against (exit 64), an operating-system error
 * on a log (exit 66), anything else an internal error (exit 70) with the worker's stack.
 */
import { PackError, type Diagnostic } from '../pack/diagnostic.js';
import { ExpectationError } from './expectation.js';

export type ThreadError =
  | { kind: 'pack'; diagnostics: Diagnostic[] }
  | { kind: 'expectation'; file: string; detail: string }
  | { kind: 'system'; message: string; code: string; syscall: string; path?: string; errno?: number }
  | { kind: 'internal'; name: string; message: string; stack?: string };

export function threadError(error: unknown): ThreadError {
  if (error instanceof PackError) return { kind: 'pack', diagnostics: error.diagnostics };
  if (error instanceof ExpectationError) return { kind: 'expectation', file: error.file, detail: error.detail };
  const { code, syscall, path, errno } = (error ?? {}) as NodeJS.ErrnoException;
  if (error instanceof Error && typeof code === 'string' && typeof syscall === 'string') {
    return { kind: 'system', message: error.message, code, syscall, path, errno };
  }
  if (error instanceof Error) return { kind: 'internal', name: error.name, message: error.message, stack: error.stack };
  return { kind: 'internal', name: 'Error', message: String(error) };
}

export function rebuiltError(error: ThreadError): Error {
  if (error.kind === 'pack') return new PackError(error.diagnostics);
  if (error.kind === 'expectation') return new ExpectationError(error.file, error.detail);
  const rebuilt = new Error(error.message);
  if (error.kind === 'system') return Object.assign(rebuilt, { code: error.code, syscall: error.syscall, path: error.path, errno: error.errno });
  rebuilt.name = error.name;
  // The stack that explains a bug is the worker's, not the main thread's message handler.
  rebuilt.stack = error.stack ?? `${error.name}: ${error.message}`;
  return rebuilt;
}
