/**
 * Node writes to a terminal synchronously (tty.WriteStream makes its descriptor blocking), so a
 * terminal that stops taking output (Ctrl-S, a pager's screen left on hold) would freeze all of
 * `spinup run` inside one write: no more reading the server, whose own pipe then fills and blocks
 * it. Under `run`, terminal writes are made asynchronous like a pipe's: the writes queue in Node,
 * where the stdout echo bounds them (stdout-echo.ts). Node restores the descriptor's flags at exit.
 */
import type { Writable } from 'node:stream';

interface StreamHandle {
  setBlocking?: (blocking: boolean) => number;
}

export function neverBlockOnTerminal(streams: Array<Writable & { isTTY?: boolean }>): void {
  for (const stream of streams) {
    if (!stream.isTTY) continue;
    const handle = (stream as unknown as { _handle?: StreamHandle })._handle;
    handle?.setBlocking?.(false);
  }
}
