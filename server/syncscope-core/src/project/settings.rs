//! The one declaration of every setting: its key in `syncscope.toml`, its
//! key in the client settings an editor sends the server, its command-line
//! flag, its type, its default and its description.
//!
//! [`settings!`] turns each entry into a field of [`Settings`] and a row of
//! [`SETTINGS`]; the `syncscope.toml` parser (`config.rs`) and the server's
//! client-settings reader read keys through the table, so a key that is in
//! neither is reported with the nearest known one. What is not Rust is
//! checked against the table by tests: the VS Code extension's
//! `package.json` configuration (names, types, defaults, descriptions), the
//! settings tables of `docs/editors.md` and the extension's README (rendered
//! from the table), the `check` flags. A new setting is one entry here,
//! its effect on [`Options`] in `config::layer_options`, and then whatever
//! those tests name.

use crate::options::{Options, DEFAULT_CUDA_ARCH};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The debounce between an edit and its analysis (server), for edits that
/// arrive while an analysis of the document is running or pending.
pub const DEFAULT_DEBOUNCE_MS: u64 = 20;

/// The shape of a setting's value, as the JSON schema of the editor's
/// settings spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingType {
    Boolean,
    /// An integer of at least `minimum`.
    Integer {
        minimum: u64,
    },
    /// `[x]`, `[x, y]` or `[x, y, z]`, or `null` (symbolic).
    Dims,
    /// `NAME → value` (string, number or boolean).
    Defines,
    /// A list of folder paths.
    Folders,
    /// One path.
    Path,
    /// `[[kernel]]` entries: `name` glob, launch sizes, `deterministic`.
    Kernels,
}

impl SettingType {
    /// The JSON schema `type` of the value (`package.json`).
    pub fn schema_type(self) -> Value {
        match self {
            SettingType::Boolean => json!("boolean"),
            SettingType::Integer { .. } => json!("integer"),
            SettingType::Dims => json!(["array", "null"]),
            SettingType::Defines => json!("object"),
            SettingType::Folders | SettingType::Kernels => json!("array"),
            SettingType::Path => json!(["string", "null"]),
        }
    }

    /// How the documentation names the type.
    pub fn doc_name(self) -> &'static str {
        match self {
            SettingType::Boolean => "boolean",
            SettingType::Integer { .. } => "integer",
            SettingType::Dims => "`[x, y, z]` or `null`",
            SettingType::Defines => "object `NAME → value`",
            SettingType::Folders => "array of folders",
            SettingType::Path => "path",
            SettingType::Kernels => "array of `{ name, blockDim, gridDim, deterministic }`",
        }
    }
}

/// One setting: everything that is declared about it.
#[derive(Clone, Copy, Debug)]
pub struct SettingSpec {
    /// The key in `syncscope.toml` (kebab-case).
    pub toml: &'static str,
    /// The key in the client settings (camelCase; `syncscope.<key>` in VS
    /// Code), if an editor can set it.
    pub client: Option<&'static str>,
    /// The `syncscope check` flag that sets it, if any.
    pub cli: Option<&'static str>,
    pub ty: SettingType,
    /// The default, as JSON (derived from [`Options::default`] where the
    /// analysis reads it).
    pub default: fn() -> Value,
    /// Markdown: the VS Code setting's description and the docs' tables.
    pub description: &'static str,
}

// The value types of the settings that are more than a number, a flag or a
// path. They are part of the declaration (fields of `Settings`), so they
// live here: the parsers (`config.rs`, the server's client settings) use
// this file and it uses none of them, which keeps the imports one way.

/// A macro value: strings, integers and booleans are accepted.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum DefineValue {
    Str(String),
    Int(i64),
    Bool(bool),
}

impl DefineValue {
    pub fn render(&self) -> String {
        match self {
            DefineValue::Str(s) => s.clone(),
            DefineValue::Int(i) => i.to_string(),
            DefineValue::Bool(b) => u8::from(*b).to_string(),
        }
    }
}

/// One `[[kernel]]` entry: launch sizes for the kernels matching `name`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelSettings {
    pub name: String,
    #[serde(default, alias = "block-dim", rename = "blockDim")]
    pub block_dim: Option<Vec<u32>>,
    #[serde(default, alias = "grid-dim", rename = "gridDim")]
    pub grid_dim: Option<Vec<u32>>,
    /// The kernels' final memory must not depend on the order of their
    /// atomics (`--deterministic` for these kernels only).
    #[serde(default)]
    pub deterministic: Option<bool>,
}

/// Where a layer of settings comes from, and for a file, the lines its
/// launch sizes are on: a report says `blockDim = (64,1,1) (from
/// syncscope.toml:4)`, never a size of unknown origin.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SettingsOrigin {
    /// Not said (settings built in code, tests).
    #[default]
    Unnamed,
    /// A configuration file: its name as shown (`syncscope.toml`), and the
    /// 1-based lines of its launch sizes.
    File { name: String, lines: LaunchLines },
    /// The command line's flags.
    CommandLine,
    /// The settings an editor sends the server.
    Client,
}

/// The 1-based lines of a configuration file's launch sizes: the top-level
/// `block-dim` and `grid-dim`, and each `[[kernel]]` entry's header, by
/// position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchLines {
    pub block_dim: Option<usize>,
    pub grid_dim: Option<usize>,
    pub kernels: Vec<usize>,
}

impl SettingsOrigin {
    /// Where the top-level size `key` (`block-dim` or `grid-dim`) of this
    /// layer was written: `--block-dim`, `syncscope.toml:3`.
    pub fn of_size(&self, key: &str) -> Option<String> {
        match self {
            SettingsOrigin::Unnamed => None,
            SettingsOrigin::CommandLine => Some(format!("--{key}")),
            SettingsOrigin::Client => Some(format!(
                "the editor setting `syncscope.{}`",
                if key == "block-dim" {
                    "blockDim"
                } else {
                    "gridDim"
                }
            )),
            SettingsOrigin::File { name, lines } => {
                let line = if key == "block-dim" {
                    lines.block_dim
                } else {
                    lines.grid_dim
                };
                Some(match line {
                    Some(l) => format!("{name}:{l}"),
                    None => name.clone(),
                })
            }
        }
    }

    /// Where the `index`-th `[[kernel]]` entry of this layer was written
    /// (a file: the line of its `[[kernel]]` header).
    pub fn of_kernel_entry(&self, index: usize) -> Option<String> {
        match self {
            SettingsOrigin::File { name, lines } => Some(match lines.kernels.get(index) {
                Some(l) => format!("{name}:{l}"),
                None => name.clone(),
            }),
            SettingsOrigin::Client => Some("the editor setting `syncscope.kernels`".into()),
            SettingsOrigin::CommandLine => Some("the command line".into()),
            SettingsOrigin::Unnamed => None,
        }
    }
}

impl LaunchLines {
    /// Reads the lines of the launch sizes from a configuration file's text
    /// (what the TOML parser's spans do not give for array-of-table entries).
    pub fn of(text: &str) -> LaunchLines {
        let mut out = LaunchLines::default();
        let mut in_table = false;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with('[') {
                in_table = true;
                if t.replace(' ', "") == "[[kernel]]" {
                    out.kernels.push(i + 1);
                }
                continue;
            }
            let key = t.split('=').next().unwrap_or("").trim().trim_matches('"');
            let is_block = matches!(key, "block-dim" | "blockDim");
            let is_grid = matches!(key, "grid-dim" | "gridDim");
            if !(is_block || is_grid) {
                continue;
            }
            if !in_table {
                if is_block {
                    out.block_dim = Some(i + 1);
                } else {
                    out.grid_dim = Some(i + 1);
                }
            }
        }
        out
    }
}

macro_rules! settings {
    ($(
        $field:ident: $ty:ty {
            toml: $toml:literal,
            client: $client:expr,
            cli: $cli:expr,
            ty: $kind:expr,
            default: $default:expr,
            description: $description:literal $(,)?
        }
    ),* $(,)?) => {
        /// Settings from one source (the file, the client, the command
        /// line); `None` means "not set here". Declared by [`settings!`].
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Settings {
            $(#[doc = $description] pub $field: Option<$ty>,)*
            /// Where these settings were written (not a setting): the
            /// launch sizes they fix name it in reports.
            pub origin: SettingsOrigin,
        }

        /// Every setting, in the order of the documentation.
        pub const SETTINGS: &[SettingSpec] = &[$(SettingSpec {
            toml: $toml,
            client: $client,
            cli: $cli,
            ty: $kind,
            default: $default,
            description: $description,
        }),*];

        impl Settings {
            /// Sets the setting whose `syncscope.toml` key is `toml` from a
            /// JSON value (`null` unsets it); the error says what was wrong
            /// with the value.
            fn set(&mut self, toml: &str, value: Value) -> Result<(), String> {
                match toml {
                    $($toml => {
                        self.$field = serde_json::from_value(value).map_err(|e| e.to_string())?;
                    })*
                    _ => return Err(format!("no setting `{toml}`")),
                }
                Ok(())
            }
        }
    };
}

settings! {
    block_dim: Vec<u32> {
        toml: "block-dim",
        client: Some("blockDim"),
        cli: Some("--block-dim"),
        ty: SettingType::Dims,
        default: || Value::Null,
        description: "Fixed block size `[x, y, z]` (missing dimensions are 1). `null`: the value from `syncscope.toml`, else symbolic (any block size the hardware allows).",
    },
    grid_dim: Vec<u32> {
        toml: "grid-dim",
        client: Some("gridDim"),
        cli: Some("--grid-dim"),
        ty: SettingType::Dims,
        default: || Value::Null,
        description: "Fixed grid size `[x, y, z]` (missing dimensions are 1). `null`: the value from `syncscope.toml`, else symbolic.",
    },
    defines: BTreeMap<String, DefineValue> {
        toml: "defines",
        client: Some("defines"),
        cli: Some("-D"),
        ty: SettingType::Defines,
        default: || json!({}),
        description: "Preprocessor definitions, `NAME` → value (like `-D NAME=value`).",
    },
    warp_sync: bool {
        toml: "warp-sync",
        client: Some("warpSync"),
        cli: Some("--warp-sync"),
        ty: SettingType::Boolean,
        default: || json!(Options::default().warp_sync),
        description: "Assume legacy lock-step warps of 32 threads instead of independent thread scheduling.",
    },
    bitvector: bool {
        toml: "bitvector",
        client: Some("bitvector"),
        cli: Some("--bitvector"),
        ty: SettingType::Boolean,
        default: || json!(Options::default().bitvector),
        description: "Use 32-bit bit-vector arithmetic instead of mathematical integers (slower, exact overflow).",
    },
    timeout_ms: u32 {
        toml: "timeout-ms",
        client: Some("timeoutMs"),
        cli: Some("--timeout-ms"),
        ty: SettingType::Integer { minimum: 1 },
        default: || json!(Options::default().timeout_ms),
        description: "Per-query wall-clock safety net in milliseconds (a check still running then yields `unknown`). The per-query budget itself is Z3's deterministic resource limit, so verdicts do not depend on the machine's load.",
    },
    kernel_budget_ms: u32 {
        toml: "kernel-budget-ms",
        client: Some("kernelBudgetMs"),
        cli: Some("--kernel-budget-ms"),
        ty: SettingType::Integer { minimum: 1 },
        default: || json!(Options::default().kernel_budget_ms),
        description: "Wall-clock safety net for verifying one kernel, in milliseconds; once spent, the kernel's remaining queries are `unknown` (never `verified`). Like `--kernel-budget-ms`.",
    },
    redundant_barriers: bool {
        toml: "redundant-barriers",
        client: Some("redundantBarriers"),
        cli: Some("--no-redundant"),
        ty: SettingType::Boolean,
        default: || json!(Options::default().check_redundant),
        description: "Look for redundant `__syncthreads()` (a warning with a verified quick-fix to remove it). `false` is like `--no-redundant`.",
    },
    strict_benign: bool {
        toml: "strict-benign",
        client: Some("strictBenign"),
        cli: Some("--strict-benign"),
        ty: SettingType::Boolean,
        default: || json!(Options::default().strict_benign),
        description: "Report threads that write the same value to one location as a `data-race` error instead of a `benign-race` hint. Like `--strict-benign`.",
    },
    deterministic: bool {
        toml: "deterministic",
        client: Some("deterministic"),
        cli: Some("--deterministic"),
        ty: SettingType::Boolean,
        default: || json!(Options::default().deterministic),
        description: "Report a `schedule-dependent` warning when two orders of a kernel's atomic operations end in different final memory. Like `--deterministic`; per kernel: `deterministic = true` in a `[[kernel]]` of `syncscope.toml`.",
    },
    cuda_arch: u32 {
        toml: "cuda-arch",
        client: Some("cudaArch"),
        cli: Some("--cuda-arch"),
        ty: SettingType::Integer { minimum: 1 },
        default: || json!(DEFAULT_CUDA_ARCH),
        description: "`__CUDA_ARCH__` of the device pass the analysis sees (800 is sm_80). Like `--cuda-arch`.",
    },
    include_dirs: Vec<String> {
        toml: "include-dirs",
        client: Some("includeDirs"),
        cli: Some("-I"),
        ty: SettingType::Folders,
        default: || json!([]),
        description: "Folders searched for `#include \"...\"` headers after the including file's own folder (like `-I`); relative paths start at the workspace folder (in `syncscope.toml`, at the file's folder). `compile_commands.json` flags are read as well.",
    },
    compile_commands: String {
        toml: "compile-commands",
        client: None,
        cli: Some("--compile-commands"),
        ty: SettingType::Path,
        default: || Value::Null,
        description: "A `compile_commands.json` (or its folder), relative to the configuration file's folder. `null`: the nearest one above the file (also in a `build/` folder on the way).",
    },
    debounce_ms: u64 {
        toml: "debounce-ms",
        client: Some("debounceMs"),
        cli: None,
        ty: SettingType::Integer { minimum: 0 },
        default: || json!(DEFAULT_DEBOUNCE_MS),
        description: "Delay in milliseconds before re-verifying after an edit made while an analysis of the file is running or pending; an edit to an idle file is verified at once.",
    },
    kernels: Vec<KernelSettings> {
        toml: "kernel",
        client: Some("kernels"),
        cli: None,
        ty: SettingType::Kernels,
        default: || json!([]),
        description: "Per-kernel launch sizes; the first entry whose `name` glob matches a kernel wins.",
    },
}

/// Client settings an editor keeps for itself in the same `syncscope`
/// section (VS Code's `syncscope.server.*`, `syncscope.trace.server`): the
/// server does not read them and does not warn about them.
pub const CLIENT_ONLY_KEYS: &[&str] = &["server", "trace"];

/// Where a setting is read from, for the key it goes by there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `syncscope.toml`.
    File,
    /// The settings an editor sends the server.
    Client,
}

impl Source {
    fn key(self, spec: &SettingSpec) -> Option<&'static str> {
        match self {
            Source::File => Some(spec.toml),
            Source::Client => spec.client,
        }
    }
}

/// The setting a `source` key names.
pub fn lookup(source: Source, key: &str) -> Option<&'static SettingSpec> {
    SETTINGS.iter().find(|s| source.key(s) == Some(key))
}

/// A key of a settings source that names no setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKey {
    pub key: String,
    /// The known key it is closest to, when it is close enough to be a typo.
    pub nearest: Option<&'static str>,
}

impl UnknownKey {
    fn new(source: Source, key: &str) -> UnknownKey {
        UnknownKey {
            key: key.to_string(),
            nearest: nearest_key(source, key),
        }
    }

    /// "unknown setting `blockdim` (did you mean `block-dim`?)".
    pub fn message(&self) -> String {
        match self.nearest {
            Some(n) => format!("unknown setting `{}` (did you mean `{n}`?)", self.key),
            None => format!("unknown setting `{}`", self.key),
        }
    }
}

/// The known key of `source` nearest to `key` by edit distance (case and
/// `-`/`_` ignored), when at most a third of it differs.
pub fn nearest_key(source: Source, key: &str) -> Option<&'static str> {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = norm(key);
    SETTINGS
        .iter()
        .filter_map(|s| source.key(s))
        .map(|k| (edit_distance(&norm(k), &wanted), k))
        .filter(|(d, k)| *d * 3 <= k.len().max(3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// A value that is not what its setting takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadValue {
    /// The key as the source spells it.
    pub key: String,
    pub message: String,
}

/// Reads the settings of one source from its keys and values, through the
/// table: each key is looked up as `source` spells it; a key of no setting
/// is returned as an [`UnknownKey`] (never dropped silently), a value of the
/// wrong shape as the error.
pub fn read(
    source: Source,
    entries: impl IntoIterator<Item = (String, Value)>,
) -> Result<(Settings, Vec<UnknownKey>), BadValue> {
    // A file's origin (its name and lines) is set by its parser, which
    // has its text.
    let mut settings = Settings {
        origin: match source {
            Source::File => SettingsOrigin::Unnamed,
            Source::Client => SettingsOrigin::Client,
        },
        ..Settings::default()
    };
    let mut unknown = Vec::new();
    for (key, value) in entries {
        match lookup(source, &key) {
            Some(spec) => settings.set(spec.toml, value).map_err(|e| BadValue {
                message: format!("`{key}`: {e}"),
                key,
            })?,
            None if source == Source::Client && CLIENT_ONLY_KEYS.contains(&key.as_str()) => {}
            None => unknown.push(UnknownKey::new(source, &key)),
        }
    }
    Ok((settings, unknown))
}

/// The settings as a Markdown table for `source` (its keys, type, default,
/// description): the tables of `docs/editors.md` and the VS Code README
/// are this text, which a test compares. `prefix` goes before each key
/// (`syncscope.` in VS Code).
pub fn markdown_table(source: Source, prefix: &str) -> String {
    let mut out = String::from("| Key | Type | Default | Meaning |\n| --- | --- | --- | --- |\n");
    for s in SETTINGS {
        let Some(key) = source.key(s) else { continue };
        let default = (s.default)();
        let default = match source {
            Source::File if default.is_null() => "unset".to_string(),
            _ => format!("`{default}`"),
        };
        out.push_str(&format!(
            "| `{prefix}{key}` | {} | {default} | {} |\n",
            s.ty.doc_name(),
            s.description.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_declared_once_under_each_name() {
        for source in [Source::File, Source::Client] {
            let keys: Vec<_> = SETTINGS.iter().filter_map(|s| source.key(s)).collect();
            let mut unique = keys.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(keys.len(), unique.len(), "{source:?}: {keys:?}");
        }
        // Each table row reaches its own field.
        for s in SETTINGS {
            let mut settings = Settings::default();
            settings.set(s.toml, (s.default)()).unwrap();
        }
    }

    #[test]
    fn unknown_keys_name_the_nearest_known_one() {
        let (s, unknown) = read(
            Source::Client,
            [
                ("blockdim".to_string(), json!([32])),
                ("timeoutMs".to_string(), json!(5)),
                ("trace".to_string(), json!({"server": "off"})),
                ("frobnicate".to_string(), json!(1)),
            ],
        )
        .unwrap();
        assert_eq!(s.timeout_ms, Some(5));
        assert_eq!(s.block_dim, None);
        assert_eq!(
            unknown,
            vec![
                UnknownKey {
                    key: "blockdim".into(),
                    nearest: Some("blockDim")
                },
                UnknownKey {
                    key: "frobnicate".into(),
                    nearest: None
                }
            ]
        );
        assert_eq!(
            unknown[0].message(),
            "unknown setting `blockdim` (did you mean `blockDim`?)"
        );
        assert_eq!(nearest_key(Source::File, "timeout_ms"), Some("timeout-ms"));
        assert_eq!(nearest_key(Source::File, "kernels"), Some("kernel"));
        let bad = read(Source::File, [("warp-sync".to_string(), json!("yes"))]).unwrap_err();
        assert!(bad.message.starts_with("`warp-sync`: "), "{bad:?}");
    }
}
