/** The worker thread of read-pack-in-worker.ts: reads one pack carefully, answers, and is gone. */
import { workerData, type MessagePort } from 'node:worker_threads';
import type { WorkerAnswer } from './read-pack-in-worker.js';

const { file, cacheDir, answered, port } = workerData as { file: string; cacheDir?: string; answered: Int32Array; port: MessagePort };

// Whatever fails, even loading the reader, is answered: the thread that waits must not wait in vain.
let answer: WorkerAnswer;
try {
  const { PackError } = await import('./diagnostic.js');
  const { readPackCarefully } = await import('./load-pack.js');
  try {
    answer = { checked: readPackCarefully(file, { cacheDir }).checked };
  } catch (error) {
    if (!(error instanceof PackError)) throw error;
    answer = { diagnostics: error.diagnostics };
  }
} catch (error) {
  answer = { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
port.postMessage(answer);
Atomics.store(answered, 0, 1);
Atomics.notify(answered, 0);
