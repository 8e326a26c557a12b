// Locating the `syncscope` executable. Pure logic: no `vscode` import, so it
// can be unit-tested under plain node.
import * as fs from 'fs';
import * as path from 'path';

export type ServerPathSource = 'setting' | 'env' | 'bundled' | 'path';

export interface ServerPathInput {
  /** Value of the `syncscope.server.path` setting (may be empty / null). */
  configured?: string | null;
  /** Value of the `SYNCSCOPE_SERVER_PATH` environment variable. */
  envPath?: string;
  /** Absolute path of the installed extension (for the bundled server). */
  extensionPath: string;
  /** `process.arch`: with `platform`, names the bundled server's folder. */
  arch: string;
  /** First workspace folder, used for `${workspaceFolder}` and relative paths. */
  workspaceFolder?: string;
  /** Home directory, used for `~` and `${userHome}`. */
  homeDir?: string;
  platform: NodeJS.Platform;
  /** The `PATH` environment variable. */
  pathEnv?: string;
  /** Whether the file at this absolute path exists and is executable. */
  isExecutable: (p: string) => boolean;
}

export type ServerPathResult =
  | { ok: true; path: string; source: ServerPathSource }
  | { ok: false; error: string };

function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

export function binaryName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'syncscope.exe' : 'syncscope';
}

/** The VS Code target a platform-specific `.vsix` is packaged for
 * (`vsce package --target`): `linux-x64`, `darwin-arm64`, `win32-x64`, ... */
export function vsixTarget(platform: NodeJS.Platform, arch: string): string {
  return `${platform}-${arch}`;
}

/** Where a platform-specific `.vsix` carries its server, relative to the
 * extension folder. */
export function bundledServerPath(platform: NodeJS.Platform, arch: string): string {
  return ['server', vsixTarget(platform, arch), binaryName(platform)].join('/');
}

/** Expands `${workspaceFolder}`, `${userHome}` and a leading `~`, and makes
 * relative paths absolute against the workspace folder (when there is one). */
export function expandPath(
  p: string,
  opts: { workspaceFolder?: string; homeDir?: string; platform: NodeJS.Platform },
): string {
  const api = pathApi(opts.platform);
  let out = p.trim();
  if (opts.workspaceFolder !== undefined) {
    out = out.split('${workspaceFolder}').join(opts.workspaceFolder);
  }
  if (opts.homeDir !== undefined) {
    out = out.split('${userHome}').join(opts.homeDir);
    if (out === '~') {
      out = opts.homeDir;
    } else if (out.startsWith('~/') || (opts.platform === 'win32' && out.startsWith('~\\'))) {
      out = api.join(opts.homeDir, out.slice(2));
    }
  }
  if (!api.isAbsolute(out) && opts.workspaceFolder !== undefined && /[\\/]/.test(out)) {
    // "target/debug/syncscope" -> relative to the workspace; a bare name such
    // as "syncscope" is left alone and looked up on PATH.
    out = api.resolve(opts.workspaceFolder, out);
  }
  return out;
}

/** Searches `PATH` for the server binary (or for `name` when given). */
export function searchPath(
  pathEnv: string | undefined,
  platform: NodeJS.Platform,
  isExecutable: (p: string) => boolean,
  name: string = binaryName(platform),
): string | undefined {
  if (!pathEnv) {
    return undefined;
  }
  const api = pathApi(platform);
  const sep = platform === 'win32' ? ';' : ':';
  const names = platform === 'win32' && !/\.exe$/i.test(name) ? [name + '.exe', name] : [name];
  for (const dir of pathEnv.split(sep)) {
    if (dir === '') {
      continue;
    }
    for (const n of names) {
      const candidate = api.join(dir.replace(/^"(.*)"$/, '$1'), n);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * Order: the `syncscope.server.path` setting, the `SYNCSCOPE_SERVER_PATH`
 * environment variable, `syncscope` on PATH, then the server bundled in a
 * `.vsix` packaged for this platform (`server/<platform>-<arch>/syncscope`).
 * An explicitly configured path that does not exist is an error rather than
 * a silent fallback. A server on PATH wins over the bundled one, so that a
 * user who installed a newer `syncscope` gets it.
 */
export function findServerPath(input: ServerPathInput): ServerPathResult {
  const api = pathApi(input.platform);
  const expandOpts = {
    workspaceFolder: input.workspaceFolder,
    homeDir: input.homeDir,
    platform: input.platform,
  };
  const explicit: Array<[string | null | undefined, ServerPathSource, string]> = [
    [input.configured, 'setting', 'the `syncscope.server.path` setting'],
    [input.envPath, 'env', 'the SYNCSCOPE_SERVER_PATH environment variable'],
  ];
  for (const [raw, source, what] of explicit) {
    if (typeof raw !== 'string' || raw.trim() === '') {
      continue;
    }
    const expanded = expandPath(raw, expandOpts);
    if (api.isAbsolute(expanded)) {
      if (input.isExecutable(expanded)) {
        return { ok: true, path: expanded, source };
      }
      return {
        ok: false,
        error: `The syncscope server "${expanded}" (from ${what}) does not exist or is not executable.`,
      };
    }
    const found = searchPath(input.pathEnv, input.platform, input.isExecutable, expanded);
    if (found !== undefined) {
      return { ok: true, path: found, source };
    }
    return {
      ok: false,
      error: `The syncscope server "${expanded}" (from ${what}) was not found on PATH.`,
    };
  }
  const onPath = searchPath(input.pathEnv, input.platform, input.isExecutable);
  if (onPath !== undefined) {
    return { ok: true, path: onPath, source: 'path' };
  }
  const bundled = api.join(input.extensionPath, ...bundledServerPath(input.platform, input.arch).split('/'));
  if (input.isExecutable(bundled)) {
    return { ok: true, path: bundled, source: 'bundled' };
  }
  return {
    ok: false,
    error:
      'No syncscope language server found: it is not on PATH, `syncscope.server.path` is not set, and this ' +
      `extension was not packaged with a server for ${vsixTarget(input.platform, input.arch)}. ` +
      'Install it from a clone of the Syncscope repository with `cargo install --locked --path server/syncscope` ' +
      '(it goes to ~/.cargo/bin, which must be on PATH), or set `syncscope.server.path` to the binary.',
  };
}

/** Real-filesystem check used by the extension. */
export function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) {
      return false;
    }
    if (process.platform === 'win32') {
      return true;
    }
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
