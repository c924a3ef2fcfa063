/**
 * The line guard's colour-code stripping (core/line-guard.ts stripAnsi), done on raw bytes for
 * the codes logs are full of: CSI sequences (`\x1b[1;36m`) and their pasted caret copies
 * (`^[[0m`). Every byte of those is ASCII, so stripping them from the bytes and then decoding
 * gives what decoding and then stripping gives; a line with any other escape (OSC, a two-byte
 * escape, an unfinished sequence) is not stripped here at all.
 */

const ESC = 0x1b;
const CARET = 0x5e;
const BRACKET = 0x5b;

/**
 * Copies `bytes[start, end)` into `out` without its colour codes; returns the length copied, or
 * -1 when the range holds an escape this does not strip, or does not fit in `out`.
 */
export function stripCodes(bytes: Uint8Array, start: number, end: number, out: Uint8Array): number {
  if (end - start > out.length) return -1;
  let length = 0;
  for (let at = start; at < end; ) {
    const byte = bytes[at]!;
    if (byte === ESC) {
      const after = csiEnd(bytes, at, end);
      if (after === -1) return -1;
      at = after;
    } else if (byte === CARET && at + 2 < end && bytes[at + 1] === BRACKET && bytes[at + 2] === BRACKET) {
      const after = caretEnd(bytes, at, end);
      if (after === -1) out[length++] = bytes[at++]!;
      else at = after;
    } else {
      out[length++] = byte;
      at++;
    }
  }
  return length;
}

/** `\x1b[` [0-9;?]* [ -/]* [@-~]: where the sequence at `at` ends, or -1 when it is not one. */
function csiEnd(bytes: Uint8Array, at: number, end: number): number {
  if (at + 1 >= end || bytes[at + 1] !== BRACKET) return -1;
  let k = at + 2;
  while (k < end && (isDigit(bytes[k]!) || bytes[k] === 0x3b || bytes[k] === 0x3f)) k++;
  while (k < end && bytes[k]! >= 0x20 && bytes[k]! <= 0x2f) k++;
  return k < end && bytes[k]! >= 0x40 && bytes[k]! <= 0x7e ? k + 1 : -1;
}

/** `^[[` [0-9;]* [A-Za-z]: where the copy at `at` ends, or -1 when it is none (the text stays). */
function caretEnd(bytes: Uint8Array, at: number, end: number): number {
  let k = at + 3;
  while (k < end && (isDigit(bytes[k]!) || bytes[k] === 0x3b)) k++;
  if (k >= end) return -1;
  const byte = bytes[k]! | 0x20;
  return byte >= 0x61 && byte <= 0x7a ? k + 1 : -1;
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}
