/**
 * The byte kernels of the fast path, in WebAssembly text (flat form, assembled by
 * assemble-wat.ts): what a JavaScript loop over a Buffer does at one or two bytes a step, these
 * do at 4 or 16. Each reads the kernels' memory only, at addresses JavaScript gives; none writes
 * but find_block, its 8 bytes at `out`. They may read up to 32 bytes past `end` (KERNEL_SLACK: a
 * block's load 3 bytes on reaches 19 past a block that begins just before `end`): every region
 * of the memory that bytes are scanned in has that much room after it.
 */
import type { WatFunction } from './assemble-wat.js';
import { passFrames } from './pass-frames-kernel.js';

/** Bytes a kernel may read past the end of the range it scans. */
export const KERNEL_SLACK = 32;
/** Fibonacci hashing of a 4-byte word into a table of 2^WORD_TABLE_BITS slots: (word * WORD_HASH) >>> (32 - WORD_TABLE_BITS), as ChunkLiteralScanner. */
export const WORD_HASH = 0x9e3779b1;
/**
 * 256 Ki slots: a few hundred literals take under 1% of them, and the words of ordinary text
 * that land on a taken slot by chance (each a candidate to confirm) are a quarter of what they
 * were with 64 Ki; the slots text words touch stay in cache either way.
 */
export const WORD_TABLE_BITS = 18;
/**
 * The flag of a word table slot that a long literal's word hashes to. Other flags (the stamp
 * words of ChunkLiteralScanner's own JavaScript probe) are not find_block's: it finds stamps by
 * their colons.
 */
export const LITERAL_WORD_FLAG = 1;

/**
 * count_lf(p, end): the number of `\n` bytes in [p, end). 64 bytes a turn: each of the sixteen
 * 8-bit counters gains at most 4 a turn, so after at most 63 turns (252) they are added into
 * 32-bit sums before they could wrap.
 */
const countLf: WatFunction = {
  name: 'count_lf',
  params: [['$p', 'i32'], ['$end', 'i32']],
  result: 'i32',
  locals: [['$n', 'i32'], ['$stop', 'i32'], ['$lf', 'v128'], ['$acc', 'v128'], ['$sum', 'v128']],
  body: `
    i32.const 10
    i8x16.splat
    local.set $lf
    block $tail
      loop $runs
        ;; whole turns left, at most 63 in this run
        local.get $end
        local.get $p
        i32.sub
        i32.const 6
        i32.shr_u
        local.tee $stop
        i32.eqz
        br_if $tail
        local.get $stop
        i32.const 63
        local.get $stop
        i32.const 63
        i32.lt_u
        select
        i32.const 6
        i32.shl
        local.get $p
        i32.add
        local.set $stop
        i32.const 0
        i8x16.splat
        local.set $acc
        loop $turns
          ;; a newline compares to 0xff (-1): subtracting the comparison adds one
          local.get $acc
          local.get $p
          v128.load offset=0
          local.get $lf
          i8x16.eq
          i8x16.sub
          local.get $p
          v128.load offset=16
          local.get $lf
          i8x16.eq
          i8x16.sub
          local.get $p
          v128.load offset=32
          local.get $lf
          i8x16.eq
          i8x16.sub
          local.get $p
          v128.load offset=48
          local.get $lf
          i8x16.eq
          i8x16.sub
          local.set $acc
          local.get $p
          i32.const 64
          i32.add
          local.tee $p
          local.get $stop
          i32.lt_u
          br_if $turns
        end
        local.get $sum
        local.get $acc
        i16x8.extadd_pairwise_i8x16_u
        i32x4.extadd_pairwise_i16x8_u
        i32x4.add
        local.set $sum
        br $runs
      end
    end
    ;; the last bytes (under 64), one at a time
    block $done
      loop $bytes
        local.get $p
        local.get $end
        i32.ge_u
        br_if $done
        local.get $n
        local.get $p
        i32.load8_u
        i32.const 10
        i32.eq
        i32.add
        local.set $n
        local.get $p
        i32.const 1
        i32.add
        local.set $p
        br $bytes
      end
    end
    local.get $n
    local.get $sum
    i32x4.extract_lane 0
    i32.add
    local.get $sum
    i32x4.extract_lane 1
    i32.add
    local.get $sum
    i32x4.extract_lane 2
    i32.add
    local.get $sum
    i32x4.extract_lane 3
    i32.add
  `,
};

/** The bucket bits of one nibble of each byte: a 16-entry lookup by swizzle. */
const nibbleBits = (masks: string, bytes: string, high: boolean): string => `
        local.get ${masks}
        local.get ${bytes}
        ${high ? 'i32.const 4\n        i8x16.shr_u' : 'local.get $low\n        v128.and'}
        i8x16.swizzle`;

/** The table byte of the slot of word `lane` (of `$hashes`). */
const wordFlags = (lane: number): string => `
      local.get $table
      local.get $hashes
      i32x4.extract_lane ${lane}
      i32.add
      i32.load8_u`;

/** Stamp candidates (d:dd:dd): a colon with another 3 bytes on, kept in `$colons`, or'd with the pair candidates. */
const stampColons = (offset: number): string => `
      local.get $first
      local.get $colon
      i8x16.eq
      local.get $p
      v128.load offset=${offset + 3}
      local.get $colon
      i8x16.eq
      v128.and
      local.tee $colons
      local.get $hits
      v128.or`;

/**
 * The block at p + offset: -1 when it begins at or after `end`; else where its candidates are,
 * if it has any (the stores and the return of find_block). Almost every block has none: only
 * an any-true and an or are on that path; which lanes and words is worked out after.
 */
const blockTest = (offset: number, stamps: boolean): string => `
      local.get $p
      i32.const ${offset}
      i32.add
      local.get $end
      i32.ge_u
      if
        i32.const -1
        return
      end
      local.get $p
      v128.load offset=${offset}
      local.tee $first
      local.get $hash
      i32x4.mul
      i32.const ${32 - WORD_TABLE_BITS}
      i32x4.shr_u
      local.set $hashes
      local.get $p
      v128.load offset=${offset + 1}
      local.set $second
      ${nibbleBits('$lo0', '$first', false)}
      ${nibbleBits('$hi0', '$first', true)}
      v128.and
      ${nibbleBits('$lo1', '$second', false)}
      v128.and
      ${nibbleBits('$hi1', '$second', true)}
      v128.and
      local.set $hits
      ${stamps ? stampColons(offset) : 'local.get $hits'}
      v128.any_true
      ${wordFlags(0)}
      ${wordFlags(1)}
      i32.or
      ${wordFlags(2)}
      i32.or
      ${wordFlags(3)}
      i32.or
      ;; only a literal's word: stamps are found by their colons
      i32.const ${LITERAL_WORD_FLAG}
      i32.and
      local.tee $words
      i32.or
      if
        local.get $out
        local.get $colons
        i8x16.bitmask
        i32.store offset=4
        local.get $out
        ;; pair candidates: the lanes with a bucket bit
        local.get $hits
        local.get $zero
        i8x16.eq
        i8x16.bitmask
        i32.const 65535
        i32.xor
        ;; the word candidates: bit 16 + k for word k
        ${[0, 1, 2, 3].map((lane) => `${wordFlags(lane)}
        i32.const ${LITERAL_WORD_FLAG}
        i32.and
        i32.const 0
        i32.ne
        i32.const ${16 + lane}
        i32.shl
        i32.or`).join('\n')}
        i32.store offset=0
        local.get $p
        i32.const ${offset}
        i32.add
        return
      end`;

/**
 * find_block(table, masks, out, p, end): the first 16-byte block at p, p + 16, ... before `end`
 * where one of ChunkLiteralScanner's searches has a candidate, or -1; at `out` it stores which:
 * bit k (0-15) for a pair candidate at p + k, bit 16 + k when the block's word k is a candidate
 * (JavaScript looks its literals up in its own copy of the table); at `out + 4`, for
 * find_block_stamps (the same and clock stamps: before a verdict), bit k for a colon at p + k
 * with another colon 3 bytes on.
 * JavaScript confirms those. The block's bytes are loaded once:
 *  - the word probe: its four 4-byte words (p is 4-aligned) hashed by one vector multiply,
 *    (word * WORD_HASH) >>> (32 - WORD_TABLE_BITS), each a slot of the table at `table`; a slot
 *    with LITERAL_WORD_FLAG is a candidate;
 *  - clock stamps (`d:dd:dd`): the colon pair, one compare of the block and one of the block 3
 *    bytes on; an NCCL line's `node01:41200:41900` (colons 6 apart) is no candidate, where the
 *    word probe's stamp words (`1:41`) stopped at every such line;
 *  - the pair search (Teddy, as in Hyperscan: up to 8 buckets, one bit each): for each byte of
 *    a pair, 16-byte tables say which buckets allow its low nibble and which its high one; a
 *    position where one bucket allows all four nibbles is a candidate (with one pair a bucket,
 *    exactly the pair). The 64 bytes at `masks`: the low and high nibble tables of the pair's
 *    first byte, then of its second.
 */
const findBlock = (stamps: boolean): WatFunction => ({
  name: stamps ? 'find_block_stamps' : 'find_block',
  params: [['$table', 'i32'], ['$masks', 'i32'], ['$out', 'i32'], ['$p', 'i32'], ['$end', 'i32']],
  result: 'i32',
  locals: [
    ['$lo0', 'v128'], ['$hi0', 'v128'], ['$lo1', 'v128'], ['$hi1', 'v128'], ['$low', 'v128'], ['$zero', 'v128'],
    ['$hash', 'v128'], ['$first', 'v128'], ['$second', 'v128'], ['$hashes', 'v128'], ['$hits', 'v128'], ['$words', 'i32'],
    ['$colon', 'v128'], ['$colons', 'v128'],
  ],
  body: `
    i32.const 58
    i8x16.splat
    local.set $colon
    local.get $masks
    v128.load offset=0
    local.set $lo0
    local.get $masks
    v128.load offset=16
    local.set $hi0
    local.get $masks
    v128.load offset=32
    local.set $lo1
    local.get $masks
    v128.load offset=48
    local.set $hi1
    i32.const 15
    i8x16.splat
    local.set $low
    i32.const 0
    i8x16.splat
    local.set $zero
    i32.const ${WORD_HASH | 0}
    i32x4.splat
    local.set $hash
    ;; two blocks a turn
    loop $blocks
      ${blockTest(0, stamps)}
      ${blockTest(16, stamps)}
      local.get $p
      i32.const 32
      i32.add
      local.set $p
      br $blocks
    end
    i32.const -1
  `,
});

export const KERNELS: readonly WatFunction[] = [countLf, findBlock(false), findBlock(true), passFrames];
