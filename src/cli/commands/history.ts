/** `spinup history`: not built yet in this revision. */
import { UsageError } from '../errors.js';
import type { Io } from '../io-context.js';

export async function historyCommand(_args: string[], _io: Io): Promise<number> {
  throw new UsageError('the history command is not available in this build yet');
}
