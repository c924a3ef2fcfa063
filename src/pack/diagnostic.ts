/** One diagnostic shape for every pack problem: what is wrong, where, and how to fix it. */

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  severity: Severity;
  /** `pack/unknown-key`, `regex/super-linear`, ... */
  code: string;
  message: string;
  /** Breadcrumb to the offending value, e.g. `stages[3].markers[0]`. */
  path?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}`;
}

/** A pack that cannot be used; the CLI exits 78 with its diagnostics. */
export class PackError extends Error {
  readonly code = 'PACK_INVALID';
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n') || 'invalid rule pack');
    this.name = 'PackError';
  }
}

/** `/stages/3/markers/0` -> `stages[3].markers[0]`. */
export function breadcrumb(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number' || /^\d+$/.test(String(part))) out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
