//! Launch facts that cannot change a verdict: a fact over host values
//! (`symbols::HOST_VALUE_PREFIX`) that no other fact of the launch names,
//! and that some value of each one's type satisfies. The kernel sees a host
//! value only through the launch's facts (`n == __syncscope_host_i32_w`
//! ties it to a parameter), so such a fact constrains nothing any query
//! asks about: whatever a query's answer, a value of the host variable
//! that satisfies the fact extends it. Dropped, two launches that differ
//! only there (the same launch under `case 0:` and `case 2:` of a
//! `switch (mode)`, or in both branches of an `if (useDouble)` whose
//! template argument already tells them apart) have the same queries,
//! which the run's query cache answers once. Must not decide anything
//! else: which facts are isolated, nothing more.

use crate::symbols::{host_value_range, HOST_VALUE_PREFIX};

/// `requires` without its isolated facts (each kept unless its form is
/// one below, read exactly: anything else is kept).
pub(crate) fn without_isolated_host_facts(requires: &[String]) -> Vec<String> {
    requires
        .iter()
        .enumerate()
        .filter(|(i, fact)| {
            let names = identifiers(fact);
            let isolated = !names.is_empty()
                && names.iter().all(|n| {
                    n.starts_with(HOST_VALUE_PREFIX)
                        && requires
                            .iter()
                            .enumerate()
                            .all(|(j, other)| j == *i || !identifiers(other).contains(n))
                });
            !(isolated && satisfiable_alone(fact))
        })
        .map(|(_, f)| f.clone())
        .collect()
}

/// The C identifiers `fact` names (`blockDim.x`: `blockDim` and `x`),
/// each once.
pub(crate) fn identifiers(fact: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_number = false;
    for c in fact.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            if current.is_empty() && c.is_ascii_digit() {
                in_number = true;
            }
            current.push(c);
        } else {
            if !current.is_empty() && !in_number && !out.contains(&current) {
                out.push(current.clone());
            }
            current.clear();
            in_number = false;
        }
    }
    out
}

/// `e` without whitespace and enclosing parentheses.
fn bare(e: &str) -> &str {
    let mut e = e.trim();
    while e.starts_with('(') && e.ends_with(')') && balanced(&e[1..e.len() - 1]) {
        e = e[1..e.len() - 1].trim();
    }
    e
}

fn balanced(e: &str) -> bool {
    let mut depth = 0i32;
    for c in e.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// A host value's name and the range of its type, if `e` is one.
fn host(e: &str) -> Option<(i64, i64)> {
    let e = bare(e);
    let one_name = e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !e.starts_with(HOST_VALUE_PREFIX) || !one_name {
        return None;
    }
    host_value_range(e)
}

fn literal(e: &str) -> Option<i64> {
    let e = bare(e);
    let digits = e.trim_end_matches(['u', 'U', 'l', 'L']);
    digits.parse().ok()
}

/// Whether some value of each host variable's type makes `fact` true, for
/// the forms launch sites write: `H`, `!H`, `H != N`, and `H == N`
/// alternatives joined by `||` (a `case` label's chain). Any other form:
/// `false` (not known, so kept).
fn satisfiable_alone(fact: &str) -> bool {
    let fact = bare(fact);
    if let Some((lo, hi)) = host(fact) {
        return lo != 0 || hi != 0;
    }
    if let Some(inner) = fact.strip_prefix('!') {
        if !inner.starts_with('=') {
            return host(inner).is_some_and(|(lo, hi)| lo <= 0 && 0 <= hi);
        }
    }
    if let Some((h, n)) = fact.split_once("!=") {
        return host(h).is_some_and(|(lo, hi)| lo < hi) && literal(n).is_some();
    }
    // A chain of `H == N`: one alternative in range is enough.
    let alternatives: Vec<&str> = fact.split("||").collect();
    let mut any = false;
    for alt in alternatives {
        let Some((h, n)) = bare(alt).split_once("==") else {
            return false;
        };
        let (Some((lo, hi)), Some(n)) = (host(h), literal(n)) else {
            return false;
        };
        any |= lo <= n && n <= hi;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_case_label_over_a_host_variable_no_other_fact_names_is_dropped() {
        let mode = "__syncscope_host_i32_mode";
        let kept = without_isolated_host_facts(&facts(&[
            "blockDim.y == 1",
            &format!("{mode} == 2"),
            "n == __syncscope_host_i32_w",
            "__syncscope_host_i32_w > 0",
        ]));
        assert_eq!(
            kept,
            facts(&[
                "blockDim.y == 1",
                "n == __syncscope_host_i32_w",
                "__syncscope_host_i32_w > 0"
            ])
        );
        // A fall-through chain, a flag and its negation, an inequality.
        for f in [
            format!("({mode} == 1) || ({mode} == 2)"),
            "__syncscope_host_b_useDouble".to_string(),
            "!(__syncscope_host_b_useDouble)".to_string(),
            format!("{mode} != 3"),
        ] {
            assert!(without_isolated_host_facts(&facts(&[&f])).is_empty(), "{f}");
        }
    }

    #[test]
    fn a_fact_that_ties_a_host_value_to_the_kernel_or_may_be_unsatisfiable_stays() {
        let kept = |list: &[&str]| without_isolated_host_facts(&facts(list)).len();
        // Named by another fact: it constrains a parameter through it.
        assert_eq!(
            kept(&[
                "__syncscope_host_i32_m == 2",
                "n == __syncscope_host_i32_m * 4"
            ]),
            2
        );
        // Out of its type's range: the launch never runs; kept, so that
        // the verdict is the one the facts give.
        assert_eq!(kept(&["__syncscope_host_u8_m == 300"]), 1);
        assert_eq!(kept(&["__syncscope_host_u32_m == -1"]), 1);
        // Forms not read here, and facts over kernel names.
        assert_eq!(kept(&["__syncscope_host_i32_m * 2 == 7"]), 1);
        assert_eq!(kept(&["__syncscope_host_i32_m < 0"]), 1);
        assert_eq!(kept(&["n == 2"]), 1);
    }
}
