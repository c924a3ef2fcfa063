/**
 * A small assembler for the flat (unfolded) text form of WebAssembly, enough for the byte
 * kernels (byte-kernels.ts): the kernels stay readable source in the repository, and no binary
 * blob or build step is needed. One instruction per line, `;;` comments, `$name` for locals and
 * for the labels of `block`, `loop` and `if` (a branch names its label; the assembler turns it
 * into a depth), `offset=N` on memory access. Only the instructions in OPS are known; anything
 * else is an error, so a kernel cannot silently assemble into something else.
 *
 * The module it builds: the functions, exported by name, on one memory of a fixed size that it
 * imports as `env.memory` (so the memory can be made, and used, before the module is). Encoding: the WebAssembly core spec 1.0 binary format, SIMD opcodes from the
 * fixed-width SIMD proposal (in V8 since 9.1, so in every Node 20).
 */

export type ValueType = 'i32' | 'v128';

export interface WatFunction {
  name: string;
  params: readonly [string, ValueType][];
  result: ValueType | undefined;
  locals: readonly [string, ValueType][];
  /** The body in flat text form. */
  body: string;
}

const TYPE_CODE: Record<ValueType, number> = { i32: 0x7f, v128: 0x7b };

/** Immediates: none, a local, a branch label, a block label (opens one), a memory access, an i32, a lane. */
type Immediate = 'none' | 'local' | 'branch' | 'opens' | 'memory' | 'i32' | 'lane';

/** Mnemonic: opcode bytes, immediate, natural alignment (log2) for memory access. */
const OPS: Record<string, [number[], Immediate, number?]> = {
  unreachable: [[0x00], 'none'],
  block: [[0x02], 'opens'],
  loop: [[0x03], 'opens'],
  if: [[0x04], 'opens'],
  else: [[0x05], 'none'],
  end: [[0x0b], 'none'],
  br: [[0x0c], 'branch'],
  br_if: [[0x0d], 'branch'],
  return: [[0x0f], 'none'],
  drop: [[0x1a], 'none'],
  select: [[0x1b], 'none'],
  'local.get': [[0x20], 'local'],
  'local.set': [[0x21], 'local'],
  'local.tee': [[0x22], 'local'],
  'i32.load': [[0x28], 'memory', 2],
  'i32.load8_u': [[0x2d], 'memory', 0],
  'i32.load16_u': [[0x2f], 'memory', 1],
  'i32.store': [[0x36], 'memory', 2],
  'i32.const': [[0x41], 'i32'],
  'i32.eqz': [[0x45], 'none'],
  'i32.eq': [[0x46], 'none'],
  'i32.ne': [[0x47], 'none'],
  'i32.lt_u': [[0x49], 'none'],
  'i32.gt_u': [[0x4b], 'none'],
  'i32.le_u': [[0x4d], 'none'],
  'i32.ge_u': [[0x4f], 'none'],
  'i32.ctz': [[0x68], 'none'],
  'i32.add': [[0x6a], 'none'],
  'i32.sub': [[0x6b], 'none'],
  'i32.mul': [[0x6c], 'none'],
  'i32.and': [[0x71], 'none'],
  'i32.or': [[0x72], 'none'],
  'i32.xor': [[0x73], 'none'],
  'i32.shl': [[0x74], 'none'],
  'i32.shr_u': [[0x76], 'none'],
  'v128.load': [simd(0x00), 'memory', 4],
  'i8x16.swizzle': [simd(0x0e), 'none'],
  'i8x16.splat': [simd(0x0f), 'none'],
  'i32x4.splat': [simd(0x11), 'none'],
  'i32x4.extract_lane': [simd(0x1b), 'lane'],
  'i8x16.eq': [simd(0x23), 'none'],
  'v128.and': [simd(0x4e), 'none'],
  'v128.or': [simd(0x50), 'none'],
  'v128.any_true': [simd(0x53), 'none'],
  'i8x16.bitmask': [simd(0x64), 'none'],
  'i8x16.shr_u': [simd(0x6d), 'none'],
  'i8x16.sub': [simd(0x71), 'none'],
  'i16x8.extadd_pairwise_i8x16_u': [simd(0x7d), 'none'],
  'i32x4.extadd_pairwise_i16x8_u': [simd(0x7f), 'none'],
  'i32x4.shr_u': [simd(0xad), 'none'],
  'i32x4.add': [simd(0xae), 'none'],
  'i32x4.mul': [simd(0xb5), 'none'],
};

/** The module's bytes: the functions, all exported, on an imported memory (`env.memory`) of `pages` 64 KiB pages. */
export function assembleWat(options: { pages: number; functions: readonly WatFunction[] }): Uint8Array<ArrayBuffer> {
  const { pages, functions } = options;
  const types = functions.map((fn) => [0x60, ...vector(fn.params.map(([, type]) => [TYPE_CODE[type]])), ...vector(fn.result ? [[TYPE_CODE[fn.result]]] : [])]);
  const exports = functions.map((fn, index) => [...name(fn.name), 0x00, ...uleb(index)]);
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector(types)),
    // Fixed size (min = max): views taken on the memory's buffer stay valid for ever.
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, 0x01, ...uleb(pages), ...uleb(pages)]])),
    ...section(3, vector(functions.map((_, index) => uleb(index)))),
    ...section(7, vector(exports)),
    ...section(10, vector(functions.map((fn) => withSize(body(fn))))),
  ]);
}

function body(fn: WatFunction): number[] {
  const locals = new Map<string, number>();
  [...fn.params, ...fn.locals].forEach(([local], index) => {
    if (locals.has(local)) throw new Error(`${fn.name}: local ${local} declared twice`);
    locals.set(local, index);
  });
  const out = [...vector(fn.locals.map(([, type]) => [0x01, TYPE_CODE[type]]))];
  const labels: (string | undefined)[] = [];
  fn.body.split('\n').forEach((raw, lineIndex) => {
    const text = raw.replace(/;;.*$/, '').trim();
    if (text === '') return;
    const where = `${fn.name}, body line ${lineIndex + 1} (${text})`;
    const [mnemonic, ...args] = text.split(/\s+/);
    const op = OPS[mnemonic!];
    if (!op) throw new Error(`${where}: unknown instruction`);
    const [code, immediate, align] = op;
    out.push(...code);
    if (immediate === 'none') {
      if (mnemonic === 'end') labels.pop();
      if (args.length > 0) throw new Error(`${where}: takes no argument`);
    } else if (immediate === 'local') {
      const index = locals.get(args[0] ?? '');
      if (index === undefined) throw new Error(`${where}: unknown local`);
      out.push(...uleb(index));
    } else if (immediate === 'opens') {
      labels.push(args[0]);
      out.push(0x40);
    } else if (immediate === 'branch') {
      const depth = labels.length - 1 - labels.lastIndexOf(args[0]);
      if (args[0] === undefined || depth >= labels.length) throw new Error(`${where}: unknown label`);
      out.push(...uleb(depth));
    } else if (immediate === 'memory') {
      const offset = /^offset=(\d+)$/.exec(args[0] ?? 'offset=0');
      if (!offset) throw new Error(`${where}: expected offset=N`);
      out.push(...uleb(align!), ...uleb(Number(offset[1])));
    } else if (immediate === 'i32') {
      const value = Number(args[0]);
      if (!Number.isInteger(value)) throw new Error(`${where}: expected an integer`);
      out.push(...sleb(value | 0));
    } else {
      out.push(Number(args[0]));
    }
  });
  if (labels.length > 0) throw new Error(`${fn.name}: ${labels.length} block(s) not ended`);
  out.push(0x0b);
  return out;
}

function simd(opcode: number): number[] {
  return [0xfd, ...uleb(opcode)];
}

function section(id: number, content: number[]): number[] {
  return [id, ...withSize(content)];
}

function withSize(content: number[]): number[] {
  return [...uleb(content.length), ...content];
}

function vector(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function name(text: string): number[] {
  return withSize([...Buffer.from(text)]);
}

export function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

export function sleb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}
