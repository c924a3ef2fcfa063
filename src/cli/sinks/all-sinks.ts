/**
 * Several outputs as one: every call goes to each sink in order, and `close` awaits every sink's
 * close at once, each within a bound, so one output that hangs or fails (a webhook, a pipe) is
 * said once on stderr and never keeps the others from finishing or the command from exiting.
 */
import type { Writable } from 'node:stream';
import { formatDuration } from '../../core/duration.js';
import { write } from '../io-context.js';
import type { Sink } from './sink.js';

/** Each method of a Sink, always there. */
export type Sinks = Required<Omit<Sink, 'name'>>;

/** Longer than any output's own bound (a webhook's 5 s, a follower's last push's 2 s): a close past it is stuck. */
export const CLOSE_BOUND_MS = 10_000;

export function allSinks(sinks: ReadonlyArray<Sink | undefined>, options: { stderr: Writable; closeBoundMs?: number }): Sinks {
  const all = sinks.filter((sink): sink is Sink => sink !== undefined);
  const boundMs = options.closeBoundMs ?? CLOSE_BOUND_MS;
  return {
    events: (events, readyDeclared) => all.forEach((s) => s.events?.(events, readyDeclared)),
    groupEvents: (events) => all.forEach((s) => s.groupEvents?.(events)),
    output: (bytes) => all.forEach((s) => s.output?.(bytes)),
    notice: (notice, node) => all.forEach((s) => s.notice?.(notice, node)),
    note: (note) => all.forEach((s) => s.note?.(note)),
    tick: () => all.forEach((s) => s.tick?.()),
    earlier: (verdict, detail) => all.forEach((s) => s.earlier?.(verdict, detail)),
    verdict: (report) => all.forEach((s) => s.verdict?.(report)),
    loadProgress: (progress, final) => all.forEach((s) => s.loadProgress?.(progress, final)),
    message: (text) => all.forEach((s) => s.message?.(text)),
    close: async (end) => {
      await Promise.all(all.map((sink) => closeWithin(sink, { end, boundMs, stderr: options.stderr })));
    },
  };
}

async function closeWithin(sink: Sink, { end, boundMs, stderr }: { end: Parameters<Sink['close']>[0]; boundMs: number; stderr: Writable }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`did not finish within ${formatDuration(boundMs)}; exiting without it`), boundMs);
    timer.unref();
  });
  const closed = Promise.resolve()
    .then(() => sink.close(end))
    .then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
  const why = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (why !== undefined) write(stderr, `spinup: ${sink.name ?? 'an output'}: ${why}\n`);
}
