/**
 * Which 3-unit window of a literal a pair-table scanner probes: the one whose pairs are
 * rarest in the text seen so far, with a static guess of letter frequencies to break ties
 * (and to start with, before any text was seen). Shared by the string and the byte scanner.
 */

/** Start of the 3-unit window with the lowest `cost` (ties: the static guess). */
export function cheapestWindow(units: ArrayLike<number>, cost: (at: number) => number): number {
  let best = 0;
  let bestCost = Infinity;
  let bestStatic = Infinity;
  for (let at = 0; at + 3 <= units.length; at++) {
    const c = cost(at);
    const s = staticCost(units, at);
    if (c < bestCost || (c === bestCost && s < bestStatic)) {
      best = at;
      bestCost = c;
      bestStatic = s;
    }
  }
  return best;
}

/**
 * The window `cheapestWindow` picks with the static guess as its cost, in one pass: the first
 * choice for every literal of a scanner, so thousands of windows are weighed at each start.
 */
export function staticWindow(units: ArrayLike<number>): number {
  if (units.length < 3) return 0;
  let best = 0;
  let bestCost = Infinity;
  let a = unitFrequency(units[0]!);
  let b = unitFrequency(units[1]!);
  for (let at = 0; at + 3 <= units.length; at++) {
    const c = unitFrequency(units[at + 2]!);
    const cost = a * b + b * c;
    if (cost < bestCost) {
      best = at;
      bestCost = cost;
    }
    a = b;
    b = c;
  }
  return best;
}

/** A guess before any text is seen: pairs of rare units are rare. */
export function staticCost(units: ArrayLike<number>, at: number): number {
  const a = unitFrequency(units[at]!);
  const b = unitFrequency(units[at + 1]!);
  const c = unitFrequency(units[at + 2]!);
  return a * b + b * c;
}

export function codeUnits(text: string): number[] {
  const units: number[] = [];
  for (let i = 0; i < text.length; i++) units.push(text.charCodeAt(i));
  return units;
}

// Rough frequency of lower-case letters in English-like log text, a..z.
const LETTERS = [82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1];

/**
 * Relative frequency (per mille) of each byte value in log lines; only the order matters. A
 * table, as a literal's every window asks for three of them (a start weighs thousands).
 */
const FREQUENCY = (() => {
  const table = new Uint8Array(256).fill(3);
  // Digits, and the punctuation of timestamps, paths and key=value pairs.
  for (let unit = 0x30; unit <= 0x39; unit++) table[unit] = 40;
  for (const unit of ':.,-_/=[]()') table[unit.charCodeAt(0)] = 40;
  for (let unit = 0x41; unit <= 0x5a; unit++) table[unit] = 8;
  LETTERS.forEach((frequency, k) => (table[0x61 + k] = frequency));
  table[0x20] = 150;
  return table;
})();

/** Relative frequency of a code unit or byte: the table's, and that of the rarest for units past a byte. */
function unitFrequency(unit: number): number {
  return unit < 256 ? FREQUENCY[unit]! : 3;
}
