/**
 * Clips coloured text to `max` visible characters for a one-line status on a terminal: escape
 * sequences take no room and are never cut in half (a cut one garbles the terminal), and a
 * clipped line ends in a reset, so no colour leaks into what follows.
 */
const ESCAPE = /\x1b\[[0-9;?]*[ -\/]*[@-~]/y;

export function clipVisible(text: string, max: number): string {
  let out = '';
  let shown = 0;
  let coloured = false;
  for (let at = 0; at < text.length; ) {
    ESCAPE.lastIndex = at;
    const escape = ESCAPE.exec(text);
    if (escape) {
      out += escape[0];
      coloured = true;
      at += escape[0].length;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(at)!);
    if (shown >= max || (shown === max - 1 && hasVisibleAfter(text, at + char.length))) {
      if (max > 0) out += '…';
      return coloured ? `${out}\x1b[0m` : out;
    }
    out += char;
    shown++;
    at += char.length;
  }
  return out;
}

function hasVisibleAfter(text: string, from: number): boolean {
  return text.slice(from).replace(new RegExp(ESCAPE.source, 'g'), '').length > 0;
}
