// The `syncscope/status` notification and its status-bar rendering.
// Pure logic: no `vscode` import.

export type Verdict =
  | 'verified'
  | 'racy'
  | 'divergent'
  | 'unknown'
  | 'not-verified'
  | 'syntax-error'
  | 'analysing';

export interface KernelStatus {
  name: string;
  status: string;
}

export interface StatusParams {
  uri: string;
  version: number;
  verdict: Verdict | string;
  kernels?: KernelStatus[];
}

export type Severity = 'ok' | 'warning' | 'error' | 'progress' | 'none';

export interface StatusView {
  text: string;
  tooltip: string;
  severity: Severity;
}

const VERDICTS: Record<Verdict, { icon: string; label: string; severity: Severity }> = {
  verified: { icon: '$(pass)', label: 'verified', severity: 'ok' },
  racy: { icon: '$(error)', label: 'data race', severity: 'error' },
  divergent: { icon: '$(error)', label: 'barrier divergence', severity: 'error' },
  unknown: { icon: '$(question)', label: 'unknown', severity: 'warning' },
  'not-verified': { icon: '$(circle-slash)', label: 'not verified', severity: 'warning' },
  'syntax-error': { icon: '$(error)', label: 'syntax error', severity: 'error' },
  analysing: { icon: '$(sync~spin)', label: 'analysing…', severity: 'progress' },
};

export function isStatusParams(v: unknown): v is StatusParams {
  if (typeof v !== 'object' || v === null) {
    return false;
  }
  const p = v as Record<string, unknown>;
  return (
    typeof p.uri === 'string' &&
    typeof p.verdict === 'string' &&
    (p.version === undefined || p.version === null || typeof p.version === 'number') &&
    (p.kernels === undefined || p.kernels === null || Array.isArray(p.kernels))
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Status-bar text (with codicons), tooltip and severity for a file. */
export function formatStatus(p: StatusParams | undefined): StatusView {
  if (p === undefined) {
    return {
      text: '$(shield) Syncscope',
      tooltip: 'Syncscope: no result for this file yet',
      severity: 'none',
    };
  }
  const known = (VERDICTS as Record<string, (typeof VERDICTS)[Verdict] | undefined>)[p.verdict];
  const v = known ?? { icon: '$(question)', label: p.verdict, severity: 'warning' as Severity };
  const kernels = Array.isArray(p.kernels) ? p.kernels.filter((k) => k && typeof k.name === 'string') : [];

  let suffix = '';
  if (kernels.length > 0 && p.verdict !== 'analysing' && p.verdict !== 'syntax-error') {
    if (p.verdict === 'verified') {
      suffix = ` (${plural(kernels.length, 'kernel')})`;
    } else {
      const failing = kernels.filter((k) => k.status !== 'verified').length;
      suffix = ` (${failing}/${plural(kernels.length, 'kernel')})`;
    }
  }
  const lines = [`Syncscope: ${v.label}`];
  if (typeof p.version === 'number') {
    lines[0] += ` (version ${p.version})`;
  }
  for (const k of kernels) {
    lines.push(`${k.name}: ${k.status}`);
  }
  if (p.verdict === 'syntax-error') {
    lines.push('The file has syntax errors: it is not fully analysed.');
  } else if (kernels.length === 0 && p.verdict !== 'analysing') {
    lines.push('No kernels in this file.');
  }
  lines.push('', 'Click to re-verify this file.');
  return { text: `${v.icon} Syncscope: ${v.label}${suffix}`, tooltip: lines.join('\n'), severity: v.severity };
}

/** Latest status per document URI; older versions never overwrite newer. */
export class StatusStore {
  private readonly byUri = new Map<string, StatusParams>();

  /** Returns true when the stored status for `p.uri` changed. */
  update(p: StatusParams): boolean {
    const prev = this.byUri.get(p.uri);
    if (
      prev !== undefined &&
      typeof prev.version === 'number' &&
      typeof p.version === 'number' &&
      p.version < prev.version
    ) {
      return false;
    }
    this.byUri.set(p.uri, p);
    return true;
  }

  get(uri: string): StatusParams | undefined {
    return this.byUri.get(uri);
  }

  delete(uri: string): void {
    this.byUri.delete(uri);
  }

  clear(): void {
    this.byUri.clear();
  }
}

/** Arguments for `syncscope.verifyFile`: the caller's (e.g. a code lens'
 * `[uri]`) or, when invoked from the command palette without any, the
 * active document's URI. */
export function verifyFileArguments(args: unknown[] | undefined, activeUri: string | undefined): unknown[] | undefined {
  if (args !== undefined && args.length > 0 && args[0] !== undefined && args[0] !== null) {
    // A vscode.Uri passed by another extension: send its string form.
    const first = args[0];
    if (typeof first === 'object' && typeof (first as { toString(): string }).toString === 'function' && 'scheme' in (first as object)) {
      return [String(first), ...args.slice(1)];
    }
    return args;
  }
  return activeUri === undefined ? undefined : [activeUri];
}
