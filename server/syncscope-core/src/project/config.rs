//! `syncscope.toml`: the one parser of the configuration file, used by the
//! CLI (found by walking up from each checked file, or `--config FILE`) and
//! by the server (the file at the workspace root). Keys are kebab-case.

use crate::options::{LaunchOverride, Options};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The name of the configuration file.
pub const FILE_NAME: &str = "syncscope.toml";

pub(crate) use crate::options::DEFAULT_CUDA_ARCH;

// The settings, their keys, defaults and value types are declared once, in
// `settings.rs`; this file reads them from `syncscope.toml`.
use crate::project::settings::{self as registry, Source};
pub use crate::project::settings::{
    DefineValue, KernelSettings, LaunchLines, Settings, SettingsOrigin,
};

/// An error in a configuration source, with the byte range it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub message: String,
    pub range: Option<std::ops::Range<usize>>,
}

/// Parses `syncscope.toml` text. Errors carry byte ranges into `text`.
/// Keys are read through the settings table: a key of no setting is an
/// error naming the nearest known key (a typo must not quietly leave a
/// setting at its default).
pub fn parse_file(text: &str) -> Result<Settings, ConfigError> {
    type Entries = BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>;
    let entries: Entries = toml::from_str(text).map_err(|e| ConfigError {
        message: e.message().to_string(),
        range: e.span(),
    })?;
    let mut spans = BTreeMap::new();
    let mut values = Vec::new();
    for (key, value) in entries {
        spans.insert(key.get_ref().clone(), (key.span(), value.span()));
        let json = serde_json::to_value(value.into_inner()).map_err(|e| ConfigError {
            message: e.to_string(),
            range: None,
        })?;
        values.push((key.into_inner(), json));
    }
    let (mut s, unknown) = registry::read(Source::File, values).map_err(|bad| ConfigError {
        range: spans.get(&bad.key).map(|(_, value)| value.clone()),
        message: bad.message,
    })?;
    if let Some(u) = unknown.first() {
        return Err(ConfigError {
            range: spans.get(&u.key).map(|(key, _)| key.clone()),
            message: format!("{} in {FILE_NAME}", u.message()),
        });
    }
    validate(&s).map_err(|message| ConfigError {
        range: locate_key(text, &message),
        message,
    })?;
    s.origin = SettingsOrigin::File {
        name: FILE_NAME.to_string(),
        lines: LaunchLines::of(text),
    };
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

/// Checks the values a parser cannot: dimensions, names, ranges.
pub fn validate(s: &Settings) -> Result<(), String> {
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
    if let Some(a) = s.cuda_arch {
        if !(100..=1500).contains(&a) {
            return Err(format!(
                "`cuda-arch` is written as __CUDA_ARCH__ is (800 for sm_80), got {a}"
            ));
        }
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

/// Layers settings onto `base`: a later layer wins over an earlier one
/// (the file, then the client or the command line). Launch overrides are
/// searched first to last match, so the later layer's entries come first.
pub fn layer_options(layers: &[&Settings], base: Options) -> Options {
    let mut options = base;
    let mut defines: BTreeMap<String, String> = options.defines.iter().cloned().collect();
    let mut overrides = Vec::new();
    for s in layers {
        if let Some(d) = &s.block_dim {
            options.block_dim = Some(dim3(d));
            options.block_dim_from = s.origin.of_size("block-dim");
        }
        if let Some(d) = &s.grid_dim {
            options.grid_dim = Some(dim3(d));
            options.grid_dim_from = s.origin.of_size("grid-dim");
        }
        for (k, v) in s.defines.iter().flatten() {
            defines.insert(k.clone(), v.render());
        }
        if let Some(w) = s.warp_sync {
            options.warp_sync = w;
        }
        if let Some(b) = s.bitvector {
            options.bitvector = b;
        }
        if let Some(t) = s.timeout_ms {
            options.timeout_ms = t;
        }
        if let Some(t) = s.kernel_budget_ms {
            options.kernel_budget_ms = t;
        }
        if let Some(r) = s.redundant_barriers {
            options.check_redundant = r;
        }
        if let Some(b) = s.strict_benign {
            options.strict_benign = b;
        }
        if let Some(b) = s.deterministic {
            options.deterministic = b;
        }
        for k in s.kernels.iter().flatten() {
            if k.deterministic == Some(true) && !options.deterministic_kernels.contains(&k.name) {
                options.deterministic_kernels.push(k.name.clone());
            }
        }
        if let Some(a) = s.cuda_arch {
            options.cuda_arch = a;
        }
        let mine: Vec<LaunchOverride> = s
            .kernels
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, k)| LaunchOverride {
                kernel_glob: k.name.clone(),
                block_dim: k.block_dim.as_deref().map(dim3),
                grid_dim: k.grid_dim.as_deref().map(dim3),
                from: s.origin.of_kernel_entry(i),
                ..Default::default()
            })
            .collect();
        overrides.splice(0..0, mine);
    }
    options.defines = defines.into_iter().collect();
    overrides.extend(options.launch_overrides);
    options.launch_overrides = overrides;
    options
}

/// A parsed configuration file and the folder its relative paths start from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub settings: Settings,
}

impl ConfigFile {
    /// Reads and parses `path`; the error names the file.
    pub fn load(path: &Path) -> Result<ConfigFile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let mut settings = parse_file(&text).map_err(|e| {
            let line = e
                .range
                .map(|r| text[..r.start.min(text.len())].matches('\n').count() + 1);
            match line {
                Some(l) => format!("{}:{l}: {}", path.display(), e.message),
                None => format!("{}: {}", path.display(), e.message),
            }
        })?;
        // A file named otherwise (`--config ci.toml`) is named as it is.
        if let SettingsOrigin::File { name, .. } = &mut settings.origin {
            if let Some(n) = path.file_name() {
                *name = n.to_string_lossy().into_owned();
            }
        }
        Ok(ConfigFile {
            path: path.to_path_buf(),
            settings,
        })
    }

    fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// The include folders, absolute (relative ones start at the file's folder).
    pub fn include_dirs(&self) -> Vec<PathBuf> {
        let dir = self.dir();
        self.settings
            .include_dirs
            .iter()
            .flatten()
            .map(|d| dir.join(d))
            .collect()
    }

    /// The named `compile_commands.json`, if any.
    pub fn compile_commands(&self) -> Option<PathBuf> {
        self.settings
            .compile_commands
            .as_ref()
            .map(|c| self.dir().join(c))
    }
}

/// The nearest `syncscope.toml` in `start` or a folder above it.
pub fn find_upwards(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_for_every_kernel_or_per_kernel() {
        let all = parse_file("deterministic = true\n").unwrap();
        assert!(layer_options(&[&all], Options::default()).deterministic_for("any"));
        let some = parse_file(
            "[[kernel]]\nname = \"compact*\"\ndeterministic = true\n\n[[kernel]]\nname = \"other\"\nblock-dim = [64]\n",
        )
        .unwrap();
        let o = layer_options(&[&some], Options::default());
        assert!(o.deterministic_for("compact_ids"));
        assert!(!o.deterministic_for("other"));
        assert!(!o.deterministic);
    }

    #[test]
    fn parses_a_full_file() {
        let text = r#"
block-dim = [256]
grid-dim = [4, 2]
defines = { TILE = "16", N = 8, DEBUG = true }
warp-sync = true
bitvector = true
timeout-ms = 500
debounce-ms = 10
include-dirs = ["include", "../common"]
compile-commands = "build"
cuda-arch = 900

[[kernel]]
name = "reduce*"
block-dim = [128, 2, 1]

[[kernel]]
name = "scan"
grid-dim = [1]
"#;
        let s = parse_file(text).unwrap();
        let o = layer_options(&[&s], Options::default());
        assert_eq!(o.block_dim, Some([256, 1, 1]));
        assert_eq!(o.grid_dim, Some([4, 2, 1]));
        assert_eq!(
            o.defines,
            vec![
                ("DEBUG".to_string(), "1".to_string()),
                ("N".to_string(), "8".to_string()),
                ("TILE".to_string(), "16".to_string())
            ]
        );
        assert!(o.warp_sync && o.bitvector);
        assert_eq!(o.timeout_ms, 500);
        assert_eq!(o.cuda_arch, 900);
        assert_eq!(
            o.launch_for("reduce_v2"),
            (Some([128, 2, 1]), Some([4, 2, 1]))
        );
        assert_eq!(o.launch_for("scan"), (Some([256, 1, 1]), Some([1, 1, 1])));
        // Each size names the line it was written on: the top-level keys',
        // a `[[kernel]]` entry's header.
        let line = |needle: &str| text.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
        let kernel_entries: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| *l == "[[kernel]]")
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(
            o.user_launch_text("reduce_v2").unwrap(),
            format!(
                "blockDim = (128,2,1) (from syncscope.toml:{}), gridDim = (4,2,1) (from syncscope.toml:{})",
                kernel_entries[0],
                line("grid-dim")
            )
        );
        assert_eq!(
            o.user_launch_text("other").unwrap(),
            format!(
                "blockDim = (256,1,1) (from syncscope.toml:{}), gridDim = (4,2,1) (from syncscope.toml:{})",
                line("block-dim"),
                line("grid-dim")
            )
        );
        let c = ConfigFile {
            path: PathBuf::from("/p/syncscope.toml"),
            settings: s,
        };
        assert_eq!(
            c.include_dirs(),
            vec![PathBuf::from("/p/include"), PathBuf::from("/p/../common")]
        );
        assert_eq!(c.compile_commands(), Some(PathBuf::from("/p/build")));
    }

    #[test]
    fn later_layers_win() {
        let file = parse_file("block-dim = [256]\ndefines = { A = 1, B = 2 }\n[[kernel]]\nname = \"k*\"\nblock-dim = [32]\n").unwrap();
        let cli = Settings {
            defines: Some(BTreeMap::from([("B".into(), DefineValue::Int(3))])),
            kernels: Some(vec![KernelSettings {
                name: "kern".into(),
                grid_dim: Some(vec![8]),
                ..Default::default()
            }]),
            ..Default::default()
        };
        let o = layer_options(&[&file, &cli], Options::default());
        assert_eq!(
            o.defines,
            vec![("A".into(), "1".into()), ("B".into(), "3".into())]
        );
        assert_eq!(o.launch_for("kern"), (Some([256, 1, 1]), Some([8, 1, 1])));
        assert_eq!(o.launch_for("kx"), (Some([32, 1, 1]), None));
    }

    #[test]
    fn errors_have_ranges() {
        let e = parse_file("block-dim = [256\n").unwrap_err();
        assert!(e.range.is_some(), "{e:?}");
        let too_many = "warp-sync = false\nblock-dim = [1, 2, 3, 4]\n";
        let e = parse_file(too_many).unwrap_err();
        assert_eq!(&too_many[e.range.unwrap()], "block-dim = [1, 2, 3, 4]");
        assert!(parse_file("cuda-arch = 90\n")
            .unwrap_err()
            .message
            .contains("800"));
        assert!(parse_file("include-dirs = \"inc\"\n").is_err());
    }

    /// A key of no setting is an error at the key, naming the key meant:
    /// a typo must not leave a setting silently at its default.
    #[test]
    fn an_unknown_key_names_the_nearest_known_one() {
        let text = "warp-sync = true\nblockdim = [64]\n";
        let e = parse_file(text).unwrap_err();
        assert_eq!(
            e.message,
            "unknown setting `blockdim` (did you mean `block-dim`?) in syncscope.toml"
        );
        assert_eq!(&text[e.range.unwrap()], "blockdim");
        let e = parse_file("frobnicate = 1\n").unwrap_err();
        assert_eq!(e.message, "unknown setting `frobnicate` in syncscope.toml");
        let e = parse_file("[[kernel]]\nname = \"k\"\nblockdim = [1]\n").unwrap_err();
        assert!(e.message.contains("blockdim"), "{e:?}");
    }
}
