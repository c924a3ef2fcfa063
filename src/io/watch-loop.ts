/**
 * The live loop shared by `watch` and `run`: bytes (or lines already cut) in, lines to the
 * session, ticks on the wall clock between them, until a verdict, the end of the input, a
 * timeout or an interrupt. `run` plugs its deciders in (the process, its probe, --timeout): the
 * loop gives them a turn after every item and every tick, and reads on after its verdict.
 */
import type { Verdict } from '../core/events.js';
import type { Session, SessionEvent } from '../core/session.js';
import { FastLineReader } from './fast-path/fast-line-reader.js';
import { LineSplitter, type SplitLine } from './line-splitter.js';
import { systemClock, type WallClock } from './wall-clock.js';

export type SourceItem =
  | { kind: 'data'; chunk: Buffer }
  | { kind: 'notice'; notice: { type: string; path?: string; detail?: string } }
  /** Everything that was already there has been read: from now on lines are live. */
  | { kind: 'caught-up' }
  /** The previous file ended (rotation): flush its unterminated last line. */
  | { kind: 'flush' };

/** What the loop reads: a byte source's items, or lines another splitter already cut (run's stdout and stderr, merged), numbered as in the log. */
export type LoopItem = SourceItem | { kind: 'lines'; lines: readonly LoopLine[] };

/** A line as the session takes it: its text and its 1-based number in the log. */
export interface LoopLine {
  text: string;
  lineNo: number;
  /** The output it came from, when the log merges several (run's `stdout` and `stderr`). */
  stream?: string;
}

/**
 * Takes part in the verdict beside the log (run: the process's exit, its health probe,
 * --timeout, the watch after READY). It decides through its owner, never by ending the loop:
 * the loop reads on after its verdict.
 */
export interface LoopDecider {
  /**
   * A turn, after every item the loop read and on every tick (every `tickMs` while the input is
   * quiet), so it comes at least that often under constant output too. `wall` is the loop's wall time.
   */
  tick(wall: number): void;
  /** The loop's signal aborted; with `onAbort: 'drain'` the loop reads on. */
  interrupted?(): void;
}

export type LoopEnd = 'verdict' | 'ended' | 'timeout' | 'interrupted';

export interface WatchLoopOptions {
  source: AsyncIterable<LoopItem>;
  session: Session;
  /** Wall-clock time (ms) for the session; omitted = log time only (reading a finished file). */
  wall?: () => number;
  /** The loop's own waits (a verdict settling, an earlier verdict standing); default the system clock. */
  clock?: WallClock;
  /** Stop at the first verdict once live; false = read to the end (latest run wins). */
  stopAtVerdict: boolean;
  /**
   * With `stopAtVerdict`: called when the loop settles on its verdict. 'read-on' keeps the loop
   * reading (a sidecar serving probes after READY: a crash after it, a restarted server) until
   * the input ends or the signal aborts; --timeout no longer applies then. Default 'stop'.
   */
  onSettled?: (verdict: Verdict) => 'stop' | 'read-on';
  tickMs?: number;
  /** Wall time (ms) after which the loop gives up, in every mode (live or not). */
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvents?: (events: SessionEvent[]) => void;
  onNotice?: (notice: { type: string; path?: string; detail?: string }) => void;
  /** Called every tick (status line refresh). */
  onTick?: () => void;
  /**
   * A verdict decided by a line that was already in the file when the follow began: an earlier
   * run's, or this run's if it ended before we looked. A new run starting within
   * `earlierVerdictWaitMs` replaces it; otherwise it is the answer.
   */
  onEarlierVerdict?: (verdict: Verdict) => void;
  /** Default EARLIER_VERDICT_WAIT_MS. */
  earlierVerdictWaitMs?: number;
  maxLineBytes?: number;
  /**
   * Lines after `caught-up` were written while we watched (a followed file): a jump of their log
   * time beyond the wall time that passed is the host's clock stepping, not silence. A pipe
   * cannot tell its backlog from live lines, so it keeps the log's time as it is.
   */
  liveAfterCatchUp?: boolean;
  /**
   * Leave unread the lines that change nothing, and after a verdict those that cannot change it
   * (io/fast-path); default true. False reads every line: the reference the fast path is tested
   * against.
   */
  skipQuietLines?: boolean;
  /** The smallest chunk the fast path takes up at (io/fast-path/fast-line-reader.ts FAST_PATH_FIRST_CHUNK); 0: the first. */
  fastPathFirstChunk?: number;
  /** Given a turn after every item and every tick; none by default (watch decides by the log alone). */
  deciders?: readonly LoopDecider[];
  /**
   * What the abort of `signal` does: 'end' (default) ends the loop at once; 'drain' tells the
   * deciders and reads on to the end of the source (run: the server's last words after Ctrl-C).
   */
  onAbort?: 'end' | 'drain';
  /**
   * At the end of the input, settle the session (read its last line, name an unfinished start);
   * default true. False leaves that to a decider (run: how the process ended says more).
   */
  settleAtEnd?: boolean;
}

export interface LoopResult {
  end: LoopEnd;
  verdict?: Verdict;
  truncatedBytes: number;
  /** Physical lines in the input, read or let go (the `\r` frames of a line count once). */
  lines: number;
  /** The loop settled on a verdict and read on (`onSettled`): its end came later. */
  readOn: boolean;
}

const DONE = Symbol('done');
/** How long a verdict waits for lines already in flight (a backlog piped in at once). */
const VERDICT_GRACE_MS = 40;
/** ...but a log that never pauses still gets its verdict. */
const VERDICT_GRACE_MAX_MS = 500;
const TICK = Symbol('tick');
/** Live, how long a line may wait for its newline before it is read as it stands. */
export const PARTIAL_LINE_QUIET_MS = 500;
/**
 * How long a verdict found in the file waits for a new run before it stands. A restarted server
 * that appends to the same log prints its launch line within seconds (imports, argument
 * parsing); a run that failed before watch opened the file must still get its answer.
 */
export const EARLIER_VERDICT_WAIT_MS = 30_000;

export async function runWatchLoop(options: WatchLoopOptions): Promise<LoopResult> {
  const { session, wall } = options;
  const clock = options.clock ?? systemClock;
  const splitter = new LineSplitter({ maxLineBytes: options.maxLineBytes });
  const iterator = options.source[Symbol.asyncIterator]();
  const timeoutFrom = clock.now();
  let caughtUp = false;
  let settlingSince: number | undefined;
  // The last line of what was there at the start, and the verdict it gave (not the answer).
  let backlogEnd = 0;
  let earlier: Verdict | undefined;
  let earlierSince = 0;
  const next = new NextItem(iterator);
  const deciders = options.deciders ?? [];
  const draining = options.onAbort === 'drain';
  let toldInterrupted = false;
  // Draining, the abort is news for the deciders, not the loop's end.
  const interrupted = (): boolean => {
    if (!options.signal?.aborted) return false;
    if (!draining) return true;
    if (!toldInterrupted) for (const decider of deciders) decider.interrupted?.();
    toldInterrupted = true;
    return false;
  };
  const turn = (): void => {
    if (deciders.length === 0) return;
    const now = wall?.() ?? clock.now();
    for (const decider of deciders) decider.tick(now);
  };
  let linesNo = 0;
  const emit = (events: SessionEvent[]): void => {
    if (events.length > 0) options.onEvents?.(events);
  };
  // A line read before its newline came (the writer went quiet mid-line): not read again as it was.
  let readEarly: SplitLine | undefined;
  let lastDataAt = clock.now();
  const pushAt = (line: LoopLine, at: number | undefined): void => {
    if (readEarly && line.lineNo === readEarly.lineNo && line.text === readEarly.text) return;
    readEarly = undefined;
    emit(session.push(line.text, { lineNo: line.lineNo, wall: at, live: caughtUp && wall !== undefined && options.liveAfterCatchUp === true, stream: line.stream }));
  };
  const push = (line: LoopLine): void => pushAt(line, wall?.());
  const fast = options.skipQuietLines === false ? undefined : new FastLineReader(session, splitter, push, options.maxLineBytes, options.fastPathFirstChunk);
  const read = (chunk: Buffer): void => (fast ? fast.read(chunk) : splitter.forEachLine(chunk, push));
  const feed = (splitLines: SplitLine[]): void => {
    for (const line of splitLines) push(line);
  };
  const result = (end: LoopEnd): LoopResult => ({ end, verdict: session.verdict, truncatedBytes: splitter.truncatedBytes, lines: Math.max(splitter.lastLineNo, linesNo), readOn });
  // Settled on a verdict and asked to read on: from now on like a read to the end.
  let readOn = false;
  const settle = (): LoopResult | undefined => {
    if (options.onSettled?.(session.verdict!) !== 'read-on') return result('verdict');
    readOn = true;
    settlingSince = undefined;
    return undefined;
  };
  const finish = async (end: LoopEnd): Promise<LoopResult> => {
    // Not awaited: a generator busy in a pending next() only returns after it; the caller's
    // abort signal is what stops a live source.
    iterator.return?.().catch(() => undefined);
    return result(end);
  };

  for (;;) {
    if (interrupted()) return finish('interrupted');
    const verdict = session.verdict;
    const stopAtVerdict = options.stopAtVerdict && !readOn;
    if (stopAtVerdict && caughtUp && verdict && verdict !== earlier && decidedBefore(verdict, backlogEnd)) {
      earlier = verdict;
      earlierSince = clock.now();
      options.onEarlierVerdict?.(verdict);
    }
    const stale = earlier !== undefined && verdict === earlier && clock.now() - earlierSince < (options.earlierVerdictWaitMs ?? EARLIER_VERDICT_WAIT_MS);
    // With a verdict in hand, only lines already on their way can change it (a newer run).
    const settling = stopAtVerdict && caughtUp && verdict !== undefined && !stale;
    if (settling) settlingSince ??= clock.now();
    else settlingSince = undefined;
    if (settlingSince !== undefined && clock.now() - settlingSince > VERDICT_GRACE_MAX_MS && settle()) return finish('verdict');
    // Wall time in every mode: a finished file read on log time, an endless pipe, a FIFO.
    const leftMs = options.timeoutMs === undefined || readOn ? undefined : options.timeoutMs - (clock.now() - timeoutFrom);
    if (leftMs !== undefined && leftMs <= 0) {
      // A verdict found in the file still waiting for a newer run is better than no answer.
      return finish(settling || stale ? 'verdict' : 'timeout');
    }
    const waitMs = settling ? VERDICT_GRACE_MS : (options.tickMs ?? 200);
    const bounded = wall || settling ? waitMs : undefined;
    const winner = await next.wait(leftMs === undefined ? bounded : Math.min(bounded ?? leftMs, leftMs), toldInterrupted ? undefined : options.signal);
    if (winner === DONE && draining) continue;
    if (winner === TICK && !wall && !settling) continue;
    if (winner === DONE) return finish('interrupted');
    if (winner === TICK && settling && settle()) return finish('verdict');
    if (winner === TICK && settling) continue;
    if (winner === TICK) {
      // `tail -F` shows a line as soon as it is written, newline or not: after a short quiet, so do we.
      const partial = clock.now() - lastDataAt >= PARTIAL_LINE_QUIET_MS ? splitter.pending() : undefined;
      if (partial && !(readEarly && partial.lineNo === readEarly.lineNo && partial.text === readEarly.text)) {
        push(partial);
        readEarly = partial;
      }
      emit(session.tick({ wall: wall!() }));
      options.onTick?.();
      turn();
      continue;
    }
    const arrived = winner;
    if (arrived.done) {
      feed(splitter.end());
      if (options.settleAtEnd !== false) emit(session.end());
      return result('ended');
    }
    const item = arrived.value;
    if (item.kind === 'data') {
      lastDataAt = clock.now();
      read(item.chunk);
    }
    else if (item.kind === 'lines') {
      lastDataAt = clock.now();
      // Lines that arrived together share their wall time (one clock read, not one per line).
      const at = wall?.();
      for (const line of item.lines) pushAt(line, at);
      linesNo = Math.max(linesNo, item.lines.at(-1)?.lineNo ?? 0);
    }
    else if (item.kind === 'flush') feed(splitter.end());
    else if (item.kind === 'caught-up') {
      caughtUp = true;
      backlogEnd = splitter.lastLineNo;
    }
    else options.onNotice?.(item.notice);
    if (wall) emit(session.tick({ wall: wall() }));
    turn();
  }
}

/**
 * A ready or failed verdict rests on a line; one in the backlog is stale news when a restarted
 * server appends to the same log (the grep loop's false READY). A stall is decided by live
 * silence, so it always counts.
 */
function decidedBefore(verdict: Verdict, backlogEnd: number): boolean {
  const line = verdict.decidedBy?.lineNo;
  return verdict.verdict !== 'stalled' && line !== undefined && line <= backlogEnd;
}

type Arrival = { result: IteratorResult<LoopItem> } | { error: unknown };

/**
 * The source's next item, or a tick, or the abort, whichever comes first. `Promise.race` against
 * a promise that settles late or never (a tick, the abort) keeps every result it raced reachable,
 * so every chunk ever read stayed in memory (a 1 GB line held 1 GB); each wait here leaves no
 * timer, listener or reaction behind, and the source's promise gets one reaction however many
 * ticks pass while it is pending.
 */
class NextItem {
  #inFlight = false;
  #arrived: Arrival | undefined;
  #wake: (() => void) | undefined;

  constructor(private readonly iterator: AsyncIterator<LoopItem>) {}

  async wait(ms: number | undefined, signal: AbortSignal | undefined): Promise<IteratorResult<LoopItem> | typeof DONE | typeof TICK> {
    if (!this.#arrived && !this.#inFlight) this.#request();
    if (!this.#arrived && !signal?.aborted) await this.#sleep(ms, signal);
    if (signal?.aborted) return DONE;
    const arrived = this.#arrived;
    if (!arrived) return TICK;
    this.#arrived = undefined;
    if ('error' in arrived) throw arrived.error;
    return arrived.result;
  }

  #request(): void {
    this.#inFlight = true;
    const land = (arrived: Arrival): void => {
      this.#inFlight = false;
      this.#arrived = arrived;
      this.#wake?.();
    };
    this.iterator.next().then(
      (result) => land({ result }),
      (error: unknown) => land({ error }),
    );
  }

  #sleep(ms: number | undefined, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      timer?.unref?.();
      signal?.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }
}
