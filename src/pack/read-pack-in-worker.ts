/**
 * The careful read of a pack (YAML, schema, regex analysis: load-pack.ts `readPackCarefully`) in a
 * worker thread, waited for synchronously, as loading a pack is. A curator's pack read the first
 * time leaves the parsers' code and some 30 MB of heap behind in the thread that read it; done in
 * a worker, all of that goes when the worker does, and the watch that follows starts as small as
 * one whose pack came from the cache (issue 18 row e0).
 *
 * Only from the built files (a worker runs JavaScript, not the TypeScript the tests load). Never
 * required for the answer: when no worker can be had, or it answers nothing, or something other
 * than a pack problem goes wrong in it, the caller reads the pack in its own thread, which gives
 * the same pack, or the same error.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from './diagnostic.js';
import { PackError } from './diagnostic.js';
import type { CachedPack } from './pack-cache.js';

/** What the worker posts back. */
export type WorkerAnswer = { checked: CachedPack } | { diagnostics: Diagnostic[] } | { failed: string };

/** Long enough for any pack; a worker that takes longer is given up on, and the pack read here. */
const ANSWER_WITHIN_MS = 120_000;

export function readPackInWorker(file: string, cacheDir: string | undefined): CachedPack | undefined {
  const entry = new URL('./read-pack-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.js') || !existsSync(fileURLToPath(entry))) return undefined;
  const { MessageChannel, Worker, receiveMessageOnPort } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const answered = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  let worker: InstanceType<typeof Worker>;
  try {
    worker = new Worker(entry, { workerData: { file, cacheDir, answered, port: port2 }, transferList: [port2], stdout: true, stderr: true });
  } catch {
    return undefined;
  }
  worker.unref();
  // A worker that fails to start says so later, on this thread's loop: the pack is read here by then.
  worker.on('error', () => undefined);
  try {
    Atomics.wait(answered, 0, 0, ANSWER_WITHIN_MS);
    const answer = receiveMessageOnPort(port1)?.message as WorkerAnswer | undefined;
    if (answer && 'diagnostics' in answer) throw new PackError(answer.diagnostics);
    return answer && 'checked' in answer ? answer.checked : undefined;
  } finally {
    port1.close();
    void worker.terminate();
  }
}
