/**
 * `--notify URL` (issue 25, item 19): the verdict POSTed to a webhook, as the object `--json`
 * prints for it, and awaited before spinup exits. Real spinup processes (the built bin), real
 * servers it launches, and loopback receivers that answer as slowly or as badly as asked.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runMain } from '../helpers/run-main.js';
import { spinup, until, type SpinupProcess } from '../helpers/spinup-process.js';
import { freePort, OOM_LOG, READY_LOG, replayServer, runScratch } from './run-harness.js';

const { tracker, dir } = runScratch();
const NODE0 = join(repoRoot, 'fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log');
const NODE1 = join(repoRoot, 'fixtures/sglang/19-multinode-h20-node1-hang-after-nccl-init.log');
const FAILED_LOG = join(repoRoot, 'fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');

type Json = Record<string, any>;

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Json;
  /** Whether the spinup being watched had already exited when the receiver answered. */
  spinupGoneAtAnswer: boolean;
}

/** A loopback webhook: keeps each request, answers `status` after `delayMs` (never, with `silent`). */
class Receiver {
  readonly received: Received[] = [];
  watched: SpinupProcess | undefined;
  private readonly server: Server;

  constructor(private readonly answer: { status?: number; delayMs?: number; silent?: boolean } = {}) {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        if (this.answer.silent) return;
        setTimeout(() => {
          this.received.push({ method: req.method!, path: req.url!, headers: req.headers, body: JSON.parse(body) as Json, spinupGoneAtAnswer: this.watched?.child.exitCode !== null });
          res.writeHead(this.answer.status ?? 204).end();
        }, this.answer.delayMs ?? 0);
      });
    });
  }

  async url(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const receivers: Receiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

function receiver(answer?: ConstructorParameters<typeof Receiver>[0]): Receiver {
  const made = new Receiver(answer);
  receivers.push(made);
  return made;
}

/** The built bin; the server a `run` starts is swept with it after the test. */
function run(args: string[]): SpinupProcess {
  const started = spinup(args, {});
  tracker.track(started.pid);
  started.child.stderr!.on('data', () => {
    for (const match of started.stderr().matchAll(/started pid (\d+)/g)) tracker.track(Number(match[1]));
  });
  return started;
}

const jsonLines = (text: string): Json[] => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Json);
const stderrLines = (process: SpinupProcess): string[] => process.stderr().split('\n').filter(Boolean);

describe('--notify URL', () => {
  // The built bin; Node itself also keeps a process alive for an open request, so that main awaits
  // its outputs is proven in-process, in the next test.
  it('a receiver that answers only after 1.5 s still gets the verdict, and spinup exits after it answered', async () => {
    const hook = receiver({ delayMs: 1_500 });
    const url = await hook.url();
    const watch = run(['watch', '--no-follow', '--no-state', '--no-history', '--notify', url, READY_LOG]);
    hook.watched = watch;
    expect(await watch.code).toBe(0);
    expect(hook.received).toHaveLength(1);
    const [got] = hook.received;
    expect(got).toMatchObject({ method: 'POST', path: '/hook', spinupGoneAtAnswer: false });
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.body).toMatchObject({ type: 'verdict', verdict: 'ready', stage: 'ready' });
    expect(watch.stdout()).toMatch(/^READY/m);
    expect(watch.stderr()).not.toContain('--notify');
  }, 60_000);

  it('main (the CLI as a function) returns its exit code only once the slow receiver has answered', async () => {
    const hook = receiver({ delayMs: 1_500 });
    const result = await runMain(['watch', '--no-follow', '--no-state', '--no-history', '--notify', await hook.url(), READY_LOG]);
    // Read at the moment main returned: an output not awaited would still be waiting for its answer here.
    const answeredBeforeReturn = hook.received.length;
    expect(result.code).toBe(0);
    expect(answeredBeforeReturn).toBe(1);
    expect(hook.received[0]!.body).toMatchObject({ type: 'verdict', verdict: 'ready' });
  }, 60_000);

  it('watch: the object posted is the one --json prints for the verdict', async () => {
    const hook = receiver();
    const watch = run(['watch', '--no-follow', '--no-state', '--no-history', '--json', '--notify', await hook.url(), FAILED_LOG]);
    expect(await watch.code).toBe(1);
    const printed = jsonLines(watch.stdout()).filter((e) => e.type === 'verdict');
    expect(printed).toHaveLength(1);
    expect(hook.received.map((r) => r.body)).toEqual(printed);
    expect(printed[0]).toMatchObject({ verdict: 'failed', cause: 'gpu_oom' });
  }, 60_000);

  it('run of a server that fails: the webhook receives FAILED with its cause, the process and the log', async () => {
    const hook = receiver();
    const log = join(dir, 'failed-run.log');
    const started = run(['run', '--no-state', '--no-history', '--log', log, '--notify', await hook.url(), '--', ...replayServer(OOM_LOG, 'exit1')]);
    expect(await started.code).toBe(1);
    expect(hook.received).toHaveLength(1);
    const pid = Number(/started pid (\d+)/.exec(started.stderr())![1]);
    expect(hook.received[0]!.body).toMatchObject({ type: 'verdict', verdict: 'failed', cause: 'gpu_oom', family: 'sglang', process: { pid }, log });
    expect(started.stderr()).toMatch(/^FAILED sglang {2}gpu_oom: GPU out of memory$/m);
  }, 60_000);

  it('run --json: the webhook gets the same verdict object the JSON output prints', async () => {
    const hook = receiver();
    const started = run(['run', '--no-state', '--no-history', '--json', '--log', join(dir, 'json-run.log'), '--notify', await hook.url(), '--', ...replayServer(OOM_LOG, 'exit1')]);
    expect(await started.code).toBe(1);
    const printed = jsonLines(started.stdout()).filter((e) => e.type === 'verdict');
    expect(printed).toHaveLength(1);
    // wall_ms is when each was written: the same moment, give or take the write itself.
    const { wall_ms: _printedAt, ...printedRest } = printed[0]!;
    const { wall_ms: _postedAt, ...postedRest } = hook.received[0]!.body;
    expect(postedRest).toEqual(printedRest);
  }, 60_000);

  const badReceivers: Array<[string, 'refused' | number, RegExp]> = [
    ['a refused port', 'refused', /^spinup: --notify http:\/\/127\.0\.0\.1:\d+\/…: connection refused$/],
    ['an answer of HTTP 500', 500, /^spinup: --notify http:\/\/127\.0\.0\.1:\d+\/…: the receiver answered HTTP 500$/],
  ];
  it.for(badReceivers)('%s: one line on stderr, and the exit code it would have had without --notify', { timeout: 60_000 }, async ([, kind, line]) => {
    const url = kind === 'refused' ? `http://127.0.0.1:${await freePort()}/hook` : await receiver({ status: kind }).url();
    for (const [log, code] of [[READY_LOG, 0], [FAILED_LOG, 1]] as const) {
      const without = run(['watch', '--no-follow', '--no-state', '--no-history', log]);
      const withHook = run(['watch', '--no-follow', '--no-state', '--no-history', '--notify', url, log]);
      expect(await without.code).toBe(code);
      expect(await withHook.code).toBe(code);
      expect(withHook.stdout()).toBe(without.stdout());
      // What it says besides is the same, with one line more.
      const extra = stderrLines(withHook).filter((said) => !stderrLines(without).includes(said));
      expect(extra).toHaveLength(1);
      expect(extra[0]).toMatch(line);
      expect(stderrLines(withHook)).toHaveLength(stderrLines(without).length + 1);
    }
  });

  it('a webhook whose secret is in its user, path or query: the failure line names only its scheme and host', async () => {
    const url = `http://bot:pw-0451@127.0.0.1:${await freePort()}/services/T0/B0/secret-0451?token=secret-0452`;
    const watch = run(['watch', '--no-follow', '--no-state', '--no-history', '--quiet', '--notify', url, READY_LOG]);
    expect(await watch.code).toBe(0);
    expect(stderrLines(watch)).toEqual([expect.stringMatching(/^spinup: --notify http:\/\/127\.0\.0\.1:\d+\/…: connection refused$/)]);
    expect(watch.stderr()).not.toMatch(/0451|0452/);
  }, 60_000);

  it('a receiver that never answers: given up after 5 s, said once; the exit code is the verdict\'s', async () => {
    const hook = receiver({ silent: true });
    const watch = run(['watch', '--no-follow', '--no-state', '--no-history', '--quiet', '--notify', await hook.url(), READY_LOG]);
    expect(await watch.code).toBe(0);
    expect(stderrLines(watch)).toEqual([expect.stringMatching(/^spinup: --notify http:\/\/127\.0\.0\.1:\d+\/…: no answer within 5s$/)]);
  }, 60_000);

  it("a group of nodes (watch a.log b.log): the group's verdict reaches the webhook, as --json prints it", async () => {
    const hook = receiver();
    const watch = run(['watch', '--no-follow', '--no-state', '--json', '--notify', await hook.url(), NODE0, NODE1]);
    const code = await watch.code;
    const printed = jsonLines(watch.stdout()).filter((e) => e.type === 'group_verdict');
    expect(printed).toHaveLength(1);
    expect(code).toBe(printed[0]!.verdict === 'failed' ? 1 : 2);
    expect(hook.received.map((r) => r.body)).toEqual(printed);
    expect(hook.received[0]!.body.group.nodes).toHaveLength(2);
  }, 60_000);

  it("run's group head: the group's verdict (node 1 never joined) reaches the webhook, not the head's own READY", async () => {
    const hook = receiver();
    const head = run(['run', '--no-state', '--no-history', '--listen', '127.0.0.1:0', '--group-size', '2', '--join-budget', '2s', '--log', join(dir, 'head.log'), '--notify', await hook.url(), '--', ...replayServer(READY_LOG, 'hang')]);
    expect(await head.code).toBe(2);
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.body).toMatchObject({ type: 'group_verdict', verdict: 'stalled', node: 1, group: { stalled_node: 1, nodes: [{ node: 0, verdict: 'ready' }, { node: 1, joined: false }] } });
    expect(head.stderr()).toMatch(/^STALLED/m);
  }, 60_000);

  it('watch --listen, a sidecar that serves on after READY: the READY is posted when it comes, not at the exit', async () => {
    const hook = receiver();
    const lines = readFileSync(READY_LOG, 'utf8').split('\n');
    const log = join(dir, 'sidecar.log');
    // The first line alone, then the rest: a live start, not an earlier run read back.
    writeFileSync(log, `${lines[0]}\n`);
    const watch = run(['watch', '--no-state', '--no-history', '--listen', '127.0.0.1:0', '--notify', await hook.url(), log]);
    await watch.waitFor(/stage launch/);
    appendFileSync(log, lines.slice(1).join('\n'));
    await until('the READY posted', () => hook.received[0]);
    expect(hook.received[0]!.body).toMatchObject({ type: 'verdict', verdict: 'ready' });
    expect(watch.child.exitCode).toBeNull();
    watch.child.kill('SIGTERM');
    expect(await watch.code).toBe(0);
    expect(hook.received).toHaveLength(1);
  }, 60_000);

  it("watch heading a group (--listen): the group's READY, then a node's failure after it, each posted as --json prints it", async () => {
    const hook = receiver();
    const log = join(dir, 'group-head.log');
    writeFileSync(log, '');
    const h = run(['watch', '--json', '--no-state', '--no-history', '--listen', '127.0.0.1:0', '--group-size', '2', '--heartbeat', '200ms', '--notify', await hook.url(), log]);
    const url = (await h.waitFor(/status API on (http:\/\/\S+) /))[1]!;
    // The start goes on live: a log already READY when watch opens it would be an earlier run.
    const [first, ...rest] = readFileSync(READY_LOG, 'utf8').split('\n');
    appendFileSync(log, `${first}\n`);
    await until('node 0 joined', () => jsonLines(h.stdout()).find((e) => e.type === 'node_joined' && e.node === 0));
    appendFileSync(log, rest.join('\n'));
    const f = run(['run', '--json', '--no-state', '--no-history', '--heartbeat', '200ms', '--log', join(dir, 'group-follower.log'), '--group-leader', url, '--node-rank', '1', '--', ...replayServer(READY_LOG, 'hang')]);
    await until('the group READY posted', () => hook.received[0]);
    expect(hook.received[0]!.body).toMatchObject({ type: 'group_verdict', verdict: 'ready' });
    const server = Number(/"type":"started","pid":(\d+)/.exec(await until('the follower started', () => (/"type":"started"/.test(f.stdout()) ? f.stdout() : undefined)))![1]);
    process.kill(-server, 'SIGKILL');
    await until("node 1's failure posted", () => hook.received[1]);
    const printed = jsonLines(h.stdout()).find((e) => e.type === 'after_ready_failure' && e.node === 1);
    expect(hook.received[1]!.body).toMatchObject({ type: 'verdict', verdict: 'failed', stage: 'ready', node: 1, cause: printed?.cause, decided_by: 'group' });
    expect(hook.received[1]!.body.reason).toMatch(/^node 1 failed after the group was READY: /);
    h.child.kill('SIGTERM');
    expect(await h.code).toBe(1);
    expect(hook.received).toHaveLength(2);
  }, 60_000);

  const badUrls: Array<[string, string[]]> = [
    ['watch', ['watch', '--no-follow', '--notify', 'ftp://127.0.0.1/hook', READY_LOG]],
    ['watch of a group', ['watch', '--no-follow', '--notify', 'not a url', NODE0, NODE1]],
    ['run', ['run', '--log', 'never-made.log', '--notify', '127.0.0.1:8080', '--', 'node', '-e', 'console.log("launched")']],
  ];
  it.for(badUrls)('a bad URL is a usage error (exit 64) before the start: %s', { timeout: 60_000 }, async ([, args]) => {
    const started = run(args);
    expect(await started.code).toBe(64);
    expect(started.stderr()).toMatch(/--notify wants an http:\/\/ or https:\/\/ URL such as http:\/\/127\.0\.0\.1:8080\/hook, not "/);
    expect(started.stdout()).toBe('');
    expect(existsSync(join(repoRoot, 'never-made.log'))).toBe(false);
  });

  it('both --help texts say what --notify does and how long it waits', async () => {
    for (const command of ['watch', 'run']) {
      const help = run([command, '--help']);
      expect(await help.code).toBe(0);
      expect(help.stdout()).toMatch(/--notify URL {8}POST the verdict, as the JSON object --json prints for it, to URL\n.*\(http:\/\/ or https:\/\/\) when it is decided; spinup waits up to 5s/);
    }
  }, 60_000);
});
