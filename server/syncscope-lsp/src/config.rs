//! Configuration: `syncscope.toml` at the workspace root (kebab-case keys) and
//! client settings (`initializationOptions`, `workspace/didChangeConfiguration`,
//! camelCase keys). Client settings override the file; both are layered onto
//! the server's defaults (quick-fixes on).

use std::path::{Path, PathBuf};
use syncscope_core::project::config::layer_options;
use syncscope_core::project::SearchPaths;
use syncscope_core::Options;

// The file format is the core's: one parser for the CLI and the server.
pub use syncscope_core::project::config::{
    parse_file, validate, ConfigError, DefineValue, KernelSettings, Settings, FILE_NAME,
};

pub use syncscope_core::project::settings::DEFAULT_DEBOUNCE_MS;
use syncscope_core::project::settings::{self as registry, Source, UnknownKey};

/// Client settings read through the core's settings table, and the keys
/// that name no setting (the server logs them with the nearest known key;
/// the editor's own keys, such as VS Code's `server` and `trace`, are not
/// among them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientSettings {
    pub settings: Settings,
    pub unknown: Vec<UnknownKey>,
}

impl ClientSettings {
    /// One warning per unknown key, for the client's log.
    pub fn warnings(&self) -> Vec<String> {
        self.unknown
            .iter()
            .map(|u| format!("syncscope settings: ignoring {}", u.message()))
            .collect()
    }
}

/// Parses client settings: either `{ "settings": { "syncscope": {...} } }`,
/// `{ "syncscope": {...} }` or the bare object. `null` means no settings.
pub fn parse_client(value: &serde_json::Value) -> Result<Settings, String> {
    read_client(value).map(|c| c.settings)
}

/// [`parse_client`] with the keys it did not know.
pub fn read_client(value: &serde_json::Value) -> Result<ClientSettings, String> {
    let mut v = value;
    if let Some(inner) = v.get("settings") {
        v = inner;
    }
    if let Some(inner) = v.get("syncscope") {
        v = inner;
    }
    if v.is_null() {
        return Ok(ClientSettings::default());
    }
    let Some(object) = v.as_object() else {
        return Err(format!("syncscope settings: expected an object, got {v}"));
    };
    let entries = object.iter().map(|(k, v)| (k.clone(), v.clone()));
    let (settings, unknown) = registry::read(Source::Client, entries)
        .map_err(|bad| format!("syncscope settings: {}", bad.message))?;
    validate(&settings).map_err(|m| format!("syncscope settings: {m}"))?;
    Ok(ClientSettings { settings, unknown })
}

/// Effective configuration: analysis options, where headers are searched,
/// plus server-only settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Effective {
    pub options: Options,
    pub search: SearchPaths,
    pub debounce_ms: u64,
}

impl Default for Effective {
    fn default() -> Self {
        resolve(&Settings::default(), &Settings::default(), None)
    }
}

/// Layers client settings over file settings over the defaults; the file's
/// relative paths start at `root`.
pub fn resolve(file: &Settings, client: &Settings, root: Option<&Path>) -> Effective {
    let base = Options {
        compute_fixes: true,
        ..Options::default()
    };
    let options = layer_options(&[file, client], base);
    let root = root.map(Path::to_path_buf).unwrap_or_default();
    // Client folders first (as `-I` comes before the file's on the CLI).
    let search = SearchPaths {
        include_dirs: [&client.include_dirs, &file.include_dirs]
            .into_iter()
            .flatten()
            .flatten()
            .map(|d| root.join(d))
            .collect(),
        compile_commands: file.compile_commands.as_ref().map(|c| root.join(c)),
        context: Vec::new(),
    };
    Effective {
        options,
        search,
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
        let e = resolve(&file, &Settings::default(), None);
        assert_eq!(e.options.kernel_budget_ms, 5000);
        assert!(!e.options.check_redundant);
        let client =
            parse_client(&json!({"kernelBudgetMs": 700, "redundantBarriers": true})).unwrap();
        let e = resolve(&file, &client, None);
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

    /// `strict-benign` from the file, `strictBenign` from the client (which
    /// wins); off by default.
    #[test]
    fn strict_benign_from_file_and_client() {
        assert!(!Effective::default().options.strict_benign);
        let file = parse_file("strict-benign = true\n").unwrap();
        assert!(
            resolve(&file, &Settings::default(), None)
                .options
                .strict_benign
        );
        let client = parse_client(&json!({"strictBenign": false})).unwrap();
        assert!(!resolve(&file, &client, None).options.strict_benign);
        assert!(parse_client(&json!({"strictBenign": "yes"})).is_err());
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
        let e = resolve(&s, &Settings::default(), None);
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
        // An empty file sets nothing (it only says where it is).
        let empty = parse_file("").unwrap();
        assert!(matches!(
            empty.origin,
            syncscope_core::project::config::SettingsOrigin::File { .. }
        ));
        assert_eq!(
            Settings {
                origin: Default::default(),
                ..empty
            },
            Settings::default()
        );
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
        let e = resolve(&file, &client, None);
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

    /// A key the server does not know is not dropped silently: it comes
    /// back with the nearest known key, for the client's log; the editor's
    /// own keys (`trace`, `server`) do not.
    #[test]
    fn unknown_client_keys_are_warned_about() {
        let c = read_client(&json!({ "settings": { "syncscope": {
            "timeoutMS": 5, "warpSync": true, "trace": { "server": "off" },
            "server": { "path": "/x" }
        }}}))
        .unwrap();
        assert_eq!(c.settings.warp_sync, Some(true));
        assert_eq!(c.settings.timeout_ms, None);
        assert_eq!(
            c.warnings(),
            vec![
                "syncscope settings: ignoring unknown setting `timeoutMS` (did you mean `timeoutMs`?)"
                    .to_string()
            ]
        );
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
