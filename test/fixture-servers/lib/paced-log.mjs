// Prints a captured log with its original rhythm, compressed, so supervisors see realistic timing in tests.
import { readFileSync } from 'node:fs';

const SGLANG_STAMP = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/;
const VLLM_STAMP = /\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\b/;
// torch's own c10d/glog stamps (`[rank4]:[W208 00:55:32.441635613 socket.cpp:462]`): month and day, no year.
const GLOG_STAMP = /\[[IWEF](\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)\.\d+ /;
// Replay-harness annotations mark text missing from a capture; they were never printed by the server.
const GAP_MARKER = /^# \[.*gap/;

/** Milliseconds for the line's timestamp, or undefined. vLLM stamps carry no year: borrow the last one seen. */
function stampOf(text, state, { glog = false } = {}) {
  const full = SGLANG_STAMP.exec(text);
  if (full) {
    const [, y, mo, d, h, mi, s] = full.map(Number);
    state.year = y;
    return Date.UTC(y, mo - 1, d, h, mi, s);
  }
  const torch = glog ? GLOG_STAMP.exec(text) : null;
  if (torch) {
    const [, mo, d, h, mi, s] = torch.map(Number);
    return Date.UTC(state.year, mo - 1, d, h, mi, s);
  }
  const short = VLLM_STAMP.exec(text);
  if (short) {
    const [, mo, d, h, mi, s] = short.map(Number);
    return Date.UTC(state.year, mo - 1, d, h, mi, s);
  }
  return undefined;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes each line of `file` to stdout, or to stderr when it contains 'Traceback' or 'Error', waiting the gap
 * between timestamps divided by `speed` and capped at `maxGapMs`.
 */
export async function printPacedLog({ file, speed = 1000, maxGapMs = 50, paceGaps = false }) {
  const bytes = readFileSync(file);
  const state = { year: 2000 };
  let previous;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const line = bytes.subarray(start, end + 1);
    start = end + 1;
    const text = line.toString('latin1');
    if (GAP_MARKER.test(text)) {
      // By default the elided lines took no time. --pace-gaps keeps the log's whole rhythm: the time the
      // stamps around a gap span, and torch's own c10d stamps (a hang's silence often ends with them).
      if (!paceGaps) previous = undefined;
      continue;
    }
    const stamp = stampOf(text, state, { glog: paceGaps });
    if (stamp !== undefined) {
      if (previous !== undefined && stamp > previous) await sleep(Math.min(maxGapMs, (stamp - previous) / speed));
      previous = stamp;
    }
    const out = /Traceback|Error/.test(text) ? process.stderr : process.stdout;
    out.write(line.at(-1) === 0x0a ? line : Buffer.concat([line, Buffer.from('\n')]));
  }
}

/** Parses the pacing flags shared by the fixture servers. */
export const pacingOptions = {
  log: { type: 'string' },
  speed: { type: 'string', default: '1000' },
  'max-gap-ms': { type: 'string', default: '50' },
  'pace-gaps': { type: 'boolean', default: false },
};

export function pacingFrom(values) {
  if (!values.log) throw new Error('--log FILE is required');
  return { file: values.log, speed: Number(values.speed), maxGapMs: Number(values['max-gap-ms']), paceGaps: values['pace-gaps'] };
}
