// Which documents the extension serves. Pure logic: no `vscode` import, so
// the unit tests check the very selector the language client is given.
//
// VS Code's C/C++ support (the built-in `cpp` language extension, and
// Microsoft's C/C++ extension) opens `.cu`/`.cuh` files with the language id
// `cuda-cpp`; some CUDA extensions use `cuda`. Files matched by name are
// served whatever language another extension gave them.

/** A document filter as the language client takes it: at least one of
 * `language`, `scheme` and `pattern`. */
export type DocumentFilter =
  | { language: string; scheme?: string; pattern?: string }
  | { language?: string; scheme: string; pattern?: string }
  | { language?: string; scheme?: string; pattern: string };

/** The language ids served. */
export const CUDA_LANGUAGES = ['cuda-cpp', 'cuda'] as const;

/** The file-name pattern served in any language. */
export const CUDA_PATTERN = '**/*.{cu,cuh}';

export const DOCUMENT_SELECTOR: DocumentFilter[] = [
  ...CUDA_LANGUAGES.flatMap((language) => [
    { scheme: 'file', language },
    { scheme: 'untitled', language },
  ]),
  { scheme: 'file', pattern: CUDA_PATTERN },
];

/** What a document filter is matched against. */
export interface DocumentLike {
  languageId: string;
  scheme: string;
  /** The document's path (forward slashes). */
  path: string;
}

/** Converts a glob with `**`, `*`, `?` and `{a,b}` to a regular expression
 * over forward-slash paths, as VS Code's document filters use them. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches any number of folders, including none.
      if (glob[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') {
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      const end = glob.indexOf('}', i);
      const alternatives = glob.slice(i + 1, end).split(',').map((a) => a.replace(/[.+^$()|[\]\\]/g, '\\$&'));
      re += `(?:${alternatives.join('|')})`;
      i = end;
    } else {
      re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/** Whether one filter matches: every property it sets must match. */
export function filterMatches(filter: DocumentFilter, doc: DocumentLike): boolean {
  if (filter.language !== undefined && filter.language !== doc.languageId) {
    return false;
  }
  if (filter.scheme !== undefined && filter.scheme !== doc.scheme) {
    return false;
  }
  if (filter.pattern !== undefined && !globToRegExp(filter.pattern).test(doc.path)) {
    return false;
  }
  return true;
}

/** Whether the extension serves `doc`. */
export function isServed(doc: DocumentLike, selector: DocumentFilter[] = DOCUMENT_SELECTOR): boolean {
  return selector.some((f) => filterMatches(f, doc));
}
