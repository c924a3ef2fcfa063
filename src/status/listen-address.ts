/**
 * `--listen ADDR`: `9464` (127.0.0.1:9464), `:0` (127.0.0.1, a free port), `0.0.0.0:9464` (every
 * interface, for a pod), `[::1]:9464`. Loopback unless a host is named: the API shows log lines.
 */

export interface ListenAddress {
  host: string;
  port: number;
  /** As given, for messages. */
  text: string;
}

export type ParsedListen = { ok: true; address: ListenAddress } | { ok: false; message: string };

const LOOPBACK = '127.0.0.1';

export function parseListenAddress(text: string): ParsedListen {
  const bad = (why: string): ParsedListen => ({ ok: false, message: `--listen wants PORT, HOST:PORT, :PORT or [IPv6]:PORT (e.g. 9464, 0.0.0.0:9464, :0); "${text}" ${why}` });
  let host: string;
  let portText: string;
  const bracketed = /^\[([0-9A-Fa-f:.]+)\]:(.*)$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2]!;
  } else if (/^\d+$/.test(text)) {
    host = LOOPBACK;
    portText = text;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon === -1) return bad('has no port');
    host = text.slice(0, colon) || LOOPBACK;
    portText = text.slice(colon + 1);
    if (host.includes(':')) return bad('is an IPv6 address without brackets');
    if (!/^[A-Za-z0-9.-]+$/.test(host)) return bad('has a malformed host');
  }
  if (!/^\d{1,5}$/.test(portText)) return bad('has no valid port');
  const port = Number(portText);
  if (port > 65535) return bad('has a port above 65535');
  return { ok: true, address: { host, port, text } };
}

/** `http://127.0.0.1:9464`, `http://[::1]:9464`. */
export function listenUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Whether only this host can reach the address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
