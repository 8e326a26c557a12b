//! Which lines of a header the preprocessor takes while the translation
//! unit is read: the `#if`/`#ifdef`/`#elif`/`#else`/`#endif` nesting of one
//! file, evaluated with the macros defined so far (the device pass's own,
//! `-D`, and the `#define`s met on the way), so that an `#include` inside
//! `#if defined(WIN32)` is known to be skipped. Must not read or find
//! headers (that is `unit`).

use crate::frontend::{condition_value, Macro};
use std::collections::HashMap;

/// Whether a line is taken by the preprocessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    Taken,
    NotTaken,
    /// A condition the evaluator cannot decide (a function-like macro, a
    /// `__has_include`): the line may be taken.
    Unknown,
}

impl Reach {
    /// Taken when both are.
    pub(crate) fn and(self, other: Reach) -> Reach {
        match (self, other) {
            (Reach::NotTaken, _) | (_, Reach::NotTaken) => Reach::NotTaken,
            (Reach::Taken, Reach::Taken) => Reach::Taken,
            _ => Reach::Unknown,
        }
    }

    fn or(self, other: Reach) -> Reach {
        match (self, other) {
            (Reach::Taken, _) | (_, Reach::Taken) => Reach::Taken,
            (Reach::NotTaken, Reach::NotTaken) => Reach::NotTaken,
            _ => Reach::Unknown,
        }
    }

    fn not(self) -> Reach {
        match self {
            Reach::Taken => Reach::NotTaken,
            Reach::NotTaken => Reach::Taken,
            Reach::Unknown => Reach::Unknown,
        }
    }
}

/// One open conditional: whether the text around it is taken, whether
/// its current branch is, and whether an earlier branch was.
struct Frame {
    outer: Reach,
    branch: Reach,
    earlier: Reach,
}

/// The open conditionals of one file.
#[derive(Default)]
pub(crate) struct Conditions {
    frames: Vec<Frame>,
}

impl Conditions {
    /// Whether the current line is taken.
    pub(crate) fn reach(&self) -> Reach {
        self.frames
            .last()
            .map_or(Reach::Taken, |f| f.outer.and(f.branch))
    }

    /// Applies one preprocessor line (`keyword` without the `#`, `rest`
    /// after it): opens, switches or closes a conditional, or defines or
    /// undefines a macro when the line is not skipped. Other lines
    /// (`#include`, `#pragma`) change nothing here.
    pub(crate) fn apply(&mut self, keyword: &str, rest: &str, macros: &mut HashMap<String, Macro>) {
        let here = self.reach();
        let name = || {
            rest.trim_start()
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
        };
        match keyword {
            "if" | "ifdef" | "ifndef" => {
                let branch = match keyword {
                    "if" => evaluate(rest, macros),
                    "ifdef" => defined(macros.contains_key(name())),
                    _ => defined(!macros.contains_key(name())),
                };
                self.frames.push(Frame {
                    outer: here,
                    branch,
                    earlier: branch,
                });
            }
            "elif" | "elifdef" | "elifndef" | "else" => {
                let Some(f) = self.frames.last_mut() else {
                    return;
                };
                let own = match keyword {
                    "elif" => evaluate(rest, macros),
                    "elifdef" => defined(macros.contains_key(name())),
                    "elifndef" => defined(!macros.contains_key(name())),
                    _ => Reach::Taken,
                };
                f.branch = f.earlier.not().and(own);
                f.earlier = f.earlier.or(f.branch);
            }
            "endif" => {
                self.frames.pop();
            }
            "define" if here != Reach::NotTaken => {
                if let Some((n, m)) = definition(rest) {
                    macros.insert(n, m);
                }
            }
            "undef" if here == Reach::Taken => {
                macros.remove(name());
            }
            _ => {}
        }
    }
}

fn defined(yes: bool) -> Reach {
    if yes {
        Reach::Taken
    } else {
        Reach::NotTaken
    }
}

/// An `#if` condition as C's preprocessor evaluates it (through the same
/// evaluator as the analysis's own branches), or `Unknown`.
fn evaluate(condition: &str, macros: &HashMap<String, Macro>) -> Reach {
    match condition_value(strip_comment(condition), macros) {
        Some(0) => Reach::NotTaken,
        Some(_) => Reach::Taken,
        None => Reach::Unknown,
    }
}

fn strip_comment(s: &str) -> &str {
    let cut = [s.find("//"), s.find("/*")].into_iter().flatten().min();
    cut.map_or(s, |i| &s[..i]).trim()
}

/// `NAME body` or `NAME(a, b) body` of a `#define`.
fn definition(rest: &str) -> Option<(String, Macro)> {
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    if name.is_empty() {
        return None;
    }
    let after = &rest[end..];
    let (params, body) = match after.strip_prefix('(') {
        Some(p) => {
            let close = p.find(')')?;
            let params = p[..close]
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            (Some(params), &p[close + 1..])
        }
        None => (None, after),
    };
    Some((
        name.to_string(),
        Macro {
            params,
            body: strip_comment(body).to_string(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reach of the line after each line of `text`.
    fn reaches(text: &str, macros: &mut HashMap<String, Macro>) -> Vec<Reach> {
        let mut c = Conditions::default();
        text.lines()
            .map(|l| {
                if let Some(d) = l.trim().strip_prefix('#') {
                    let d = d.trim_start();
                    let k = d.find(|ch: char| !ch.is_alphanumeric()).unwrap_or(d.len());
                    c.apply(&d[..k], &d[k..], macros);
                }
                c.reach()
            })
            .collect()
    }

    #[test]
    fn branches_follow_the_macros_defined_so_far() {
        let mut macros = HashMap::new();
        let text = "#if defined(WIN32) || defined(_WIN32)\nwin\n#else\nposix\n#endif\n#define USE_X 1\n#if USE_X\nx\n#elif 1\ny\n#endif\n#ifdef NOPE\n#define USE_Y\n#endif\n#ifndef USE_Y\nz\n#endif\n#if SOME_FN(1)\nq\n#endif\n";
        let r = reaches(text, &mut macros);
        use Reach::*;
        assert_eq!(
            r,
            vec![
                NotTaken, NotTaken, Taken, Taken, Taken, Taken, Taken, Taken, NotTaken, NotTaken,
                Taken, NotTaken, NotTaken, Taken, Taken, Taken, Taken, Unknown, Unknown, Taken
            ]
        );
        assert!(macros.contains_key("USE_X") && !macros.contains_key("USE_Y"));
    }

    #[test]
    fn nested_conditionals_inside_a_skipped_branch_stay_skipped() {
        let mut macros = HashMap::new();
        let r = reaches(
            "#ifdef A\n#if 1\n#define B\n#else\n#endif\n#endif\n",
            &mut macros,
        );
        assert!(r[..5].iter().all(|x| *x == Reach::NotTaken), "{r:?}");
        assert!(macros.is_empty());
    }
}
