// The "Compare with…" lens and command: which kernels a CUDA file defines
// (to offer as the other version) and the one-line summary of the server's
// `syncscope.compareWith` answer. Pure functions, tested without VS Code;
// extension.ts does the picking and the request.

/** Kernel names a CUDA source defines, in order: each `__global__`
 * function's name (templates, `extern "C"`, `__launch_bounds__(...)` and
 * other attributes before the name included). Comments and strings are
 * skipped. A declaration without a body counts too: the server answers
 * for what it finds. */
export function kernelNames(source: string): string[] {
  const text = source
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/[^\n]*/g, ' ')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
  const names: string[] = [];
  const marker = /\b__global__\b/g;
  let m: RegExpExecArray | null;
  while ((m = marker.exec(text)) !== null) {
    const name = nameBeforeParameters(text, m.index + m[0].length);
    if (name !== undefined && !names.includes(name)) {
      names.push(name);
    }
  }
  return names;
}

/** The identifier right before the parameter list that follows `from`,
 * skipping attribute calls such as `__launch_bounds__(256, 2)`. */
function nameBeforeParameters(text: string, from: number): string | undefined {
  const token = /([A-Za-z_]\w*)\s*\(|[;{}]/g;
  token.lastIndex = from;
  let t: RegExpExecArray | null;
  while ((t = token.exec(text)) !== null) {
    if (t[1] === undefined) {
      return undefined; // a `;` or brace before any parameter list
    }
    if (!/^__\w+__$/.test(t[1]) && t[1] !== 'alignas' && t[1] !== 'decltype') {
      return t[1];
    }
    // An attribute call: continue after its closing parenthesis.
    let depth = 1;
    let i = token.lastIndex;
    while (i < text.length && depth > 0) {
      if (text[i] === '(') depth += 1;
      if (text[i] === ')') depth -= 1;
      i += 1;
    }
    token.lastIndex = i;
  }
  return undefined;
}

/** One candidate for the other version. */
export interface KernelChoice {
  uri: string;
  kernel: string;
  /** Where it is, for the picker (a workspace-relative path). */
  where: string;
}

/** The candidates in the order the picker shows them: kernels of the same
 * name first (the usual case: two versions of one kernel), then the
 * others; the kernel being compared itself is left out. */
export function orderChoices(from: { uri: string; kernel: string }, choices: KernelChoice[]): KernelChoice[] {
  const others = choices.filter((c) => !(c.uri === from.uri && c.kernel === from.kernel));
  const same = others.filter((c) => c.kernel === from.kernel);
  const rest = others.filter((c) => c.kernel !== from.kernel);
  return [...same, ...rest];
}

/** How the values are compared: as floating point (the order of the
 * operations counts), or as real arithmetic (`syncscope equiv --assoc`:
 * `+` and `*` associative and commutative, an assumption the user makes;
 * reductions that add in another order become provable). */
export const ARITHMETIC_CHOICES = [
  { label: 'Floating point', description: 'the order of additions counts', assoc: false },
  { label: 'Real arithmetic (--assoc)', description: 'assume + and * associative and commutative', assoc: true },
] as const;

/** The arguments of `syncscope.compareWith`: the two versions, and the
 * options object only when it asks for more than the default. */
export function compareArguments(
  from: { uri: string; kernel: string },
  other: { uri: string; kernel: string },
  assoc: boolean,
): unknown[] {
  const args: unknown[] = [from.uri, from.kernel, other.uri, other.kernel];
  if (assoc) {
    args.push({ assoc: true });
  }
  return args;
}

/** The one-line summary of a `syncscope.compareWith` answer, and whether
 * it is a success (proved equivalent). `unknown` and `refused` are never
 * a success. */
export function compareSummary(result: unknown): { text: string; proved: boolean } {
  if (typeof result !== 'object' || result === null) {
    return { text: 'Syncscope: the server gave no comparison.', proved: false };
  }
  const r = result as Record<string, unknown>;
  const pair = `${String(r.a)} and ${String(r.b)}`;
  switch (r.verdict) {
    case 'equivalent':
      return { text: `Syncscope: ${pair} are equivalent (proved).`, proved: true };
    case 'not-equivalent': {
      const c = (r.counterexample ?? {}) as Record<string, unknown>;
      const at = c.array !== undefined ? ` at ${String(c.array)}[${String(c.index)}]` : '';
      return { text: `Syncscope: ${pair} differ${at} (counterexample replayed).`, proved: false };
    }
    case 'conditional': {
      // Proved only under the condition, refuted outside it: not a success.
      const c = (r.counterexample ?? {}) as Record<string, unknown>;
      const block = Array.isArray(c.block_dim) ? ` (a block of ${c.block_dim.join(' x ')} differs)` : '';
      return {
        text: `Syncscope: ${pair} are equivalent only when ${String(r.condition)}${block}.`,
        proved: false,
      };
    }
    case 'refused':
      return { text: `Syncscope: not compared: ${String(r.reason)}`, proved: false };
    default:
      return { text: `Syncscope: equivalence unknown: ${String(r.reason ?? 'no reason given')}`, proved: false };
  }
}
