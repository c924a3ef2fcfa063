import { describe, expect, it } from 'vitest';
import { listenUrl, parseListenAddress } from '../../src/status/listen-address.js';

describe('parseListenAddress', () => {
  it.for([
    ['9464', '127.0.0.1', 9464],
    [':0', '127.0.0.1', 0],
    ['0.0.0.0:9464', '0.0.0.0', 9464],
    ['localhost:8080', 'localhost', 8080],
    ['[::1]:9464', '::1', 9464],
    ['[::]:1', '::', 1],
  ] as const)('%s binds %s port %i', ([text, host, port]) => {
    expect(parseListenAddress(text)).toEqual({ ok: true, address: { host, port, text } });
  });

  it.for(['', 'abc', '::1:9464', '1.2.3.4:', '1.2.3.4:65536', '1.2.3.4:-1', 'a b:80', '[::1]', 'http://x:80', '99999'])('rejects %j', (text) => {
    const parsed = parseListenAddress(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(/^--listen wants PORT, HOST:PORT/);
  });

  it('brackets an IPv6 host in a URL', () => {
    expect(listenUrl('::1', 80)).toBe('http://[::1]:80');
    expect(listenUrl('127.0.0.1', 80)).toBe('http://127.0.0.1:80');
  });
});
