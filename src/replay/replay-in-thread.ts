/**
 * Replays cases one after another in this thread (`--jobs 1`, small corpora, and replays that
 * learn from or write a history): each case is reported as soon as it is done, and nothing of it
 * is kept here, so memory does not grow with the corpus.
 */
import { caseTask, replayCase, type CaseTools, type ReplayCase, type ReplayedCase } from './replay-case.js';
import { ReplayInterrupted } from './replay-interrupted.js';

export interface ThreadReplayOptions {
  cases: readonly ReplayCase[];
  tools: CaseTools;
  onCase: (replayed: ReplayedCase) => void;
  signal?: AbortSignal;
}

export async function replayInThread(options: ThreadReplayOptions): Promise<void> {
  for (const c of options.cases) {
    if (options.signal?.aborted) throw new ReplayInterrupted();
    options.onCase(await replayCase(caseTask(c), options.tools));
    // Between cases, a Ctrl-C can be heard.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
