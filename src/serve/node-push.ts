/**
 * `POST /v1/nodes/N/events`: how the followers of a multi-node start reach the head's spinup.
 * The body is NDJSON, the objects a follower's `--json` prints; any request, even an empty one,
 * is also that node's heartbeat. The only route that is not GET: it takes a bearer token
 * (compared in constant time) and a capped body, and hands the parsed lines to the group.
 */
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { send, TEXT_TYPE } from './status-routes.js';

export const NODE_EVENTS_PATH = /^\/v1\/nodes\/(\d{1,4})\/events$/;
/** One push carries a few events (a heartbeat's worth); a follower sends more often, not more. */
export const PUSH_BODY_LIMIT = 1024 * 1024;

export interface NodePushReceiver {
  /** Required of every push when set. */
  token?: string;
  /**
   * The lines of one push, parsed (a line that is not JSON is dropped). Answers with the group's
   * verdict so far (`pending` until there is one), which a follower waits for; or refuses.
   */
  receive(node: number, lines: unknown[], follower?: string): { group: string } | { refused: string };
  /** A push came with a missing or wrong token. */
  onUnauthorized(node: number): void;
}

export function handleNodePush(req: IncomingMessage, res: ServerResponse, node: number, receiver: NodePushReceiver): void {
  if (receiver.token !== undefined && !tokenMatches(req.headers.authorization, receiver.token)) {
    receiver.onUnauthorized(node);
    req.resume();
    return send(res, { status: 401, type: TEXT_TYPE, body: 'unauthorized: push with the group token (--group-token or SPINUP_GROUP_TOKEN) as a bearer header\n', headers: { 'www-authenticate': 'Bearer' } });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= PUSH_BODY_LIMIT) chunks.push(chunk);
    else if (!refused) {
      refused = true;
      send(res, { status: 413, type: TEXT_TYPE, body: `too large: a push carries at most ${PUSH_BODY_LIMIT} bytes; send more often\n`, headers: { connection: 'close' } });
      req.destroy();
    }
  });
  req.on('end', () => {
    if (refused) return;
    const answer = receiver.receive(node, parseNdjson(Buffer.concat(chunks).toString('utf8')), followerId(req.headers[FOLLOWER_HEADER]));
    if ('refused' in answer) return send(res, { status: 409, type: TEXT_TYPE, body: `${answer.refused}\n` });
    send(res, { status: 200, type: 'application/json; charset=utf-8', body: `${JSON.stringify(answer)}\n` });
  });
  req.on('error', () => undefined);
}

/** A follower's spinup names itself in every push (host, pid and a random part), so two on one rank are told apart. */
export const FOLLOWER_HEADER = 'x-spinup-follower';

function followerId(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text.slice(0, 200);
}

/** Digests of equal length, so the comparison takes the same time whatever the token's length or content. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  // Required here, not imported: only a multi-node head checks tokens, and every start loads this file.
  const { createHash, timingSafeEqual } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given !== '';
}

function parseNdjson(body: string): unknown[] {
  return body.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      return [];
    }
  });
}
