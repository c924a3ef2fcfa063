import { EXIT } from '../core/exit-codes.js';
import type { VerdictKind } from '../core/vocabulary.js';

/** The exit code of each verdict (design contract). */
export function exitCodeFor(verdict: VerdictKind): number {
  return EXIT[verdict];
}
