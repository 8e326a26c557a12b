//! The text preprocessor, run as a C compiler runs it: pp-tokens (comments
//! are white space, `\`-newline joins lines), `#define`/`#undef`, macro
//! expansion with hide sets (`#`, `##`, variadic macros, GNU's `, ##
//! __VA_ARGS__`), `#if`/`#elif` evaluated after expansion with `defined`,
//! `#include` and `#pragma once`.
//!
//! The analysis uses it to decide the conditionals
//! ([`resolve_conditionals`]): the text keeps its length and its lines (the
//! directives and the skipped branches become spaces, and so do the comments
//! of `#define` lines), so every position of a finding is the same in the
//! text the user wrote, and the tree-sitter parse sees only the code a
//! compiler reads (an `#if` inside a parameter list, an `extern "C" {` under
//! `#ifdef __cplusplus`). [`preprocess`] writes the whole expansion, which
//! `tests/preprocessor_differential.rs` compares with the system's `cpp`.

use crate::report::Span;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    /// A string or character literal.
    Literal,
    Punct,
    /// The empty operand of `##` (C's placemarker).
    Placemarker,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: Rc<str>,
    /// Byte range in the text it was read from.
    start: usize,
    end: usize,
    /// White space (or a comment) before it.
    space: bool,
    /// First token of a logical line.
    bol: bool,
    /// The macros whose expansion produced it (not expanded again in it).
    hide: Rc<Vec<Rc<str>>>,
}

impl Tok {
    fn is(&self, s: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == s
    }
}

const PUNCTS: &[&str] = &[
    "...", "<<=", ">>=", "->*", "##", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "::", ".*",
];

/// The length of a `\`-newline at `i`, or 0.
fn splice_len(b: &[u8], i: usize) -> usize {
    match (b.get(i), b.get(i + 1), b.get(i + 2)) {
        (Some(b'\\'), Some(b'\n'), _) => 2,
        (Some(b'\\'), Some(b'\r'), Some(b'\n')) => 3,
        _ => 0,
    }
}

fn ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The pp-tokens of a text.
fn lex(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut space, mut bol) = (0usize, false, true);
    let empty: Rc<Vec<Rc<str>>> = Rc::new(Vec::new());
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            (bol, space) = (true, true);
            i += 1;
            continue;
        }
        let s = splice_len(b, i);
        if s > 0 {
            i += s;
            continue;
        }
        if c.is_ascii_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"//") {
            // Up to the newline; a `\`-newline continues the comment.
            while i < b.len() && b[i] != b'\n' {
                i += splice_len(b, i).max(1);
            }
            space = true;
            continue;
        }
        if b[i..].starts_with(b"/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            space = true;
            continue;
        }
        let start = i;
        let kind;
        if ident_byte(c) && !c.is_ascii_digit() {
            while i < b.len() && ident_byte(b[i]) {
                i += 1;
            }
            let prefix = &text[start..i];
            if matches!(prefix, "L" | "u" | "U" | "u8") && matches!(b.get(i), Some(b'"' | b'\'')) {
                i = literal_end(b, i);
                kind = Kind::Literal;
            } else {
                kind = Kind::Ident;
            }
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < b.len() {
                let d = b[i];
                if matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P') {
                    i += 1;
                } else if d == b'\'' && b.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric()) {
                    i += 2;
                } else if ident_byte(d) || d == b'.' {
                    i += 1;
                } else {
                    break;
                }
            }
            kind = Kind::Number;
        } else if c == b'"' || c == b'\'' {
            i = literal_end(b, i);
            kind = Kind::Literal;
        } else {
            let rest = &text[i..];
            let len = PUNCTS.iter().find(|p| rest.starts_with(*p)).map_or_else(
                || rest.chars().next().map_or(1, char::len_utf8),
                |p| p.len(),
            );
            i += len;
            kind = Kind::Punct;
        }
        out.push(Tok {
            kind,
            text: text[start..i].into(),
            start,
            end: i,
            space,
            bol,
            hide: empty.clone(),
        });
        (space, bol) = (false, false);
    }
    out
}

/// The end of the literal whose quote is at `i` (at the line's end if it is
/// not closed).
fn literal_end(b: &[u8], mut i: usize) -> usize {
    let quote = b[i];
    i += 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    // The closing quote is part of it; an unclosed literal ends at the
    // line's end (the newline still ends a directive).
    let mut end = if b.get(i) == Some(&quote) {
        i + 1
    } else {
        i.min(b.len())
    };
    // An escape may have stepped into a character of several bytes: end
    // after it, on a character boundary.
    while end < b.len() && b[end] & 0xC0 == 0x80 {
        end += 1;
    }
    end
}

/// One `#define`.
#[derive(Clone, Debug)]
struct Definition {
    /// `None` for an object-like macro.
    params: Option<Vec<Rc<str>>>,
    /// The last parameter collects the remaining arguments (`...`, named
    /// `__VA_ARGS__`, or GNU's `args...`).
    variadic: bool,
    body: Vec<Tok>,
}

/// The line structure of a token list: each logical line's token range.
fn logical_lines(toks: &[Tok]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=toks.len() {
        if i == toks.len() || toks[i].bol {
            if start < i {
                out.push(start..i);
            }
            start = i;
        }
    }
    out
}

/// Whether a line was a conditional directive or in a skipped branch, and
/// which bytes of a `#define` line are comments (for [`resolve_conditionals`]).
enum Blank {
    Line(std::ops::Range<usize>),
    Comments(std::ops::Range<usize>),
}

/// How `#include` finds a file: the includer's path, the name written, and
/// whether it was `<angled>`; the file's path and text, or `None`.
type Resolver<'r> = &'r dyn Fn(&Path, &str, bool) -> Option<(PathBuf, String)>;

/// One conditional on the stack: whether its current branch is taken,
/// whether one of its branches was, and whether its surroundings are live.
struct Cond {
    taken: bool,
    any: bool,
    outer: bool,
}

struct Engine<'r> {
    macros: HashMap<Rc<str>, Definition>,
    resolver: Option<Resolver<'r>>,
    once: HashSet<PathBuf>,
    depth: usize,
    /// Replacements left in the current condition or run of text (hostile
    /// macros grow exponentially): once spent,
    /// names are left unexpanded, and a condition that needed them is false.
    budget: std::cell::Cell<usize>,
    /// Arguments being expanded inside arguments (each is a recursion).
    nesting: std::cell::Cell<usize>,
    out: String,
    blanks: Vec<Blank>,
    /// The directives that begin a branch not taken (byte range, text).
    skipped: Vec<(std::ops::Range<usize>, String)>,
    missing: Vec<String>,
    system: Vec<String>,
}

/// Deepest `#include` nesting followed.
const MAX_INCLUDE_DEPTH: usize = 64;
/// Macro replacements made for one condition or one run of text at most.
const MAX_REPLACEMENTS: usize = 100_000;
/// Deepest nesting of macro invocations in arguments expanded.
const MAX_ARGUMENT_NESTING: usize = 200;

impl<'r> Engine<'r> {
    fn new(defines: &[(String, String)], resolver: Option<Resolver<'r>>) -> Self {
        let mut e = Engine {
            macros: HashMap::new(),
            resolver,
            once: HashSet::new(),
            depth: 0,
            budget: std::cell::Cell::new(MAX_REPLACEMENTS),
            nesting: std::cell::Cell::new(0),
            out: String::new(),
            blanks: Vec::new(),
            skipped: Vec::new(),
            missing: Vec::new(),
            system: Vec::new(),
        };
        for (name, value) in defines {
            let line = lex(&format!("{name} {value}"));
            e.define(&line);
        }
        e
    }

    /// A `#define` from the tokens after `define`.
    fn define(&mut self, toks: &[Tok]) {
        let Some(name) = toks.first().filter(|t| t.kind == Kind::Ident) else {
            return;
        };
        let mut rest = &toks[1..];
        let mut params = None;
        let mut variadic = false;
        if rest.first().is_some_and(|t| t.is("(") && !t.space) {
            let mut ps = Vec::new();
            let mut i = 1;
            loop {
                match rest.get(i) {
                    Some(t) if t.is(")") => break,
                    Some(t) if t.is("...") => {
                        ps.push(Rc::from("__VA_ARGS__"));
                        variadic = true;
                    }
                    Some(t) if t.kind == Kind::Ident => {
                        ps.push(t.text.clone());
                        if rest.get(i + 1).is_some_and(|n| n.is("...")) {
                            variadic = true;
                            i += 1;
                        }
                    }
                    Some(t) if t.is(",") => {}
                    _ => return,
                }
                i += 1;
            }
            params = Some(ps);
            rest = &rest[i + 1..];
        }
        let mut body = rest.to_vec();
        if let Some(first) = body.first_mut() {
            first.space = false;
        }
        for t in &mut body {
            t.bol = false;
        }
        self.macros.insert(
            name.text.clone(),
            Definition {
                params,
                variadic,
                body,
            },
        );
    }

    /// Expands every macro of `toks` (the tokens of running text, or of an
    /// `#if` condition), rescanning each replacement with what follows.
    fn expand(&self, toks: Vec<Tok>) -> Vec<Tok> {
        let mut input: Vec<Tok> = toks.into_iter().rev().collect();
        let mut out = Vec::new();
        while let Some(t) = input.pop() {
            if t.kind == Kind::Ident && &*t.text == "defined" {
                // The operand of a `defined` (in a condition, or made by
                // an expansion there) is a name, never expanded.
                out.push(t);
                if input.last().is_some_and(|n| n.is("(")) {
                    out.extend(input.pop());
                }
                out.extend(input.pop());
                continue;
            }
            match self.expand_one(&t, &mut input) {
                Some(replacement) => input.extend(replacement.into_iter().rev()),
                None => out.push(t),
            }
        }
        out.retain(|t| t.kind != Kind::Placemarker);
        out
    }

    /// The replacement of the macro `t` names, taking its arguments from
    /// `input` (reversed); `None` when `t` is no invocation.
    fn expand_one(&self, t: &Tok, input: &mut Vec<Tok>) -> Option<Vec<Tok>> {
        if t.kind != Kind::Ident || t.hide.contains(&t.text) || self.budget.get() == 0 {
            return None;
        }
        let def = self.macros.get(&t.text)?;
        self.budget.set(self.budget.get() - 1);
        let (mut body, hide) = match &def.params {
            None => (def.body.clone(), with(&t.hide, &t.text)),
            Some(params) => {
                if !input.last().is_some_and(|n| n.is("(")) {
                    return None;
                }
                let saved = input.clone();
                input.pop();
                let Some((mut args, close)) = arguments(input, params.len(), def.variadic) else {
                    *input = saved;
                    return None;
                };
                if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                    args.clear();
                }
                if def.variadic && args.len() + 1 == params.len() {
                    args.push(Vec::new());
                }
                if args.len() != params.len() {
                    *input = saved;
                    return None;
                }
                let common: Vec<Rc<str>> = t
                    .hide
                    .iter()
                    .filter(|h| close.hide.contains(h))
                    .cloned()
                    .collect();
                let body = self.substitute(def, params, &args);
                (body, with(&Rc::new(common), &t.text))
            }
        };
        for (i, b) in body.iter_mut().enumerate() {
            b.hide = union(&b.hide, &hide);
            b.bol = false;
            (b.start, b.end) = (t.start, t.end);
            if i == 0 {
                (b.space, b.bol) = (t.space, t.bol);
            }
        }
        if body.is_empty() {
            // Keep the invocation's white space and line start for what follows.
            body.push(Tok {
                kind: Kind::Placemarker,
                text: "".into(),
                hide,
                ..t.clone()
            });
        }
        Some(body)
    }

    /// A function-like macro's body with its parameters replaced.
    fn substitute(&self, def: &Definition, params: &[Rc<str>], args: &[Vec<Tok>]) -> Vec<Tok> {
        let param = |t: &Tok| {
            (t.kind == Kind::Ident)
                .then(|| params.iter().position(|p| *p == t.text))
                .flatten()
        };
        let body = &def.body;
        let mut out: Vec<Tok> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            if t.is("#") {
                if let Some(p) = body.get(i + 1).and_then(param) {
                    let mut s = stringize(&args[p]);
                    s.space = t.space;
                    out.push(s);
                    i += 2;
                    continue;
                }
            }
            if t.is("##") && i + 1 < body.len() {
                let next = &body[i + 1];
                let rhs: Vec<Tok> = match param(next) {
                    Some(p) => args[p].clone(),
                    None => vec![next.clone()],
                };
                let va = param(next).is_some_and(|p| def.variadic && p + 1 == params.len());
                if va && out.last().is_some_and(|l| l.is(",")) {
                    // GNU: `, ## __VA_ARGS__` drops the comma when there
                    // are no variable arguments, and pastes nothing otherwise.
                    let mut rhs = rhs;
                    match rhs.first_mut() {
                        None => {
                            out.pop();
                        }
                        Some(first) => first.space = next.space,
                    }
                    out.extend(rhs);
                    i += 2;
                    continue;
                }
                paste(&mut out, rhs);
                i += 2;
                continue;
            }
            if let Some(p) = param(t) {
                let pasted_next = body.get(i + 1).is_some_and(|n| n.is("##"));
                let nesting = self.nesting.get();
                let mut arg = if pasted_next || nesting >= MAX_ARGUMENT_NESTING {
                    args[p].clone()
                } else {
                    self.nesting.set(nesting + 1);
                    let expanded = self.expand(args[p].clone());
                    self.nesting.set(nesting);
                    expanded
                };
                if arg.is_empty() {
                    arg.push(Tok {
                        kind: Kind::Placemarker,
                        text: "".into(),
                        ..t.clone()
                    });
                }
                arg[0].space = t.space;
                out.extend(arg);
                i += 1;
                continue;
            }
            out.push(t.clone());
            i += 1;
        }
        out
    }

    /// Runs the directives and text of one file.
    fn run(&mut self, path: &Path, text: &str, emit: bool) {
        let toks = lex(text);
        let mut stack: Vec<Cond> = Vec::new();
        let mut pending: Vec<Tok> = Vec::new();
        for range in logical_lines(&toks) {
            let line = &toks[range];
            let live = stack.iter().all(|c| c.taken);
            let begin = line[0].start;
            let end = line_end(text, line[line.len() - 1].end);
            if !line[0].is("#") {
                if live {
                    if emit {
                        pending.extend_from_slice(line);
                    }
                } else {
                    self.blanks.push(Blank::Line(begin..end));
                }
                continue;
            }
            if emit {
                self.flush(&mut pending);
            }
            let keyword = line.get(1).map_or("", |t| &*t.text);
            let args = line.get(2..).unwrap_or(&[]);
            let conditional = matches!(
                keyword,
                "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif"
            );
            if conditional || !live {
                self.blanks.push(Blank::Line(begin..end));
            }
            match keyword {
                "if" | "ifdef" | "ifndef" => {
                    let v = live
                        && match keyword {
                            "ifdef" => args
                                .first()
                                .is_some_and(|t| self.macros.contains_key(&t.text)),
                            "ifndef" => !args
                                .first()
                                .is_some_and(|t| self.macros.contains_key(&t.text)),
                            _ => self.condition(args),
                        };
                    stack.push(Cond {
                        taken: v,
                        any: v,
                        outer: live,
                    });
                }
                "elif" => {
                    if let Some(c) = stack.last_mut() {
                        let open = c.outer && !c.any;
                        c.taken = false;
                        if open && self.condition(args) {
                            let c = stack.last_mut().expect("still there");
                            (c.taken, c.any) = (true, true);
                        }
                    }
                }
                "else" => {
                    if let Some(c) = stack.last_mut() {
                        c.taken = c.outer && !c.any;
                        c.any = true;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                _ => {}
            }
            if conditional
                && keyword != "endif"
                && stack.last().is_some_and(|c| c.outer && !c.taken)
            {
                let last = &line[line.len() - 1];
                self.skipped
                    .push((begin..last.end, text[begin..last.end].to_string()));
            }
            match keyword {
                _ if conditional => {}
                _ if !live => {}
                "define" => {
                    self.define(args);
                    let comments = gaps(text, line, end);
                    self.blanks
                        .extend(comments.into_iter().map(Blank::Comments));
                }
                "undef" => {
                    if let Some(t) = args.first() {
                        self.macros.remove(&t.text);
                    }
                }
                "pragma" if args.first().is_some_and(|t| &*t.text == "once") => {
                    self.once.insert(path.to_path_buf());
                }
                "pragma" if emit => {
                    // A compiler's `-P` output keeps the pragmas it does not
                    // execute (`#pragma unroll`).
                    self.write(line);
                }
                "include" if emit => {
                    let raw = text[line[1].end..line[line.len() - 1].end].trim();
                    self.include(path, raw, args);
                }
                _ => {}
            }
        }
        if emit {
            self.flush(&mut pending);
        }
    }

    fn flush(&mut self, pending: &mut Vec<Tok>) {
        if !pending.is_empty() {
            self.budget.set(MAX_REPLACEMENTS);
            let expanded = self.expand(std::mem::take(pending));
            self.write(&expanded);
        }
    }

    fn write(&mut self, toks: &[Tok]) {
        for t in toks {
            if t.bol && !self.out.is_empty() {
                self.out.push('\n');
            } else if t.space {
                self.out.push(' ');
            }
            self.out.push_str(&t.text);
        }
    }

    fn include(&mut self, includer: &Path, raw: &str, args: &[Tok]) {
        let name_of = |s: &str| -> Option<(String, bool)> {
            if let Some(r) = s.strip_prefix('"') {
                return Some((r.split('"').next()?.to_string(), false));
            }
            let r = s.strip_prefix('<')?;
            Some((r.split('>').next()?.to_string(), true))
        };
        let named = name_of(raw).or_else(|| {
            // `#include MACRO`: the expansion names the header.
            let expanded = self.expand(args.to_vec());
            let s: String = expanded.iter().map(|t| &*t.text).collect();
            name_of(&s)
        });
        let (Some((name, angled)), Some(resolver)) = (named, self.resolver) else {
            return;
        };
        if self.depth >= MAX_INCLUDE_DEPTH {
            return;
        }
        match resolver(includer, &name, angled) {
            Some((path, text)) => {
                if self.once.contains(&path) {
                    return;
                }
                self.out.push('\n');
                self.depth += 1;
                self.run(&path, &text, true);
                self.depth -= 1;
                self.out.push('\n');
            }
            None if angled => self.system.push(name),
            None => self.missing.push(name),
        }
    }

    /// The value of an `#if`/`#elif` condition: `defined` first, then the
    /// macros expanded, then every identifier left is 0. A condition that
    /// is no constant expression is false.
    fn condition(&self, toks: &[Tok]) -> bool {
        // `defined` before expansion, and again after it for a macro that
        // expands to `defined(X)` (GCC reads it so).
        let Some(first) = self.read_defined(toks) else {
            return false;
        };
        self.budget.set(MAX_REPLACEMENTS);
        let Some(expanded) = self.read_defined(&self.expand(first)) else {
            return false;
        };
        let mut p = Eval {
            toks: &expanded,
            at: 0,
        };
        match p.ternary() {
            Some(v) if p.at == expanded.len() => v != 0,
            _ => false,
        }
    }

    /// `toks` with each `defined X` / `defined(X)` replaced by 1 or 0.
    fn read_defined(&self, toks: &[Tok]) -> Option<Vec<Tok>> {
        let mut with_defined = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if t.kind == Kind::Ident && &*t.text == "defined" {
                let (name, skip) = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                    (Some(o), Some(n), Some(c)) if o.is("(") && c.is(")") => (n, 4),
                    (Some(n), _, _) => (n, 2),
                    _ => return None,
                };
                let v = self.macros.contains_key(&name.text) as i64;
                with_defined.push(Tok {
                    kind: Kind::Number,
                    text: v.to_string().into(),
                    ..t.clone()
                });
                i += skip;
                continue;
            }
            with_defined.push(t.clone());
            i += 1;
        }
        Some(with_defined)
    }
}

/// Where the physical line ends (its newline) after the last token of a
/// logical line at `from`: past the comments that start on it, so that
/// blanking up to there never leaves half a comment.
fn line_end(text: &str, from: usize) -> usize {
    let b = text.as_bytes();
    let mut i = from;
    while i < b.len() && b[i] != b'\n' {
        if b[i..].starts_with(b"//") {
            return text[i..].find('\n').map_or(b.len(), |e| i + e);
        }
        if b[i..].starts_with(b"/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
        } else {
            i += 1;
        }
    }
    i
}

/// The comment bytes of a `#define` line (between its tokens and after the
/// last, up to `end`).
fn gaps(text: &str, line: &[Tok], end: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    for (k, t) in line.iter().enumerate() {
        let to = line.get(k + 1).map_or(end, |n| n.start);
        let mut i = t.end;
        while i < to {
            if b[i..].starts_with(b"//") {
                let mut j = i;
                while j < to && b[j] != b'\n' {
                    j += 1;
                }
                out.push(i..j);
                i = j;
            } else if b[i..].starts_with(b"/*") {
                let j = text[i + 2..]
                    .find("*/")
                    .map_or(to, |e| i + 2 + e + 2)
                    .min(to);
                // A comment over several lines would end the directive
                // once blanked: leave it.
                if !text[i..j].contains('\n') {
                    out.push(i..j);
                }
                i = j;
            } else {
                i += 1;
            }
        }
    }
    out
}

fn with(hide: &Rc<Vec<Rc<str>>>, name: &Rc<str>) -> Rc<Vec<Rc<str>>> {
    if hide.contains(name) {
        return hide.clone();
    }
    let mut h = (**hide).clone();
    h.push(name.clone());
    Rc::new(h)
}

fn union(a: &Rc<Vec<Rc<str>>>, b: &Rc<Vec<Rc<str>>>) -> Rc<Vec<Rc<str>>> {
    if a.is_empty() {
        return b.clone();
    }
    if b.iter().all(|n| a.contains(n)) {
        return a.clone();
    }
    let mut h = (**a).clone();
    h.extend(b.iter().filter(|n| !a.contains(n)).cloned());
    Rc::new(h)
}

/// The arguments of an invocation whose `(` was taken from `input`
/// (reversed), and its `)`; `None` if the input ends first.
fn arguments(input: &mut Vec<Tok>, params: usize, variadic: bool) -> Option<(Vec<Vec<Tok>>, Tok)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    loop {
        let mut t = input.pop()?;
        if depth == 0 && t.is(")") {
            return Some((args, t));
        }
        if t.is("(") {
            depth += 1;
        } else if t.is(")") {
            depth -= 1;
        } else if depth == 0 && t.is(",") && !(variadic && args.len() >= params) {
            args.push(Vec::new());
            continue;
        }
        // Inside arguments, a new line is only white space.
        if t.bol {
            (t.bol, t.space) = (false, true);
        }
        let arg = args.last_mut().expect("one at least");
        if arg.is_empty() {
            t.space = false;
        }
        arg.push(t);
    }
}

/// `#arg`: the argument's spelling as a string literal.
fn stringize(arg: &[Tok]) -> Tok {
    let mut s = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        if t.kind == Kind::Literal {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    let base = arg.first().cloned().unwrap_or_else(|| Tok {
        kind: Kind::Literal,
        text: "".into(),
        start: 0,
        end: 0,
        space: false,
        bol: false,
        hide: Rc::new(Vec::new()),
    });
    Tok {
        kind: Kind::Literal,
        text: s.into(),
        ..base
    }
}

/// `lhs ## rhs`: the last token of `out` joined with the first of `rhs`.
fn paste(out: &mut Vec<Tok>, rhs: Vec<Tok>) {
    let mut rhs = rhs.into_iter();
    let Some(first) = rhs.next() else {
        return;
    };
    match out.pop() {
        Some(lhs) if lhs.kind == Kind::Placemarker => out.push(Tok {
            space: lhs.space,
            ..first
        }),
        Some(lhs) if first.kind == Kind::Placemarker => out.push(lhs),
        Some(lhs) => {
            let joined = format!("{}{}", lhs.text, first.text);
            let kind = lex(&joined).first().map_or(Kind::Punct, |t| t.kind);
            out.push(Tok {
                kind,
                text: joined.into(),
                ..lhs
            });
        }
        None => out.push(first),
    }
    out.extend(rhs);
}

/// A constant expression of `#if`, over expanded tokens.
struct Eval<'a> {
    toks: &'a [Tok],
    at: usize,
}

impl Eval<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.at).map(|t| &*t.text)
    }

    fn eat(&mut self, s: &str) -> bool {
        let hit = self.toks.get(self.at).is_some_and(|t| t.is(s));
        self.at += hit as usize;
        hit
    }

    fn ternary(&mut self) -> Option<i64> {
        let c = self.binary(0)?;
        if !self.eat("?") {
            return Some(c);
        }
        let a = self.ternary()?;
        if !self.eat(":") {
            return None;
        }
        let b = self.ternary()?;
        Some(if c != 0 { a } else { b })
    }

    fn binary(&mut self, min: u8) -> Option<i64> {
        let mut lhs = self.unary()?;
        loop {
            let Some(op) = self.peek() else {
                return Some(lhs);
            };
            let prec = match op {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => return Some(lhs),
            };
            if prec < min || self.toks[self.at].kind != Kind::Punct {
                return Some(lhs);
            }
            let op = super::binop(op)?;
            self.at += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = crate::model::fold(op, lhs, rhs)?;
        }
    }

    fn unary(&mut self) -> Option<i64> {
        let t = self.toks.get(self.at)?;
        self.at += 1;
        match (t.kind, &*t.text) {
            (Kind::Punct, "(") => {
                let v = self.ternary()?;
                self.eat(")").then_some(v)
            }
            (Kind::Punct, "-") => self.unary()?.checked_neg(),
            (Kind::Punct, "+") => self.unary(),
            (Kind::Punct, "!") => Some((self.unary()? == 0) as i64),
            (Kind::Punct, "~") => Some(!self.unary()?),
            (Kind::Number, n) => super::parse_int(n),
            (Kind::Literal, l) => char_value(l),
            (Kind::Ident, "true") => Some(1),
            // Every identifier left after expansion (`false` too) is 0.
            (Kind::Ident, _) => Some(0),
            _ => None,
        }
    }
}

/// The value of a plain character literal (`'a'`, `'\n'`, `'\0'`).
fn char_value(l: &str) -> Option<i64> {
    let inner = l.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut cs = inner.chars();
    let v = match (cs.next()?, cs.next()) {
        (c, None) => c as i64,
        ('\\', Some(e)) => match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            '0' => 0,
            '\\' | '\'' | '"' => e as i64,
            _ => return None,
        },
        _ => return None,
    };
    Some(v)
}

/// A text with its conditionals decided.
pub(crate) struct Resolved<'t> {
    /// Borrowed when the text had nothing to blank.
    pub text: Cow<'t, str>,
    /// Each directive that begins a branch the compiler skips (`#if
    /// __CUDA_ARCH__ < 600`, an `#else`), with its span in the text: a
    /// kernel whose code is all skipped is said to be empty, not verified.
    pub skipped: Vec<(Span, String)>,
}

/// `text` with its conditionals decided under `defines` (in order; a later
/// one wins) and the `#define`s the text itself makes: every conditional
/// directive line and every line of a skipped branch becomes spaces, as do
/// the comments of a `#define` line (`#define HALO 16 // why` defines
/// `16`). Lengths, line breaks and so every position stay as they were.
pub(crate) fn resolve_conditionals<'t>(
    text: &'t str,
    defines: &[(String, String)],
) -> Resolved<'t> {
    let unchanged = Resolved {
        text: Cow::Borrowed(text),
        skipped: Vec::new(),
    };
    let mut engine = Engine::new(defines, None);
    if text.contains('#') {
        engine.run(Path::new(""), text, false);
    }
    if text.contains(ALIGN_ATTRIBUTE) {
        engine
            .blanks
            .extend(alignment_attributes(text).into_iter().map(Blank::Line));
    }
    if engine.blanks.is_empty() {
        return unchanged;
    }
    let lines = crate::report::LineStarts::new(text);
    let skipped = engine
        .skipped
        .iter()
        .map(|(r, directive)| {
            let span = Span {
                start: lines.point(text, r.start),
                end: lines.point(text, r.end),
            };
            (span, directive.trim().to_string())
        })
        .collect();
    let mut bytes = text.as_bytes().to_vec();
    for blank in &engine.blanks {
        let (Blank::Line(r) | Blank::Comments(r)) = blank;
        for b in &mut bytes[r.clone()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only whole characters were replaced (each byte of one becomes a space).
    Resolved {
        text: Cow::Owned(String::from_utf8(bytes).expect("ASCII spaces over whole characters")),
        skipped,
    }
}

/// CUDA's alignment attribute, `__align__(N)`: a macro of the CUDA headers
/// (`__attribute__((aligned(N)))`) that the grammar does not know, so
/// `__shared__ unsigned char __align__(8) buf[64];` would not parse.
const ALIGN_ATTRIBUTE: &str = "__align__";

/// The byte ranges of every `__align__(N)` in code (not in a comment or a
/// string): blanked like a skipped line. Alignment changes where an array
/// starts, never which cells two accesses name (distinct declarations are
/// distinct memory in the model), so dropping it loses nothing the race
/// analysis reads.
fn alignment_attributes(text: &str) -> Vec<std::ops::Range<usize>> {
    let toks = lex(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let is_attribute = t.kind == Kind::Ident && &*t.text == ALIGN_ATTRIBUTE;
        if !is_attribute || !toks.get(i + 1).is_some_and(|p| p.is("(")) {
            i += 1;
            continue;
        }
        // To the matching `)`; an unclosed one is left for the parser to report.
        let mut depth = 0usize;
        let mut close = None;
        for (j, u) in toks.iter().enumerate().skip(i + 1) {
            if u.is("(") {
                depth += 1;
            } else if u.is(")") {
                depth -= 1;
                if depth == 0 {
                    close = Some(j);
                    break;
                }
            }
        }
        let Some(j) = close else { break };
        out.push(t.start..toks[j].end);
        i = j + 1;
    }
    out
}

/// What [`preprocess`] wrote and what its `#include`s could not find.
#[derive(Clone, Debug, Default)]
pub struct Preprocessed {
    /// The tokens a compiler reads, one logical line per line.
    pub text: String,
    /// `#include "name"` found neither beside the includer nor in a folder.
    pub missing: Vec<String>,
    /// `#include <name>` found in no folder: system headers, which the
    /// analysis takes from its built-in model (no text here).
    pub system: Vec<String>,
}

/// The file at `path`, holding `text`, preprocessed as `cpp -P` with these
/// `-D` (in order) and `-I` folders would: `"name"` is looked for beside
/// its includer and then in the folders, `<name>` in the folders.
pub fn preprocess(
    path: &Path,
    text: &str,
    defines: &[(String, String)],
    include_dirs: &[PathBuf],
) -> Preprocessed {
    let resolver = |includer: &Path, name: &str, angled: bool| {
        let beside = includer.parent().map(|d| d.join(name));
        let in_dirs = include_dirs.iter().map(|d| d.join(name));
        let candidates: Vec<PathBuf> = if angled {
            in_dirs.collect()
        } else {
            beside.into_iter().chain(in_dirs).collect()
        };
        candidates.into_iter().find_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some((std::fs::canonicalize(&p).unwrap_or(p), text))
        })
    };
    let mut engine = Engine::new(defines, Some(&resolver));
    engine.run(path, text, true);
    Preprocessed {
        text: engine.out,
        missing: engine.missing,
        system: engine.system,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(src: &str) -> String {
        preprocess(Path::new("t.cu"), src, &[], &[])
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn comments_after_a_define_are_not_its_body() {
        assert_eq!(
            expand("#define HALO 16 // rows\nint a[HALO];"),
            "int a[16];"
        );
        let r = resolve_conditionals("#define HALO 16 // rows\nx", &[]).text;
        assert_eq!(r, "#define HALO 16        \nx");
    }

    #[test]
    fn alignment_attributes_are_blanked_in_code_only() {
        let src = "__shared__ char __align__(8) b[4]; // __align__(4)\nstruct __align__((16)) P { int a; };\n";
        let r = resolve_conditionals(src, &[]).text;
        assert_eq!(r.len(), src.len());
        let blanked = |s: &str| " ".repeat(s.len());
        let expected = src
            .replacen("__align__(8)", &blanked("__align__(8)"), 1)
            .replace("__align__((16))", &blanked("__align__((16))"));
        assert_eq!(r, expected);
        assert!(r.contains("// __align__(4)"));
        assert!(matches!(
            resolve_conditionals("int x;", &[]).text,
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn conditionals_keep_positions() {
        let src = "void f(int a,\n#if WIDE\n long b\n#else\n int b\n#endif\n);\n";
        let resolved = resolve_conditionals(src, &[]);
        let r = resolved.text;
        assert_eq!(r.len(), src.len());
        assert_eq!(resolved.skipped.len(), 1);
        assert_eq!(resolved.skipped[0].1, "#if WIDE");
        assert_eq!(resolved.skipped[0].0.start.line, 1);
        assert_eq!(
            r,
            "void f(int a,\n        \n       \n     \n int b\n      \n);\n"
        );
    }

    #[test]
    fn defined_from_an_expansion_and_hostile_growth() {
        let src = "#define HAS_A defined(A)\n#define A\n#if HAS_A && !defined(B)\nyes\n#endif\n";
        assert_eq!(expand(src), "yes");
        // Each level doubles: 2^40 tokens if nothing stopped it.
        let mut src = String::from("#define L0 1\n");
        for i in 1..=40 {
            src.push_str(&format!("#define L{i} L{} + L{}\n", i - 1, i - 1));
        }
        src.push_str("#if L40\nbig\n#endif\nafter\n");
        assert_eq!(resolve_conditionals(&src, &[]).text.len(), src.len());
    }

    #[test]
    fn escapes_before_wide_characters_end_on_a_boundary() {
        let src = "#if 0\nchar c = '\\é'; const char *s = \"\\é\n#endif\nx\n";
        let r = resolve_conditionals(src, &[]);
        assert_eq!(r.text.len(), src.len());
        assert!(r.text.ends_with("x\n"));
    }

    #[test]
    fn self_reference_and_paste() {
        assert_eq!(expand("#define foo foo + 1\nfoo"), "foo + 1");
        assert_eq!(expand("#define CAT(a,b) a##b\nCAT(x,1) CAT(,y)"), "x1 y");
        assert_eq!(
            expand("#define S(x) #x\nS( a  \"b\\n\" c )"),
            "\"a \\\"b\\\\n\\\" c\""
        );
        assert_eq!(
            expand("#define P(f, ...) g(f, ## __VA_ARGS__)\nP(a) P(a, b, c)"),
            "g(a) g(a, b, c)"
        );
    }
}
