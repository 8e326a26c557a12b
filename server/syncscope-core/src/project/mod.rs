//! The project model: a file is analysed as a real build compiles it.
//!
//! - `unit`: the translation unit (local headers found relative to the
//!   includer, then in the include folders; the built-in system headers of
//!   `system`), one text whose prefix is the headers;
//! - `compile_commands`: the build's flags for the file (`-I`, `-D`, arch);
//! - `config`: `syncscope.toml`, the one parser shared by CLI and server;
//! - `names`: which names a kernel uses that nothing defines (a missing
//!   header's names) and kernels emptied by the preprocessor.
//!
//! Open editor buffers win over the disk: the server passes them as a
//! [`Sources`] overlay. Nothing here knows of LSP or async.

pub mod compile_commands;
pub mod config;
mod names;
pub mod system;
pub mod unit;

use crate::cache::QueryCache;
use crate::options::Options;
use crate::report::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Where file contents come from.
pub trait Sources: Sync {
    fn read(&self, path: &Path) -> Option<String>;
    fn exists(&self, path: &Path) -> bool;
}

/// The file system.
pub struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
    fn exists(&self, path: &Path) -> bool {
        path.is_file()
    }
}

/// Open buffers (by normalized absolute path) over the file system.
pub struct Overlay<'a> {
    pub buffers: &'a HashMap<PathBuf, String>,
}

impl Sources for Overlay<'_> {
    fn read(&self, path: &Path) -> Option<String> {
        self.buffers.get(path).cloned().or_else(|| Disk.read(path))
    }
    fn exists(&self, path: &Path) -> bool {
        self.buffers.contains_key(path) || Disk.exists(path)
    }
}

/// Where headers are searched beyond the includer's folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchPaths {
    /// `-I` folders (command line, then `include-dirs` of `syncscope.toml`).
    pub include_dirs: Vec<PathBuf>,
    /// A named `compile_commands.json` (file or folder); `None`: the nearest
    /// one walking up from the file.
    pub compile_commands: Option<PathBuf>,
}

/// The result of analysing one file in its project.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub report: FileReport,
    /// Local headers the file includes (directly or not).
    pub includes: Vec<PathBuf>,
    /// The options the file was analysed with (build flags and the file's
    /// directives applied): `cuda_arch` is the device pass shown to users.
    pub options: Options,
}

/// Analyses the file at `path` holding `text` with its headers.
/// `tree` is the file's own parse (used when the unit is the file alone).
pub fn analyze(
    path: &Path,
    text: &str,
    tree: Option<&tree_sitter::Tree>,
    options: &Options,
    search: &SearchPaths,
    sources: &dyn Sources,
    cache: &dyn QueryCache,
    cancel: Option<&AtomicBool>,
) -> Analysis {
    let mut notes = Vec::new();
    let mut dirs = search.include_dirs.clone();
    let mut options = crate::options::with_file_directives(text, options);
    let abs = compile_commands::normalize(path);
    if let Some(db) = compile_commands::locate(&abs, search.compile_commands.as_deref()) {
        match compile_commands::flags_for(&db, &abs) {
            Ok(Some(flags)) => {
                dirs.extend(flags.include_dirs);
                for (n, v) in flags.defines {
                    if !options.defines.iter().any(|(m, _)| *m == n) {
                        options.defines.push((n, v));
                    }
                }
                if options.cuda_arch == config::DEFAULT_CUDA_ARCH {
                    options.cuda_arch = flags.cuda_arch.unwrap_or(options.cuda_arch);
                }
            }
            Ok(None) => {}
            Err(message) => notes.push(Finding::new(
                FindingKind::Include,
                None,
                Span::default(),
                message,
            )),
        }
    }
    let unit = unit::build(&abs, text, &dirs, sources);
    let mut report = if unit.prefix_len == 0 {
        match tree {
            Some(t) => crate::analyze(text, t, &options, cache, cancel),
            None => {
                let t = crate::parse(text, None);
                crate::analyze(text, &t, &options, cache, cancel)
            }
        }
    } else {
        let t = crate::parse(&unit.text, None);
        let r = crate::analyze(&unit.text, &t, &options, cache, cancel);
        to_file(r, &unit, abs.parent().unwrap_or(Path::new("")))
    };
    let unit_tree = crate::parse(&unit.text, None);
    names::check_kernels(&unit, &unit_tree, &options, &mut report);
    report.findings.extend(notes);
    report.findings.extend(include_findings(&unit));
    Analysis {
        report,
        includes: unit.includes,
        options,
    }
}

/// Moves the unit's report to the analysed file: kernels defined in headers
/// are left to those headers' own analysis; findings in a header's code are
/// shown at the `#include` that brought it in, naming the header's line.
fn to_file(mut r: FileReport, unit: &unit::Unit, dir: &Path) -> FileReport {
    let in_header = |s: &Span| (s.start.offset as usize) < unit.prefix_len;
    let header_kernels: Vec<String> = r
        .kernels
        .iter()
        .filter(|k| in_header(&k.span))
        .map(|k| k.name.clone())
        .collect();
    r.kernels.retain(|k| !in_header(&k.span));
    for k in &mut r.kernels {
        unit.to_file(&mut k.span);
    }
    let mut header_syntax: Vec<(PathBuf, u32, usize)> = Vec::new();
    let mut out = Vec::new();
    for mut f in r.findings {
        if f.kernel
            .as_ref()
            .is_some_and(|k| header_kernels.contains(k))
            && in_header(&f.span)
        {
            continue;
        }
        if f.kind == FindingKind::SyntaxError && in_header(&f.span) {
            // The header's own analysis reports them; here, one note each.
            if let Some(p) = unit.part_at(f.span.start.offset as usize) {
                let line = f.span.start.line.saturating_sub(p.start_line) + 1;
                match header_syntax.iter_mut().find(|(h, _, _)| *h == p.path) {
                    Some(e) => e.2 += 1,
                    None => header_syntax.push((p.path.clone(), line, 1)),
                }
            }
            continue;
        }
        f.message = file_lines(&f.message, unit, dir);
        if let Some((path, line)) = unit.to_file(&mut f.span) {
            f.message = format!("{} (in `{}` line {line})", f.message, shown(&path, dir));
        }
        for rel in &mut f.related {
            rel.message = file_lines(&rel.message, unit, dir);
            if let Some((path, line)) = unit.to_file(&mut rel.span) {
                rel.message = format!("{} (in `{}` line {line})", rel.message, shown(&path, dir));
            }
        }
        // A fix that would edit a header is not offered on this file.
        f.fixes
            .retain(|x| x.edits.iter().all(|e| !in_header(&e.span)));
        for e in f.fixes.iter_mut().flat_map(|x| &mut x.edits) {
            unit.to_file(&mut e.span);
        }
        out.push(f);
    }
    for (path, line, count) in header_syntax {
        let via = unit
            .parts
            .iter()
            .find(|p| p.path == path)
            .map(|p| p.via)
            .unwrap_or_default();
        let mut f = Finding::new(
            FindingKind::Include,
            None,
            via,
            format!(
                "`{}` has {count} syntax error(s) (first at line {line}); its definitions may be incomplete",
                shown(&path, dir)
            ),
        );
        f.severity = Severity::Information;
        out.push(f);
    }
    r.findings = out;
    r
}

/// Messages name lines (`(line 58)`) of the text that was analysed, the
/// unit: each becomes a line of the file, or `` `header` line N``.
fn file_lines(message: &str, unit: &unit::Unit, dir: &Path) -> String {
    if unit.prefix_lines == 0 {
        return message.to_string();
    }
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find("line ") {
        let (before, after) = rest.split_at(i + "line ".len());
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        let word_start = i == 0 || !rest[..i].ends_with(|c: char| c.is_alphanumeric());
        match digits.parse::<u32>() {
            Ok(n) if word_start && n >= 1 => {
                out.push_str(&before[..i]);
                let line0 = n - 1;
                if line0 >= unit.prefix_lines {
                    out.push_str(&format!("line {}", line0 - unit.prefix_lines + 1));
                } else if let Some(p) = unit.parts.iter().find(|p| {
                    unit.text[..p.end].matches('\n').count() as u32 > line0 && p.start_line <= line0
                }) {
                    out.push_str(&format!(
                        "`{}` line {}",
                        shown(&p.path, dir),
                        line0 - p.start_line + 1
                    ));
                } else {
                    out.push_str(&format!("line {n}"));
                }
                rest = &after[digits.len()..];
            }
            _ => {
                out.push_str(before);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A header's path as shown next to the file at `dir`: relative when it
/// shares a folder with it (`../include/x.cuh`), else as found.
fn shown(path: &Path, dir: &Path) -> String {
    let p: Vec<_> = path.components().collect();
    let d: Vec<_> = dir.components().collect();
    let common = p.iter().zip(&d).take_while(|(a, b)| a == b).count();
    if common <= 1 || d.len() - common > 3 {
        return path.display().to_string();
    }
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out.display().to_string()
}

fn include_findings(unit: &unit::Unit) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in &unit.missing {
        let searched: Vec<String> = m
            .searched
            .iter()
            .map(|d| format!("`{}`", d.display()))
            .collect();
        let from = m
            .includer
            .as_ref()
            .map(|h| format!(" (included by `{}`)", h.display()))
            .unwrap_or_default();
        out.push(Finding::new(
            FindingKind::Include,
            None,
            m.via,
            format!(
                "header `{}`{from} not found; searched {}. Add its folder with `-I DIR`, `include-dirs` in syncscope.toml or a compile_commands.json",
                m.name,
                if searched.is_empty() { "no folder".to_string() } else { searched.join(", ") }
            ),
        ));
    }
    for (name, span) in &unit.unknown_system {
        let mut f = Finding::new(
            FindingKind::Include,
            None,
            *span,
            format!("system header `<{name}>` is not in the built-in model: skipped (its names are unknown values)"),
        );
        f.severity = Severity::Information;
        out.push(f);
    }
    out
}
