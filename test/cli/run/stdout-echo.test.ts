import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StdoutEcho } from '../../../src/cli/run/stdout-echo.js';

// The echo over a real pipe whose reader starts reading only after a while (`| less`, paused).
function lateReader(delaySeconds: number): { stdin: Writable; text: Promise<string> } {
  const reader = spawn('sh', ['-c', `sleep ${delaySeconds}; exec cat`], { stdio: ['pipe', 'pipe', 'ignore'] });
  let text = '';
  reader.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stdin: reader.stdin, text: new Promise((resolve) => reader.once('close', () => resolve(text))) };
}

describe('StdoutEcho', () => {
  it('never waits: past its bound it drops whole lines, and says how many once the reader is back', async () => {
    const { stdin, text } = lateReader(1);
    const echo = new StdoutEcho(stdin, { limitBytes: 64 * 1024, logShown: () => './run.log' });
    const lines = 20_000;
    for (let n = 1; n <= lines; n++) echo.output(Buffer.from(`line ${n} ${'x'.repeat(40)}\n`));
    // Held for the reader: the bound, not everything.
    expect(stdin.writableLength).toBeLessThanOrEqual(64 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    echo.close();
    stdin.end();
    const shown = await text;
    const notes = [...shown.matchAll(/^spinup: (\d+) lines? not shown: stdout was not reading \(\.\/run\.log has every line\)$/gm)];
    expect(notes).toHaveLength(1);
    const printed = shown.split('\n').filter((line) => line.startsWith('line '));
    // Whole lines only, the first ones in order; the rest counted.
    expect(printed.every((line, index) => line === `line ${index + 1} ${'x'.repeat(40)}`)).toBe(true);
    expect(printed.length + Number(notes[0]![1])).toBe(lines);
    expect(shown.trimEnd().endsWith(notes[0]![0])).toBe(true);
  }, 20_000);

  it('a reader that keeps up sees every line and no note', async () => {
    const { stdin, text } = lateReader(0);
    const echo = new StdoutEcho(stdin, { limitBytes: 1 << 20, logShown: () => './run.log' });
    for (let n = 1; n <= 1_000; n++) echo.output(Buffer.from(`line ${n}\n`));
    echo.close();
    stdin.end();
    const shown = await text;
    expect(shown.split('\n').filter(Boolean)).toHaveLength(1_000);
    expect(shown).not.toContain('not shown');
  });
});
