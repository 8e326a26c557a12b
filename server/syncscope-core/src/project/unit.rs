//! The translation unit of a file as nvcc's device pass sees it: the local
//! headers it includes (recursively; each once, as include guards and
//! `#pragma once` make it; cycles cut), the built-in model of the system
//! headers, then the file itself. The unit is one text: the headers form a
//! prefix and the file follows unchanged, so a position in the file is a
//! position in the unit moved by the prefix's length.

use super::conditions::{Conditions, Reach};
use super::system;
use super::Sources;
use crate::frontend::Macro;
use crate::report::Span;
use std::collections::HashMap;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Deepest include nesting followed (a guard against generated chains).
const MAX_DEPTH: usize = 64;

/// A header's text inside the unit's prefix.
#[derive(Clone, Debug)]
pub(crate) struct Part {
    /// The header's path (`<name>` for a built-in system model).
    pub path: PathBuf,
    /// Byte offset and line of the part's first line in the unit.
    pub start: usize,
    pub start_line: u32,
    pub end: usize,
    /// The `#include` line of the analysed file through which the header
    /// came in (its span in the file).
    pub via: Span,
}

/// A local header that was included but could not be found or read.
#[derive(Clone, Debug)]
pub(crate) struct Missing {
    pub name: String,
    /// The folders that were searched, in order.
    pub searched: Vec<PathBuf>,
    /// The `#include` line of the analysed file it came through.
    pub via: Span,
    /// The header that includes it, when it is not the analysed file.
    pub includer: Option<PathBuf>,
    /// Whether the `#include` may be on the preprocessor's taken path (not
    /// inside a branch known to be skipped): only those are reported.
    pub on_path: bool,
}

/// A `<name>` system header outside the built-in model.
#[derive(Clone, Debug)]
pub(crate) struct UnknownSystem {
    pub name: String,
    /// The `#include` line of the analysed file it came through.
    pub via: Span,
    /// The header that names it, when it is not the analysed file.
    pub includer: Option<PathBuf>,
    /// As [`Missing::on_path`].
    pub on_path: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Unit {
    pub text: String,
    /// Length in bytes and lines of the header prefix (0 when the file
    /// includes nothing that adds text).
    pub prefix_len: usize,
    pub prefix_lines: u32,
    pub parts: Vec<Part>,
    /// Local headers read, in include order.
    pub includes: Vec<PathBuf>,
    pub missing: Vec<Missing>,
    /// `<name>` system headers outside the built-in model, each once.
    pub unknown_system: Vec<UnknownSystem>,
    /// Names the included system headers declare.
    pub system_names: HashSet<&'static str>,
    /// The directives of the unit's skipped branches
    /// (`frontend::resolve_conditionals`).
    pub skipped: Vec<(Span, String)>,
}

/// One `#include` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Directive {
    pub name: String,
    pub angled: bool,
    /// The line's span in its file.
    pub span: Span,
}

/// The preprocessor lines of a text, in order: (keyword, the rest of the
/// line with its continuations, the `#include` it is if it is one).
fn preprocessor_lines(text: &str) -> Vec<(&str, String, Option<Directive>)> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut lines = text.split_inclusive('\n').enumerate();
    while let Some((line_no, line)) = lines.next() {
        let start = offset;
        offset += line.len();
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let k = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (keyword, mut tail) = (&rest[..k], rest[k..].trim_end().to_string());
        while let Some(joined) = tail.strip_suffix('\\') {
            tail = joined.to_string();
            match lines.next() {
                Some((_, next)) => {
                    offset += next.len();
                    tail.push(' ');
                    tail.push_str(next.trim_end());
                }
                None => break,
            }
        }
        let include = (keyword == "include")
            .then(|| include_directive(line, line_no, start))
            .flatten();
        out.push((keyword, tail, include));
    }
    out
}

/// The `#include "x"` or `#include <x>` of one line starting at `start`
/// (includes.scm reads it).
fn include_directive(line: &str, line_no: usize, start: usize) -> Option<Directive> {
    let t = line.trim_start();
    let crate::syntax::queries::Include { name, angled } =
        crate::syntax::queries::include_line(line)?;
    let indent = (line.len() - t.len()) as u32;
    let body = line.trim_end();
    let point = |column: u32| crate::report::Point {
        line: line_no as u32,
        column,
        offset: start as u32 + column,
    };
    Some(Directive {
        name,
        angled,
        span: Span {
            start: point(indent),
            end: point(body.len() as u32),
        },
    })
}

/// The `#include` lines of a text, conditions not evaluated.
pub(crate) fn directives(text: &str) -> Vec<Directive> {
    preprocessor_lines(text)
        .into_iter()
        .filter_map(|(_, _, d)| d)
        .collect()
}

/// Whether a line (without its indentation) starts with `#include`
/// (`#  include` too).
fn is_include_line(t: &str) -> bool {
    t.strip_prefix('#')
        .is_some_and(|r| r.trim_start().starts_with("include"))
}

/// Blanks the `#include` lines of a header (its includes are already in the
/// unit before it) keeping every line where it was.
fn without_includes(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    for line in text.split_inclusive('\n') {
        if is_include_line(line.trim_start()) {
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

struct Builder<'a> {
    sources: &'a dyn Sources,
    dirs: &'a [PathBuf],
    seen: HashSet<PathBuf>,
    seen_system: HashSet<String>,
    prefix: String,
    unit: Unit,
    /// The macros defined so far on the preprocessor's path: they decide
    /// which `#include` lines are taken (every header is still read, as
    /// before: an include under a branch not taken only adds definitions;
    /// only the reports of what is missing keep to the taken path).
    macros: HashMap<String, Macro>,
}

impl Builder<'_> {
    fn push_part(&mut self, path: PathBuf, text: &str, via: Span) {
        let start = self.prefix.len();
        let start_line = self.prefix.matches('\n').count() as u32;
        self.prefix.push_str(text);
        if !self.prefix.ends_with('\n') {
            self.prefix.push('\n');
        }
        self.unit.parts.push(Part {
            path,
            start,
            start_line,
            end: self.prefix.len(),
            via,
        });
    }

    /// Follows the includes of `text` (the file at `path`); `via` is the
    /// analysed file's directive they come through (`None`: this is the
    /// file); `reach`: whether the file itself is on the taken path.
    fn follow(&mut self, path: &Path, text: &str, via: Option<Span>, reach: Reach, depth: usize) {
        let here = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut conditions = Conditions::default();
        for (keyword, rest, include) in preprocessor_lines(text) {
            // A header read off the path defines nothing on it.
            let mut scratch = HashMap::new();
            let macros = if reach == Reach::NotTaken {
                &mut scratch
            } else {
                &mut self.macros
            };
            conditions.apply(keyword, &rest, macros);
            let Some(d) = include else {
                continue;
            };
            let reach = reach.and(conditions.reach());
            let on_path = reach != Reach::NotTaken;
            let via_span = via.unwrap_or(d.span);
            let mut searched = Vec::new();
            let candidates = if d.angled {
                self.dirs.to_vec()
            } else {
                std::iter::once(here.clone())
                    .chain(self.dirs.iter().cloned())
                    .collect()
            };
            let mut found = None;
            for dir in candidates {
                let p = super::compile_commands::normalize(&dir.join(&d.name));
                searched.push(dir);
                if self.sources.exists(&p) {
                    found = Some(p);
                    break;
                }
            }
            if let Some(p) = found {
                if !self.seen.insert(p.clone()) {
                    // Include guard / #pragma once / a cycle. (A header met
                    // first in a skipped branch and later on the path keeps
                    // the reach of its first reading: its own missing
                    // headers stay unreported, a rare layout.)
                    continue;
                }
                match self.sources.read(&p) {
                    Some(h) if depth < MAX_DEPTH => {
                        self.unit.includes.push(p.clone());
                        self.follow(&p, &h, Some(via_span), reach, depth + 1);
                        self.push_part(p, &without_includes(&h), via_span);
                    }
                    _ => self.unit.missing.push(Missing {
                        name: d.name.clone(),
                        searched,
                        via: via_span,
                        includer: via.map(|_| path.to_path_buf()),
                        on_path,
                    }),
                }
                continue;
            }
            if let Some(sys) = system::lookup(&d.name) {
                self.unit.system_names.extend(sys.names.iter().copied());
                if !sys.prelude.is_empty() && self.seen_system.insert(sys.prelude.to_string()) {
                    let name = PathBuf::from(format!("<{}>", d.name));
                    self.push_part(name, sys.prelude, via_span);
                }
                continue;
            }
            // `<x.cuh>` is a CUDA project's header reached through `-I`,
            // never a system one: missing, like a quoted one.
            let project_header = [".cuh", ".cu", ".inl"].iter().any(|e| d.name.ends_with(e));
            if d.angled && !project_header {
                match self
                    .unit
                    .unknown_system
                    .iter_mut()
                    .find(|u| u.name == d.name)
                {
                    // Named again on the path after a skipped branch.
                    Some(known) => known.on_path |= on_path,
                    None => self.unit.unknown_system.push(UnknownSystem {
                        name: d.name.clone(),
                        via: via_span,
                        includer: via.map(|_| path.to_path_buf()),
                        on_path,
                    }),
                }
            } else {
                self.unit.missing.push(Missing {
                    name: d.name.clone(),
                    searched,
                    via: via_span,
                    includer: via.map(|_| path.to_path_buf()),
                    on_path,
                });
            }
        }
    }
}

/// Builds the unit of the file at `path` holding `text`: quoted includes
/// are searched relative to the includer, then in `dirs`; angled ones in
/// `dirs`, then in the built-in system model. (The driver builds through
/// `unit_cache`.)
#[cfg(test)]
pub(crate) fn build(
    path: &Path,
    text: &str,
    dirs: &[PathBuf],
    sources: &dyn Sources,
    options: &crate::Options,
) -> Unit {
    build_in_context(path, text, dirs, &[], sources, options)
}

/// [`build`], with the headers of `context` (absolute paths) read first, as
/// if the file began by including them.
pub(crate) fn build_in_context(
    path: &Path,
    text: &str,
    dirs: &[PathBuf],
    context: &[PathBuf],
    sources: &dyn Sources,
    options: &crate::Options,
) -> Unit {
    let me = super::compile_commands::normalize(path);
    let mut b = Builder {
        sources,
        dirs,
        seen: HashSet::from([me.clone()]),
        seen_system: HashSet::new(),
        prefix: String::new(),
        unit: Unit::default(),
        macros: crate::frontend::device_pass_macros(options)
            .into_iter()
            .chain(options.defines.iter().cloned())
            .map(|(name, body)| (name, Macro { params: None, body }))
            .collect(),
    };
    if !context.is_empty() {
        let lines: String = context
            .iter()
            .map(|h| format!("#include \"{}\"\n", h.display()))
            .collect();
        b.follow(&me, &lines, Some(Span::default()), Reach::Taken, 0);
    }
    b.follow(&me, text, None, Reach::Taken, 0);
    let mut unit = b.unit;
    let mut prefix = b.prefix;
    if !prefix.is_empty() {
        // A first line that is not a comment: the file's own header
        // directives (`//--blockDim=...`) are read from the file, not here.
        prefix.insert_str(0, "#define __SYNCSCOPE_UNIT__ 1\n");
        for p in &mut unit.parts {
            p.start += "#define __SYNCSCOPE_UNIT__ 1\n".len();
            p.end += "#define __SYNCSCOPE_UNIT__ 1\n".len();
            p.start_line += 1;
        }
    }
    unit.prefix_len = prefix.len();
    unit.prefix_lines = prefix.matches('\n').count() as u32;
    prefix.push_str(text);
    // The conditionals decided over the whole unit (a header's macros reach
    // the file's `#if`s); positions stay where they were.
    let defines = crate::frontend::pass_defines(options);
    let resolved = crate::frontend::resolve_conditionals(&prefix, &defines);
    unit.skipped = resolved.skipped;
    unit.text = match resolved.text {
        std::borrow::Cow::Borrowed(_) => prefix,
        std::borrow::Cow::Owned(resolved) => resolved,
    };
    unit
}

impl Unit {
    /// The part holding unit offset `offset` (inside the prefix).
    pub(crate) fn part_at(&self, offset: usize) -> Option<&Part> {
        self.parts
            .iter()
            .find(|p| p.start <= offset && offset < p.end)
    }

    /// Moves a span of the unit to the analysed file: a span in the file's
    /// own text shifts back by the prefix; a span in a header becomes the
    /// `#include` line it came through, and the header location is returned
    /// (path, 1-based line) so the message can name it.
    pub(crate) fn to_file(&self, span: &mut Span) -> Option<(PathBuf, u32)> {
        let off = span.start.offset as usize;
        if off >= self.prefix_len {
            for p in [&mut span.start, &mut span.end] {
                p.offset = p.offset.saturating_sub(self.prefix_len as u32);
                p.line = p.line.saturating_sub(self.prefix_lines);
            }
            return None;
        }
        let part = self.part_at(off);
        let line = part.map(|p| span.start.line.saturating_sub(p.start_line) + 1);
        let path = part.map(|p| p.path.clone()).unwrap_or_default();
        *span = part.map(|p| p.via).unwrap_or_default();
        Some((path, line.unwrap_or(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Mem(HashMap<PathBuf, String>);
    impl Sources for Mem {
        fn read(&self, path: &Path) -> Option<String> {
            self.0.get(path).cloned()
        }
        fn exists(&self, path: &Path) -> bool {
            self.0.contains_key(path)
        }
    }

    #[test]
    fn reads_directives() {
        let d = directives(
            "  #  include \"a/b.h\" // x\n#include <cuda.h>\n#define X\n#include MACRO\n",
        );
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].name, "a/b.h");
        assert!(!d[0].angled && d[1].angled);
        assert_eq!((d[0].span.start.column, d[1].span.start.line), (2, 1));
    }

    #[test]
    fn headers_come_first_once_and_cycles_are_cut() {
        let files = Mem(HashMap::from([
            (
                PathBuf::from("/p/inc/a.h"),
                "#pragma once\n#include \"b.h\"\n#define A 1\n".to_string(),
            ),
            (
                PathBuf::from("/p/inc/b.h"),
                "#include \"a.h\"\n#define B 2\n".to_string(),
            ),
        ]));
        let main = "#include \"a.h\"\n#include \"b.h\"\n#include <cstdint>\n#include <thrust/sort.h>\n#include \"gone.h\"\nint x;\n";
        let u = build(
            Path::new("/p/src/k.cu"),
            main,
            &[PathBuf::from("/p/inc")],
            &files,
            &crate::Options::default(),
        );
        assert_eq!(
            u.includes,
            vec![PathBuf::from("/p/inc/a.h"), PathBuf::from("/p/inc/b.h")]
        );
        let b = u.text.find("#define B 2").unwrap();
        let a = u.text.find("#define A 1").unwrap();
        assert!(b < a, "b.h (included by a.h) comes first:\n{}", u.text);
        assert!(u.text.contains("INT32_MAX"));
        assert!(u.text.ends_with(main));
        assert_eq!(u.unknown_system.len(), 1);
        assert_eq!(u.missing.len(), 1);
        assert_eq!(
            u.missing[0].searched,
            vec![PathBuf::from("/p/src"), PathBuf::from("/p/inc")]
        );
        // A span in the file moves back; one in a header becomes its include.
        let mut s = Span::default();
        s.start.offset = (u.prefix_len + main.find("int x").unwrap()) as u32;
        s.start.line = u.prefix_lines + 5;
        assert_eq!(u.to_file(&mut s), None);
        assert_eq!(
            (s.start.line, s.start.offset as usize),
            (5, main.find("int x").unwrap())
        );
        let mut h = Span::default();
        h.start.offset = a as u32;
        h.start.line = u.text[..a].matches('\n').count() as u32;
        let (path, line) = u.to_file(&mut h).unwrap();
        assert_eq!((path, line), (PathBuf::from("/p/inc/a.h"), 3));
        assert_eq!(h.start.line, 0, "the include of a.h in the file");
    }

    #[test]
    fn a_file_without_includes_is_its_own_unit() {
        let u = build(
            Path::new("/k.cu"),
            "__global__ void k() {}\n",
            &[],
            &Mem(HashMap::new()),
            &crate::Options::default(),
        );
        assert_eq!(
            (u.prefix_len, u.text.as_str()),
            (0, "__global__ void k() {}\n")
        );
    }
}
