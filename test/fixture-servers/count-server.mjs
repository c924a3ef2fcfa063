// Usage: node count-server.mjs --log FILE --count N
// A server that writes N numbered lines on stdout ('count 1' ...), a batch every 5 ms, each batch
// stopping in the middle of a line that the next one completes; 300 ms in, it logs FILE on stderr
// (whole lines, at once: a failing start), while the counting goes on. Whoever reads stdout (spinup, then after a hand-over its drainer) must get
// every number once, in order, and no line cut in two. Then it stays up (300 s at most).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { log: { type: 'string' }, count: { type: 'string' } } });
const total = Number(values.count);
setTimeout(() => process.stderr.write(readFileSync(values.log)), 300);

let n = 0;
let carry = '';
const timer = setInterval(() => {
  // A reader that stopped holds the rest back; our own buffer stays bounded.
  if (process.stdout.writableLength > 1 << 20) return;
  let batch = carry;
  while (n < total && batch.length < 8_000) batch += `count ${++n}\n`;
  // Odd-sized writes, cut anywhere in a line; the last few bytes wait for the next batch.
  const keep = n < total ? 3 : 0;
  carry = batch.slice(batch.length - keep);
  const now = batch.slice(0, batch.length - keep);
  for (let at = 0; at < now.length; at += 997) process.stdout.write(now.slice(at, at + 997));
  if (n >= total && carry === '') clearInterval(timer);
}, 5);
setTimeout(() => process.exit(0), 300_000);
