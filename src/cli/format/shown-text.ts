/**
 * Log text as a terminal is shown it. A log is input from elsewhere: after the line guard has
 * taken out its colour codes, what control characters are left would act on the terminal
 * instead of being read (a backspace or carriage return rewrites the row that names the cause,
 * BEL rings, ESC c resets the screen, the C1 CSI U+009B starts a sequence of its own, a bidi
 * override reorders the line). Every printed piece of log text passes through here, so each of
 * them shows as a visible escape (`\x08`, `\u202e`) instead.
 */

// C0 but tab, DEL, C1, and the invisible characters that move or reorder text (bidi marks,
// embeddings, overrides and isolates; the Unicode line and paragraph separators).
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const HAS_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** `text` with every control character as a visible escape; text without one is returned as is. */
export function shownText(text: string): string {
  if (!HAS_CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Log text made safe to show (see above), cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const shown = shownText(text);
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}
