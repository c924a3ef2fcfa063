/**
 * The bin's shebang starts node without NODE_EXTRA_CA_CERTS (Node 20 parses that file at every
 * start) and hands its value over (io/extra-ca-handover.ts): Node must not load the file, spinup's
 * own https must still trust it, and every process spinup starts must see it as the user gave it.
 * A real https server on loopback, its certificate signed by a test CA only that file names.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run-main.js';

const TLS = join(repoRoot, 'test/helpers/tls');
const TEST_CA = join(TLS, 'ca.pem');
const packageBin = join(repoRoot, 'dist/cli/bin.cjs');
const failedLog = join(repoRoot, 'fixtures/vllm/10-v0251-dgx-spark-dflash-int4-max-seq-len-kv-too-small-failed.log');
const scratch = mkdtempSync(join(tmpdir(), 'spinup-extra-ca-'));

let server: Server;
let hookUrl: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer({ key: readFileSync(join(TLS, 'server-key.pem')), cert: readFileSync(join(TLS, 'server-cert.pem')) }, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

let runs = 0;
/** Runs `command` (asynchronously: the https server answers in this process) with NODE_EXTRA_CA_CERTS as given. */
function run(command: string, args: string[], extraCaCerts: string | undefined): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: join(scratch, `state-${++runs}`) };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.SPINUP_NODE_CA;
  if (extraCaCerts !== undefined) env.NODE_EXTRA_CA_CERTS = extraCaCerts;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('NODE_EXTRA_CA_CERTS under the bin', () => {
  it('is not loaded by node when the bin starts by its shebang (node warns of a missing file only when it loads it)', async () => {
    const missing = join(scratch, 'no-such-ca.pem');
    const byShebang = await run(packageBin, ['--version'], missing);
    expect(byShebang.code).toBe(0);
    expect(byShebang.stderr).toBe('');
    const byNode = await run(process.execPath, [packageBin, '--version'], missing);
    expect(byNode.code).toBe(0);
    expect(byNode.stderr).toContain('Ignoring extra certs from');
  });

  it('is still trusted by --notify: the verdict reaches an https receiver whose CA only that file names', async () => {
    received.length = 0;
    const trusted = await run(packageBin, ['watch', '--no-follow', '--notify', hookUrl, failedLog], TEST_CA);
    expect(trusted.code).toBe(1);
    expect(trusted.stderr).not.toMatch(/notify|certificate/i);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!)).toMatchObject({ type: 'verdict', verdict: 'failed' });

    // Without the file the receiver is not trusted: the trust above came from it.
    received.length = 0;
    const untrusted = await run(packageBin, ['watch', '--no-follow', '--notify', hookUrl, failedLog], undefined);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/spinup: .*(certificate|SELF_SIGNED|UNABLE_TO)/i);
    expect(received).toHaveLength(0);

    // A file that cannot be read is warned of, as node warns, once spinup's TLS needs it, and then ignored.
    const missing = await run(packageBin, ['watch', '--no-follow', '--notify', hookUrl, failedLog], join(scratch, 'no-such-ca.pem'));
    expect(missing.code).toBe(1);
    expect(missing.stderr.match(/Ignoring extra certs from `[^`]*no-such-ca\.pem`, load failed: ENOENT/g)).toHaveLength(1);
    expect(received).toHaveLength(0);
  });

  it('reaches the server under run as the user gave it, with nothing of the hand-over left', async () => {
    const script = 'printf "extra=[%s] handed=[%s]\\n" "${NODE_EXTRA_CA_CERTS-unset}" "${SPINUP_NODE_CA-unset}"';
    const given = await run(packageBin, ['run', '--pack', 'sglang', '--log', join(scratch, `run-${runs}.log`), '--', 'sh', '-c', script], TEST_CA);
    expect(given.stdout).toContain(`extra=[${TEST_CA}] handed=[unset]`);
    const unset = await run(packageBin, ['run', '--pack', 'sglang', '--log', join(scratch, `run-${runs}.log`), '--', 'sh', '-c', script], undefined);
    expect(unset.stdout).toContain('extra=[unset] handed=[unset]');
  });
});
