/**
 * Peels the prefixes off a frame: foreign wrappers (docker compose, Buildkite, k8s viewers, an
 * application's own logger) and the server's own timestamp and rank/process tags, in any order
 * and any number, so rules can match the message itself.
 */
import type { CompiledPrefix } from './pack-types.js';

/** The timestamp fields a prefix rule captured, as written in the log. */
export interface TimeParts {
  /** `YYYY-MM-DD` (or `/` separated). */
  date?: string;
  /** Month and day without a year: `MM-DD`, `MMDD` or `MDD` (vLLM, glog, torch c10, SGLang diffusion). */
  md?: string;
  /** `HH:MM:SS`. */
  time?: string;
  /** Fractional seconds digits. */
  frac?: string;
  /** Which prefix rule read it: each timestamp format keeps its own offset. */
  source?: string;
}

export interface ParsedFrame {
  /** The guarded frame as a whole (colour stripped); what reports quote. */
  text: string;
  /** The frame with every recognised prefix removed; what rules match. */
  body: string;
  time?: TimeParts;
  /** Rank tag, e.g. `TP3`, `DP0 TP1`, `rank=1`. */
  rank?: string;
  /** Process tag, e.g. `EngineCore_DP0 pid=12`. */
  proc?: string;
  level?: string;
  /** True when the server's own logger wrote this line (not a raw print or an uncaught traceback). */
  logged: boolean;
}

const MAX_PEELS = 8;

export function parseFrame(text: string, prefixes: readonly CompiledPrefix[]): ParsedFrame {
  const frame: ParsedFrame = { text, body: text, logged: false };
  if (text === '') return frame;
  let body = text;
  for (let peel = 0; peel < MAX_PEELS; peel++) {
    const hit = firstPrefix(body, prefixes);
    if (!hit) break;
    absorb(frame, hit.prefix, hit.groups);
    body = body.slice(hit.length);
  }
  frame.body = body;
  return frame;
}

function firstPrefix(
  body: string,
  prefixes: readonly CompiledPrefix[],
): { prefix: CompiledPrefix; groups: Record<string, string | undefined>; length: number } | undefined {
  // Only a non-empty match counts, and it begins with the body's first unit: skip the prefixes
  // that cannot begin with it (most frames fail every prefix on their first character).
  if (body === '') return undefined;
  const lead = body[0]!;
  for (const prefix of prefixes) {
    if (prefix.firstUnits !== undefined && !prefix.firstUnits.includes(lead)) continue;
    const match = prefix.regex.exec(body);
    if (match && match.index === 0 && match[0].length > 0) {
      return { prefix, groups: match.groups ?? {}, length: match[0].length };
    }
  }
  return undefined;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** syslog's `Mar 10` (groups `mon` and `day`) as `03-10`. */
function monthDay(groups: Record<string, string | undefined>): string | undefined {
  const month = groups.mon === undefined ? -1 : MONTHS.indexOf(groups.mon);
  const day = groups.day?.trim();
  if (month < 0 || day === undefined) return groups.md;
  return `${String(month + 1).padStart(2, '0')}-${day.padStart(2, '0')}`;
}

function absorb(frame: ParsedFrame, prefix: CompiledPrefix, groups: Record<string, string | undefined>): void {
  // Read from the match's groups as they are: a copy of them per prefix peeled cost more than the rest of absorb.
  const md = monthDay(groups);
  // The outermost timestamp gives the time: a collector (kubectl, docker, journald, CI) stamps
  // every line, tracebacks and progress bars included, in one format and one zone, while the
  // server's own stamps inside it are missing from some lines and may be in another zone.
  if (frame.time === undefined && (groups.time !== undefined || groups.date !== undefined || md !== undefined)) {
    frame.time = { date: groups.date, md, time: groups.time, frac: groups.frac, source: prefix.id };
  }
  const rank = groups.rank?.trim();
  if (rank) frame.rank = rank;
  const proc = groups.proc?.trim();
  if (proc) frame.proc = proc;
  if (groups.level) frame.level = groups.level;
  if (prefix.logger) frame.logged = true;
}
