//! Configuration: `syncscope.toml` at the workspace root (kebab-case keys) and
//! client settings (`initializationOptions`, `workspace/didChangeConfiguration`,
//! camelCase keys). Client settings override the file; both are layered onto
//! the server's defaults (quick-fixes on).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use syncscope_core::{LaunchOverride, Options};

/// The name of the configuration file at the workspace root.
pub const FILE_NAME: &str = "syncscope.toml";

/// Default debounce between an edit and its analysis, for edits that arrive
/// while an analysis of the document is running or pending (an edit to an
/// idle document is analysed at once).
pub const DEFAULT_DEBOUNCE_MS: u64 = 20;

/// A macro value: strings, integers and booleans are accepted.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum DefineValue {
    Str(String),
    Int(i64),
    Bool(bool),
}

impl DefineValue {
    fn render(&self) -> String {
        match self {
            DefineValue::Str(s) => s.clone(),
            DefineValue::Int(i) => i.to_string(),
            DefineValue::Bool(b) => u8::from(*b).to_string(),
        }
    }
}

/// One `kernels` entry of the client settings.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct KernelSettings {
    pub name: String,
    #[serde(default, alias = "block-dim", rename = "blockDim")]
    pub block_dim: Option<Vec<u32>>,
    #[serde(default, alias = "grid-dim", rename = "gridDim")]
    pub grid_dim: Option<Vec<u32>>,
}

/// Settings from one source; `None` means "not set here".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub block_dim: Option<Vec<u32>>,
    pub grid_dim: Option<Vec<u32>>,
    pub defines: Option<BTreeMap<String, DefineValue>>,
    pub warp_sync: Option<bool>,
    pub bitvector: Option<bool>,
    pub timeout_ms: Option<u32>,
    pub debounce_ms: Option<u64>,
    pub kernels: Option<Vec<KernelSettings>>,
    /// Time budget per kernel in milliseconds (`--kernel-budget-ms`).
    pub kernel_budget_ms: Option<u32>,
    /// Look for redundant barriers (`--no-redundant` turns it off).
    pub redundant_barriers: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct FileSettings {
    block_dim: Option<Vec<u32>>,
    grid_dim: Option<Vec<u32>>,
    defines: Option<BTreeMap<String, DefineValue>>,
    warp_sync: Option<bool>,
    bitvector: Option<bool>,
    timeout_ms: Option<u32>,
    debounce_ms: Option<u64>,
    kernel: Option<Vec<FileKernel>>,
    kernel_budget_ms: Option<u32>,
    redundant_barriers: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct FileKernel {
    name: String,
    block_dim: Option<Vec<u32>>,
    grid_dim: Option<Vec<u32>>,
}

/// Client settings. Unknown keys are ignored: editors may send their own
/// (client-side) settings in the same section.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClientSettingsJson {
    block_dim: Option<Vec<u32>>,
    grid_dim: Option<Vec<u32>>,
    defines: Option<BTreeMap<String, DefineValue>>,
    warp_sync: Option<bool>,
    bitvector: Option<bool>,
    timeout_ms: Option<u32>,
    debounce_ms: Option<u64>,
    kernels: Option<Vec<KernelSettings>>,
    kernel_budget_ms: Option<u32>,
    redundant_barriers: Option<bool>,
}

/// An error in a configuration source, with the byte range it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub message: String,
    pub range: Option<std::ops::Range<usize>>,
}

/// Parses `syncscope.toml` text. Errors carry byte ranges into `text`.
pub fn parse_file(text: &str) -> Result<Settings, ConfigError> {
    let f: FileSettings = toml::from_str(text).map_err(|e| ConfigError {
        message: e.message().to_string(),
        range: e.span(),
    })?;
    let s = Settings {
        block_dim: f.block_dim,
        grid_dim: f.grid_dim,
        defines: f.defines,
        warp_sync: f.warp_sync,
        bitvector: f.bitvector,
        timeout_ms: f.timeout_ms,
        debounce_ms: f.debounce_ms,
        kernels: f.kernel.map(|ks| {
            ks.into_iter()
                .map(|k| KernelSettings {
                    name: k.name,
                    block_dim: k.block_dim,
                    grid_dim: k.grid_dim,
                })
                .collect()
        }),
        kernel_budget_ms: f.kernel_budget_ms,
        redundant_barriers: f.redundant_barriers,
    };
    validate(&s).map_err(|message| ConfigError {
        range: locate_key(text, &message),
        message,
    })?;
    Ok(s)
}

/// Parses client settings: either `{ "settings": { "syncscope": {...} } }`,
/// `{ "syncscope": {...} }` or the bare object. `null` means no settings.
pub fn parse_client(value: &serde_json::Value) -> Result<Settings, String> {
    let mut v = value;
    if let Some(inner) = v.get("settings") {
        v = inner;
    }
    if let Some(inner) = v.get("syncscope") {
        v = inner;
    }
    if v.is_null() {
        return Ok(Settings::default());
    }
    let c: ClientSettingsJson =
        serde_json::from_value(v.clone()).map_err(|e| format!("syncscope settings: {e}"))?;
    let s = Settings {
        block_dim: c.block_dim,
        grid_dim: c.grid_dim,
        defines: c.defines,
        warp_sync: c.warp_sync,
        bitvector: c.bitvector,
        timeout_ms: c.timeout_ms,
        debounce_ms: c.debounce_ms,
        kernels: c.kernels,
        kernel_budget_ms: c.kernel_budget_ms,
        redundant_barriers: c.redundant_barriers,
    };
    validate(&s).map_err(|m| format!("syncscope settings: {m}"))?;
    Ok(s)
}

fn check_dim(key: &str, dim: &Option<Vec<u32>>) -> Result<(), String> {
    if let Some(d) = dim {
        if d.is_empty() || d.len() > 3 {
            return Err(format!("`{key}` needs 1 to 3 numbers, got {}", d.len()));
        }
        if d.contains(&0) {
            return Err(format!("`{key}` entries must be at least 1"));
        }
    }
    Ok(())
}

fn validate(s: &Settings) -> Result<(), String> {
    check_dim("block-dim", &s.block_dim)?;
    check_dim("grid-dim", &s.grid_dim)?;
    for k in s.kernels.iter().flatten() {
        if k.name.is_empty() {
            return Err("a kernel entry needs a non-empty `name`".into());
        }
        check_dim("block-dim", &k.block_dim)?;
        check_dim("grid-dim", &k.grid_dim)?;
    }
    if s.timeout_ms == Some(0) {
        return Err("`timeout-ms` must be at least 1".into());
    }
    if s.kernel_budget_ms == Some(0) {
        return Err("`kernel-budget-ms` must be at least 1".into());
    }
    Ok(())
}

/// Best effort: the range of the first line mentioning the key named in a
/// validation message.
fn locate_key(text: &str, message: &str) -> Option<std::ops::Range<usize>> {
    let key = message.split('`').nth(1)?;
    let camel = key.replace("-d", "D");
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with(key) || t.starts_with(&camel) {
            let start = offset + (line.len() - t.len());
            return Some(start..offset + line.trim_end().len());
        }
        offset += line.len();
    }
    None
}

fn dim3(d: &[u32]) -> [u32; 3] {
    [
        d.first().copied().unwrap_or(1),
        d.get(1).copied().unwrap_or(1),
        d.get(2).copied().unwrap_or(1),
    ]
}

/// Effective configuration: analysis options plus server-only settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Effective {
    pub options: Options,
    pub debounce_ms: u64,
}

impl Default for Effective {
    fn default() -> Self {
        resolve(&Settings::default(), &Settings::default())
    }
}

/// Layers client settings over file settings over the defaults.
pub fn resolve(file: &Settings, client: &Settings) -> Effective {
    let mut options = Options {
        compute_fixes: true,
        ..Options::default()
    };
    let pick =
        |c: &Option<Vec<u32>>, f: &Option<Vec<u32>>| c.as_ref().or(f.as_ref()).map(|d| dim3(d));
    options.block_dim = pick(&client.block_dim, &file.block_dim);
    options.grid_dim = pick(&client.grid_dim, &file.grid_dim);
    let mut defines: BTreeMap<String, String> = BTreeMap::new();
    for src in [&file.defines, &client.defines].into_iter().flatten() {
        for (k, v) in src {
            defines.insert(k.clone(), v.render());
        }
    }
    options.defines = defines.into_iter().collect();
    options.warp_sync = client.warp_sync.or(file.warp_sync).unwrap_or(false);
    options.bitvector = client.bitvector.or(file.bitvector).unwrap_or(false);
    if let Some(t) = client.timeout_ms.or(file.timeout_ms) {
        options.timeout_ms = t;
    }
    if let Some(b) = client.kernel_budget_ms.or(file.kernel_budget_ms) {
        options.kernel_budget_ms = b;
    }
    if let Some(r) = client.redundant_barriers.or(file.redundant_barriers) {
        options.check_redundant = r;
    }
    // The first matching override wins: client entries before file entries.
    for k in [&client.kernels, &file.kernels]
        .into_iter()
        .flatten()
        .flatten()
    {
        options.launch_overrides.push(LaunchOverride {
            kernel_glob: k.name.clone(),
            block_dim: k.block_dim.as_deref().map(dim3),
            grid_dim: k.grid_dim.as_deref().map(dim3),
        });
    }
    Effective {
        options,
        debounce_ms: client
            .debounce_ms
            .or(file.debounce_ms)
            .unwrap_or(DEFAULT_DEBOUNCE_MS),
    }
}

/// The path of `syncscope.toml` under `root`, if it exists and (after
/// resolving links) really lies inside the root.
pub fn file_path(root: &Path) -> Option<PathBuf> {
    let root = root.canonicalize().ok()?;
    let path = root.join(FILE_NAME).canonicalize().ok()?;
    (path.starts_with(&root) && path.is_file()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The two settings the VS Code extension added: the per-kernel budget
    /// and the redundant-barrier check, from the file and from the client
    /// (which wins), validated like the others.
    #[test]
    fn kernel_budget_and_redundant_barriers() {
        let file = parse_file("kernel-budget-ms = 5000\nredundant-barriers = false\n").unwrap();
        let e = resolve(&file, &Settings::default());
        assert_eq!(e.options.kernel_budget_ms, 5000);
        assert!(!e.options.check_redundant);
        let client =
            parse_client(&json!({"kernelBudgetMs": 700, "redundantBarriers": true})).unwrap();
        let e = resolve(&file, &client);
        assert_eq!(e.options.kernel_budget_ms, 700);
        assert!(e.options.check_redundant);
        let defaults = Effective::default();
        assert_eq!(
            defaults.options.kernel_budget_ms,
            Options::default().kernel_budget_ms
        );
        assert!(defaults.options.check_redundant);
        assert!(parse_client(&json!({"kernelBudgetMs": 0})).is_err());
        assert!(parse_file("kernel-budget-ms = 0\n").is_err());
    }

    #[test]
    fn parses_a_full_file() {
        let s = parse_file(
            r#"
block-dim = [256]
grid-dim = [4, 2]
defines = { TILE = "16", N = 8, DEBUG = true }
warp-sync = true
bitvector = true
timeout-ms = 500
debounce-ms = 10

[[kernel]]
name = "reduce*"
block-dim = [128, 2, 1]

[[kernel]]
name = "scan"
grid-dim = [1]
"#,
        )
        .unwrap();
        let e = resolve(&s, &Settings::default());
        assert_eq!(e.options.block_dim, Some([256, 1, 1]));
        assert_eq!(e.options.grid_dim, Some([4, 2, 1]));
        assert_eq!(
            e.options.defines,
            vec![
                ("DEBUG".to_string(), "1".to_string()),
                ("N".to_string(), "8".to_string()),
                ("TILE".to_string(), "16".to_string())
            ]
        );
        assert!(e.options.warp_sync && e.options.bitvector && e.options.compute_fixes);
        assert_eq!(e.options.timeout_ms, 500);
        assert_eq!(e.debounce_ms, 10);
        assert_eq!(e.options.launch_overrides.len(), 2);
        assert_eq!(
            e.options.launch_for("reduce_v2"),
            (Some([128, 2, 1]), Some([4, 2, 1]))
        );
        assert_eq!(
            e.options.launch_for("scan"),
            (Some([256, 1, 1]), Some([1, 1, 1]))
        );
    }

    #[test]
    fn defaults_are_symbolic_with_fixes() {
        let e = Effective::default();
        assert_eq!(e.options.block_dim, None);
        assert_eq!(e.options.grid_dim, None);
        assert!(e.options.compute_fixes);
        assert_eq!(e.debounce_ms, DEFAULT_DEBOUNCE_MS);
        assert_eq!(parse_file("").unwrap(), Settings::default());
    }

    #[test]
    fn file_errors_have_ranges() {
        let bad_toml = "block-dim = [256\n";
        let e = parse_file(bad_toml).unwrap_err();
        assert!(e.range.is_some(), "{e:?}");

        let wrong_type = "block-dim = 256\n";
        let e = parse_file(wrong_type).unwrap_err();
        let r = e.range.clone().unwrap();
        assert_eq!(&wrong_type[r], "256", "{e:?}");

        let too_many = "warp-sync = false\nblock-dim = [1, 2, 3, 4]\n";
        let e = parse_file(too_many).unwrap_err();
        assert!(e.message.contains("1 to 3"), "{e:?}");
        assert_eq!(&too_many[e.range.unwrap()], "block-dim = [1, 2, 3, 4]");

        let unknown = "blockdim = [1]\n";
        let e = parse_file(unknown).unwrap_err();
        assert!(e.message.contains("blockdim"), "{e:?}");

        assert!(parse_file("[[kernel]]\nblock-dim = [1]\n").is_err());
        assert!(parse_file("timeout-ms = \"fast\"\n").is_err());
    }

    #[test]
    fn client_settings_override_the_file() {
        let file = parse_file("block-dim = [256]\ndefines = { A = \"1\", B = \"2\" }\ntimeout-ms = 100\n[[kernel]]\nname = \"k*\"\nblock-dim = [32]\n").unwrap();
        let client = parse_client(&json!({ "settings": { "syncscope": {
            "blockDim": [64, 2], "defines": { "B": "3" }, "debounceMs": 5, "warpSync": true,
            "kernels": [{ "name": "kern", "gridDim": [8] }]
        }}}))
        .unwrap();
        let e = resolve(&file, &client);
        assert_eq!(e.options.block_dim, Some([64, 2, 1]));
        assert_eq!(
            e.options.defines,
            vec![("A".into(), "1".into()), ("B".into(), "3".into())]
        );
        assert_eq!(e.options.timeout_ms, 100);
        assert!(e.options.warp_sync);
        assert_eq!(e.debounce_ms, 5);
        // Client kernel entry first, then the file's.
        assert_eq!(
            e.options.launch_for("kern"),
            (Some([64, 2, 1]), Some([8, 1, 1]))
        );
        assert_eq!(e.options.launch_for("kx"), (Some([32, 1, 1]), None));
    }

    #[test]
    fn client_settings_shapes_and_errors() {
        assert_eq!(parse_client(&json!(null)).unwrap(), Settings::default());
        assert_eq!(
            parse_client(&json!({ "settings": null })).unwrap(),
            Settings::default()
        );
        let bare = parse_client(&json!({ "timeoutMs": 9 })).unwrap();
        assert_eq!(bare.timeout_ms, Some(9));
        let nested = parse_client(&json!({ "syncscope": { "bitvector": true, "trace": { "server": "off" }, "blockDim": null } })).unwrap();
        assert_eq!(nested.block_dim, None);
        assert_eq!(nested.bitvector, Some(true));
        assert!(parse_client(&json!({ "blockDim": "x" })).is_err());
        assert!(parse_client(&json!({ "blockDim": [] })).is_err());
        assert!(parse_client(&json!({ "gridDim": [0] })).is_err());
    }

    #[test]
    fn config_file_must_lie_inside_the_root() {
        let dir = std::env::temp_dir().join(format!("syncscope-cfg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(file_path(&dir), None);
        std::fs::write(dir.join(FILE_NAME), "block-dim = [32]\n").unwrap();
        assert!(file_path(&dir).unwrap().ends_with(FILE_NAME));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
