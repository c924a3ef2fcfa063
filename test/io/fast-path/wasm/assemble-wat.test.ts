/**
 * The assembler must build modules V8 accepts and runs as the text says, and refuse text it does
 * not understand rather than emit something else.
 */
import { describe, expect, it } from 'vitest';
import { assembleWat, sleb, uleb, type WatFunction } from '../../../../src/io/fast-path/wasm/assemble-wat.js';

/** Decodes what uleb/sleb wrote, the way the spec reads it. */
function readLeb(bytes: number[], signed: boolean): number {
  let value = 0n;
  let shift = 0n;
  for (const byte of bytes) {
    value |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
    if ((byte & 0x80) === 0) {
      if (signed && byte & 0x40) value -= 1n << shift;
      return Number(value);
    }
  }
  throw new Error('unterminated');
}

function run(fn: WatFunction, ...args: number[]): number {
  const module = new WebAssembly.Module(assembleWat({ pages: 1, functions: [fn] }));
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1 });
  const exports = new WebAssembly.Instance(module, { env: { memory } }).exports as Record<string, (...a: number[]) => number>;
  return exports[fn.name]!(...args);
}

describe('assembleWat', () => {
  it.for([0, 1, 63, 64, 127, 128, 300, 16383, 16384, 2 ** 31 - 1, 2 ** 32 - 1])('LEB128 round-trips %d', (n) => {
    expect(readLeb(uleb(n), false)).toBe(n);
    expect(readLeb(sleb(n | 0), true)).toBe(n | 0);
    expect(readLeb(sleb(-n | 0), true)).toBe(-n | 0);
  });

  it('runs what the text says: loops, branches by label, select, memory', () => {
    const sumTo: WatFunction = {
      name: 'sum_to',
      params: [['$n', 'i32']],
      result: 'i32',
      locals: [['$total', 'i32']],
      body: `
        block $done
          loop $next
            local.get $n
            i32.eqz
            br_if $done
            local.get $total
            local.get $n
            i32.add
            local.set $total
            local.get $n
            i32.const 1
            i32.sub
            local.set $n
            br $next   ;; a comment
          end
        end
        local.get $total`,
    };
    expect(run(sumTo, 100)).toBe(5050);
    const max: WatFunction = { name: 'max', params: [['$a', 'i32'], ['$b', 'i32']], result: 'i32', locals: [], body: 'local.get $a\nlocal.get $b\nlocal.get $a\nlocal.get $b\ni32.gt_u\nselect' };
    expect(run(max, 3, 9)).toBe(9);
    expect(run(max, 12, 9)).toBe(12);
  });

  it('runs SIMD: a splat compared, the lanes added', () => {
    const lanes: WatFunction = {
      name: 'lanes',
      params: [['$x', 'i32']],
      result: 'i32',
      locals: [],
      body: 'local.get $x\ni8x16.splat\nlocal.get $x\ni8x16.splat\ni8x16.eq\ni8x16.bitmask',
    };
    expect(run(lanes, 7)).toBe(0xffff);
  });

  it.for([
    ['an unknown instruction', 'i64.add', /unknown instruction/],
    ['an unknown local', 'local.get $nope', /unknown local/],
    ['an unknown label', 'block $a\nbr $b\nend', /unknown label/],
    ['a block not ended', 'block $a', /not ended/],
    ['an argument where none is taken', 'i32.add 3', /takes no argument/],
  ] as const)('refuses %s', ([, body, message]) => {
    expect(() => assembleWat({ pages: 1, functions: [{ name: 'f', params: [], result: undefined, locals: [], body }] })).toThrow(message);
  });
});
