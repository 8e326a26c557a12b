// Mapping VS Code `syncscope.*` settings to the server configuration object
// (sent as initializationOptions and in workspace/didChangeConfiguration).
// Pure logic: no `vscode` import.

export type Dim3 = [number, number, number];

export interface KernelConfig {
  name: string;
  blockDim?: Dim3 | null;
  gridDim?: Dim3 | null;
  deterministic?: boolean;
}

/** What the server accepts under `settings.syncscope`. Keys that the user
 * did not set are omitted, so that `syncscope.toml` and the server defaults
 * apply to them. */
export interface ServerConfig {
  blockDim?: Dim3 | null;
  gridDim?: Dim3 | null;
  defines?: Record<string, string>;
  warpSync?: boolean;
  bitvector?: boolean;
  timeoutMs?: number;
  debounceMs?: number;
  kernels?: KernelConfig[];
  kernelBudgetMs?: number;
  redundantBarriers?: boolean;
  strictBenign?: boolean;
  deterministic?: boolean;
  cudaArch?: number;
  includeDirs?: string[];
}

/** The settings (relative to the `syncscope` section) forwarded to the server. */
export const SERVER_SETTING_KEYS = [
  'blockDim',
  'gridDim',
  'defines',
  'warpSync',
  'bitvector',
  'timeoutMs',
  'debounceMs',
  'kernels',
  'kernelBudgetMs',
  'redundantBarriers',
  'strictBenign',
  'deterministic',
  'cudaArch',
  'includeDirs',
] as const;

export type ServerSettingKey = (typeof SERVER_SETTING_KEYS)[number];
export type RawSettings = Partial<Record<ServerSettingKey, unknown>>;

export interface MappedConfig {
  config: ServerConfig;
  /** Human-readable descriptions of ignored, invalid values. */
  problems: string[];
}

/** Shape of `WorkspaceConfiguration.inspect()` that we use. */
export interface InspectLike<T = unknown> {
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
  defaultValue?: T;
}

/** The most specific value the user set explicitly (an explicit `null`
 * counts), or `undefined` when only the default applies. */
export function explicitValue<T>(inspected: InspectLike<T> | undefined): T | undefined {
  if (inspected === undefined) {
    return undefined;
  }
  for (const v of [inspected.workspaceFolderValue, inspected.workspaceValue, inspected.globalValue]) {
    if (v !== undefined) {
      return v;
    }
  }
  return undefined;
}

function isPositiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}

/** `null` -> null (symbolic); `256` or `[256]` -> `[256, 1, 1]`;
 * invalid -> undefined. */
export function normalizeDim(v: unknown): Dim3 | null | undefined {
  if (v === null) {
    return null;
  }
  if (isPositiveInt(v)) {
    return [v, 1, 1];
  }
  if (Array.isArray(v) && v.length >= 1 && v.length <= 3 && v.every(isPositiveInt)) {
    const d = [...v] as number[];
    while (d.length < 3) {
      d.push(1);
    }
    return d as Dim3;
  }
  return undefined;
}

function describe(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export function toServerConfig(raw: RawSettings): MappedConfig {
  const config: ServerConfig = {};
  const problems: string[] = [];
  const bad = (key: string, v: unknown, expected: string) =>
    problems.push(`syncscope.${key}: ignoring ${describe(v)} (expected ${expected})`);

  for (const key of ['blockDim', 'gridDim'] as const) {
    const v = raw[key];
    if (v === undefined) {
      continue;
    }
    const d = normalizeDim(v);
    if (d === undefined) {
      bad(key, v, 'null or an array of 1 to 3 positive integers');
    } else {
      config[key] = d;
    }
  }

  if (raw.defines !== undefined && raw.defines !== null) {
    const v = raw.defines;
    if (typeof v !== 'object' || Array.isArray(v)) {
      bad('defines', v, 'an object mapping NAME to a value');
    } else {
      const defines: Record<string, string> = {};
      for (const [name, value] of Object.entries(v as Record<string, unknown>)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
          bad(`defines.${name}`, name, 'a C identifier as the macro name');
        } else if (value === null || value === undefined || value === true) {
          defines[name] = '1';
        } else if (value === false) {
          defines[name] = '0';
        } else if (typeof value === 'string' || typeof value === 'number') {
          defines[name] = String(value);
        } else {
          bad(`defines.${name}`, value, 'a string or number');
        }
      }
      config.defines = defines;
    }
  }

  for (const key of ['warpSync', 'bitvector', 'redundantBarriers', 'strictBenign', 'deterministic'] as const) {
    const v = raw[key];
    if (v === undefined) {
      continue;
    }
    if (typeof v === 'boolean') {
      config[key] = v;
    } else {
      bad(key, v, 'true or false');
    }
  }

  if (raw.timeoutMs !== undefined) {
    const v = raw.timeoutMs;
    if (isPositiveInt(v)) {
      config.timeoutMs = v;
    } else {
      bad('timeoutMs', v, 'a positive integer');
    }
  }
  if (raw.kernelBudgetMs !== undefined) {
    const v = raw.kernelBudgetMs;
    if (isPositiveInt(v)) {
      config.kernelBudgetMs = v;
    } else {
      bad('kernelBudgetMs', v, 'a positive integer');
    }
  }
  if (raw.cudaArch !== undefined) {
    const v = raw.cudaArch;
    if (isPositiveInt(v)) {
      config.cudaArch = v;
    } else {
      bad('cudaArch', v, 'a positive integer such as 800 (sm_80)');
    }
  }
  if (raw.includeDirs !== undefined && raw.includeDirs !== null) {
    const v = raw.includeDirs;
    if (Array.isArray(v) && v.every((d) => typeof d === 'string' && d !== '')) {
      config.includeDirs = v as string[];
    } else {
      bad('includeDirs', v, 'an array of folder paths');
    }
  }
  if (raw.debounceMs !== undefined) {
    const v = raw.debounceMs;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) {
      config.debounceMs = v;
    } else {
      bad('debounceMs', v, 'a non-negative integer');
    }
  }

  if (raw.kernels !== undefined && raw.kernels !== null) {
    const v = raw.kernels;
    if (!Array.isArray(v)) {
      bad('kernels', v, 'an array of { name, blockDim?, gridDim?, deterministic? }');
    } else {
      const kernels: KernelConfig[] = [];
      v.forEach((entry: unknown, i: number) => {
        if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
          bad(`kernels[${i}]`, entry, 'an object');
          return;
        }
        const e = entry as Record<string, unknown>;
        if (typeof e.name !== 'string' || e.name === '') {
          bad(`kernels[${i}].name`, e.name, 'a non-empty glob string');
          return;
        }
        const k: KernelConfig = { name: e.name };
        for (const dk of ['blockDim', 'gridDim'] as const) {
          if (e[dk] === undefined) {
            continue;
          }
          const d = normalizeDim(e[dk]);
          if (d === undefined) {
            bad(`kernels[${i}].${dk}`, e[dk], 'null or an array of 1 to 3 positive integers');
          } else {
            k[dk] = d;
          }
        }
        if (e.deterministic !== undefined) {
          if (typeof e.deterministic === 'boolean') {
            k.deterministic = e.deterministic;
          } else {
            bad(`kernels[${i}].deterministic`, e.deterministic, 'true or false');
          }
        }
        kernels.push(k);
      });
      config.kernels = kernels;
    }
  }

  return { config, problems };
}

/** Params of `workspace/didChangeConfiguration` for this configuration. */
export function didChangeConfigurationParams(config: ServerConfig): {
  settings: { syncscope: ServerConfig };
} {
  return { settings: { syncscope: config } };
}

/** Answers a `workspace/configuration` item: the whole `syncscope` section,
 * one key of it, or `null` for anything else. */
export function configurationForSection(config: ServerConfig, section: string | undefined): unknown {
  if (section === 'syncscope') {
    return config;
  }
  if (section !== undefined && section.startsWith('syncscope.')) {
    const key = section.slice('syncscope.'.length) as keyof ServerConfig;
    return config[key] ?? null;
  }
  return null;
}

/** Whether a change to these settings needs a server restart (rather than a
 * didChangeConfiguration notification). */
export const RESTART_SETTING_KEYS = ['server.path', 'server.env', 'server.extraArgs'] as const;

/** `syncscope.server.env`: extra environment variables for the server
 * process (e.g. `RUST_BACKTRACE`), layered over VS Code's environment. */
export function serverEnvironment(
  base: Record<string, string | undefined>,
  raw: unknown,
): { env: Record<string, string | undefined>; problems: string[] } {
  const env = { ...base };
  const problems: string[] = [];
  if (raw === undefined || raw === null) {
    return { env, problems };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`syncscope.server.env: ignoring ${describe(raw)} (expected an object of NAME: "value")`);
    return { env, problems };
  }
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === 'string') {
      env[name] = value;
    } else {
      problems.push(`syncscope.server.env.${name}: ignoring ${describe(value)} (expected a string)`);
    }
  }
  return { env, problems };
}

/** `syncscope.server.extraArgs` used to be appended to `syncscope lsp`, which
 * takes no arguments, so any value stopped the server from starting (it
 * exited with a usage error). The setting is no longer passed on; this is
 * the warning shown when it is set. */
export function extraArgsWarning(raw: unknown): string | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    return undefined;
  }
  return (
    `syncscope.server.extraArgs (${describe(raw)}) is ignored: \`syncscope lsp\` takes no arguments. ` +
    'Use the syncscope.* settings for analysis options and syncscope.server.env for environment variables.'
  );
}
