/**
 * One POST of a JSON body to an http(s) URL, within a deadline. Never throws: what went wrong
 * (refused, an answer other than 2xx, no answer in time) comes back as a few words.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { formatDuration } from '../core/duration.js';
import { extraCaTrust } from './extra-ca-certs.js';

/** Undefined when the receiver answered 2xx; else why not. */
export function postJson(url: URL, body: string, timeoutMs: number): Promise<string | undefined> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const deadline = AbortSignal.timeout(timeoutMs);
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers, signal: deadline, ...extraCaTrust(url) }, (res) => {
      // The answer's body says nothing we use; reading it lets the connection end.
      res.resume();
      res.on('end', () => resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300 ? undefined : `the receiver answered HTTP ${res.statusCode}`));
      res.on('error', (error) => resolve(failure(error, deadline, timeoutMs)));
    });
    req.on('error', (error) => resolve(failure(error, deadline, timeoutMs)));
    req.end(body);
  });
}

function failure(error: Error, deadline: AbortSignal, timeoutMs: number): string {
  if (deadline.aborted) return `no answer within ${formatDuration(timeoutMs)}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  return code ?? error.message;
}
