/**
 * What a log looks like on disk is not always what the server printed: logrotate compresses old
 * logs (.gz), a log saved on Windows is UTF-16, docker's json-file driver wraps every line in JSON.
 * This sits between a byte source and the line splitter and undoes each, as found in the first
 * bytes (not the file name): gzip, then the text encoding, then docker's wrapping. After a
 * rotation or truncation the new file is looked at afresh.
 */
import { TextDecoder } from 'node:util';
import { createRequire } from 'node:module';
import type { Gunzip } from 'node:zlib';
import type { SourceItem } from './watch-loop.js';
import { DockerJsonLines, looksLikeDockerJson } from './docker-json-lines.js';

type Notice = Extract<SourceItem, { kind: 'notice' }>['notice'];

/** A byte-to-byte step; `end` flushes what it holds. */
interface Step {
  push(chunk: Buffer): Promise<Buffer[]> | Buffer[];
  end(): Promise<Buffer[]> | Buffer[];
}

/** Enough bytes to recognise each format (gzip 2, a BOM 3, `{"log":"` 8). */
const SNIFF_BYTES = 8;

/** A short first line must not wait for more bytes that may be long in coming (a followed log). */
function enoughToTell(bytes: number, latest: Buffer): boolean {
  return bytes >= SNIFF_BYTES || latest.includes(0x0a);
}

export async function* decodeInput(source: AsyncIterable<SourceItem>, name: string): AsyncGenerator<SourceItem> {
  let decoder: Decoder | undefined = new Decoder(name);
  for await (const item of source) {
    if (item.kind === 'data') {
      decoder ??= new Decoder(name);
      const out = await decoder.push(item.chunk);
      for (const notice of decoder.takeNotices()) yield { kind: 'notice', notice };
      for (const chunk of out) yield { kind: 'data', chunk };
      continue;
    }
    if (item.kind === 'flush' && decoder) {
      // The file was rotated or truncated: what is left of it first, then a new look at the next.
      yield* ended(decoder);
      decoder = undefined;
    }
    yield item;
  }
  if (decoder) yield* ended(decoder);
}

/** The last of a file's bytes, then what its end showed (a .gz cut short). */
async function* ended(decoder: Decoder): AsyncGenerator<SourceItem> {
  for (const chunk of await decoder.end()) yield { kind: 'data', chunk };
  for (const notice of decoder.takeNotices()) yield { kind: 'notice', notice };
}

const CUT_SHORT =
  'its gzip data stops in the middle (gzip -t: unexpected end of file): it was cut short (copied, or read, while gzip was still writing it). What it held was read; the rest of the log is not in it';

/** One file's (or stream's) decoding: decided on its first bytes, then applied to all of them. */
class Decoder {
  readonly #sniffed = new Sniffed((head) => this.#steps(head));
  #notices: Notice[] = [];

  constructor(private readonly name: string) {}

  takeNotices(): Notice[] {
    const notices = this.#notices;
    this.#notices = [];
    return notices;
  }

  push(chunk: Buffer): Promise<Buffer[]> {
    return this.#sniffed.push(chunk);
  }

  end(): Promise<Buffer[]> {
    return this.#sniffed.end();
  }

  /** The steps for a file whose first bytes are `head`: gzip, then the text's own steps. */
  #steps(head: Buffer): Step[] {
    if (head[0] === 0x1f && head[1] === 0x8b) {
      this.#note('gzip-compressed: reading it decompressed');
      // After gzip, the text inside gets its own look.
      const cutShort = (): void => {
        this.#notices.push({ type: 'damaged', path: this.name, detail: CUT_SHORT });
      };
      return [new GunzipStep(cutShort), new Sniffed((bytes) => this.#textSteps(bytes))];
    }
    return this.#textSteps(head);
  }

  /** The steps for text whose first bytes are `head`: its encoding, then docker's wrapping. */
  #textSteps(head: Buffer): Step[] {
    const steps: Step[] = [];
    const utf16 = utf16Of(head);
    if (utf16) {
      this.#note(`${utf16.label} text: decoding it as UTF-8`);
      steps.push(new Utf16Step(utf16.encoding, utf16.bom));
    } else if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
      steps.push(new SkipBytes(3)); // a UTF-8 BOM would hide the first line's prefix
    }
    steps.push(
      new Sniffed((text) => {
        if (!looksLikeDockerJson(text)) return [];
        this.#note("docker json-file lines: reading each entry's log, with the entry's time");
        return [new DockerJsonLines()];
      }),
    );
    return steps;
  }

  #note(detail: string): void {
    this.#notices.push({ type: 'decoded', path: this.name, detail });
  }
}

async function run(steps: Step[], chunk: Buffer): Promise<Buffer[]> {
  let chunks = [chunk];
  for (const step of steps) {
    const next: Buffer[] = [];
    for (const c of chunks) next.push(...(await step.push(c)));
    chunks = next;
  }
  return chunks;
}

async function endAll(steps: Step[]): Promise<Buffer[]> {
  let carried: Buffer[] = [];
  for (const step of steps) {
    const next: Buffer[] = [];
    for (const c of carried) next.push(...(await step.push(c)));
    next.push(...(await step.end()));
    carried = next;
  }
  return carried;
}

/** Holds the first bytes until it can choose the steps that follow (on decoded text). */
class Sniffed implements Step {
  #head: Buffer[] = [];
  #bytes = 0;
  #steps: Step[] | undefined;

  constructor(private readonly choose: (head: Buffer) => Step[]) {}

  async push(chunk: Buffer): Promise<Buffer[]> {
    if (this.#steps) return run(this.#steps, chunk);
    // Most often the first chunk tells at once: it goes on as it came, not copied (a read
    // buffer in the kernels' memory stays there: io/fast-path/wasm/scan-memory.ts).
    if (this.#head.length === 0 && enoughToTell(chunk.length, chunk)) {
      this.#steps = this.choose(chunk);
      return run(this.#steps, chunk);
    }
    this.#head.push(Buffer.from(chunk));
    this.#bytes += chunk.length;
    return enoughToTell(this.#bytes, chunk) ? this.#decide() : [];
  }

  async end(): Promise<Buffer[]> {
    const out = this.#steps ? [] : await this.#decide();
    return [...out, ...(await endAll(this.#steps!))];
  }

  #decide(): Promise<Buffer[]> {
    const head = Buffer.concat(this.#head);
    this.#head = [];
    this.#steps = this.choose(head);
    return run(this.#steps, head);
  }
}

class SkipBytes implements Step {
  constructor(private left: number) {}
  push(chunk: Buffer): Buffer[] {
    const skip = Math.min(this.left, chunk.length);
    this.left -= skip;
    return skip === chunk.length ? [] : [chunk.subarray(skip)];
  }
  end(): Buffer[] {
    return [];
  }
}

function utf16Of(head: Buffer): { encoding: 'utf-16le' | 'utf-16be'; bom: boolean; label: string } | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true, label: 'UTF-16LE (BOM)' };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true, label: 'UTF-16BE (BOM)' };
  // Without a BOM: ASCII text in UTF-16 has a NUL in every other byte, which no log has otherwise.
  const pairs = Math.floor(Math.min(head.length, SNIFF_BYTES) / 2);
  const zerosAt = (odd: number): boolean => Array.from({ length: pairs }, (_, i) => head[2 * i + odd] === 0 && head[2 * i + 1 - odd] !== 0).every(Boolean);
  if (pairs >= 4 && zerosAt(1)) return { encoding: 'utf-16le', bom: false, label: 'UTF-16LE (no BOM)' };
  if (pairs >= 4 && zerosAt(0)) return { encoding: 'utf-16be', bom: false, label: 'UTF-16BE (no BOM)' };
  return undefined;
}

class Utf16Step implements Step {
  readonly #decoder: TextDecoder;
  constructor(encoding: 'utf-16le' | 'utf-16be', bom: boolean) {
    // The BOM, when there is one, is read and dropped by the decoder itself.
    this.#decoder = new TextDecoder(encoding, { ignoreBOM: !bom });
  }
  push(chunk: Buffer): Buffer[] {
    const text = this.#decoder.decode(chunk, { stream: true });
    return text === '' ? [] : [Buffer.from(text, 'utf8')];
  }
  end(): Buffer[] {
    const text = this.#decoder.decode();
    return text === '' ? [] : [Buffer.from(text, 'utf8')];
  }
}

/**
 * Incremental gunzip: each chunk is written and flushed, so what has arrived is readable at once
 * (a .gz that is still being written). At the end of the input, a member cut short gives what it
 * held and is said (`onCutShort`), not taken for a whole log: zlib finishes with Z_FINISH there,
 * which fails with Z_BUF_ERROR ("unexpected end of file") where gzip -t does.
 */
class GunzipStep implements Step {
  // node:zlib is required here, not imported: only a .gz input needs it.
  readonly #zlib = createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib');
  readonly #gunzip: Gunzip = this.#zlib.createGunzip();
  #out: Buffer[] = [];
  #error: Error | undefined;
  #failed: Promise<void>;

  constructor(private readonly onCutShort: () => void) {
    this.#gunzip.on('data', (chunk: Buffer) => this.#out.push(chunk));
    this.#failed = new Promise((resolve) =>
      this.#gunzip.once('error', (error) => {
        this.#error = error;
        resolve();
      }),
    );
  }

  async push(chunk: Buffer): Promise<Buffer[]> {
    if (this.#error) return this.#take();
    this.#gunzip.write(chunk);
    await Promise.race([new Promise<void>((resolve) => this.#gunzip.flush(this.#zlib.constants.Z_SYNC_FLUSH, () => resolve())), this.#failed]);
    return this.#take();
  }

  async end(): Promise<Buffer[]> {
    if (!this.#error) {
      const ended = new Promise<void>((resolve) => this.#gunzip.once('end', () => resolve()));
      this.#gunzip.end();
      await Promise.race([ended, this.#failed]);
      if ((this.#error as NodeJS.ErrnoException | undefined)?.code === 'Z_BUF_ERROR') {
        this.#error = undefined;
        this.onCutShort();
      }
    }
    return this.#take();
  }

  #take(): Buffer[] {
    if (this.#error) throw new GzipError(this.#error);
    const out = this.#out;
    this.#out = [];
    return out;
  }
}

export class GzipError extends Error {
  override name = 'GzipError';
  constructor(cause: Error) {
    super(`not valid gzip data (${cause.message})`, { cause });
  }
}
