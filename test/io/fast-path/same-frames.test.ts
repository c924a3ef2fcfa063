/**
 * SameFrames passes over a line by its bytes only where core would let it go unread too: a line
 * that is a frame core let go, the same up to its elapsed time's `<`, then tqdm's own rest. Checked
 * against the real core (a session of the shipped pack that has read a few frames of a bar) on a
 * few thousand lines made from such a frame by changing, adding or cutting bytes, and on the
 * shapes that must stop it: another second, another count, text glued after the frame, a `\r`,
 * a rest too long, a new answer from core.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session.js';
import type { Skippable } from '../../../src/core/skippable.js';
import { SameFrames } from '../../../src/io/fast-path/same-frames.js';
import { scanMemory } from '../../../src/io/fast-path/wasm/scan-memory.js';
import { shippedPack } from '../../helpers/classify.js';
import { randomFloats } from '../../hostile/random.js';

const TAG = '(Worker_TP3 pid=41203) ';
const frame = (done: number, elapsed: string, rest: string): string => `${TAG}Loading safetensors checkpoint shards:  ${String(Math.floor((done / 49) * 100)).padStart(2)}% Completed | ${done}/49 [${elapsed}<${rest}]`;
/** The frame core lets go below: 6/49 at 00:03, as read last. */
const IDLE = frame(6, '00:03', '00:25,  1.75it/s');

/** A session that has read the start of a load and this rank's bar up to 6/49 at 00:03. */
function reading(): Skippable {
  const session = new Session({ packs: [shippedPack('sglang')], family: 'sglang' });
  for (const line of ['[2025-04-20 14:03:12 TP0] Load weight begin. avail mem=15.27 GB', frame(0, '00:00', '?, ?it/s'), frame(5, '00:02', '00:30,  1.70it/s'), frame(6, '00:03', '00:26,  1.80it/s')]) session.push(line);
  return session.skippable()!;
}

/** `lines`, each ended by `\n`, and where each begins. */
function chunkOf(lines: string[]): { chunk: Buffer; starts: number[] } {
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += Buffer.byteLength(line) + 1;
  }
  return { chunk: Buffer.from(lines.map((l) => `${l}\n`).join('')), starts };
}

/** SameFrames having noted IDLE under `now`. */
function noted(now: Skippable): SameFrames {
  const same = new SameFrames();
  same.forgetUnless(now);
  const { chunk } = chunkOf([IDLE]);
  expect(now.idleBar(chunk, 0, chunk.length - 1)).toBe(true);
  same.note(chunk, 0, chunk.length - 1);
  return same;
}

/** Whether SameFrames passes `line` (a line of its own). */
function passes(same: SameFrames, line: string): boolean {
  const { chunk } = chunkOf([line]);
  return same.passFrom(chunk, 0, chunk.length) === chunk.length;
}

describe('SameFrames', () => {
  it('passes a burst of the frame with other rates, and stops at the first line that is not one', () => {
    const now = reading();
    const same = noted(now);
    const burst = [frame(6, '00:03', '00:27,  1.71it/s'), frame(6, '00:03', '00:24,  1.95it/s'), IDLE];
    const { chunk, starts } = chunkOf([...burst, frame(7, '00:03', '00:24,  1.95it/s'), ...burst]);
    for (let k = 0; k < burst.length; k++) expect(now.idleBar(chunk, starts[k]!, starts[k + 1]! - 1)).toBe(true);
    expect(same.passFrom(chunk, 0, chunk.length)).toBe(starts[3]);
    // A line cut by the range's end is never passed.
    expect(same.passFrom(chunk, 0, starts[2]! + 10)).toBe(starts[2]);
  });

  it('stops at what core would read: another second or count, glued text, a `\\r`, a rest too long or not tqdm\'s', () => {
    const same = noted(reading());
    for (const line of [
      frame(6, '00:04', '00:25,  1.75it/s'),
      frame(7, '00:03', '00:25,  1.75it/s'),
      `${IDLE}[2025-04-20 14:03:13 TP0] Load weight end.`,
      `${IDLE}\r`,
      frame(6, '00:03', `00:25,${' '.repeat(60)}1.75it/s`),
      frame(6, '00:03', '00:25, 1.75 shards/s'),
      `${TAG.replace('3', '4')}${IDLE.slice(TAG.length)}`,
    ]) {
      expect(passes(same, line), line).toBe(false);
    }
  });

  it('never passes a line core would not let go, over thousands of lines made from the frame (passFrom and has)', () => {
    const now = reading();
    const same = noted(now);
    const random = randomFloats(26);
    const alphabet = '0123456789:?,./its ]<[\rxA\u001b';
    let passed = 0;
    for (let n = 0; n < 4000; n++) {
      const chars = [...IDLE];
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
        // Most edits in the rest after `<`, where lines of the burst differ; some anywhere.
        const from = random() < 0.8 ? IDLE.indexOf('<') + 1 : 0;
        const at = from + Math.floor(random() * (chars.length + 1 - from));
        const char = alphabet[Math.floor(random() * alphabet.length)]!;
        const how = random();
        if (how < 0.4) chars.splice(at, 1, char);
        else if (how < 0.8) chars.splice(at, 0, char);
        else chars.splice(at, 1);
      }
      const line = chars.join('');
      if (line.includes('\n')) continue;
      const bytes = Buffer.from(line);
      // `has` (a line or frame whose end is known) says no more than passFrom does.
      if (same.has(bytes, 0, bytes.length)) expect(now.idleBar(bytes, 0, bytes.length), line).toBe(true);
      if (!passes(same, line)) continue;
      passed++;
      expect(now.idleBar(bytes, 0, bytes.length), line).toBe(true);
    }
    // The check means something: many of the lines were passed.
    expect(passed).toBeGreaterThan(400);
  });

  it('with many ranks\' frames, has() finds each by its rank, and no rank it was not given', () => {
    // Frames that share their start and differ at the rank: has() compares a line only with the
    // frames of its rank's byte there. Checked against a memory of that one frame alone.
    const now = reading();
    const rankFrame = (rank: number, rate: string): string => IDLE.replace('TP3 pid=41203', `TP${rank} pid=4120${rank}`).replace('1.75', rate);
    const all = new SameFrames();
    all.forgetUnless(now);
    for (const rank of [0, 1, 2, 4, 5, 6, 7]) {
      const { chunk } = chunkOf([rankFrame(rank, '1.75')]);
      all.note(chunk, 0, chunk.length - 1);
    }
    const one = (rank: number): SameFrames => {
      const same = new SameFrames();
      same.forgetUnless(now);
      const { chunk } = chunkOf([rankFrame(rank, '1.75')]);
      same.note(chunk, 0, chunk.length - 1);
      return same;
    };
    for (let rank = 0; rank < 10; rank++) {
      const { chunk } = chunkOf([rankFrame(rank, '2.05')]);
      const given = rank !== 3 && rank < 8;
      expect(all.has(chunk, 0, chunk.length - 1), `rank ${rank}`).toBe(given);
      expect(one(rank).has(chunk, 0, chunk.length - 1), `rank ${rank} alone`).toBe(true);
    }
  });

  it("in the kernels' memory, the pass_frames kernel passes exactly the lines JavaScript passes", () => {
    expect(scanMemory).not.toBeNull();
    const now = reading();
    const same = noted(now);
    // A second rank's frame too: the kernel tries the frames newest first, as JavaScript does.
    const other = IDLE.replace('TP3 pid=41203', 'TP5 pid=41205');
    const { chunk: otherChunk } = chunkOf([other]);
    same.note(otherChunk, 0, otherChunk.length - 1);
    const random = randomFloats(126);
    const alphabet = '0123456789:?,./its ]<\r\nxA';
    const line = (): string => {
      const base = random() < 0.5 ? IDLE : other;
      if (random() < 0.3) return base.replace('1.75', (1 + random()).toFixed(2));
      // Around the bound on the rest's length (the ']' at most 48 bytes after the '<').
      if (random() < 0.3) return base.replace(',  ', `,${' '.repeat(25 + Math.floor(random() * 15))}`);
      const chars = [...base];
      const at = base.indexOf('<') - 3 + Math.floor(random() * (base.length - base.indexOf('<') + 4));
      chars.splice(at, random() < 0.5 ? 1 : 0, alphabet[Math.floor(random() * alphabet.length)]!);
      return chars.join('') + ' '.repeat(random() < 0.2 ? 2 : 0);
    };
    let passedLines = 0;
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, line).join('\n') + '\n';
      const plain = Buffer.from(text);
      const inMemory = scanMemory!.place(plain)!;
      expect(scanMemory!.holds(inMemory)).toBe(true);
      const limit = plain.length - Math.floor(random() * 4);
      const passed = same.passFrom(plain, 0, limit);
      expect(same.passFrom(inMemory, 0, limit), JSON.stringify(text)).toBe(passed);
      passedLines += plain.subarray(0, passed).filter((byte) => byte === 10).length;
    }
    expect(passedLines).toBeGreaterThan(300);
  });

  it("in the kernels' memory, the kernel passes the `\\r` frames of a line that `has` would, each but the last", () => {
    const now = reading();
    const same = noted(now);
    const random = randomFloats(226);
    const frames = [IDLE, IDLE.replace('1.75', '1.80'), IDLE.replace('00:03', '00:04'), `${IDLE}x`, '', IDLE.replace(',  ', `,${' '.repeat(40)}`)];
    let passedFrames = 0;
    for (let n = 0; n < 400; n++) {
      const count = 1 + Math.floor(random() * 8);
      const pieces = Array.from({ length: count }, () => frames[Math.floor(random() * (random() < 0.7 ? 2 : frames.length))]!);
      const text = `\r${pieces.join('\r')}${random() < 0.8 ? '\n' : ''}`;
      const plain = Buffer.from(text);
      const inMemory = scanMemory!.place(plain)!;
      const end = plain.length;
      // What fast-line-reader.ts's loop passes, asking `has` of each frame.
      let at = 1;
      let expected = { frames: 0, last: -1, lastEnd: -1 };
      for (;;) {
        const cr = plain.indexOf(13, at);
        if (cr < at || cr + 1 >= end || plain[cr + 1] === 10) break;
        if (cr > at) {
          if (!same.has(plain, at, cr)) break;
          expected = { frames: expected.frames + 1, last: at, lastEnd: cr };
        }
        at = cr + 1;
      }
      expect(same.passCrFrames(inMemory, 1, end), JSON.stringify(text)).toBe(at);
      expect(same.passed.frames).toBe(expected.frames);
      if (expected.frames > 0) expect({ last: same.passed.last, lastEnd: same.passed.lastEnd }).toEqual({ last: expected.last, lastEnd: expected.lastEnd });
      passedFrames += expected.frames;
    }
    expect(passedFrames).toBeGreaterThan(300);
  });

  it("core's idleEpoch stays across a line that moves no bar, and changes when one moves or the scope does", () => {
    const session = new Session({ packs: [shippedPack('sglang')], family: 'sglang' });
    for (const line of ['[2025-04-20 14:03:12 TP0] Load weight begin. avail mem=15.27 GB', frame(0, '00:00', '?, ?it/s'), frame(5, '00:02', '00:30,  1.70it/s')]) session.push(line);
    const epoch = (): number => session.skippable()!.idleEpoch;
    const first = epoch();
    expect(epoch()).toBe(first);
    session.push('node01:41200:41900 [0] NCCL INFO Channel 08/0 : 0[0] -> 1[1] via P2P/IPC');
    expect(epoch()).toBe(first);
    session.push(frame(6, '00:03', '00:26,  1.80it/s'));
    const moved = epoch();
    expect(moved).not.toBe(first);
    // A traceback opens: nothing may go unread now.
    session.push('Traceback (most recent call last):');
    expect(session.skippable()!.scope).toBeUndefined();
    expect(epoch()).not.toBe(moved);
  });

  it('forgets its frames when core gives another answer (a line was read)', () => {
    const now = reading();
    const same = noted(now);
    expect(passes(same, IDLE)).toBe(true);
    same.forgetUnless(now);
    expect(passes(same, IDLE)).toBe(true);
    same.forgetUnless(reading());
    expect(passes(same, IDLE)).toBe(false);
  });
});
