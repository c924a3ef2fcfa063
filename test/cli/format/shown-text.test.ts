/** Log text as a terminal is shown it: control characters as visible escapes, everything else as it was. */
import { describe, expect, it } from 'vitest';
import { clip, shownText } from '../../../src/cli/format/shown-text.js';

describe('shownText', () => {
  it.for([
    ['plain text stays', 'CUDA out of memory. Tried 2 GiB', 'CUDA out of memory. Tried 2 GiB'],
    ['a tab stays', 'a\tb', 'a\tb'],
    ['BEL and backspace', 'cause\x07\x08\x08', 'cause\\x07\\x08\\x08'],
    ['a carriage return and a newline', 'a\rb\nc', 'a\\x0db\\x0ac'],
    ['a stray ESC the guard left (ESC c resets the screen)', '\x1bc', '\\x1bc'],
    ['DEL and the C1 CSI', '\x7f\u009b2J', '\\x7f\\x9b2J'],
    ['a bidi override and a line separator', 'a\u202eb\u2028c', 'a\\u202eb\\u2028c'],
    ['non-ASCII text stays', 'müde 模型 ✓', 'müde 模型 ✓'],
  ] as const)('%s', ([, given, shown]) => {
    expect(shownText(given)).toBe(shown);
    expect(shownText(shownText(given))).toBe(shown);
  });

  it('clip cuts what is shown, escapes included', () => {
    expect(clip('ab\x07cd', 6)).toBe('ab\\x0…');
    expect(clip('ab\x07', 10)).toBe('ab\\x07');
  });
});
