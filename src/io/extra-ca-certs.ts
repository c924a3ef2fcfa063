/**
 * What spinup's own https requests trust when the bin kept NODE_EXTRA_CA_CERTS from Node's start
 * (io/extra-ca-handover.ts says why): Node's roots and the file's CAs, what Node would have trusted.
 * Not quite under NODE_OPTIONS=--use-openssl-ca, where Node's roots are the system's store: Node
 * 20 cannot list that store, so those requests trust Node's own roots and the file's CAs instead.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { unloadedExtraCaFile } from './extra-ca-handover.js';

let known: { file: string | undefined; trust: { ca?: string[] } } | undefined;

/**
 * Options for a request to `url`: for https, `ca` with Node's roots and the CAs of
 * NODE_EXTRA_CA_CERTS when Node did not load that file itself; else none (Node's defaults, the
 * file included). The file is read once; one that cannot be read is warned of, as Node warns,
 * and then ignored, as Node ignores it.
 */
export function extraCaTrust(url: string | URL): { ca?: string[] } {
  if (!String(url).startsWith('https:')) return {};
  const file = unloadedExtraCaFile();
  if (known === undefined || known.file !== file) known = { file, trust: file === undefined ? {} : trustWith(file) };
  return known.trust;
}

function trustWith(file: string): { ca?: string[] } {
  try {
    // node:tls only now: a start that opens no TLS connection never loads it.
    const { rootCertificates } = createRequire(import.meta.url)('node:tls') as typeof import('node:tls');
    return { ca: [...rootCertificates, readFileSync(file, 'utf8')] };
  } catch (error) {
    process.stderr.write(`Warning: Ignoring extra certs from \`${file}\`, load failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return {};
  }
}
