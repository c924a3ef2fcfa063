/** A node read from a real command: how its end is read (death, dropped reader, end of input). */
import { describe, expect, it } from 'vitest';
import { commandSource } from '../../src/io/command-source.js';
import type { ChildExit } from '../../src/io/child-process.js';

async function drain(command: string, follow: boolean, signal?: AbortSignal) {
  let text = '';
  const notices: string[] = [];
  const deaths: ChildExit[] = [];
  for await (const item of commandSource({ command, follow, signal, onDeath: (exit) => deaths.push(exit) })) {
    if (item.kind === 'data') text += item.chunk.toString();
    if (item.kind === 'notice') notices.push(item.notice.detail ?? '');
  }
  return { text, notices, deaths };
}

describe('commandSource', () => {
  it('merges stdout and stderr a line at a time and ends with the command (exit 0)', async () => {
    const run = await drain("printf 'out 1\\n'; printf 'err 1\\n' >&2; printf 'out 2\\n'", true);
    expect(run.text.split('\n').sort()).toEqual(['', 'err 1', 'out 1', 'out 2']);
    expect(run.deaths).toEqual([]);
  });

  it('a command killed by a signal is a death, reported and not restarted', async () => {
    const run = await drain("echo before; kill -9 $$", true);
    expect(run.text).toBe('before\n');
    expect(run.deaths).toEqual([expect.objectContaining({ signal: 'SIGKILL' })]);
  });

  it('a shell that reports its child killed (128+9) is a death too', async () => {
    const run = await drain("sh -c 'kill -9 $$'; exit $?", true);
    expect(run.deaths).toEqual([expect.objectContaining({ code: 137 })]);
  });

  it('a non-zero exit is a dropped reader: started again when following, with a notice', async () => {
    const marker = `/tmp/spinup-cmd-${process.pid}-${Date.now()}`;
    const run = await drain(`if [ -e ${marker} ]; then echo second; rm ${marker}; else touch ${marker}; echo first; exit 3; fi`, true);
    expect(run.text).toBe('first\nsecond\n');
    expect(run.notices).toEqual([expect.stringContaining('exited with code 3; starting it again in 1s')]);
  });

  it('without follow a non-zero exit just ends the input', async () => {
    const run = await drain('echo once; exit 3', false);
    expect(run).toEqual({ text: 'once\n', notices: [], deaths: [] });
  });

  it('stops the command when the watch is aborted', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const run = await drain('echo up; exec sleep 30', true, stop.signal);
    expect(run.text).toBe('up\n');
    expect(run.deaths).toEqual([]);
  });
});
