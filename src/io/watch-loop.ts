/**
 * The live loop shared by `watch` and `run`: bytes in, lines to the session, ticks on the wall
 * clock between them, until a verdict, the end of the input, a timeout or an interrupt.
 */
import type { Verdict } from '../core/events.js';
import type { Session, SessionEvent } from '../core/session.js';
import { LineSplitter } from './line-splitter.js';

export type SourceItem =
  | { kind: 'data'; chunk: Buffer }
  | { kind: 'notice'; notice: { type: string; path?: string; detail?: string } }
  /** Everything that was already there has been read: from now on lines are live. */
  | { kind: 'caught-up' }
  /** The previous file ended (rotation): flush its unterminated last line. */
  | { kind: 'flush' };

export type LoopEnd = 'verdict' | 'ended' | 'timeout' | 'interrupted';

export interface WatchLoopOptions {
  source: AsyncIterable<SourceItem>;
  session: Session;
  /** Wall-clock time (ms); omitted = log time only (reading a finished file). */
  wall?: () => number;
  /** Stop at the first verdict once live; false = read to the end (latest run wins). */
  stopAtVerdict: boolean;
  tickMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvents?: (events: SessionEvent[]) => void;
  onNotice?: (notice: { type: string; path?: string; detail?: string }) => void;
  /** Called every tick (status line refresh). */
  onTick?: () => void;
  maxLineBytes?: number;
}

export interface LoopResult {
  end: LoopEnd;
  verdict?: Verdict;
  truncatedBytes: number;
  lines: number;
}

const DONE = Symbol('done');
/** How long a verdict waits for lines already in flight (a backlog piped in at once). */
const VERDICT_GRACE_MS = 40;
/** ...but a log that never pauses still gets its verdict. */
const VERDICT_GRACE_MAX_MS = 500;
const TICK = Symbol('tick');

export async function runWatchLoop(options: WatchLoopOptions): Promise<LoopResult> {
  const { session, wall } = options;
  const splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes });
  const iterator = options.source[Symbol.asyncIterator]();
  const startedAt = wall?.();
  let caughtUp = false;
  let settlingSince: number | undefined;
  let lines = 0;
  let pending: Promise<IteratorResult<SourceItem>> | undefined;
  const emit = (events: SessionEvent[]): void => {
    if (events.length > 0) options.onEvents?.(events);
  };
  const feed = (splitLines: { text: string; lineNo: number }[]): void => {
    for (const line of splitLines) {
      lines++;
      emit(session.push(line.text, { lineNo: line.lineNo, wall: wall?.() }));
    }
  };
  const finish = async (end: LoopEnd): Promise<LoopResult> => {
    // Not awaited: a generator busy in a pending next() only returns after it; the caller's
    // abort signal is what stops a live source.
    iterator.return?.().catch(() => undefined);
    return { end, verdict: session.verdict, truncatedBytes: splitter.truncatedBytes, lines };
  };
  const aborted = new Promise<typeof DONE>((resolve) => {
    if (options.signal?.aborted) resolve(DONE);
    options.signal?.addEventListener('abort', () => resolve(DONE), { once: true });
  });

  for (;;) {
    if (options.signal?.aborted) return finish('interrupted');
    // With a verdict in hand, only lines already on their way can change it (a newer run).
    const settling = options.stopAtVerdict && caughtUp && session.verdict !== undefined;
    if (settling) settlingSince ??= Date.now();
    else settlingSince = undefined;
    if (settlingSince !== undefined && Date.now() - settlingSince > VERDICT_GRACE_MAX_MS) return finish('verdict');
    if (options.timeoutMs !== undefined && wall && startedAt !== undefined && wall() - startedAt >= options.timeoutMs) {
      return finish(settling ? 'verdict' : 'timeout');
    }
    pending ??= iterator.next();
    const waitMs = settling ? VERDICT_GRACE_MS : (options.tickMs ?? 200);
    const winner = wall || settling
      ? await Promise.race([pending, aborted, sleep(waitMs).then(() => TICK)])
      : await Promise.race([pending, aborted]);
    if (winner === DONE) return finish('interrupted');
    if (winner === TICK && settling) return finish('verdict');
    if (winner === TICK) {
      emit(session.tick({ wall: wall!() }));
      options.onTick?.();
      continue;
    }
    pending = undefined;
    const result = winner as IteratorResult<SourceItem>;
    if (result.done) {
      feed(splitter.end());
      emit(session.end());
      return { end: 'ended', verdict: session.verdict, truncatedBytes: splitter.truncatedBytes, lines };
    }
    const item = result.value;
    if (item.kind === 'data') feed(splitter.push(item.chunk));
    else if (item.kind === 'flush') feed(splitter.end());
    else if (item.kind === 'caught-up') caughtUp = true;
    else options.onNotice?.(item.notice);
    if (wall) emit(session.tick({ wall: wall() }));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
