/**
 * pass_frames(table, p, limit): same-frames.ts's passFrom in the kernels' memory. From the line
 * start `p` on, passes over the whole lines (each ending with a `\n` before `limit`) that are one
 * of the frames in the table up to their `<`, then tqdm's `remaining, rate]` (rate units only,
 * the `]` at most 48 bytes after the `<`) and blanks; returns where the first other line begins.
 * The frames are tried newest first, as in JavaScript, and compared 16 bytes a step.
 *
 * The table (FRAME_TABLE_BYTES, written by JavaScript: same-frames.ts):
 *   +0                   the number of frames (at most MAX_TABLE_FRAMES)
 *   +16 + k * FRAME_SLOT frame k's length, then at +16 its bytes (at most FRAME_MAX_BYTES)
 *   +RATE_CLASS_AT       256 bytes: 1 for each byte that is a rate unit, else 0
 * Every read lies before `limit` or inside the table.
 */
import type { WatFunction } from './assemble-wat.js';

export const MAX_TABLE_FRAMES = 16;
export const FRAME_MAX_BYTES = 256;
export const FRAME_SLOT = 16 + FRAME_MAX_BYTES;
export const RATE_CLASS_AT = 16 + MAX_TABLE_FRAMES * FRAME_SLOT;
export const FRAME_TABLE_BYTES = RATE_CLASS_AT + 256;
/** The `]` of `remaining, rate]` at most this far after the `<` (known-bars.ts MAX_AFTER_ELAPSED). */
const MAX_AFTER_ELAPSED = 48;
const LF = 10;
const SPACE = 32;
const CLOSE = 93;

export const passFrames: WatFunction = {
  name: 'pass_frames',
  params: [['$table', 'i32'], ['$p', 'i32'], ['$limit', 'i32']],
  result: 'i32',
  locals: [['$at', 'i32'], ['$k', 'i32'], ['$slot', 'i32'], ['$len', 'i32'], ['$i', 'i32'], ['$q', 'i32'], ['$tail', 'i32'], ['$u', 'i32']],
  body: `
    local.get $p
    local.set $at
    block $done
      loop $lines
        local.get $table
        i32.load offset=0
        local.set $k
        ;; the frames, newest first; none matched: done
        loop $frames
          local.get $k
          i32.eqz
          br_if $done
          local.get $k
          i32.const 1
          i32.sub
          local.set $k
          local.get $table
          local.get $k
          i32.const ${FRAME_SLOT}
          i32.mul
          i32.add
          local.tee $slot
          i32.load offset=16
          local.set $len
          ;; the line must go on after the frame, before limit
          local.get $at
          local.get $len
          i32.add
          local.tee $tail
          local.get $limit
          i32.ge_u
          br_if $frames
          i32.const 0
          local.set $i
          block $differ
            ;; 16 bytes a step while 16 are left
            loop $blocks
              local.get $i
              i32.const 16
              i32.add
              local.get $len
              i32.le_u
              if
                local.get $at
                local.get $i
                i32.add
                v128.load offset=0
                local.get $slot
                local.get $i
                i32.add
                v128.load offset=32
                i8x16.eq
                i8x16.bitmask
                i32.const 65535
                i32.ne
                br_if $differ
                local.get $i
                i32.const 16
                i32.add
                local.set $i
                br $blocks
              end
            end
            ;; the last bytes one at a time
            loop $bytes
              local.get $i
              local.get $len
              i32.lt_u
              if
                local.get $at
                local.get $i
                i32.add
                i32.load8_u offset=0
                local.get $slot
                local.get $i
                i32.add
                i32.load8_u offset=32
                i32.ne
                br_if $differ
                local.get $i
                i32.const 1
                i32.add
                local.set $i
                br $bytes
              end
            end
            ;; the frame up to its '<': then rate units, ']', blanks, '\\n'
            local.get $tail
            local.set $q
            loop $rate
              local.get $q
              local.get $limit
              i32.ge_u
              br_if $differ
              local.get $table
              local.get $q
              i32.load8_u offset=0
              local.tee $u
              i32.add
              i32.load8_u offset=${RATE_CLASS_AT}
              if
                local.get $q
                i32.const 1
                i32.add
                local.set $q
                br $rate
              end
            end
            local.get $u
            i32.const ${CLOSE}
            i32.ne
            br_if $differ
            ;; ']' - '<' = q - (tail - 1) at most ${MAX_AFTER_ELAPSED}
            local.get $q
            local.get $tail
            i32.sub
            i32.const ${MAX_AFTER_ELAPSED - 1}
            i32.gt_u
            br_if $differ
            loop $blanks
              local.get $q
              i32.const 1
              i32.add
              local.tee $q
              local.get $limit
              i32.ge_u
              br_if $differ
              local.get $q
              i32.load8_u offset=0
              local.tee $u
              i32.const ${LF}
              i32.eq
              if
                local.get $q
                i32.const 1
                i32.add
                local.set $at
                br $lines
              end
              local.get $u
              i32.const ${SPACE}
              i32.eq
              br_if $blanks
            end
          end
          br $frames
        end
      end
    end
    local.get $at
  `,
};
