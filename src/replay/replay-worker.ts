/**
 * A replay worker thread: loads the packs once, then replays each case the main thread sends and
 * posts back what the reports need. It never prints; a case that throws is posted as data, so the
 * main thread reports it in the place and with the exit code the one-thread replay would.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CompiledPack } from '../core/pack-types.js';
import { loadPacks } from './load-families.js';
import { replayCase } from './replay-case.js';
import { threadError } from './thread-error.js';
import type { WorkerReply, WorkerSetup, WorkerTask } from './worker-messages.js';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const post = (reply: WorkerReply): void => port.postMessage(reply);

let tools: { packs: CompiledPack[]; inferencePacks?: CompiledPack[] } | undefined;
try {
  tools = {
    packs: loadPacks(setup.packRefs),
    inferencePacks: setup.coverage ? loadPacks(setup.packRefs, { withoutCauseRules: 'all' }) : undefined,
  };
} catch (error) {
  post({ type: 'fatal', error: threadError(error) });
}

if (tools) {
  const ready = tools;
  port.on('message', (message: WorkerTask) => {
    replayCase(message.task, ready).then(
      (replayed) => post({ type: 'case', index: message.index, replayed }),
      (error: unknown) => post({ type: 'case-error', index: message.index, error: threadError(error) }),
    );
  });
}
