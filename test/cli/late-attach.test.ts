/**
 * A client that comes late still learns what the start is and where it stands (issue 25, item
 * 12). The event replay is bounded (4,096 events), and a load that logs thousands of progress
 * frames used to rotate the family and stage events out of it: `attach`, `/v1/events` and the
 * live page then showed bars and nothing else. The state-defining events are kept apart from the
 * ring the frames rotate. Real processes of the built bin, a growing file, loopback HTTP.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { apiGet, readEvents, type StreamedEvent } from '../../src/serve/api-client.js';
import { PidTracker } from '../io/pid-tracker.js';
import { spinup, until } from '../helpers/spinup-process.js';
import { runFiles, stateHomes } from '../helpers/state-homes.js';

const scratch = mkdtempSync(join(tmpdir(), 'spinup-late-attach-'));
const tracker = new PidTracker();
afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const stateHome = stateHomes(scratch);

const FRAMES = 5_000;

function loadWithBars(): string {
  const lines = ["[2025-03-08 12:00:00] server_args=ServerArgs(model_path='late/model')", '[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB'];
  for (let i = 0; i <= FRAMES; i++) lines.push(`Loading safetensors checkpoint shards: ${String(Math.floor((i * 100) / FRAMES)).padStart(3)}% Completed | ${i}/${FRAMES} [00:00<00:04,  2.93it/s]`);
  return `${lines.join('\n')}\n`;
}

describe('a late client after more progress frames than the replay keeps', () => {
  it(`${FRAMES} frames: /v1/events and attach still replay the family and both stages, then the verdict`, async () => {
    const { env, runs } = stateHome();
    const log = join(scratch, 'bars.log');
    writeFileSync(log, loadWithBars());
    const watch = spinup(['watch', '--no-history', '--quiet', '--listen', '127.0.0.1:0', log], env);
    tracker.track(watch.pid);
    const url = (await watch.waitFor(/status API on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    // family, two stages and one progress event per frame: wait until all of them are in.
    const latest = await until('every frame read', async () => {
      const status = JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as { last_event_id: number };
      return status.last_event_id >= FRAMES + 4 ? status.last_event_id : undefined;
    });

    const replayed: StreamedEvent[] = [];
    const done = new AbortController();
    await readEvents({
      target: { url },
      afterId: 0,
      signal: done.signal,
      onEvent: (event) => {
        replayed.push(event);
        if (event.id >= latest) done.abort();
      },
    });
    const ids = replayed.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(replayed.filter((e) => e.type === 'progress').length).toBeLessThanOrEqual(4096);
    const stateEvents = replayed.filter((e) => e.type !== 'progress').map((e) => ({ id: e.id, type: e.type, ...(JSON.parse(e.data) as { stage?: string; family?: string }) }));
    expect(stateEvents).toEqual([
      expect.objectContaining({ id: 1, type: 'family', family: 'sglang' }),
      expect.objectContaining({ id: 2, type: 'stage', stage: 'launch' }),
      expect.objectContaining({ id: 3, type: 'stage', stage: 'load_weights' }),
    ]);

    const [file] = runFiles(runs);
    const attach = spinup(['attach', '--json', file!.id], env);
    tracker.track(attach.pid);
    await until('attach to replay the last frame', () => attach.stdout().includes(`"current":${FRAMES},"total":${FRAMES}`) || undefined);
    appendFileSync(log, '[2025-03-08 12:00:09] The server is fired up and ready to roll!\n');
    expect(await attach.code).toBe(0);
    // A watch with --listen serves on after READY until it is stopped (a sidecar's probes).
    watch.child.kill('SIGTERM');
    expect(await watch.code).toBe(0);
    const types = attach.stdout().trim().split('\n').map((line) => JSON.parse(line) as { type: string; stage?: string });
    expect(types.filter((e) => e.type !== 'progress').map((e) => `${e.type}${e.stage ? ` ${e.stage}` : ''}`)).toEqual(['family', 'stage launch', 'stage load_weights', 'verdict ready']);
  });
});
