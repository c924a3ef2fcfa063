// Usage: node replay-log.mjs --log FILE [--speed N] [--max-gap-ms M] [--pace-gaps]
//          [--then exit0|exit1|sigkill|hang|orphan|tick|keyboard-interrupt|setsid-daemon|setsid-worker]
// A stand-in LLM server: replays a captured startup log, then ends the way the test needs.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { pacingFrom, pacingOptions, printPacedLog } from './lib/paced-log.mjs';

const { values } = parseArgs({ options: { ...pacingOptions, then: { type: 'string', default: 'exit0' } } });
await printPacedLog(pacingFrom(values));

// Stays in our process group and inherits the pipes, like a scheduler worker outliving its launcher.
// It gives up after 300 s so that a broken test cannot leak it forever.
function leaveOrphan() {
  const orphan = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300_000)'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  orphan.once('spawn', () => {
    process.stdout.write(`orphan pid ${orphan.pid}\n`);
    process.exit(0);
  });
}

function tick() {
  let n = 0;
  setInterval(() => {
    n++;
    process.stdout.write(`tick ${n}\n`);
    if (n % 5 === 0) process.stderr.write(`tick ${n} on stderr\n`);
  }, 100);
  setTimeout(() => process.exit(0), 300_000);
}

// Python's answer to Ctrl-C: the main thread's traceback ending in KeyboardInterrupt, then exit 130.
function exitOnKeyboardInterrupt() {
  process.on('SIGINT', () => {
    process.stderr.write(
      [
        'Traceback (most recent call last):',
        '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
        '    return _run_code(code, main_globals, None,',
        '  File "/usr/local/lib/python3.10/dist-packages/sglang/launch_server.py", line 14, in <module>',
        '    launch_server(server_args)',
        '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/server.py", line 520, in launch_server',
        '    t.join()',
        'KeyboardInterrupt',
        '',
      ].join('\n'),
      () => process.exit(130),
    );
  });
  setTimeout(() => process.exit(0), 300_000);
}

// Leaves our process group and session with setsid(1), as Ray workers and daemonizing helpers do: signals to
// the group no longer reach it. `daemon`: keeps our stdout and stderr, and we exit; `worker`: holds no pipe,
// and we hang on as its parent. Gives up after 300 s.
function leaveSession(kind) {
  const stdio = kind === 'daemon' ? ['ignore', 'inherit', 'inherit'] : 'ignore';
  const child = spawn('setsid', [process.execPath, '-e', 'setTimeout(() => {}, 300_000)'], { stdio });
  child.once('spawn', () => {
    process.stdout.write(`orphan pid ${child.pid}\n`);
    if (kind === 'daemon') process.exit(1);
    setInterval(() => {}, 1_000);
  });
}

switch (values.then) {
  case 'exit0':
    process.exit(0);
  case 'exit1':
    process.exit(1);
  case 'sigkill':
    process.kill(process.pid, 'SIGKILL');
    break;
  case 'hang':
    setInterval(() => {}, 1_000);
    break;
  case 'orphan':
    leaveOrphan();
    break;
  case 'keyboard-interrupt':
    exitOnKeyboardInterrupt();
    break;
  case 'tick':
    // Lives on printing, as a failed server kept for inspection does (a progress bar, a heartbeat): a
    // closed pipe kills it at its next write (EPIPE), as it would a Python print().
    tick();
    break;
  case 'setsid-daemon':
    leaveSession('daemon');
    break;
  case 'setsid-worker':
    leaveSession('worker');
    break;
  default:
    process.stderr.write(`replay-log: unknown --then ${values.then}\n`);
    process.exit(64);
}
