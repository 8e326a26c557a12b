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
  /** Set by [`StatusStore`] while a file is being verified again: the
   * kernels of its last result. */
  previous?: KernelStatus[];
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
  analysing: { icon: '$(sync~spin)', label: 'verifying…', severity: 'progress' },
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

/** How kernel statuses are named in the status bar, in the order shown. */
const COUNT_LABELS: Array<[string, string]> = [
  ['analysing', 'verifying'],
  ['verified', 'verified'],
  ['racy', 'racy'],
  ['divergent', 'divergent'],
  ['unknown', 'unknown'],
  ['not-verified', 'not verified'],
];

/** `2 verifying, 3 verified, 1 racy`: the file's kernels by status (statuses
 * the server may add later are counted under their own name). */
export function kernelCounts(kernels: KernelStatus[]): string {
  const byStatus = new Map<string, number>();
  for (const k of kernels) {
    byStatus.set(k.status, (byStatus.get(k.status) ?? 0) + 1);
  }
  const parts: string[] = [];
  for (const [status, label] of COUNT_LABELS) {
    const n = byStatus.get(status);
    if (n !== undefined) {
      parts.push(`${n} ${label}`);
      byStatus.delete(status);
    }
  }
  for (const [status, n] of byStatus) {
    parts.push(`${n} ${status}`);
  }
  return parts.join(', ');
}

/** Status-bar text (with codicons), tooltip and severity for a file: the
 * verdict's icon and colour, and the file's kernels counted by status. */
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
  let text = `${v.icon} Syncscope: ${v.label}`;
  if (p.verdict === 'analysing') {
    const before = kernelCounts(Array.isArray(p.previous) ? p.previous : []);
    const now = kernelCounts(kernels);
    if (now !== '') {
      text = `${v.icon} Syncscope: ${now}`;
    } else if (before !== '') {
      text += ` (was ${before})`;
    }
  } else if (p.verdict !== 'syntax-error' && kernels.length > 0) {
    text = `${v.icon} Syncscope: ${kernelCounts(kernels)}`;
  }
  return { text, tooltip: lines.join('\n'), severity: v.severity };
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
    if (p.verdict === 'analysing' && prev !== undefined) {
      const last = prev.verdict === 'analysing' ? prev.previous : prev.kernels;
      this.byUri.set(p.uri, { ...p, previous: last });
    } else {
      this.byUri.set(p.uri, p);
    }
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
