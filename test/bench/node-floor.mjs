/**
 * What any per-line JavaScript pays before it does any work, for context beside the real thing
 * (64 KiB reads, as a stream gives them):
 *   lines   count the lines: one latin1 decode per chunk and String#indexOf
 *   decode  decode every line to its own UTF-8 string (what a classifier must at least do)
 * Usage: node test/bench/node-floor.mjs lines|decode FILE
 */
import { closeSync, openSync, readSync } from 'node:fs';

const [mode, file] = process.argv.slice(2);
const fd = openSync(file, 'r');
const buffer = Buffer.allocUnsafe(1 << 16);
let lines = 0;
let chars = 0;
let carry = Buffer.alloc(0);
for (;;) {
  const read = readSync(fd, buffer, 0, buffer.length, null);
  if (read === 0) break;
  const chunk = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
  let start = 0;
  if (mode === 'lines') {
    const text = chunk.latin1Slice(0, chunk.length);
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      lines++;
      start = end + 1;
    }
  } else {
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      lines++;
      chars += chunk.toString('utf8', start, end).length;
      start = end + 1;
    }
  }
  carry = Buffer.from(chunk.subarray(start));
}
closeSync(fd);
console.log(`${lines} lines${mode === 'decode' ? `, ${chars} chars` : ''}`);
