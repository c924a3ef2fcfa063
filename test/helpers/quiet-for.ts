/** Test helper: QuietLines asking a session what core allows, as the fast-line reader does before each question. */
import type { Session } from '../../src/core/session.js';
import { QuietLines, type Quiet } from '../../src/io/fast-path/quiet-lines.js';

export function quietFor(session: Session): {
  classify: (chunk: Buffer, start: number, end: number) => Quiet;
  noteFed: (lineNo: number, text?: string) => boolean;
  nextDue: (chunk: Buffer, start: number, end: number, first: boolean) => number;
} {
  const quiet = new QuietLines();
  return {
    classify: (chunk, start, end) => quiet.classify(session.skippable(), chunk, start, end),
    noteFed: (lineNo, text = '') => quiet.noteFed(session.skippable(), { text, lineNo, truncated: 0 }),
    nextDue: (chunk, start, end, first) => {
      if (first) quiet.newChunk();
      return quiet.dropTo(session.skippable(), chunk, start, end);
    },
  };
}
