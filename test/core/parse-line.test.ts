import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LogClock } from '../../src/core/log-clock.js';
import { parseFrame } from '../../src/core/parse-line.js';
import { repoRoot } from '../helpers/run-main.js';
import { shippedPack } from '../helpers/classify.js';

const prefixes = shippedPack('sglang').prefixes;
const hang = readFileSync(`${repoRoot}/fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log`, 'utf8').split('\n');

describe('13.6: torch and collector stamps are read as time and peeled', () => {
  it("13.6: torch's c10 stamp with an unpadded month ([W208 00:55:32.44…]) gives the time, the rank and the message", () => {
    const line = hang.find((l) => l.startsWith('[rank4]:[W208 '))!;
    const frame = parseFrame(line, prefixes);
    expect(frame.time).toMatchObject({ md: '208', time: '00:55:32', frac: '441635613' });
    expect(frame.rank).toBe('4');
    expect(frame.body).toMatch(/^\[c10d\] waitForInput: poll for socket/);
    const clock = new LogClock();
    clock.observe(frame.time);
    expect(clock.observe(parseFrame('[W208 01:25:32.000000000 socket.cpp:487] [c10d] timed out', prefixes).time)).toBe(30 * 60_000 - 442);
    expect(clock.observe(parseFrame('[E1119 01:25:32.000000000 socket.cpp:487] later', prefixes).time)).toBeGreaterThan(0);
  });

  it.for([
    ['kubectl', 'sglang', '2025-03-10T16:21:32.123456789Z [2025-03-10 16:21:32 TP0] Prefill batch. #new-seq: 1', { date: '2025-03-10', time: '16:21:32', frac: '123456789' }, 'TP0'],
    ['docker', 'vllm', '2025-03-10T21:21:32.5Z (EngineCore_DP0 pid=7) INFO 03-10 16:21:32 [core.py:1] Loading', { date: '2025-03-10', time: '21:21:32', frac: '5' }, undefined],
    ['journald', 'sglang', '2025-03-10T16:21:32+0000 gpu-7 python3[41233]: [2025-03-10 16:21:32 TP0] Prefill batch. #new-seq: 1', { date: '2025-03-10', time: '16:21:32' }, 'TP0'],
  ] as const)('13.6: behind %s (%s) the collector gives the time, the server prefixes are peeled', ([, family, line, time, rank]) => {
    const frame = parseFrame(line, shippedPack(family).prefixes);
    expect(frame.time).toMatchObject(time);
    expect(frame.rank).toBe(rank);
    expect(frame.body).toMatch(/^(?:Prefill batch|Loading)/);
    if (family === 'vllm') expect(frame.proc).toBe('EngineCore_DP0');
  });

  it('a message that merely looks like a host and identifier is not taken for journald', () => {
    const frame = parseFrame('2025-03-10T16:21:32Z KeyError: model: missing', prefixes);
    expect(frame.body).toBe('KeyError: model: missing');
  });
});
