//! `compile_commands.json` (the JSON compilation database CMake, Bear and
//! others write): the include folders, macros and GPU architecture the
//! build passes when it compiles a file. Found as clangd finds it, walking up
//! from the file (also in a `build/` folder on the way), unless named.

use serde::Deserialize;
use std::path::{Component, Path, PathBuf};

pub(crate) const FILE_NAME: &str = "compile_commands.json";

#[derive(Deserialize)]
struct Entry {
    directory: String,
    file: String,
    command: Option<String>,
    arguments: Option<Vec<String>>,
}

/// What the build tells the device pass about one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FileFlags {
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<(String, String)>,
    /// `__CUDA_ARCH__` from `-arch=sm_80`, `--gpu-architecture`, `-gencode`.
    pub cuda_arch: Option<u32>,
}

/// The database for `file`: `named` (a file or a folder holding one), else
/// the nearest one walking up (`dir/compile_commands.json` or
/// `dir/build/compile_commands.json`).
pub(crate) fn locate(file: &Path, named: Option<&Path>) -> Option<PathBuf> {
    if let Some(n) = named {
        let p = if n.is_dir() {
            n.join(FILE_NAME)
        } else {
            n.to_path_buf()
        };
        return p.is_file().then_some(p);
    }
    let mut dir = file.parent();
    while let Some(d) = dir {
        for candidate in [d.join(FILE_NAME), d.join("build").join(FILE_NAME)] {
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        dir = d.parent();
    }
    None
}

/// The flags of `file` in the database at `db`: its own entry, else (as
/// clangd does for headers and new files) the entry of a file in the same
/// folder. `Err` is a message for an unreadable or malformed database.
pub(crate) fn flags_for(db: &Path, file: &Path) -> Result<Option<FileFlags>, String> {
    let text =
        std::fs::read_to_string(db).map_err(|e| format!("cannot read `{}`: {e}", db.display()))?;
    let entries: Vec<Entry> = serde_json::from_str(&text)
        .map_err(|e| format!("`{}` is not a compilation database: {e}", db.display()))?;
    let base = db.parent().unwrap_or(Path::new("."));
    let target = normalize(&absolute(file));
    let dir_of = |e: &Entry| normalize(&base.join(&e.directory));
    let path_of = |e: &Entry| normalize(&dir_of(e).join(&e.file));
    let entry = entries.iter().find(|e| path_of(e) == target).or_else(|| {
        entries
            .iter()
            .find(|e| path_of(e).parent() == target.parent())
    });
    Ok(entry.map(|e| parse_flags(&dir_of(e), &arguments(e))))
}

fn arguments(e: &Entry) -> Vec<String> {
    match (&e.arguments, &e.command) {
        (Some(a), _) => a.clone(),
        (None, Some(c)) => split_command(c),
        (None, None) => Vec::new(),
    }
}

/// Splits a shell command line (quotes and backslashes, no expansion).
pub(crate) fn split_command(c: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut quote: Option<char> = None;
    let mut chars = c.chars();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (Some(q), ch) if ch == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), ch) => cur.push(ch),
            (None, '"' | '\'') => {
                quote = Some(ch);
                has = true;
            }
            (None, ch) if ch.is_whitespace() => {
                if has || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                has = false;
            }
            (None, ch) => cur.push(ch),
        }
    }
    if has || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The flags that matter to the device pass; folders are made absolute
/// against the entry's `directory`.
pub(crate) fn parse_flags(dir: &Path, args: &[String]) -> FileFlags {
    let mut f = FileFlags::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let mut take = |prefixes: &[&str]| -> Option<String> {
            for p in prefixes {
                if a == *p {
                    i += 1;
                    return args.get(i).cloned();
                }
                if let Some(rest) = a.strip_prefix(p) {
                    return Some(rest.trim_start_matches('=').to_string());
                }
            }
            None
        };
        if let Some(d) = take(&["-I", "-isystem", "--include-path", "-iquote"]) {
            f.include_dirs.push(normalize(&dir.join(d)));
        } else if let Some(d) = take(&["-D", "--define-macro"]) {
            f.defines.push(crate::options::parse_define(&d));
        } else if let Some(arch) =
            take(&["-arch", "--gpu-architecture", "-gencode", "--generate-code"])
        {
            if f.cuda_arch.is_none() {
                f.cuda_arch = arch_number(&arch);
            }
        }
        i += 1;
    }
    f
}

/// `sm_80`, `compute_90a`, `arch=compute_86,code=sm_86` → 800, 900, 860.
fn arch_number(s: &str) -> Option<u32> {
    let pos = s.find("sm_").or_else(|| s.find("compute_"))?;
    let digits: String = s[pos..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse::<u32>().ok().map(|n| n * 10)
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system (links are kept).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in absolute(p).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_and_reads_flags() {
        let args = split_command(
            r#"nvcc -Iinclude -I "third party/inc" -DTILE=16 -D FAST -arch=sm_86 -c a.cu"#,
        );
        assert_eq!(
            args[2..4],
            ["-I".to_string(), "third party/inc".to_string()]
        );
        let f = parse_flags(Path::new("/p"), &args);
        assert_eq!(
            f.include_dirs,
            vec![
                PathBuf::from("/p/include"),
                PathBuf::from("/p/third party/inc")
            ]
        );
        assert_eq!(
            f.defines,
            vec![("TILE".into(), "16".into()), ("FAST".into(), "1".into())]
        );
        assert_eq!(f.cuda_arch, Some(860));
        let g = parse_flags(
            Path::new("/p"),
            &split_command("nvcc -gencode arch=compute_90,code=sm_90 -isystem=/usr/x x.cu"),
        );
        assert_eq!(g.cuda_arch, Some(900));
        assert_eq!(g.include_dirs, vec![PathBuf::from("/usr/x")]);
    }

    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    }
}
