/**
 * Asks the fleet's Prometheus (its HTTP API, `/api/v1/query`) the queries of fleet-queries.ts,
 * all at once under one deadline. Never throws: a refused connection, a slow or wrong answer,
 * an unreadable token or CA file come back as one sentence, and the caller falls back.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { formatDuration } from '../core/duration.js';
import { extraCaTrust } from '../io/extra-ca-certs.js';
import { figuresFrom, fleetQuery, vectorOf, type FleetFigures, type QueryName, type VectorSample } from './fleet-queries.js';

export interface FleetSource {
  url: string;
  /** Prometheus's duration words (`14d`, `36h`). */
  window: string;
  timeoutMs: number;
  /** A file holding a bearer token (a Kubernetes service account's, say). */
  tokenFile?: string;
  /** A PEM file of the CA that signed the server's certificate (https). */
  caFile?: string;
}

export type FleetAnswer = { figures: FleetFigures } | { problem: string };

export async function askFleet(source: FleetSource, queries: readonly QueryName[]): Promise<FleetAnswer> {
  let base: URL;
  try {
    base = new URL(source.url.endsWith('/') ? source.url : `${source.url}/`);
  } catch {
    return { problem: `${source.url} is not a URL` };
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return { problem: `${source.url} is not an http(s) URL` };
  let secrets: { token?: string; ca?: Buffer };
  try {
    secrets = {
      token: source.tokenFile === undefined ? undefined : readFileSync(source.tokenFile, 'utf8').trim(),
      ca: source.caFile === undefined ? undefined : readFileSync(source.caFile),
    };
  } catch (error) {
    return { problem: `cannot read ${(error as NodeJS.ErrnoException).path ?? 'the token or CA file'} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  const deadline = AbortSignal.timeout(source.timeoutMs);
  try {
    const answers = await Promise.all(queries.map(async (name) => [name, await query(base, fleetQuery(name, source.window), secrets, deadline)] as const));
    const problem = answers.find(([, answer]) => typeof answer === 'string');
    if (problem) return { problem: problem[1] as string };
    return { figures: figuresFrom(Object.fromEntries(answers) as Record<QueryName, VectorSample[]>, source.url, source.window) };
  } catch (error) {
    if (deadline.aborted) return { problem: `no answer within ${formatDuration(source.timeoutMs)}` };
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ECONNREFUSED' ? 'connection refused' : code ?? (error as Error).message };
  }
}

function query(base: URL, promql: string, secrets: { token?: string; ca?: Buffer }, signal: AbortSignal): Promise<VectorSample[] | string> {
  const url = new URL(`api/v1/query?query=${encodeURIComponent(promql)}`, base);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (secrets.token) headers.authorization = `Bearer ${secrets.token}`;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  // A CA file of its own is all this request trusts (as `ca` always is); else Node's roots and NODE_EXTRA_CA_CERTS's.
  const trust = secrets.ca ? { ca: secrets.ca } : extraCaTrust(url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, signal, ...trust }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 8_000_000) body += chunk;
      });
      res.on('end', () => {
        // Prometheus answers a bad query with 400 and a JSON error: vectorOf words both.
        const answer = vectorOf(body);
        resolve(typeof answer === 'string' && res.statusCode !== 200 ? `HTTP ${res.statusCode} (${answer})` : answer);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
