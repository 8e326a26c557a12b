//! The analysed file's text as the compiler reads it: the lines of the
//! branches its `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else` conditionals do not
//! take, and the conditional lines themselves, become blanks (every byte
//! a space, so every offset and line stays where it was). A conditional
//! inside an argument or parameter list (`k<<<g, b>>>(out,\n#ifndef W\n w,\n#endif\n n)`)
//! then reads as the list it leaves, which the grammar (that parses a
//! conditional only where a statement or declaration may stand) could not
//! parse; and a declaration under a conditional is a plain statement of
//! its block, in order with the rest.
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
    let mut open: Vec<usize> = Vec::new();
    for (i, d) in directives.iter().enumerate() {
        let k = d.keyword.as_str();
        if opens(k) {
            let g = decided.len();
            decided.push(d.before != Reach::Unknown && d.after != Reach::Unknown);
            open.push(g);
            group_of[i] = Some(g);
        } else if switches(k) || k == "endif" {
            let Some(&g) = open.last() else {
                continue;
            };
            // (In a skipped group every branch is skipped: decided.)
            if switches(k) && d.after == Reach::Unknown {
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
    // Per line: blank or not.
    let line_count = text.split_inclusive('\n').count();
    let mut blank = vec![false; line_count];
    let mut reach = Reach::Taken;
    let mut next_line = 0usize;
    for (i, d) in directives.iter().enumerate() {
        let (first, last) = d.lines;
        for b in blank.iter_mut().take(first.min(line_count)).skip(next_line) {
            *b = reach == Reach::NotTaken;
        }
        let drop = match group_of[i] {
            Some(g) => decided[g],
            // Another directive (`#define`, `#include`) in a skipped branch.
            None => d.before == Reach::NotTaken,
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
    fn an_undecided_conditional_is_kept_as_written_and_nested_ones_follow_it() {
        let text = "#if __has_include(<x.h>)\na\n#ifdef Q\nb\n#endif\n#else\nc\n#endif\nd\n";
        let out = taken_with(text, &[]);
        // The undecided group keeps its lines and directives; the decided
        // `#ifdef Q` inside it drops its branch.
        assert!(out.contains("#if __has_include"));
        assert!(out.contains("#else"));
        assert!(out.contains("\na\n"));
        assert!(!out.contains('b'));
        assert!(!out.contains("#ifdef"));
        assert!(out.contains("\nc\n"));
        assert!(out.ends_with("d\n"));
    }

    #[test]
    fn multi_byte_characters_in_a_dropped_branch_keep_their_offsets() {
        let text = "#if 0\n// é ü\n#endif\nx\n";
        let out = taken_with(text, &[]);
        assert_eq!(out.len(), text.len());
        assert_eq!(out.trim(), "x");
    }
}
