// Usage: node flood-server.mjs --log FILE --flood-at N --flood-lines M --record FILE
// A stand-in server that logs a burst (M lines after line N of a captured log, say a verbose
// model summary), then the rest of the log, then stays up. Each write is done when Node's callback
// says the bytes went into the pipe; FILE records 'flood written' and 'all written' as they are,
// so a test can tell a server whose pipe was kept drained from one left blocked.
import { appendFileSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { log: { type: 'string' }, 'flood-at': { type: 'string' }, 'flood-lines': { type: 'string' }, record: { type: 'string' } },
});
const lines = readFileSync(values.log, 'utf8').split('\n').filter((line) => line !== '');
const at = Number(values['flood-at']);
const count = Number(values['flood-lines']);

/** Resolves when the pipe has taken `text` (not when Node has merely buffered it). */
const written = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));

await written(lines.slice(0, at).map((line) => `${line}\n`).join(''));
const filler = 'x'.repeat(80);
const burst = [];
for (let n = 1; n <= count; n++) burst.push(written(`flood line ${n} ${filler}\n`));
await Promise.all(burst);
appendFileSync(values.record, 'flood written\n');
await written(lines.slice(at).map((line) => `${line}\n`).join(''));
appendFileSync(values.record, 'all written\n');
// Up until stopped; gives up after 300 s so that a broken test cannot leak it.
setTimeout(() => process.exit(0), 300_000);
