/** The worker thread of read-pack-in-worker.ts: reads one pack carefully, answers, and is gone. */
import { workerData, type MessagePort } from 'node:worker_threads';
import { PackError } from './diagnostic.js';
import { readPackCarefully } from './load-pack.js';
import type { WorkerAnswer } from './read-pack-in-worker.js';

const { file, cacheDir, answered, port } = workerData as { file: string; cacheDir?: string; answered: Int32Array; port: MessagePort };

let answer: WorkerAnswer;
try {
  answer = { checked: readPackCarefully(file, { cacheDir }).checked };
} catch (error) {
  answer = error instanceof PackError ? { diagnostics: error.diagnostics } : { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
port.postMessage(answer);
Atomics.store(answered, 0, 1);
Atomics.notify(answered, 0);
