// Usage: node silent-load.mjs --model DIR --size-mb N [--load read|workers|sleep|spin] [--chunk-mb C] [--every-ms T]
//        node silent-load.mjs --worker FILE [--chunk-mb C] [--every-ms T]
// A server loading its weights in silence, as a 547 GB checkpoint does for minutes. It writes DIR/model.safetensors
// (N MB, so no large fixture is stored), prints SGLang's first lines up to "Load weight begin", then prints nothing:
//   read     reads the file once, C MB every T ms (re-reads count: rchar counts the page cache too)
//   workers  three workers read it in turn and exit: one paced, one `cat` (too quick to be seen), one under sh
//   sleep    reads nothing (a hang)
//   spin     burns CPU, reads nothing (a hung collective)
// When the load is done it writes DIR/done-at (the wall time) and sleeps. Everything gives up after 300 s.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    'size-mb': { type: 'string', default: '32' },
    load: { type: 'string', default: 'read' },
    worker: { type: 'string' },
    'chunk-mb': { type: 'string', default: '2' },
    'every-ms': { type: 'string', default: '250' },
  },
});
const MB = 1 << 20;
const chunk = Number(values['chunk-mb']) * MB;
const everyMs = Number(values['every-ms']);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
setTimeout(() => process.exit(0), 300_000).unref();

async function readSlowly(file) {
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(chunk);
  while (readSync(fd, buffer, 0, chunk, null) > 0) await sleep(everyMs);
  closeSync(fd);
}

function run(command, args) {
  return new Promise((resolve) => spawn(command, args, { stdio: 'ignore' }).once('exit', resolve));
}

if (values.worker) {
  await readSlowly(values.worker);
  process.exit(0);
}

const dir = values.model;
const weights = join(dir, 'model.safetensors');
const block = Buffer.alloc(MB, 7);
const fd = openSync(weights, 'w');
for (let i = 0; i < Number(values['size-mb']); i++) writeFileSync(fd, block);
closeSync(fd);
writeFileSync(join(dir, 'config.json'), '{}\n');

console.log(`[2025-01-01 00:00:00] server_args=ServerArgs(model_path='${dir}', tp_size=1)`);
console.log('[2025-01-01 00:00:01] Load weight begin. avail mem=70.00 GB');

const self = new URL(import.meta.url).pathname;
const workerArgs = ['--chunk-mb', values['chunk-mb'], '--every-ms', values['every-ms']];
switch (values.load) {
  case 'read':
    await readSlowly(weights);
    break;
  case 'workers':
    await run(process.execPath, [self, '--worker', weights, ...workerArgs]);
    await run('cat', [weights]);
    await run('sh', ['-c', `"${process.execPath}" "${self}" --worker "${weights}" ${workerArgs.join(' ')}; true`]);
    break;
  case 'sleep':
    break;
  case 'spin':
    for (;;);
  default:
    process.stderr.write(`silent-load: unknown --load ${values.load}\n`);
    process.exit(64);
}
writeFileSync(join(dir, 'done-at'), String(Date.now()));
setInterval(() => {}, 1_000);
