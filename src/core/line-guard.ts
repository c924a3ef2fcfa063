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
 * Splits a physical line into its `\r` frames, strips colour codes, trims trailing
 * whitespace and caps each frame. Empty frames are dropped, except that a wholly blank
 * line yields one empty frame (blank lines are still lines).
 */
export function guardFrames(raw: string, maxChars = MAX_FRAME_CHARS): string[] {
  const text = raw.endsWith('\n') ? raw.slice(0, raw.endsWith('\r\n') ? -2 : -1) : raw;
  if (text.indexOf('\r') === -1) return [guardFrame(text, maxChars)];
  const frames: string[] = [];
  for (const part of text.split('\r')) {
    const frame = guardFrame(part, maxChars);
    if (frame !== '') frames.push(frame);
  }
  return frames.length > 0 ? frames : [''];
}

export function guardFrame(text: string, maxChars = MAX_FRAME_CHARS): string {
  const clipped = text.length > maxChars * 4 ? text.slice(0, maxChars * 4) : text;
  let clean = stripAnsi(clipped).trimEnd();
  if (clean.length > maxChars) clean = clean.slice(0, maxChars);
  return clean;
}
