/**
 * The console examples of the README, as data a test can run: each ```console block, its `$ `
 * commands and the output shown under each. A comment just above a block,
 * `<!-- example varies: pids durations dates -->`, names what truly varies from run to run; the
 * comparison masks exactly those (`ms`: only sub-second durations, the wall time a live read adds
 * before the log's own clock takes over; `cwd`: the folder the example ran in, shown as `…`). A
 * command line that ends in `\` goes on in the next line, as in a shell. In shown output, a line `…` stands for any number of lines, and
 * a line ending in ` … (cut here)` for any line that begins with what comes before it.
 */
export type Varies = 'pids' | 'durations' | 'ms' | 'dates' | 'cwd';

export interface ConsoleStep {
  command: string;
  shown: string[];
}

export interface ConsoleExample {
  /** 1-based line of the opening fence in the README. */
  line: number;
  varies: Set<Varies>;
  steps: ConsoleStep[];
}

const VARIES = /^<!-- example varies: ([a-z ]+) -->$/;

export function consoleExamples(readme: string): ConsoleExample[] {
  const lines = readme.split('\n');
  const examples: ConsoleExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```console\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const indent = fence[1]!.length;
    const previous = lines.slice(Math.max(0, i - 2), i).reverse().find((l) => l.trim() !== '') ?? '';
    const varies = new Set((VARIES.exec(previous.trim())?.[1] ?? '').split(' ').filter(Boolean) as Varies[]);
    const example: ConsoleExample = { line: i + 1, varies, steps: [] };
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) {
      const text = lines[i]!.slice(indent);
      const last = example.steps.at(-1);
      if (last && last.shown.length === 0 && last.command.endsWith('\\')) last.command += `\n${text}`;
      else if (text.startsWith('$ ')) example.steps.push({ command: text.slice(2), shown: [] });
      else last?.shown.push(text);
    }
    for (const step of example.steps) while (step.shown.at(-1) === '') step.shown.pop();
    examples.push(example);
  }
  return examples;
}

/** Masks what a block says varies, the same way in what is shown and what ran. */
export function mask(text: string, varies: Set<Varies>, cwd?: string): string {
  let out = text;
  if (varies.has('cwd') && cwd !== undefined) out = out.split(`${cwd}/`).join('…/');
  if (varies.has('pids')) out = out.replace(/\b(pid|pids|process group|-- -)( ?)(\d+(?: \d+)*)/g, '$1$2<pid>');
  if (varies.has('dates')) out = out.replace(/\b(?:\d{4}-)?\d\d-\d\d \d\d:\d\d\b/g, '<date>');
  if (varies.has('ms')) out = out.replace(/\b\d+ms\b/g, '<ms>');
  if (varies.has('durations')) out = out.replace(/\b(?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?(?:ms|s))\b|\b\d+h\d+m\b/g, '<duration>');
  // A masked time inside the padded `[  12ms]` column: the padding varies with it.
  return out.replace(/\[ +(<\w+>)\]/g, '[$1]');
}

/** Whether `actual` lines are what `shown` lines show, with `…` and `… (cut here)` as above. */
export function showsAs(shown: readonly string[], actual: readonly string[]): boolean {
  const match = (s: number, a: number): boolean => {
    if (s === shown.length) return a === actual.length;
    const want = shown[s]!;
    if (want.trim() === '…') {
      for (let skip = a; skip <= actual.length; skip++) if (match(s + 1, skip)) return true;
      return false;
    }
    if (a === actual.length) return false;
    const cut = want.endsWith(' … (cut here)') ? want.slice(0, -' … (cut here)'.length) : undefined;
    const same = cut !== undefined ? actual[a]!.startsWith(cut) : actual[a] === want;
    return same && match(s + 1, a + 1);
  };
  return match(0, 0);
}
