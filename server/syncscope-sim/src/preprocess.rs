//! A small C preprocessor of its own: `#define` (object- and function-like),
//! `#undef`, conditionals with constant expressions, `#include "..."`.
//!
//! The output keeps one line per line of the input files, and a line map
//! back to the line it came from, so that accesses are reported where they
//! were written. System includes (`<...>`) are skipped: what they declare is
//! either a builtin of the simulator or unsupported when used.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Preprocessed text and, for each of its lines (0-based), the 1-based line
/// of the file it was written in.
pub struct Text {
    pub text: String,
    pub lines: Vec<usize>,
}

#[derive(Clone)]
struct Macro {
    params: Option<Vec<String>>,
    variadic: bool,
    body: String,
}

struct State {
    macros: HashMap<String, Macro>,
    include_dirs: Vec<PathBuf>,
    /// `#include "..."` lines are dropped: the source already holds them.
    includes_expanded: bool,
    out: String,
    lines: Vec<usize>,
    depth: usize,
}

pub fn preprocess(
    file: &Path,
    source: &str,
    defines: &[(String, String)],
    include_dirs: &[PathBuf],
    includes_expanded: bool,
) -> Result<Text, String> {
    let mut st = State {
        macros: HashMap::new(),
        include_dirs: include_dirs.to_vec(),
        includes_expanded,
        out: String::new(),
        lines: Vec::new(),
        depth: 0,
    };
    // The device compilation pass, as nvcc runs it, read as Syncscope reads
    // it (`__SYNCSCOPE__`: the annotations `syncscope.h` hides from a real
    // compiler are kept).
    for (k, v) in [
        ("__SYNCSCOPE__", "1"),
        ("__CUDACC__", "1"),
        ("__CUDA_ARCH__", "800"),
        ("__NVCC__", "1"),
    ] {
        st.define_object(k, v);
    }
    for (k, v) in defines {
        st.define_object(k, v);
    }
    st.file(file, source)?;
    Ok(Text {
        text: st.out,
        lines: st.lines,
    })
}

/// Comments replaced by a space (newlines inside block comments kept), then
/// backslash-newline joins, each joined line followed by empty lines so the
/// count stays the same.
fn logical_lines(source: &str) -> Vec<String> {
    let mut clean = String::with_capacity(source.len());
    let b: Vec<char> = source.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                // A line comment ends at a newline not escaped by `\`.
                if b[i] == '\\' && b.get(i + 1) == Some(&'\n') {
                    clean.push('\\');
                    clean.push('\n');
                    i += 2;
                    continue;
                }
                i += 1;
            }
            clean.push(' ');
            continue;
        }
        if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                if b[i] == '\n' {
                    clean.push('\n');
                }
                i += 1;
            }
            i += 2;
            clean.push(' ');
            continue;
        }
        if c == '"' || c == '\'' {
            clean.push(c);
            i += 1;
            while i < b.len() && b[i] != c && b[i] != '\n' {
                if b[i] == '\\' && i + 1 < b.len() {
                    clean.push(b[i]);
                    i += 1;
                }
                clean.push(b[i]);
                i += 1;
            }
            if i < b.len() && b[i] == c {
                clean.push(c);
                i += 1;
            }
            continue;
        }
        clean.push(c);
        i += 1;
    }
    let mut out = Vec::new();
    let mut pending = String::new();
    let mut joined = 0;
    for raw in clean.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(head) = raw.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            joined += 1;
            continue;
        }
        pending.push_str(raw);
        out.push(std::mem::take(&mut pending));
        for _ in 0..joined {
            out.push(String::new());
        }
        joined = 0;
    }
    if !pending.is_empty() {
        out.push(pending);
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Cond {
    /// This branch is taken.
    Active,
    /// No branch taken yet; a later `#elif`/`#else` may be.
    Waiting,
    /// A branch was taken already, or the whole group is inside a skipped
    /// region.
    Done,
}

impl State {
    fn define_object(&mut self, name: &str, value: &str) {
        self.macros.insert(
            name.to_string(),
            Macro {
                params: None,
                variadic: false,
                body: value.trim().to_string(),
            },
        );
    }

    fn file(&mut self, path: &Path, source: &str) -> Result<(), String> {
        self.depth += 1;
        if self.depth > 40 {
            return Err("#include nested too deeply".into());
        }
        let mut conds: Vec<Cond> = Vec::new();
        for (i, line) in logical_lines(source).into_iter().enumerate() {
            let active = conds.iter().all(|c| *c == Cond::Active);
            let t = line.trim_start();
            if let Some(dir) = t.strip_prefix('#') {
                let dir = dir.trim_start();
                let (name, rest) = split_word(dir);
                let rest = rest.trim();
                match name {
                    "if" | "ifdef" | "ifndef" => {
                        let c = if !active {
                            Cond::Done
                        } else {
                            let v = match name {
                                "ifdef" => self.macros.contains_key(first_word(rest)),
                                "ifndef" => !self.macros.contains_key(first_word(rest)),
                                _ => self.condition(rest)?,
                            };
                            if v {
                                Cond::Active
                            } else {
                                Cond::Waiting
                            }
                        };
                        conds.push(c);
                    }
                    "elif" | "elifdef" | "elifndef" => {
                        let Some(top) = conds.pop() else {
                            return Err("#elif without #if".into());
                        };
                        let outer = conds.iter().all(|c| *c == Cond::Active);
                        let c = match top {
                            Cond::Waiting if outer => {
                                let v = match name {
                                    "elifdef" => self.macros.contains_key(first_word(rest)),
                                    "elifndef" => !self.macros.contains_key(first_word(rest)),
                                    _ => self.condition(rest)?,
                                };
                                if v {
                                    Cond::Active
                                } else {
                                    Cond::Waiting
                                }
                            }
                            _ => Cond::Done,
                        };
                        conds.push(c);
                    }
                    "else" => {
                        let Some(top) = conds.pop() else {
                            return Err("#else without #if".into());
                        };
                        conds.push(if top == Cond::Waiting {
                            Cond::Active
                        } else {
                            Cond::Done
                        });
                    }
                    "endif" => {
                        if conds.pop().is_none() {
                            return Err("#endif without #if".into());
                        }
                    }
                    _ if !active => {}
                    "define" => self.define(rest)?,
                    "undef" => {
                        self.macros.remove(first_word(rest));
                    }
                    "include" => {
                        // The include's lines are its own; this line itself
                        // becomes empty.
                        self.include(path, rest)?;
                    }
                    "pragma" | "line" | "" | "warning" => {}
                    "error" => return Err(format!("#error {rest}")),
                    other => return Err(format!("preprocessor directive #{other}")),
                }
                self.emit("", i + 1);
                continue;
            }
            if active {
                let expanded = self.expand(&line, &mut HashSet::new(), 0)?;
                self.emit(&expanded, i + 1);
            } else {
                self.emit("", i + 1);
            }
        }
        if !conds.is_empty() {
            return Err("#if without #endif".into());
        }
        self.depth -= 1;
        Ok(())
    }

    fn emit(&mut self, text: &str, line: usize) {
        self.out.push_str(text);
        self.out.push('\n');
        self.lines.push(line);
    }

    fn include(&mut self, from: &Path, rest: &str) -> Result<(), String> {
        let rest = rest.trim();
        if rest.starts_with('<') || self.includes_expanded {
            return Ok(());
        }
        let Some(name) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) else {
            return Err(format!("#include {rest}"));
        };
        let mut candidates = Vec::new();
        if let Some(dir) = from.parent() {
            candidates.push(dir.join(name));
        }
        candidates.extend(self.include_dirs.iter().map(|d| d.join(name)));
        for c in candidates {
            if let Ok(text) = std::fs::read_to_string(&c) {
                return self.file(&c, &text);
            }
        }
        // Syncscope's annotation header defines nothing in the pass read
        // here (`__SYNCSCOPE__`): not finding it loses nothing.
        if name == "syncscope.h" {
            return Ok(());
        }
        Err(format!("#include \"{name}\" (not found)"))
    }

    fn define(&mut self, rest: &str) -> Result<(), String> {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            return Err("#define without a name".into());
        }
        let after = &rest[name.len()..];
        if let Some(params) = after.strip_prefix('(') {
            let Some(close) = params.find(')') else {
                return Err(format!("#define {name}( without `)`"));
            };
            let mut names = Vec::new();
            let mut variadic = false;
            for p in params[..close].split(',') {
                let p = p.trim();
                if p == "..." {
                    variadic = true;
                } else if !p.is_empty() {
                    names.push(p.to_string());
                }
            }
            self.macros.insert(
                name,
                Macro {
                    params: Some(names),
                    variadic,
                    body: params[close + 1..].trim().to_string(),
                },
            );
        } else {
            self.define_object(&name, after);
        }
        Ok(())
    }

    /// Macro expansion of one line. `hidden`: the macros being expanded
    /// (not expanded again inside themselves).
    fn expand(
        &self,
        text: &str,
        hidden: &mut HashSet<String>,
        depth: usize,
    ) -> Result<String, String> {
        if depth > 64 {
            return Err("macro expansion nested too deeply".into());
        }
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '"' || c == '\'' {
                let start = i;
                i += 1;
                while i < chars.len() && chars[i] != c {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i = (i + 1).min(chars.len());
                out.extend(&chars[start..i]);
                continue;
            }
            if c.is_ascii_digit() {
                // A number (with its suffix or exponent) is no identifier.
                while i < chars.len()
                    && (chars[i].is_alphanumeric()
                        || chars[i] == '.'
                        || chars[i] == '_'
                        || ((chars[i] == '+' || chars[i] == '-')
                            && matches!(chars[i - 1], 'e' | 'E' | 'p' | 'P')))
                {
                    out.push(chars[i]);
                    i += 1;
                }
                continue;
            }
            if !(c.is_alphabetic() || c == '_') {
                out.push(c);
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let Some(m) = self.macros.get(&word).filter(|_| !hidden.contains(&word)) else {
                out.push_str(&word);
                continue;
            };
            let body = match &m.params {
                None => m.body.clone(),
                Some(params) => {
                    let mut j = i;
                    while j < chars.len() && chars[j].is_whitespace() {
                        j += 1;
                    }
                    if chars.get(j) != Some(&'(') {
                        // A function-like macro's name without arguments
                        // is just a name.
                        out.push_str(&word);
                        continue;
                    }
                    let (args, end) = split_args(&chars, j)?;
                    i = end;
                    let mut expanded_args = Vec::new();
                    for a in &args {
                        expanded_args.push(self.expand(a, hidden, depth + 1)?);
                    }
                    substitute(&word, m, params, &args, &expanded_args)?
                }
            };
            hidden.insert(word.clone());
            let again = self.expand(&body, hidden, depth + 1)?;
            hidden.remove(&word);
            out.push(' ');
            out.push_str(&again);
            out.push(' ');
        }
        Ok(out)
    }

    fn condition(&self, text: &str) -> Result<bool, String> {
        // `defined X` / `defined(X)` first, before expansion.
        let chars: Vec<char> = text.chars().collect();
        let mut pre = String::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_alphabetic() || chars[i] == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let w: String = chars[start..i].iter().collect();
                if w == "defined" {
                    let mut j = i;
                    while j < chars.len() && (chars[j].is_whitespace() || chars[j] == '(') {
                        j += 1;
                    }
                    let s = j;
                    while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                        j += 1;
                    }
                    let name: String = chars[s..j].iter().collect();
                    while j < chars.len() && (chars[j].is_whitespace() || chars[j] == ')') {
                        j += 1;
                    }
                    i = j;
                    pre.push_str(if self.macros.contains_key(&name) {
                        " 1 "
                    } else {
                        " 0 "
                    });
                } else {
                    pre.push_str(&w);
                }
                continue;
            }
            pre.push(chars[i]);
            i += 1;
        }
        let expanded = self.expand(&pre, &mut HashSet::new(), 0)?;
        let tokens = cond_tokens(&expanded)?;
        let mut p = CondParser { t: &tokens, i: 0 };
        let v = p.ternary()?;
        if p.i != tokens.len() {
            return Err(format!("#if {text}"));
        }
        Ok(v != 0)
    }
}

fn split_word(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

fn first_word(s: &str) -> &str {
    split_word(s.trim()).0
}

/// The arguments of a macro call whose `(` is at `open`, and the index
/// after its `)`.
fn split_args(chars: &[char], open: usize) -> Result<(Vec<String>, usize), String> {
    let mut depth = 0;
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut i = open;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '(' => {
                depth += 1;
                if depth > 1 {
                    cur.push(c);
                }
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    args.push(cur);
                    return Ok((args, i + 1));
                }
                cur.push(c);
            }
            ',' if depth == 1 => args.push(std::mem::take(&mut cur)),
            '"' | '\'' => {
                cur.push(c);
                i += 1;
                while i < chars.len() && chars[i] != c {
                    if chars[i] == '\\' {
                        cur.push(chars[i]);
                        i += 1;
                    }
                    if i < chars.len() {
                        cur.push(chars[i]);
                    }
                    i += 1;
                }
                if i < chars.len() {
                    cur.push(c);
                }
            }
            _ => cur.push(c),
        }
        i += 1;
    }
    Err("a macro call whose arguments span lines".into())
}

fn substitute(
    name: &str,
    m: &Macro,
    params: &[String],
    raw: &[String],
    expanded: &[String],
) -> Result<String, String> {
    let mut raw = raw.to_vec();
    let mut expanded = expanded.to_vec();
    if params.is_empty() && !m.variadic && raw.len() == 1 && raw[0].trim().is_empty() {
        raw.clear();
        expanded.clear();
    }
    let index_of = |w: &str| -> Option<usize> {
        if m.variadic && w == "__VA_ARGS__" {
            return Some(params.len());
        }
        params.iter().position(|p| p == w)
    };
    if m.variadic {
        if raw.len() < params.len() {
            return Err(format!("macro {name}: too few arguments"));
        }
        let rest_raw = raw[params.len()..].join(",");
        let rest_exp = expanded[params.len()..].join(",");
        raw.truncate(params.len());
        expanded.truncate(params.len());
        raw.push(rest_raw);
        expanded.push(rest_exp);
    } else if raw.len() != params.len() {
        return Err(format!("macro {name}: wrong number of arguments"));
    }
    // Tokens of the body: words and single other characters.
    let body: Vec<char> = m.body.chars().collect();
    let mut toks: Vec<String> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c.is_alphanumeric() || c == '_' {
            let s = i;
            while i < body.len() && (body[i].is_alphanumeric() || body[i] == '_') {
                i += 1;
            }
            toks.push(body[s..i].iter().collect());
        } else if c == '#' && body.get(i + 1) == Some(&'#') {
            toks.push("##".into());
            i += 2;
        } else {
            toks.push(c.to_string());
            i += 1;
        }
    }
    let mut out = String::new();
    let mut k = 0;
    while k < toks.len() {
        let t = &toks[k];
        if t == "#" {
            // Stringification of the next parameter.
            let mut n = k + 1;
            while n < toks.len() && toks[n].trim().is_empty() {
                n += 1;
            }
            if let Some(p) = toks.get(n).and_then(|w| index_of(w)) {
                out.push('"');
                out.push_str(&raw[p].trim().replace('\\', "\\\\").replace('"', "\\\""));
                out.push('"');
                k = n + 1;
                continue;
            }
        }
        if t == "##" {
            while out.ends_with(' ') {
                out.pop();
            }
            k += 1;
            while k < toks.len() && toks[k].trim().is_empty() {
                k += 1;
            }
            if let Some(w) = toks.get(k) {
                match index_of(w) {
                    Some(p) => out.push_str(raw[p].trim()),
                    None => out.push_str(w),
                }
            }
            k += 1;
            continue;
        }
        match index_of(t) {
            Some(p) => {
                let next_paste = toks[k + 1..]
                    .iter()
                    .find(|w| !w.trim().is_empty())
                    .is_some_and(|w| w == "##");
                if next_paste {
                    out.push_str(raw[p].trim());
                } else {
                    out.push_str(&expanded[p]);
                }
            }
            None => out.push_str(t),
        }
        k += 1;
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq)]
enum CondTok {
    Num(i64),
    Op(&'static str),
}

fn cond_tokens(text: &str) -> Result<Vec<CondTok>, String> {
    const OPS: [&str; 24] = [
        "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "!",
        "~", "&", "|", "^", "(", ")", "?", ":",
    ];
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < chars.len() && (chars[i].is_alphanumeric()) {
                i += 1;
            }
            let w: String = chars[s..i].iter().collect();
            let digits = w.trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = digits
                .strip_prefix("0x")
                .or_else(|| digits.strip_prefix("0X"))
            {
                i64::from_str_radix(h, 16)
            } else if digits.len() > 1 && digits.starts_with('0') {
                i64::from_str_radix(&digits[1..], 8)
            } else {
                digits.parse()
            };
            out.push(CondTok::Num(v.map_err(|_| format!("#if number {w}"))?));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            // An identifier left after expansion is 0 (`true` is 1 in C++).
            let s = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let w: String = chars[s..i].iter().collect();
            out.push(CondTok::Num(i64::from(w == "true")));
            continue;
        }
        let rest: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        let Some(op) = OPS.iter().find(|o| rest.starts_with(**o)) else {
            return Err(format!("#if with `{c}`"));
        };
        out.push(CondTok::Op(op));
        i += op.len();
    }
    Ok(out)
}

struct CondParser<'a> {
    t: &'a [CondTok],
    i: usize,
}

impl CondParser<'_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.t.get(self.i) {
            Some(CondTok::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn ternary(&mut self) -> Result<i64, String> {
        let c = self.binary(0)?;
        if self.peek_op() == Some("?") {
            self.i += 1;
            let a = self.ternary()?;
            if self.peek_op() != Some(":") {
                return Err("#if ?: without :".into());
            }
            self.i += 1;
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> Result<i64, String> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek_op() {
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
                _ => break,
            };
            if prec < min {
                break;
            }
            self.i += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = match op {
                "||" => i64::from(lhs != 0 || rhs != 0),
                "&&" => i64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i64::from(lhs == rhs),
                "!=" => i64::from(lhs != rhs),
                "<" => i64::from(lhs < rhs),
                ">" => i64::from(lhs > rhs),
                "<=" => i64::from(lhs <= rhs),
                ">=" => i64::from(lhs >= rhs),
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => return Err("#if division by zero".into()),
                "/" => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<i64, String> {
        match self.t.get(self.i) {
            Some(CondTok::Num(n)) => {
                self.i += 1;
                Ok(*n)
            }
            Some(CondTok::Op("(")) => {
                self.i += 1;
                let v = self.ternary()?;
                if self.peek_op() != Some(")") {
                    return Err("#if without `)`".into());
                }
                self.i += 1;
                Ok(v)
            }
            Some(CondTok::Op("!")) => {
                self.i += 1;
                Ok(i64::from(self.unary()? == 0))
            }
            Some(CondTok::Op("-")) => {
                self.i += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some(CondTok::Op("+")) => {
                self.i += 1;
                self.unary()
            }
            Some(CondTok::Op("~")) => {
                self.i += 1;
                Ok(!self.unary()?)
            }
            _ => Err("#if expression".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pp(src: &str) -> Text {
        preprocess(Path::new("/nonexistent/x.cu"), src, &[], &[], false).unwrap()
    }

    #[test]
    fn a_trailing_comment_is_not_part_of_the_value() {
        let t = pp("#define HALO 16 // the halo\nint a = HALO;\n");
        assert_eq!(t.text.lines().nth(1).unwrap().trim(), "int a =  16 ;");
        assert_eq!(t.lines, vec![1, 2, 3]);
    }

    #[test]
    fn function_like_multi_line_macros_and_conditionals() {
        let t = pp(
            "#define SQ(x) \\\n  ((x) * (x))\n#if SQ(3) == 9 && defined(SQ)\nint a = SQ(2);\n#else\nint a = 0;\n#endif\n",
        );
        let lines: Vec<&str> = t.text.lines().collect();
        assert!(lines[3].contains("((2) * (2))"), "{lines:?}");
        assert!(!lines[5].contains("int"), "{lines:?}");
        assert_eq!(t.lines.len(), lines.len());
    }

    #[test]
    fn ifdef_elif_and_nesting() {
        let t = pp("#ifdef NOPE\nA\n#elif 1\n#ifndef NOPE\nB\n#endif\n#else\nC\n#endif\n");
        let words: Vec<&str> = t.text.split_whitespace().collect();
        assert_eq!(words, ["B"]);
    }

    #[test]
    fn unbalanced_conditionals_are_errors() {
        assert!(preprocess(Path::new("x.cu"), "#if 1\n", &[], &[], false).is_err());
        assert!(preprocess(Path::new("x.cu"), "#endif\n", &[], &[], false).is_err());
    }
}
