/**
 * NODE_EXTRA_CA_CERTS handed over by the bin's shebang (io/extra-ca-handover.ts) and trusted by
 * spinup's own https requests (io/extra-ca-certs.ts): against a real https server on loopback
 * whose certificate a test CA signed, which Node's roots do not hold.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askFleet } from '../../src/history/fleet-client.js';
import { HANDED_OVER, takeBackExtraCaCerts, unloadedExtraCaFile } from '../../src/io/extra-ca-handover.js';
import { probeHealth } from '../../src/io/health-probe.js';
import { postJson } from '../../src/io/post-json.js';
import { repoRoot } from '../helpers/run-main.js';

const TLS = join(repoRoot, 'test/helpers/tls');
const TEST_CA = join(TLS, 'ca.pem');
const UNLOADED = Symbol.for('spinup.unloadedExtraCaCerts');

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer({ key: readFileSync(join(TLS, 'server-key.pem')), cert: readFileSync(join(TLS, 'server-cert.pem')) }, (req, res) => {
    req.resume();
    // Enough of Prometheus's query API for the fleet client: an empty vector.
    if (req.url?.startsWith('/api/v1/query')) res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
    else res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  delete (globalThis as Record<symbol, unknown>)[UNLOADED];
  await new Promise((resolve) => server.close(resolve));
});

describe('takeBackExtraCaCerts', () => {
  it('puts the handed-over file back as NODE_EXTRA_CA_CERTS and drops the hand-over', () => {
    const env: NodeJS.ProcessEnv = { [HANDED_OVER]: '/etc/some-ca.pem', PATH: '/bin' };
    takeBackExtraCaCerts(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/some-ca.pem', PATH: '/bin' });
    expect(unloadedExtraCaFile()).toBe('/etc/some-ca.pem');
    delete (globalThis as Record<symbol, unknown>)[UNLOADED];
  });

  it('an empty hand-over (the variable was not set) leaves no variable and nothing unloaded', () => {
    const env: NodeJS.ProcessEnv = { [HANDED_OVER]: '', PATH: '/bin' };
    takeBackExtraCaCerts(env);
    expect(env).toEqual({ PATH: '/bin' });
    expect(unloadedExtraCaFile()).toBeUndefined();
  });

  it('no hand-over (node was started some other way): the environment is left as it is', () => {
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/etc/other.pem' };
    takeBackExtraCaCerts(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/other.pem' });
    expect(unloadedExtraCaFile()).toBeUndefined();
  });
});

// In this order: the test CA untrusted, then handed over.
describe("spinup's https requests", () => {
  it('without the file, the test CA is not trusted: each request says so', async () => {
    expect(await probeHealth(`${base}/health`, { timeoutMs: 5_000 })).toMatchObject({ ok: false, error: expect.stringMatching(/certificate/i) });
    expect(await postJson(new URL(`${base}/hook`), '{}', 5_000)).toMatch(/CERT|SELF_SIGNED|UNABLE_TO/);
  });

  it('a handed-over file without the CA that signed the server: the https health check says why, code first', async () => {
    takeBackExtraCaCerts({ [HANDED_OVER]: join(TLS, 'server-cert.pem') });
    expect(await probeHealth(`${base}/health`, { timeoutMs: 5_000 })).toMatchObject({ ok: false, error: expect.stringMatching(/^[A-Z_]+: .*certificate/) });
  });

  it('with the file handed over, a health check, a webhook and the fleet query trust it', async () => {
    takeBackExtraCaCerts({ [HANDED_OVER]: TEST_CA });
    expect(await probeHealth(`${base}/health`, { timeoutMs: 5_000 })).toEqual({ ok: true, status: 200, at: expect.any(Number) });
    expect(await postJson(new URL(`${base}/hook`), '{}', 5_000)).toBeUndefined();
    expect(await askFleet({ url: base, window: '1d', timeoutMs: 5_000 }, ['verdicts'])).toHaveProperty('figures');
  });
});
