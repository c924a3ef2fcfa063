/**
 * decodeInput hands plain UTF-8 text on as it came: the first chunk too, once its first bytes
 * say it is plain text, so a read buffer in the kernels' memory stays there and is scanned in
 * place (fast-path/wasm/scan-memory.ts), and 4 MiB are not copied twice at the start. What needs
 * decoding (UTF-16, gzip, docker's lines) still is: test/hostile/input-formats.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { decodeInput } from '../../src/io/decode-input.js';
import type { SourceItem } from '../../src/io/watch-loop.js';

async function decoded(chunks: Buffer[]): Promise<Buffer[]> {
  async function* source(): AsyncGenerator<SourceItem> {
    for (const chunk of chunks) yield { kind: 'data', chunk };
  }
  const out: Buffer[] = [];
  for await (const item of decodeInput(source(), 'test.log')) if (item.kind === 'data') out.push(item.chunk);
  return out;
}

describe('decodeInput', () => {
  it('hands the first chunk of plain text on as the very buffer it was given', async () => {
    const first = Buffer.from('[2025-04-20 14:03:12 TP0] Load weight begin.\n');
    const second = Buffer.from('[2025-04-20 14:03:13 TP0] Load weight end.\n');
    const out = await decoded([first, second]);
    expect(out).toHaveLength(2);
    expect(out[0]).toBe(first);
    expect(out[1]).toBe(second);
  });

  it('still holds a first chunk too short to tell, and gives its bytes once it can', async () => {
    const out = await decoded([Buffer.from('[202'), Buffer.from('5-04-20 14:03:12 TP0] Load weight begin.\n')]);
    expect(Buffer.concat(out).toString()).toBe('[2025-04-20 14:03:12 TP0] Load weight begin.\n');
  });
});
