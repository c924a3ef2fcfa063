/**
 * pass_frames(table, p, limit, cr, out): same-frames.ts's passFrom in the kernels' memory. From
 * the line start `p` on, passes over the whole lines (each ending with a `\n` before `limit`)
 * that are one of the frames in the table up to their `<`, then tqdm's `remaining, rate]` (rate
 * units only, the `]` at most 48 bytes after the `<`) and blanks; returns where the first other
 * line begins. The frames are tried newest first, as in JavaScript, and compared 16 bytes a step.
 * With `cr` (1), the same for the `\r` frames of one physical line (fast-line-reader.ts): each
 * ends with a `\r` that another byte follows before `limit`, not a `\n`; an empty frame (a `\r`
 * at once) is passed too. At `out` it stores how many frames it passed (empty ones aside), where
 * the last began (-1: none) and where it ended (its `\r` or `\n`; only when there was one).
 *
 * The table (FRAME_TABLE_BYTES, written by JavaScript: same-frames.ts):
 *   +0                   the number of frames (at most MAX_TABLE_FRAMES)
 *   +16 + k * FRAME_SLOT frame k's length, then at +16 its bytes (at most FRAME_MAX_BYTES)
 *   +RATE_CLASS_AT       256 bytes: 1 for each byte that is a rate unit, else 0
 * Every read lies before `limit` or inside the table.
 */
import { MAX_AFTER_ELAPSED } from '../../../core/known-bars.js';
import type { WatFunction } from './assemble-wat.js';

export const MAX_TABLE_FRAMES = 16;
export const FRAME_MAX_BYTES = 256;
export const FRAME_SLOT = 16 + FRAME_MAX_BYTES;
export const RATE_CLASS_AT = 16 + MAX_TABLE_FRAMES * FRAME_SLOT;
export const FRAME_TABLE_BYTES = RATE_CLASS_AT + 256;
const LF = 10;
const CR = 13;
const SPACE = 32;
const CLOSE = 93;

export const passFrames: WatFunction = {
  name: 'pass_frames',
  params: [['$table', 'i32'], ['$p', 'i32'], ['$limit', 'i32'], ['$cr', 'i32'], ['$out', 'i32']],
  result: 'i32',
  locals: [['$at', 'i32'], ['$k', 'i32'], ['$slot', 'i32'], ['$len', 'i32'], ['$i', 'i32'], ['$q', 'i32'], ['$tail', 'i32'], ['$u', 'i32'], ['$frames', 'i32'], ['$last', 'i32'], ['$lastEnd', 'i32'], ['$end', 'i32']],
  body: `
    local.get $p
    local.set $at
    i32.const -1
    local.set $last
    ;; what ends a frame: CR or LF
    i32.const ${LF}
    local.set $end
    local.get $cr
    if
      i32.const ${CR}
      local.set $end
    end
    block $done
      loop $lines
        ;; an empty CR frame, when another byte but LF follows it
        local.get $cr
        if
          local.get $at
          i32.const 1
          i32.add
          local.get $limit
          i32.lt_u
          if
            local.get $at
            i32.load8_u offset=0
            i32.const ${CR}
            i32.eq
            if
              local.get $at
              i32.load8_u offset=1
              i32.const ${LF}
              i32.eq
              br_if $done
              local.get $at
              i32.const 1
              i32.add
              local.set $at
              br $lines
            end
          end
        end
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
            ;; the frame up to its '<': then rate units, ']', blanks, the end
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
              local.get $end
              i32.eq
              if
                ;; a CR frame: another byte must follow before limit, and not LF
                local.get $cr
                if
                  local.get $q
                  i32.const 1
                  i32.add
                  local.get $limit
                  i32.ge_u
                  br_if $done
                  local.get $q
                  i32.load8_u offset=1
                  i32.const ${LF}
                  i32.eq
                  br_if $done
                end
                local.get $at
                local.set $last
                local.get $q
                local.set $lastEnd
                local.get $frames
                i32.const 1
                i32.add
                local.set $frames
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
    local.get $out
    local.get $frames
    i32.store offset=0
    local.get $out
    local.get $last
    i32.store offset=4
    local.get $out
    local.get $lastEnd
    i32.store offset=8
    local.get $at
  `,
};
