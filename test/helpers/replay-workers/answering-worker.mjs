/**
 * A stand-in replay worker for the pool's tests: it answers every case with a made-up result,
 * later for earlier cases (so answers come back out of order), and misbehaves as told by the
 * name of a case's log: `throws.log` throws (uncaught), `exits.log` ends the thread.
 */
import { parentPort } from 'node:worker_threads';

parentPort.on('message', ({ index, task }) => {
  const log = task.case.pair.log;
  // Later than the answers to the cases before, so that these are in when the thread dies.
  if (log.endsWith('throws.log')) return void setTimeout(() => { throw new TypeError(`a bug met while replaying ${log}`); }, 200);
  if (log.endsWith('exits.log')) return void setTimeout(() => process.exit(3), 200);
  const replayed = { log, expected: task.expected, family: 'stand-in', verdict: { verdict: 'ready', stage: 'ready', at: 0, elapsedMs: 0, reason: '', evidence: [], symptoms: [] }, pass: true, mismatches: [], seconds: 0 };
  setTimeout(() => parentPort.postMessage({ type: 'case', index, replayed }), 20 - (index % 4) * 5);
});
