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
