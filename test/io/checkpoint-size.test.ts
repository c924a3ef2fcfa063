// The checkpoint's size for a silent load's progress: a local model dir, or a hub id in the local HF cache.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointBytes } from '../../src/io/checkpoint-size.js';

const root = mkdtempSync(join(tmpdir(), 'spinup-ckpt-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, bytes: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, Buffer.alloc(bytes));
}

describe('checkpointBytes', () => {
  it('sums the weight files of a local directory, not its configs and tokenizer', () => {
    const dir = join(root, 'local');
    file(join(dir, 'model-00001-of-00002.safetensors'), 3_000);
    file(join(dir, 'model-00002-of-00002.safetensors'), 2_000);
    file(join(dir, 'tokenizer.json'), 50_000);
    file(join(dir, 'config.json'), 700);
    expect(checkpointBytes(dir, {})).toBe(5_000);
  });

  it('finds a hub id in the HF cache, follows its symlinks to the blobs, and takes the newest snapshot', () => {
    const hub = join(root, 'hf', 'hub');
    const repo = join(hub, 'models--Qwen--Qwen2.5-7B-Instruct');
    file(join(repo, 'blobs', 'aaa'), 4_000);
    file(join(repo, 'blobs', 'bbb'), 6_000);
    const old = join(repo, 'snapshots', 'old');
    const fresh = join(repo, 'snapshots', 'fresh');
    mkdirSync(old, { recursive: true });
    mkdirSync(fresh, { recursive: true });
    symlinkSync('../../blobs/aaa', join(old, 'model.safetensors'));
    symlinkSync('../../blobs/aaa', join(fresh, 'model-1.safetensors'));
    symlinkSync('../../blobs/bbb', join(fresh, 'model-2.safetensors'));
    utimesSync(old, new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect(checkpointBytes('Qwen/Qwen2.5-7B-Instruct', { HF_HOME: join(root, 'hf') })).toBe(10_000);
    expect(checkpointBytes('Qwen/Qwen2.5-7B-Instruct', { HF_HUB_CACHE: hub })).toBe(10_000);
  });

  it('knows no size for a model that is not on this host (bytes and rate only, then)', () => {
    expect(checkpointBytes('meta-llama/Llama-3.1-405B', { HF_HOME: join(root, 'empty') })).toBeUndefined();
    expect(checkpointBytes(join(root, 'missing-dir'), {})).toBeUndefined();
    expect(checkpointBytes(undefined, {})).toBeUndefined();
  });
});
