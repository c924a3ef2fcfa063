import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/history/file-lock.js';
import { appendRecord, readHistory, skippedSummary } from '../../src/history/history-store.js';
import { LEARNING } from '../../src/history/learn-budgets.js';
import { openMemory } from '../../src/history/record-start.js';
import { RECORD_VERSION, type StartRecord } from '../../src/history/start-record.js';
import { transpileStore } from './child-modules.js';

const scratch = mkdtempSync(join(tmpdir(), 'spinup-history-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
/** A history path in a directory of its own (created, like a state directory that exists). */
const fresh = (): string => {
  const dir = join(scratch, `h${++n}`);
  mkdirSync(dir);
  return join(dir, 'history.jsonl');
};

function record(over: Partial<StartRecord> = {}): StartRecord {
  return {
    v: RECORD_VERSION,
    when: '2025-06-01T10:00:00.000Z',
    host: 'gpu-01',
    source: 'watch',
    log: '/data/server.log',
    family: 'sglang',
    model: 'Qwen/QwQ-32B',
    model_from: 'log',
    tp: 4,
    verdict: 'ready',
    stage: 'ready',
    total_ms: 29_000,
    stages_ms: { none: 0, launch: 7000, load_weights: 8000 },
    ...over,
  };
}

describe('the JSON Lines store', () => {
  it('appends records and reads them back; a missing history is an empty one', () => {
    const path = fresh();
    expect(readHistory(path)).toEqual({ records: [], skipped: [], upgraded: 0 });
    appendRecord(path, record());
    appendRecord(path, record({ verdict: 'stalled', stage: 'cuda_graph', budget: { ms: 1, source: 'learned', detail: 'x' } }));
    const read = readHistory(path);
    expect(read.skipped).toEqual([]);
    expect(read.records.map((r) => r.verdict)).toEqual(['ready', 'stalled']);
    expect(read.records[0]).toEqual(record());
    expect(readFileSync(path, 'utf8').endsWith('}\n')).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('skips a record cut off mid-write, and the next append starts on a line of its own', () => {
    const path = fresh();
    appendRecord(path, record({ model: 'first' }));
    const whole = JSON.stringify(record({ model: 'torn' }));
    appendFileSync(path, whole.slice(0, whole.length / 2)); // the writer died here
    let read = readHistory(path);
    expect(read.records.map((r) => r.model)).toEqual(['first']);
    expect(read.skipped).toEqual([{ line: 2, problem: 'a record cut off mid-write' }]);

    appendRecord(path, record({ model: 'after' }));
    read = readHistory(path);
    expect(read.records.map((r) => r.model)).toEqual(['first', 'after']);
    expect(read.skipped).toEqual([{ line: 2, problem: 'not JSON' }]);
    expect(skippedSummary(path, read)).toBe(`1 unreadable line(s) of ${path} skipped (line 2: not JSON)`);
  });

  it('skips garbage, records of a newer spinup and records that are not starts, counting each', () => {
    const path = fresh();
    appendRecord(path, record());
    appendFileSync(path, ['\u0000\u0000garbage', '[1,2]', JSON.stringify({ ...record(), v: 9 }), JSON.stringify({ ...record(), verdict: 'up' }), '', '   '].join('\n') + '\n');
    appendRecord(path, record({ model: 'last' }));
    const read = readHistory(path);
    expect(read.records.map((r) => r.model)).toEqual(['Qwen/QwQ-32B', 'last']);
    expect(read.skipped).toEqual([
      { line: 2, problem: 'not JSON' },
      { line: 3, problem: 'not a JSON object' },
      { line: 4, problem: 'written by a newer spinup (record version 9)' },
      { line: 5, problem: 'bad verdict "up"' },
    ]);
  });

  it('reads the older format (v0: no `v`, seconds, `result`, `tp_size`, `quant`, `hostname`)', () => {
    const path = fresh();
    const v0 = {
      ts: 1_717_236_000,
      hostname: 'gpu-01',
      family: 'vllm',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      tp_size: 2,
      quant: 'fp8',
      result: 'ready',
      stage: 'ready',
      cause: null,
      elapsed_s: 312.5,
      stages: { launch: 12.25, load_weights: 280, warmup_old_name: 3 },
    };
    writeFileSync(path, `${JSON.stringify(v0)}\n`);
    appendRecord(path, record());
    const read = readHistory(path);
    expect(read.skipped).toEqual([]);
    expect(read.upgraded).toBe(1);
    expect(read.records[0]).toEqual({
      v: RECORD_VERSION,
      when: '2024-06-01T10:00:00.000Z',
      host: 'gpu-01',
      source: 'watch',
      family: 'vllm',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      model_from: 'log',
      tp: 2,
      quantization: 'fp8',
      verdict: 'ready',
      stage: 'ready',
      total_ms: 312_500,
      stages_ms: { launch: 12_250, load_weights: 280_000 },
    });
    expect(read.records[1]!.model).toBe('Qwen/QwQ-32B');
  });

  it('keeps every record whole with several processes appending at once', async () => {
    const path = fresh();
    const store = transpileStore(join(scratch, 'child'));
    const writers = 6;
    const each = 40;
    // Records bigger than PIPE_BUF (4 KiB): nothing but the lock and O_APPEND keeps them whole.
    const child = `
      const { appendRecord } = await import(${JSON.stringify(store)});
      const [path, id, count, startAt] = process.argv.slice(1);
      while (Date.now() < Number(startAt)) {}
      for (let i = 0; i < Number(count); i++) {
        appendRecord(path, { v: 1, when: new Date().toISOString(), host: 'h', source: 'watch', family: 'sglang',
          model: 'w' + id + '-' + i + '-' + 'x'.repeat(6000), verdict: 'ready', stage: 'ready', total_ms: i, stages_ms: {} });
      }`;
    const startAt = Date.now() + 1500;
    await Promise.all(
      Array.from({ length: writers }, (_, id) =>
        new Promise<void>((resolve, reject) =>
          execFile(process.execPath, ['--input-type=module', '-e', child, path, String(id), String(each), String(startAt)], { timeout: 60_000 }, (error, _out, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(),
          ),
        ),
      ),
    );
    const read = readHistory(path);
    expect(read.skipped).toEqual([]);
    expect(read.records).toHaveLength(writers * each);
    for (let id = 0; id < writers; id++) {
      const mine = read.records.filter((r) => r.model!.startsWith(`w${id}-`)).map((r) => r.total_ms);
      expect(mine).toEqual(Array.from({ length: each }, (_, i) => i)); // all there, each writer in its order
    }
    expect(read.records.every((r) => r.model!.endsWith('x'.repeat(6000)))).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe('the newest part of the history, what a start learns from', () => {
  const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');

  it('reads the whole lines of the last tailBytes, dropping the one the window cuts', () => {
    const path = fresh();
    for (let i = 0; i < 50; i++) appendRecord(path, record({ total_ms: i }));
    const all = lines(path);
    const lineBytes = all.at(-1)!.length + 1; // the last 40 all alike (two-digit total_ms)
    // 10.5 lines' worth: the 11th line from the end is cut, so 10 whole ones are read.
    const read = readHistory(path, { tailBytes: Math.floor(lineBytes * 10.5) });
    expect(read.skipped).toEqual([]);
    expect(read.records.map((r) => r.total_ms)).toEqual(Array.from({ length: 10 }, (_, i) => 40 + i));
    // A window that begins right after a newline keeps its first line.
    expect(readHistory(path, { tailBytes: lineBytes * 10 }).records.map((r) => r.total_ms)[0]).toBe(40);
    expect(readHistory(path, { tailBytes: lineBytes * 10 - 1 }).records.map((r) => r.total_ms)[0]).toBe(41);
    // A window as large as the file (or larger) is the whole file.
    expect(readHistory(path, { tailBytes: lineBytes * 50 }).records).toHaveLength(50);
    expect(readHistory(path, { tailBytes: 1 << 30 }).records).toEqual(readHistory(path).records);
    // A window inside one line holds no record, and no damage.
    expect(readHistory(path, { tailBytes: 5 })).toEqual({ records: [], skipped: [], upgraded: 0 });
  });

  it('numbers a damaged line in the window by its line in the whole file', () => {
    const path = fresh();
    for (let i = 0; i < 30; i++) appendRecord(path, record({ total_ms: i }));
    appendFileSync(path, 'not a record\n');
    for (let i = 30; i < 35; i++) appendRecord(path, record({ total_ms: i }));
    const lineBytes = lines(path).at(-1)!.length + 1;
    const read = readHistory(path, { tailBytes: lineBytes * 8 });
    expect(read.skipped).toEqual([{ line: 31, problem: 'not JSON' }]);
    expect(read.records.map((r) => r.total_ms)).toEqual([28, 29, 30, 31, 32, 33, 34]);
    expect(readHistory(path).skipped).toEqual([{ line: 31, problem: 'not JSON' }]);
  });

  it('is what a start opens: the newest LEARNING.windowBytes, however long the history has grown', () => {
    const path = fresh();
    const total = 2000;
    appendFileSync(path, Array.from({ length: total }, (_, i) => `${JSON.stringify(record({ total_ms: i }))}\n`).join(''));
    const size = statSync(path).size;
    expect(size).toBeGreaterThan(2 * LEARNING.windowBytes);
    const { memory, warning } = openMemory({ path, host: 'gpu-01', learn: true });
    expect(warning).toBeUndefined();
    const read = memory.records.map((r) => r.total_ms);
    expect(read.at(-1)).toBe(total - 1);
    expect(read).toEqual(Array.from({ length: read.length }, (_, i) => total - read.length + i));
    const lineBytes = lines(path).at(-1)!.length + 1; // the newest thousand all alike (four-digit total_ms)
    expect(read.length).toBeGreaterThan(LEARNING.windowBytes / lineBytes - 1);
    expect(read.length).toBeLessThanOrEqual(LEARNING.windowBytes / lineBytes);
  });
});

describe('the lock file', () => {
  it('takes over a lock whose holder is gone', () => {
    const lock = join(scratch, 'dead.lock');
    writeFileSync(lock, `999999999@${hostname()} abc`);
    const held = acquireLock(lock, { waitMs: 1000 });
    expect(held.held).toBe(true);
    held.release();
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock older than any write could take', () => {
    const lock = join(scratch, 'old.lock');
    writeFileSync(lock, `${process.pid}@elsewhere abc`);
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(lock, old, old);
    expect(acquireLock(lock, { waitMs: 1000, staleMs: 30_000 }).held).toBe(true);
  });

  it('waits for a live lock, then appends without it rather than lose the record', () => {
    const path = fresh();
    appendRecord(path, record());
    const busy = acquireLock(`${path}.lock`);
    const started = Date.now();
    expect(appendRecord(path, record({ model: 'anyway' }), { waitMs: 200 })).toEqual({ locked: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    busy.release();
    expect(readHistory(path).records.map((r) => r.model)).toEqual(['Qwen/QwQ-32B', 'anyway']);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('never releases a lock that is not its own', () => {
    const lock = join(scratch, 'stolen.lock');
    const mine = acquireLock(lock);
    writeFileSync(lock, `${process.pid}@${hostname()} someone-else`);
    mine.release();
    expect(readFileSync(lock, 'utf8')).toContain('someone-else');
  });
});
