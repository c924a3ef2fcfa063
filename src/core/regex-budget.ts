/**
 * Bounds the work a risky rule pattern can do on one frame. The frame cap (8192 chars) keeps a
 * linear pattern cheap, but not a polynomially backtracking one: `\d+\d+x` on a frame of digits
 * takes minutes at 8192 chars and milliseconds at 512. The pack layer decides which patterns are
 * risky (it parses them; the core does not); this only applies the shorter cap.
 */

/** What a risky pattern reads of each frame: cubic work on it stays in the tens of milliseconds. */
export const RISKY_PATTERN_CHARS = 512;

const nativeExec = RegExp.prototype.exec;

/**
 * Makes `regex` read at most `maxChars` characters of each input, in place: rule lists and the
 * prefilter hold this very object, so it is changed rather than replaced. `test` goes through
 * `exec` too. Match indices are unchanged (the input is cut at its end, never at its start).
 */
export function capPatternInput(regex: RegExp, maxChars = RISKY_PATTERN_CHARS): RegExp {
  Object.defineProperty(regex, 'exec', {
    value(this: RegExp, input: string): RegExpExecArray | null {
      const text = String(input);
      return nativeExec.call(this, text.length > maxChars ? text.slice(0, maxChars) : text);
    },
    configurable: true,
    writable: true,
  });
  return regex;
}
