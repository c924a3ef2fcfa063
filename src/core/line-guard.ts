/**
 * The line guard: turns one raw physical line into the frames the classifier reads.
 * tqdm rewrites a line with `\r`, colour codes sit inside process tags (even in files, and
 * pasted logs show them as literal `^[[`), and a runaway line must not cost unbounded work.
 */

/** Longest frame the rules ever see; longer frames are cut (the cut is counted by the caller). */
export const MAX_FRAME_CHARS = 8192;

// CSI/OSC escape sequences, and their caret-notation copies from pasted logs.
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\^\[\[[0-9;]*[A-Za-z]/g;
const HAS_ESCAPE = /\x1b|\^\[\[/;

/** Whether the line holds a colour code (or its pasted `^[[` copy) that guardFrame would strip. */
export function hasEscape(text: string): boolean {
  return HAS_ESCAPE.test(text);
}

export function stripAnsi(text: string): string {
  return HAS_ESCAPE.test(text) ? text.replace(ANSI, '') : text;
}

/**
 * Splits a physical line into its `\r` frames (and a bar's frame from a line glued after it:
 * gluedAfterBar), strips colour codes, trims trailing whitespace and caps each frame. Empty
 * frames are dropped, except that a wholly blank line yields one empty frame (blank lines are
 * still lines).
 */
export function guardFrames(raw: string, maxChars = MAX_FRAME_CHARS): string[] {
  const text = raw.endsWith('\n') ? raw.slice(0, raw.endsWith('\r\n') ? -2 : -1) : raw;
  if (text.indexOf('\r') === -1) {
    const frame = guardFrame(text, maxChars);
    return gluedAfterBar(frame) === -1 ? [frame] : cutGlued(frame);
  }
  const frames: string[] = [];
  for (const part of text.split('\r')) {
    const frame = guardFrame(part, maxChars);
    if (frame !== '') cutGlued(frame, frames);
  }
  return frames.length > 0 ? frames : [''];
}

/**
 * tqdm's tail, `[elapsed<remaining, rate]`: `[02:29<03:00,  6.95s/it]`, `[00:00<?, ?it/s]`,
 * `[1:02:03<00:10, 12.5MB/s]`. A postfix (`, loss=0.3]`) makes it no tail: no cut there.
 */
const BAR_TAIL = /\[(?:\d+:)?\d+:\d\d<(?:\?|(?:\d+:)?\d+:\d\d), *(?:\?|\d+(?:\.\d+)?)[A-Za-z]*\/[A-Za-z]+\]/g;

/**
 * Where a bar's frame ends when a log line is glued after it, else -1. tqdm draws its frames
 * with `\r` and no newline, so the next line another process writes continues the last frame
 * (`... 23/49 [02:29<03:00,  6.95s/it]node01:41203:41903 [3] NCCL INFO ...`, or a `Fatal Python
 * error`): cut there, the glued line is read as a line of its own (its prefix, its timestamp,
 * a rule anchored at its start) and the frame as a frame.
 */
export function gluedAfterBar(frame: string): number {
  // Asked of every frame read: most have no `<`, and a bar's frame alone ends with its tail's `]`.
  const lt = frame.indexOf('<');
  if (lt === -1) return -1;
  const close = frame.indexOf(']', lt);
  if (close === -1 || close === frame.length - 1) return -1;
  BAR_TAIL.lastIndex = 0;
  for (let tail = BAR_TAIL.exec(frame); tail !== null; tail = BAR_TAIL.exec(frame)) {
    const end = tail.index + tail[0].length;
    if (end < frame.length && frame.slice(end).trim() !== '') return end;
  }
  return -1;
}

/** `frame` cut after each bar a line is glued to (gluedAfterBar), its pieces appended to `into`. */
export function cutGlued(frame: string, into: string[] = []): string[] {
  let rest = frame;
  for (let cut = gluedAfterBar(rest); cut !== -1; cut = gluedAfterBar(rest)) {
    into.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  into.push(rest);
  return into;
}

export function guardFrame(text: string, maxChars = MAX_FRAME_CHARS): string {
  const clipped = text.length > maxChars * 4 ? text.slice(0, maxChars * 4) : text;
  let clean = stripAnsi(clipped).trimEnd();
  if (clean.length > maxChars) clean = clean.slice(0, maxChars);
  return clean;
}
