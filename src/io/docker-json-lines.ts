/**
 * docker's json-file log driver (`/var/lib/docker/containers/ID/ID-json.log`) stores each line a
 * container printed as `{"log":"...\n","stream":"stderr","time":"2025-03-10T16:21:32.123456789Z"}`.
 * Unwrapped, each entry becomes its log text behind its time in brackets, `[2025-03-10T16:21:32.123456789Z] `,
 * the ISO prefix the shared pack already peels and reads as the line's time (lines the server
 * printed without a timestamp of its own, a traceback, get docker's). docker splits lines longer
 * than 16 KiB into entries whose log has no newline: those are joined, with one prefix.
 */

/** A line of JSON whose first key is docker's `log`. */
export function looksLikeDockerJson(head: Buffer): boolean {
  return /^\s*\{\s*"log"\s*:\s*"/.test(head.toString('utf8', 0, 64));
}

const LF = 10;
/** A line this long that is still not complete is not docker's (it splits at 16 KiB): let it through. */
const MAX_PENDING_BYTES = 1 << 20;

interface Entry {
  log: string;
  time?: string;
}

export class DockerJsonLines {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The last log text ended in a newline: the next entry starts a line, and gets its time. */
  #atLineStart = true;

  push(chunk: Buffer): Buffer[] {
    const out: string[] = [];
    let start = 0;
    for (let lf = chunk.indexOf(LF); lf !== -1; lf = chunk.indexOf(LF, start)) {
      this.#pending.push(chunk.subarray(start, lf));
      this.#line(Buffer.concat(this.#pending).toString('utf8'), out);
      this.#pending = [];
      this.#pendingBytes = 0;
      start = lf + 1;
    }
    if (start < chunk.length) {
      this.#pending.push(Buffer.from(chunk.subarray(start)));
      this.#pendingBytes += chunk.length - start;
      if (this.#pendingBytes > MAX_PENDING_BYTES) {
        out.push(Buffer.concat(this.#pending).toString('utf8'));
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#atLineStart = false;
      }
    }
    return out.length === 0 ? [] : [Buffer.from(out.join(''), 'utf8')];
  }

  end(): Buffer[] {
    const out: string[] = [];
    if (this.#pendingBytes > 0) this.#line(Buffer.concat(this.#pending).toString('utf8'), out);
    this.#pending = [];
    this.#pendingBytes = 0;
    return out.length === 0 ? [] : [Buffer.from(out.join(''), 'utf8')];
  }

  #line(text: string, out: string[]): void {
    const entry = parseEntry(text);
    if (!entry) {
      // Not an entry (a line added by hand, a cut-off write): kept as it is.
      out.push(this.#atLineStart ? `${text}\n` : `\n${text}\n`);
      this.#atLineStart = true;
      return;
    }
    const prefix = this.#atLineStart && entry.time ? `[${entry.time}] ` : '';
    out.push(prefix + entry.log);
    this.#atLineStart = entry.log.endsWith('\n');
  }
}

function parseEntry(text: string): Entry | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { log, time } = (raw ?? {}) as { log?: unknown; time?: unknown };
  if (typeof log !== 'string') return undefined;
  return { log, time: typeof time === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(time) ? time : undefined };
}
