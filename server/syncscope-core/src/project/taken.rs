//! The analysed file's text as the compiler reads it: the lines of the
//! branches its `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else` conditionals do not
//! take become blanks (every byte a space, so every offset and line stays
//! where it was), and so do the conditional lines themselves inside
//! parentheses: a conditional inside an argument or parameter list
//! (`k<<<g, b>>>(out,\n#ifndef W\n w,\n#endif\n n)`) then reads as the list
//! it leaves, which the grammar (that parses a conditional only where a
//! statement or declaration may stand) could not parse. Elsewhere the
//! conditional lines stay, around their taken branch alone.
//!
//! A conditional whose branch is not decided ([`Reach::Unknown`]: a
//! function-like macro, `__has_include`) is kept as it is written, its
//! lines too (the tree's own reading of conditionals stays for it). Which
//! branch is taken is `conditions`' (the macros defined so far, headers
//! included); this only blanks.

use super::conditions::Reach;

/// One preprocessor line of the analysed file as the unit builder met it.
#[derive(Clone, Debug)]
pub(crate) struct Directive {
    /// `if`, `ifdef`, `else`, `define`, `include`, ...
    pub keyword: String,
    /// Its first and last line, 0-based (continuations included).
    pub lines: (usize, usize),
    /// Whether the text before it is taken.
    pub before: Reach,
    /// Whether the text after it is taken (its branch, for a conditional).
    pub after: Reach,
    /// Whether its condition names `__CUDA_ARCH__`: decided for the device
    /// pass only, while launches are host code of the host pass, where it
    /// goes the other way; kept as written.
    pub names_arch: bool,
    /// Whether it stands inside parentheses (an argument or parameter
    /// list), where the grammar cannot parse a conditional.
    pub in_parentheses: bool,
}

/// How many parentheses are open at the end of `text`, comments, string
/// and character literals and preprocessor lines skipped.
pub(crate) fn parenthesis_depth(text: &str) -> usize {
    let mut depth = 0usize;
    let b = text.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' {
            // A directive: to the end of its line (continuations included).
            while i < b.len() && !(b[i] == b'\n' && (i == 0 || b[i - 1] != b'\\')) {
                i += 1;
            }
            continue;
        }
        match c {
            b'\n' => line_start = true,
            b' ' | b'\t' | b'\r' => {}
            _ => line_start = false,
        }
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    depth
}

fn opens(keyword: &str) -> bool {
    matches!(keyword, "if" | "ifdef" | "ifndef")
}

fn switches(keyword: &str) -> bool {
    matches!(keyword, "elif" | "elifdef" | "elifndef" | "else")
}

/// `text` with what the preprocessor drops blanked (see the module doc).
pub(crate) fn taken_text(text: &str, directives: &[Directive]) -> String {
    if !directives.iter().any(|d| opens(&d.keyword)) {
        return text.to_string();
    }
    // Each conditional group: its directives (by index) and whether all
    // of it is decided (outside a taken text, every branch decided).
    let mut group_of: Vec<Option<usize>> = vec![None; directives.len()];
    let mut decided: Vec<bool> = Vec::new();
    let mut in_parentheses: Vec<bool> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (i, d) in directives.iter().enumerate() {
        let k = d.keyword.as_str();
        if opens(k) {
            let g = decided.len();
            decided.push(d.before != Reach::Unknown && d.after != Reach::Unknown && !d.names_arch);
            in_parentheses.push(d.in_parentheses);
            open.push(g);
            group_of[i] = Some(g);
        } else if switches(k) || k == "endif" {
            let Some(&g) = open.last() else {
                continue;
            };
            // (In a skipped group every branch is skipped: decided.)
            if switches(k) && (d.after == Reach::Unknown || d.names_arch) {
                decided[g] = false;
            }
            group_of[i] = Some(g);
            if k == "endif" {
                open.pop();
            }
        }
    }
    // An unterminated conditional: the text is left as written.
    if !open.is_empty() {
        return text.to_string();
    }
    // Per line: blank or not. Inside an undecided group nothing is blanked
    // (the tree reads its conditionals, every branch for launches).
    let line_count = text.split_inclusive('\n').count();
    let mut blank = vec![false; line_count];
    let mut reach = Reach::Taken;
    let mut next_line = 0usize;
    let mut undecided_open = 0usize;
    for (i, d) in directives.iter().enumerate() {
        let (first, last) = d.lines;
        for b in blank.iter_mut().take(first.min(line_count)).skip(next_line) {
            *b = reach == Reach::NotTaken && undecided_open == 0;
        }
        let k = d.keyword.as_str();
        let drop = match group_of[i] {
            Some(g) => {
                if !decided[g] && k == "endif" {
                    undecided_open -= 1;
                }
                // Elsewhere the tree keeps the conditional (its taken
                // branch alone is left in it), so that a kernel whose code
                // was all left out is still said to be empty.
                let drop = decided[g] && undecided_open == 0 && in_parentheses[g];
                if !decided[g] && opens(k) {
                    undecided_open += 1;
                }
                drop
            }
            // Another directive (`#define`, `#include`) in a skipped branch.
            None => d.before == Reach::NotTaken && undecided_open == 0,
        };
        for b in blank
            .iter_mut()
            .take((last + 1).min(line_count))
            .skip(first)
        {
            *b = drop;
        }
        reach = d.after;
        next_line = last + 1;
    }
    for b in blank.iter_mut().skip(next_line) {
        *b = reach == Reach::NotTaken;
    }
    let mut out = String::with_capacity(text.len());
    for (line, blank) in text.split_inclusive('\n').zip(blank) {
        if blank {
            for c in line.chars() {
                match c {
                    '\n' | '\r' => out.push(c),
                    // A multi-byte character keeps its bytes' length.
                    c => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
                }
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::Macro;
    use crate::project::conditions::Conditions;
    use std::collections::HashMap;

    /// Open parentheses before line `line` (no comments or strings in
    /// these texts).
    fn depth_before_line(text: &str, line: usize) -> usize {
        let before: String = text.lines().take(line).collect::<Vec<_>>().join("\n");
        parenthesis_depth(&before)
    }

    /// The taken text of `text` with `defined` macros, the directives read
    /// as the unit builder reads them.
    fn taken_with(text: &str, defined: &[&str]) -> String {
        let mut macros: HashMap<String, Macro> = defined
            .iter()
            .map(|n| {
                (
                    n.to_string(),
                    Macro {
                        params: None,
                        body: "1".into(),
                    },
                )
            })
            .collect();
        let mut conditions = Conditions::default();
        let mut directives = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let rest = rest.trim_start();
            let k = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let before = conditions.reach();
            conditions.apply(&rest[..k], &rest[k..], &mut macros);
            directives.push(Directive {
                keyword: rest[..k].to_string(),
                lines: (i, i),
                before,
                after: conditions.reach(),
                names_arch: rest.contains("__CUDA_ARCH__"),
                in_parentheses: depth_before_line(text, i) > 0,
            });
        }
        taken_text(text, &directives)
    }

    #[test]
    fn a_conditional_inside_an_argument_list_reads_as_the_arguments_it_leaves() {
        let text = "k<<<1, 2>>>(out,\n#ifndef W\n  w,\n#else\n  32,\n#endif\n  n);\n";
        let open = taken_with(text, &[]);
        assert_eq!(open.len(), text.len());
        assert_eq!(open.lines().count(), text.lines().count());
        let kept: Vec<&str> = open.split_whitespace().collect();
        assert_eq!(kept, ["k<<<1,", "2>>>(out,", "w,", "n);"]);
        let fixed = taken_with(text, &["W"]);
        let kept: Vec<&str> = fixed.split_whitespace().collect();
        assert_eq!(kept, ["k<<<1,", "2>>>(out,", "32,", "n);"]);
    }

    #[test]
    fn an_undecided_conditional_is_kept_as_written_with_all_it_holds() {
        let text = "#if __has_include(<x.h>)\na\n#ifdef Q\nb\n#endif\n#else\nc\n#endif\n#ifdef Q\nd\n#endif\ne\n";
        let out = taken_with(text, &[]);
        // Everything inside the undecided group stays; the decided
        // `#ifdef Q` after it keeps its lines around an emptied branch.
        let cut = text.find("\n#ifdef Q\nd").unwrap();
        assert_eq!(&out[..cut], &text[..cut]);
        assert!(out[cut..].contains("#ifdef Q"));
        assert!(!out[cut..].contains("\nd\n"));
        assert!(out.ends_with("e\n"));
    }

    #[test]
    fn a_condition_on_the_device_pass_is_kept_for_the_host_code_under_it() {
        // `__CUDA_ARCH__` is defined for the device pass Syncscope reads,
        // undefined for the host pass that runs the launch.
        let text = "#ifndef __CUDA_ARCH__\nk<<<1, 64>>>(p);\n#endif\n";
        let out = taken_with(text, &["__CUDA_ARCH__"]);
        assert_eq!(out, text);
    }

    #[test]
    fn a_conditional_outside_parentheses_keeps_its_lines_around_its_taken_branch() {
        let text = "void f() {\n#ifndef W\n  int w = 80;\n#else\n  int w = 16;\n#endif\n}\n";
        let out = taken_with(text, &[]);
        assert!(out.contains("#ifndef W\n  int w = 80;\n#else\n"));
        assert!(!out.contains("16"));
    }

    #[test]
    fn multi_byte_characters_in_a_dropped_branch_keep_their_offsets() {
        let text = "#if 0\n// é ü\n#endif\nx\n";
        let out = taken_with(text, &[]);
        assert_eq!(out.len(), text.len());
        assert_eq!(out, "#if 0\n        \n#endif\nx\n");
    }
}
