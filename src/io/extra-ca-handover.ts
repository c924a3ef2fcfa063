/**
 * NODE_EXTRA_CA_CERTS handed over by the bin's shebang, which starts node without it.
 *
 * Node 20 reads NODE_EXTRA_CA_CERTS at every start, before any JavaScript: it parses its own root
 * certificates and every certificate in that file, whether the process ever opens a TLS
 * connection or not. With the Debian bundle (/etc/ssl/certs/ca-certificates.crt, which some
 * machines name there for every process) that is about 45 ms, half of a `watch` of a short log,
 * and most of spinup's commands never speak TLS. So the shebang (cli/bin.ts) unsets the variable
 * for node and hands its value over in SPINUP_NODE_CA. `takeBackExtraCaCerts` puts it back in the
 * environment, so every process spinup starts (the server under `run`, a hook) sees the very
 * environment the user gave, and remembers that this process's TLS did not load the file:
 * io/extra-ca-certs.ts then gives spinup's own https requests what Node would have trusted.
 * Started any other way (`node dist/cli/bin.cjs`), Node loaded the file itself and nothing here acts.
 *
 * This module loads nothing (the loader runs it at every start); the trust is in extra-ca-certs.ts.
 */

/** Where the shebang puts NODE_EXTRA_CA_CERTS's value (empty when it was not set). */
export const HANDED_OVER = 'SPINUP_NODE_CA';

// The loader (bin.cjs) and the CLI (bin-cli.cjs) are two bundles, each with its own copy of this
// module: what the loader learns reaches the CLI on the process's global object.
const UNLOADED = Symbol.for('spinup.unloadedExtraCaCerts');
type Holder = { [UNLOADED]?: string };

/** Called first thing by the bin: NODE_EXTRA_CA_CERTS back in `env` as the user gave it. */
export function takeBackExtraCaCerts(env: NodeJS.ProcessEnv = process.env): void {
  const file = env[HANDED_OVER];
  if (file === undefined) return;
  delete env[HANDED_OVER];
  if (file === '') return;
  env.NODE_EXTRA_CA_CERTS = file;
  (globalThis as Holder)[UNLOADED] = file;
}

/** The NODE_EXTRA_CA_CERTS file Node's start did not load, if the shebang kept one from it. */
export function unloadedExtraCaFile(): string | undefined {
  return (globalThis as Holder)[UNLOADED];
}
