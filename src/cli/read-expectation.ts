/** A fixture's expectation read for a command: a malformed .expect.yaml is the user's input, a usage error. */
import { ExpectationError, readExpectation, type Expectation } from '../replay/expectation.js';
import { UsageError } from './errors.js';

export function readExpectationArg(file: string): Expectation {
  try {
    return readExpectation(file);
  } catch (error) {
    if (error instanceof ExpectationError) throw new UsageError(error.message);
    throw error;
  }
}
