/** Errors a user can cause; `main` maps each to one clear message and its exit code. */
import { EXIT } from '../core/exit-codes.js';

export class UsageError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export class InputError extends Error {
  readonly exitCode = EXIT.noInput;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InputError';
  }
}

/** `--listen` could not bind: the port is in use, or not ours to take. */
export class ListenError extends Error {
  readonly exitCode = EXIT.unavailable;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
  }
}
