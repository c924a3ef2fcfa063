/**
 * Run as `node --expose-gc replay-heap-probe.mjs DIR N1 N2 ...` (a child process of
 * test/replay/replay-heap-flat.test.ts): `spinup replay --jobs 1 DIR` through the built CLI's
 * main in this process, its stdout a terminal-like stream that takes each row as its case is
 * reported. When the Nth row has been printed, a full GC, then the heap in use is noted; the last
 * line printed is JSON: { code, rows, heap: [bytes after N1, after N2, ...] }.
 */
import { Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { main } from '../../dist/cli/main.js';

const [dir, ...at] = process.argv.slice(2);
const checkpoints = at.map(Number);
const heap = [];
let rows = 0;
const stdout = new Writable({
  write(chunk, _encoding, done) {
    for (const row of chunk.toString().split('\n')) {
      if (!/^(pass|FAIL) /.test(row)) continue;
      rows++;
      if (checkpoints.includes(rows)) {
        globalThis.gc();
        heap.push(process.memoryUsage().heapUsed);
      }
    }
    done();
  },
});
// A terminal gets each row as its case is done (a pipe gets them in batches).
stdout.isTTY = true;
const stderr = new PassThrough();
stderr.resume();
const stdin = new PassThrough();
stdin.end();
const code = await main({ argv: ['replay', '--jobs', '1', dir], stdin, stdout, stderr, env: { NO_COLOR: '1' }, cwd: dir });
process.stdout.write(`${JSON.stringify({ code, rows, heap })}\n`);
