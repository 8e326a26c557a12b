//! Encoding of model expressions into SMT-LIB 2 and solving with Z3.
//!
//! A query is rendered to SMT-LIB text: the text is exactly what the query
//! depends on, so its hash is the cache key (edits elsewhere leave it equal).
//! Integers are mathematical by default; `--bitvector` gives 32-bit
//! two's-complement semantics.

use super::budget::{units_between, KernelBudget};
use super::z3_solver::{Asserts, Solver};
use crate::cache::{CachedAnswer, QueryCache, QueryOutcome};
use crate::model::{BinOp, Expr, UnOp, Var, VarKind, DIMS};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Launch facts that constrain the thread/launch variables of every query.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LaunchEnv {
    pub block_dim: Option<[u32; 3]>,
    pub grid_dim: Option<[u32; 3]>,
    pub block_used: [bool; 3],
    pub grid_used: [bool; 3],
    pub max_threads: Option<i64>,
    pub bitvector: bool,
}

impl LaunchEnv {
    /// The launch dimensions fixed at 1 only because the kernel never
    /// reads them (no launch or option fixed them), by name.
    pub(crate) fn dims_taken_as_one(&self) -> Vec<&'static str> {
        const BLOCK: [&str; 3] = ["blockDim.x", "blockDim.y", "blockDim.z"];
        const GRID: [&str; 3] = ["gridDim.x", "gridDim.y", "gridDim.z"];
        let mut out = Vec::new();
        for d in 0..3u8 {
            if self.block_dim.is_none() && self.fixed(VarKind::BlockDim(d)).is_some() {
                out.push(BLOCK[d as usize]);
            }
        }
        for d in 0..3u8 {
            if self.grid_dim.is_none() && self.fixed(VarKind::GridDim(d)).is_some() {
                out.push(GRID[d as usize]);
            }
        }
        out
    }

    /// The fixed value of a launch variable, if the launch or usage fixes it.
    pub(crate) fn fixed(&self, kind: VarKind) -> Option<i64> {
        match kind {
            VarKind::BlockDim(d) => match self.block_dim {
                Some(b) => Some(b[d as usize] as i64),
                None if !self.block_used[d as usize] => Some(1),
                None => None,
            },
            VarKind::GridDim(d) => match self.grid_dim {
                Some(g) => Some(g[d as usize] as i64),
                // A kernel that never reads `blockIdx` or `gridDim` still
                // runs as many blocks as its launch asks (every block the
                // same work: its global writes meet between blocks), so
                // its grid's x is free; a dimension beyond the ones a
                // kernel reads is 1 (a 1-D kernel is launched 1-D).
                None if !self.grid_used[d as usize]
                    && (d != 0 || self.grid_used.contains(&true)) =>
                {
                    Some(1)
                }
                None => None,
            },
            _ => None,
        }
    }
}

pub(crate) fn block_dim_var(d: u8) -> Var {
    Var::new(
        format!("blockDim.{}", DIMS[d as usize]),
        VarKind::BlockDim(d),
    )
}

pub(crate) fn grid_dim_var(d: u8) -> Var {
    Var::new(format!("gridDim.{}", DIMS[d as usize]), VarKind::GridDim(d))
}

/// A rendered query: declarations, domain constraints and assertions.
#[derive(Clone)]
pub(crate) struct Query {
    pub text: String,
    pub vars: Vec<Var>,
    /// Constraints that prefer small values (for readable witnesses),
    /// asserted under an assumption literal after a first model.
    pub small: Vec<String>,
    pub product_check: bool,
    /// Nonlinear integer arithmetic: solved by Z3's incremental core, which
    /// handles it far better than the default non-incremental tactic.
    pub nonlinear: bool,
}

fn sym(v: &Var) -> String {
    let clean: String = v
        .name
        .chars()
        .map(|c| if c == '|' || c == '\\' { '_' } else { c })
        .collect();
    format!("|{clean}|")
}

pub(crate) fn build_query(assertions: &[Expr], env: &LaunchEnv) -> Query {
    build_query_with_lemmas(assertions, assertions, env)
}

/// [`build_query`] of `assertions` with the digit lemmas of `lemma_source`:
/// the same query before a rewrite that hides its sums' radixes (the same
/// variables, the same models), so the lemmas hold for `assertions` too.
fn build_query_with_lemmas(assertions: &[Expr], lemma_source: &[Expr], env: &LaunchEnv) -> Query {
    let mut vars: BTreeSet<Var> = BTreeSet::new();
    for a in assertions {
        a.for_each_var(&mut |v| {
            vars.insert(v.clone());
        });
    }
    // Thread and block indices are bounded by the launch sizes.
    let mut implied = Vec::new();
    let mut any_block_dim = false;
    for v in &vars {
        match v.kind {
            VarKind::ThreadIdx(d) => implied.push(block_dim_var(d)),
            VarKind::BlockIdx(d) => implied.push(grid_dim_var(d)),
            _ => {}
        }
        any_block_dim |= matches!(v.kind, VarKind::BlockDim(_) | VarKind::ThreadIdx(_));
    }
    vars.extend(implied);
    let bv = env.bitvector;
    let sort = if bv { "(_ BitVec 32)" } else { "Int" };
    let mut text = String::new();
    let mut small = Vec::new();
    for v in &vars {
        let _ = writeln!(text, "(declare-const {} {sort})", sym(v));
    }
    let c = |n: i64| lit(n, bv);
    let ge = if bv { "bvsge" } else { ">=" };
    let le = if bv { "bvsle" } else { "<=" };
    let lt = if bv { "bvslt" } else { "<" };
    for v in &vars {
        let s = sym(v);
        match v.kind {
            VarKind::ThreadIdx(d) => {
                let _ = writeln!(
                    text,
                    "(assert (and ({ge} {s} {}) ({lt} {s} {})))",
                    c(0),
                    sym(&block_dim_var(d))
                );
            }
            VarKind::BlockIdx(d) => {
                let _ = writeln!(
                    text,
                    "(assert (and ({ge} {s} {}) ({lt} {s} {})))",
                    c(0),
                    sym(&grid_dim_var(d))
                );
            }
            VarKind::BlockDim(_) | VarKind::GridDim(_) => match env.fixed(v.kind) {
                Some(n) => {
                    let _ = writeln!(text, "(assert (= {s} {}))", c(n));
                }
                None => {
                    let hi = match v.kind {
                        VarKind::BlockDim(2) => 64,
                        VarKind::BlockDim(_) => env.max_threads.unwrap_or(1024).clamp(1, 1024),
                        VarKind::GridDim(0) => i32::MAX as i64,
                        _ => 65535,
                    };
                    let _ = writeln!(
                        text,
                        "(assert (and ({ge} {s} {}) ({le} {s} {})))",
                        c(1),
                        c(hi)
                    );
                    let soft = match v.kind {
                        VarKind::BlockDim(0) => 64,
                        VarKind::BlockDim(_) => 4,
                        _ => 4,
                    };
                    small.push(format!("({le} {s} {})", c(soft)));
                }
            },
            VarKind::Param { lo, hi } | VarKind::Unknown { lo, hi, .. } => {
                if !bv || (lo >= i32::MIN as i64 && hi <= i32::MAX as i64) {
                    if lo > i64::MIN {
                        let _ = writeln!(text, "(assert ({ge} {s} {}))", c(lo));
                    }
                    if hi < i64::MAX {
                        let _ = writeln!(text, "(assert ({le} {s} {}))", c(hi));
                    }
                }
                small.push(format!(
                    "(and ({ge} {s} {}) ({le} {s} {}))",
                    c(lo.max(-64)),
                    c(hi.min(1024))
                ));
            }
            VarKind::Counter { pow2 } => {
                let _ = writeln!(text, "(assert ({ge} {s} {}))", c(0));
                if pow2 {
                    let _ = writeln!(text, "(assert ({lt} {s} {}))", c(64));
                }
                small.push(format!("({le} {s} {})", c(16)));
            }
            VarKind::Shared => {}
        }
    }
    // The block holds at most 1024 threads: linear when only x is symbolic.
    let symbolic_dims: Vec<u8> = (0..3u8)
        .filter(|d| env.fixed(VarKind::BlockDim(*d)).is_none())
        .collect();
    let product_check = any_block_dim && symbolic_dims.len() > 1 && !bv;
    for a in assertions {
        let _ = writeln!(text, "(assert {})", enc_bool(a, bv));
    }
    if !bv {
        digit_lemmas(lemma_source, &mut text);
    }
    Query {
        text,
        vars: vars.into_iter().collect(),
        small,
        product_check,
        // The lemmas' products count too.
        nonlinear: !bv && lemma_source.iter().any(Expr::is_nonlinear),
    }
}

/// Whether `e` is positive whatever its variables' values: a launch size,
/// a value whose type range starts at 1, a positive constant, or a product
/// of such.
fn always_positive(e: &Expr) -> bool {
    match e {
        Expr::Const(c) => *c > 0,
        Expr::Var(v) => match v.kind {
            VarKind::BlockDim(_) | VarKind::GridDim(_) => true,
            VarKind::Param { lo, .. } | VarKind::Unknown { lo, .. } => lo >= 1,
            _ => false,
        },
        Expr::Bin(BinOp::Mul, a, b) => always_positive(a) && always_positive(b),
        _ => false,
    }
}

/// Whether `e` is non-negative whatever its variables' values: an index,
/// a launch size, a loop counter, a value whose type range starts at 0 or
/// above, a constant `>= 0`, or a sum or product of such.
fn never_negative(e: &Expr) -> bool {
    match e {
        Expr::Const(c) => *c >= 0,
        Expr::Var(v) => match v.kind {
            VarKind::ThreadIdx(_)
            | VarKind::BlockIdx(_)
            | VarKind::BlockDim(_)
            | VarKind::GridDim(_)
            | VarKind::Counter { .. } => true,
            VarKind::Param { lo, .. } | VarKind::Unknown { lo, .. } => lo >= 0,
            VarKind::Shared => false,
        },
        Expr::Bin(BinOp::Add | BinOp::Mul, a, b) => never_negative(a) && never_negative(b),
        _ => false,
    }
}

/// [`always_positive`], or a sum of a positive and a non-negative value
/// (`frame + 1` of a parameter typed `0..16`).
fn positive_by_types(e: &Expr) -> bool {
    always_positive(e)
        || matches!(e, Expr::Bin(BinOp::Add, a, b)
            if (positive_by_types(a) && never_negative(b)) || (never_negative(a) && positive_by_types(b)))
}

/// Nodes [`nonzero_divisors`] visits at most in one query: the assertions
/// share subexpressions (guards of a loop nest), which a tree walk visits
/// once per path; past this it adds no more facts (fewer facts: sound).
const DIVISOR_WALK_LIMIT: usize = 20_000;

/// For each C division or remainder by a non-constant divisor in
/// `assertions`, the fact `evaluated => divisor != 0`, where `evaluated` is
/// what the structure around it says about whether the program evaluated
/// it: an `ite` arm only under its condition, an operand of `&&` only
/// where the other operand holds and of `||` only where it does not
/// (the order of evaluation is not known, so both operands get the
/// condition: weaker than C's short-circuit, never stronger). Under a
/// negation the same holds: `!(a && b)` evaluated `a` where `b` holds.
/// Divisions the model makes itself have constant divisors.
fn nonzero_divisors(assertions: &[Expr]) -> Vec<Expr> {
    fn walk(e: &Expr, cond: &Expr, out: &mut Vec<Expr>, budget: &mut usize) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        match e {
            Expr::Const(_) | Expr::Var(_) => {}
            Expr::Bin(BinOp::And, a, b) => {
                walk(a, &Expr::and(cond.clone(), (**b).clone()), out, budget);
                walk(b, &Expr::and(cond.clone(), (**a).clone()), out, budget);
            }
            Expr::Bin(BinOp::Or, a, b) => {
                let not = |x: &Expr| Expr::not(x.clone());
                walk(a, &Expr::and(cond.clone(), not(b)), out, budget);
                walk(b, &Expr::and(cond.clone(), not(a)), out, budget);
            }
            Expr::Ite(k, a, b) => {
                walk(k, cond, out, budget);
                walk(a, &Expr::and(cond.clone(), (**k).clone()), out, budget);
                walk(
                    b,
                    &Expr::and(cond.clone(), Expr::not((**k).clone())),
                    out,
                    budget,
                );
            }
            Expr::Bin(op, x, d) => {
                if matches!(op, BinOp::Div | BinOp::Rem) && d.as_const().is_none() {
                    let fact = Expr::or(
                        Expr::not(cond.clone()),
                        Expr::not(Expr::eq((**d).clone(), Expr::Const(0))),
                    );
                    if !out.contains(&fact) {
                        out.push(fact);
                    }
                }
                walk(x, cond, out, budget);
                walk(d, cond, out, budget);
            }
            Expr::Un(_, a) | Expr::Pow2(a) => walk(a, cond, out, budget),
        }
    }
    let mut out = Vec::new();
    let mut budget = DIVISOR_WALK_LIMIT;
    let any = assertions.iter().any(|a| {
        a.any_node(&mut |n| {
            matches!(n, Expr::Bin(BinOp::Div | BinOp::Rem, _, d) if d.as_const().is_none())
        })
    });
    if !any {
        return out;
    }
    for a in assertions {
        walk(a, &Expr::tru(), &mut out, &mut budget);
    }
    out
}

/// Rewrites every C division and remainder `x / d`, `x % d` by a
/// non-constant `d` that `positive` says is positive in every model of
/// the query (`always_positive`: `t % blockDim.x`, `i / width` of a
/// positive type) into a quotient and a remainder variable, defined
/// exactly by `x == q * d + r` with `0 <= r < d` for `x >= 0` and
/// `-d < r <= 0` for `x < 0` (C truncates). The definitions are the digit
/// structure the digit lemmas and Z3's linear core work with, instead of
/// SMT's nonlinear `div`/`mod`. Names are numbered in order of appearance,
/// so the same query gives the same text.
fn divisions_as_digits(assertions: &[Expr], positive: fn(&Expr) -> bool) -> Vec<Expr> {
    fn rewrite(
        e: &Expr,
        digits: &mut Vec<(Expr, Expr, Expr, Expr)>,
        positive: fn(&Expr) -> bool,
    ) -> Expr {
        match e {
            Expr::Const(_) | Expr::Var(_) => e.clone(),
            Expr::Un(op, a) => Expr::Un(*op, Arc::new(rewrite(a, digits, positive))),
            Expr::Pow2(a) => Expr::Pow2(Arc::new(rewrite(a, digits, positive))),
            Expr::Ite(c, a, b) => Expr::Ite(
                Arc::new(rewrite(c, digits, positive)),
                Arc::new(rewrite(a, digits, positive)),
                Arc::new(rewrite(b, digits, positive)),
            ),
            Expr::Bin(op @ (BinOp::Div | BinOp::Rem), x, d)
                if d.as_const().is_none() && positive(d) =>
            {
                let x = rewrite(x, digits, positive);
                let d = rewrite(d, digits, positive);
                let n = match digits.iter().position(|(x2, d2, ..)| *x2 == x && *d2 == d) {
                    Some(n) => n,
                    None => {
                        let var = |name: String| {
                            Expr::Var(Var::new(
                                name,
                                VarKind::Unknown {
                                    scope: crate::model::Scope::Thread,
                                    lo: i64::MIN,
                                    hi: i64::MAX,
                                },
                            ))
                        };
                        let n = digits.len();
                        let (q, r) = crate::symbols::quotient_and_remainder(n);
                        digits.push((x, d, var(q), var(r)));
                        n
                    }
                };
                let (.., q, r) = &digits[n];
                if *op == BinOp::Div {
                    q.clone()
                } else {
                    r.clone()
                }
            }
            Expr::Bin(op, a, b) => Expr::Bin(
                *op,
                Arc::new(rewrite(a, digits, positive)),
                Arc::new(rewrite(b, digits, positive)),
            ),
        }
    }
    let mut digits = Vec::new();
    let mut out: Vec<Expr> = assertions
        .iter()
        .map(|a| rewrite(a, &mut digits, positive))
        .collect();
    for (x, d, q, r) in digits {
        let zero = || Expr::Const(0);
        let lt = |a: Expr, b: Expr| Expr::bin(BinOp::Lt, a, b);
        let le = |a: Expr, b: Expr| Expr::bin(BinOp::Le, a, b);
        out.push(Expr::eq(
            x.clone(),
            Expr::add(Expr::mul(q, d.clone()), r.clone()),
        ));
        out.push(Expr::ite(
            le(zero(), x),
            Expr::and(le(zero(), r.clone()), lt(r.clone(), d.clone())),
            Expr::and(lt(Expr::un(UnOp::Neg, d), r.clone()), le(r, zero())),
        ));
    }
    out
}

/// Exact lemmas for mixed-radix sums with a symbolic radix (global ids
/// `blockIdx.x * blockDim.x + threadIdx.x` of two threads): for every two
/// terms `q1 * M + r1` and `q2 * M + r2` of the query with the same
/// non-constant `M`, `0 <= r1, r2 < M` and equal sums imply `q1 == q2` and
/// `r1 == r2`. Valid over the integers whatever the query, so adding them
/// changes no answer; they spare the nonlinear solver the case analysis it
/// often fails at (the product `blockIdx * blockDim` is what made these
/// queries slow or `unknown`).
fn digit_lemmas(assertions: &[Expr], text: &mut String) {
    /// At most this many terms per radix (lemmas grow with its square).
    const MAX_TERMS: usize = 8;
    let mut by_radix: std::collections::BTreeMap<Expr, BTreeSet<(Expr, Expr)>> = Default::default();
    for a in assertions {
        a.any_node(&mut |e| {
            if let Expr::Bin(BinOp::Add, x, y) = e {
                for (qm, r) in [(x, y), (y, x)] {
                    if let Expr::Bin(BinOp::Mul, p, q) = &**qm {
                        for (quot, m) in [(p, q), (q, p)] {
                            if m.as_const().is_none()
                                && !m.mentions(&mut |v| {
                                    matches!(
                                        v.kind,
                                        VarKind::ThreadIdx(_) | VarKind::Counter { .. }
                                    )
                                })
                            {
                                let terms = by_radix.entry((**m).clone()).or_default();
                                if terms.len() < MAX_TERMS {
                                    terms.insert(((**quot).clone(), (**r).clone()));
                                }
                            }
                        }
                    }
                }
            }
            false
        });
    }
    // Sums of more than two terms, where the radix may multiply several of
    // them (`x + y * h + 16 * i * h`, a tile's row plus its loop's rows)
    // or sit away from the other digit (`(r + q * M) + s`): grouped by the
    // radix they are `q * M + r` all the same, which the binary pattern
    // above does not see. Added after it, so that a query without such a
    // sum keeps its text.
    let mut grouped: std::collections::BTreeMap<Expr, BTreeSet<(Expr, Expr)>> = Default::default();
    for (m, q, r) in radix_groupings(assertions) {
        let old = by_radix.get(&m).map_or(0, BTreeSet::len);
        let terms = grouped.entry(m.clone()).or_default();
        if old + terms.len() < 2 * MAX_TERMS
            && !by_radix
                .get(&m)
                .is_some_and(|t| t.contains(&(q.clone(), r.clone())))
        {
            terms.insert((q, r));
        }
    }
    for (m, terms) in grouped {
        by_radix.entry(m).or_default().extend(terms);
    }
    for (m, terms) in &by_radix {
        let terms: Vec<&(Expr, Expr)> = terms.iter().collect();
        let m = enc_int(m, false);
        for (i, (q1, r1)) in terms.iter().enumerate() {
            for (q2, r2) in &terms[i + 1..] {
                let (q1, r1, q2, r2) = (
                    enc_int(q1, false),
                    enc_int(r1, false),
                    enc_int(q2, false),
                    enc_int(r2, false),
                );
                let _ = writeln!(
                    text,
                    "(assert (=> (and (<= 0 {r1}) (< {r1} {m}) (<= 0 {r2}) (< {r2} {m}) (= (+ (* {q1} {m}) {r1}) (+ (* {q2} {m}) {r2}))) (and (= {q1} {q2}) (= {r1} {r2}))))"
                );
            }
        }
    }
}

/// Nodes [`radix_groupings`] visits at most in one query (shared
/// subexpressions are visited once per path; past this it finds no more
/// groupings, which only means fewer lemmas).
const GROUPING_WALK_LIMIT: usize = 20_000;

/// Every outermost sum of `assertions` (one not itself a term of a sum)
/// written as `q * M + r` for each radix `M` that multiplies some of its
/// terms: `q` the sum of `M`'s cofactors, `r` the sum of the other terms
/// (0 if none). `M` is a non-constant factor that mentions no thread index
/// or loop counter (the same radixes as the binary pattern of
/// [`digit_lemmas`]); a radix multiplying one term only by a constant is
/// left out (`32 * b + t` is no digit structure in `b`).
fn radix_groupings(assertions: &[Expr]) -> Vec<(Expr, Expr, Expr)> {
    fn terms_of(e: &Expr, out: &mut Vec<Expr>) {
        match e {
            Expr::Bin(BinOp::Add, a, b) => {
                terms_of(a, out);
                terms_of(b, out);
            }
            _ => out.push(e.clone()),
        }
    }
    fn factors_of(e: &Expr, out: &mut Vec<Expr>) {
        match e {
            Expr::Bin(BinOp::Mul, a, b) => {
                factors_of(a, out);
                factors_of(b, out);
            }
            _ => out.push(e.clone()),
        }
    }
    let radix = |m: &Expr| {
        m.as_const().is_none()
            && !m.mentions(&mut |v| {
                matches!(v.kind, VarKind::ThreadIdx(_) | VarKind::Counter { .. })
            })
    };
    let mut out = Vec::new();
    let mut budget = GROUPING_WALK_LIMIT;
    let mut stack: Vec<(&Expr, bool)> = assertions.iter().map(|a| (a, false)).collect();
    while let Some((e, in_sum)) = stack.pop() {
        if budget == 0 {
            break;
        }
        budget -= 1;
        let is_sum = matches!(e, Expr::Bin(BinOp::Add, ..));
        match e {
            Expr::Const(_) | Expr::Var(_) => {}
            Expr::Un(_, a) | Expr::Pow2(a) => stack.push((a, false)),
            Expr::Bin(op, a, b) => {
                let inner = *op == BinOp::Add;
                stack.push((b, inner));
                stack.push((a, inner));
            }
            Expr::Ite(c, a, b) => {
                stack.push((b, false));
                stack.push((a, false));
                stack.push((c, false));
            }
        }
        if !is_sum || in_sum {
            continue;
        }
        let mut terms = Vec::new();
        terms_of(e, &mut terms);
        let factored: Vec<Vec<Expr>> = terms
            .iter()
            .map(|t| {
                let mut f = Vec::new();
                factors_of(t, &mut f);
                f
            })
            .collect();
        let mut radixes: Vec<&Expr> = Vec::new();
        for f in &factored {
            for m in f {
                if radix(m) && !radixes.contains(&m) {
                    radixes.push(m);
                }
            }
        }
        for m in radixes {
            let mut cofactors = Vec::new();
            let mut rest = Vec::new();
            for (t, f) in terms.iter().zip(&factored) {
                match f.iter().position(|x| x == m) {
                    Some(at) => {
                        let others = f
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| *i != at)
                            .map(|(_, x)| x.clone());
                        cofactors.push(others.fold(Expr::Const(1), Expr::mul));
                    }
                    None => rest.push(t.clone()),
                }
            }
            if cofactors.len() == 1 && cofactors[0].as_const().is_some() {
                continue;
            }
            let sum = |items: Vec<Expr>| items.into_iter().fold(Expr::Const(0), Expr::add);
            out.push((m.clone(), sum(cofactors), sum(rest)));
        }
    }
    out
}

fn lit(n: i64, bv: bool) -> String {
    if bv {
        format!("(_ bv{} 32)", (n as i128).rem_euclid(1i128 << 32))
    } else if n < 0 {
        format!("(- {})", (n as i128).unsigned_abs())
    } else {
        n.to_string()
    }
}

fn pow2_chain(e: &str, bv: bool) -> String {
    if bv {
        return format!("(bvshl {} {e})", lit(1, true));
    }
    // Exponents past 62 give a value beyond any 64-bit index (loop guards
    // end such loops long before); never 0, which would alias everything.
    let mut s = String::from("18446744073709551616");
    for i in (0..63).rev() {
        s = format!("(ite (= {e} {i}) {} {s})", 1i64 << i);
    }
    s
}

/// `c * 2^e` over mathematical integers, for a constant `c` and each
/// exponent `e` (`2^e` as `pow2_chain` has it: `2^64` past 62), as a chain
/// of cases on `e` whose values are numbers: linear, where `c * chain` or
/// `c div chain` is a product with (a division by) a term, which Z3
/// treats as nonlinear. `f` maps `2^i` to the value (`None`: it does not
/// fit 128 bits). The exponent's text appears once (bound by a `let` whose
/// body mentions nothing else); trailing cases equal to the last one are
/// merged into it (`256 >> e` has 10 cases).
fn pow2_cases(e: &str, f: impl Fn(i128) -> Option<i128>) -> Option<String> {
    let last = f(1i128 << 64)?;
    let mut cases = Vec::with_capacity(63);
    for i in 0..63 {
        cases.push(f(1i128 << i)?);
    }
    while cases.last() == Some(&last) {
        cases.pop();
    }
    let mut s = int_lit(last);
    for (i, c) in cases.iter().enumerate().rev() {
        s = format!("(ite (= pw!e {i}) {} {s})", int_lit(*c));
    }
    Some(format!("(let ((pw!e {e})) {s})"))
}

/// A number as an SMT-LIB integer literal (mathematical integers).
fn int_lit(n: i128) -> String {
    if n < 0 {
        format!("(- {})", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// The operand `x` of the power-of-two test `x & (x - 1)` (either order,
/// `x - 1` also written `x + -1`).
fn power_of_two_test(e: &Expr) -> Option<&Expr> {
    let Expr::Bin(BinOp::BitAnd, a, b) = e else {
        return None;
    };
    let minus_one = |m: &Expr, x: &Expr| match m {
        Expr::Bin(BinOp::Sub, y, one) => **y == *x && one.as_const() == Some(1),
        Expr::Bin(BinOp::Add, y, one) => **y == *x && one.as_const() == Some(-1),
        _ => false,
    };
    if minus_one(b, a) {
        Some(a)
    } else if minus_one(a, b) {
        Some(b)
    } else {
        None
    }
}

/// The operand `x` of `x & (x - 1) == 0` (or `0 == ...`), and whether the
/// comparison is `!=` rather than `==`.
fn power_of_two_comparison(e: &Expr) -> Option<(&Expr, bool)> {
    let Expr::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b) = e else {
        return None;
    };
    let test = match (a.as_const(), b.as_const()) {
        (_, Some(0)) => power_of_two_test(a)?,
        (Some(0), _) => power_of_two_test(b)?,
        _ => return None,
    };
    Some((test, *op == BinOp::Ne))
}

/// `x & (x - 1) == 0` over mathematical integers, exactly as the bitwise
/// encoding (and the replay) computes it on 32-bit values: the low 32 bits
/// of `x` are zero or a single bit. Linear (a `mod` by a constant and 33
/// equalities), so the launch-site idiom `(n & (n - 1)) == 0` keeps a
/// query in linear integer arithmetic instead of sending it to bit-vectors.
fn power_of_two_or_zero(x: &str) -> String {
    let mut s = format!("(let ((low (mod {x} 4294967296))) (or (= low 0)");
    for k in 0..32 {
        let _ = write!(s, " (= low {})", 1i64 << k);
    }
    s.push_str("))");
    s
}

pub(crate) fn enc_bool(e: &Expr, bv: bool) -> String {
    if !bv {
        if let Some((x, negated)) = power_of_two_comparison(e) {
            let test = power_of_two_or_zero(&enc_int(x, bv));
            return if negated {
                format!("(not {test})")
            } else {
                test
            };
        }
    }
    match e {
        Expr::Const(c) => (if *c != 0 { "true" } else { "false" }).to_string(),
        Expr::Un(UnOp::Not, a) => format!("(not {})", enc_bool(a, bv)),
        Expr::Bin(BinOp::And, a, b) => format!("(and {} {})", enc_bool(a, bv), enc_bool(b, bv)),
        Expr::Bin(BinOp::Or, a, b) => format!("(or {} {})", enc_bool(a, bv), enc_bool(b, bv)),
        Expr::Bin(op, a, b) if op.is_comparison() => {
            let (x, y) = (enc_int(a, bv), enc_int(b, bv));
            let f = match (op, bv) {
                (BinOp::Lt, false) => "<",
                (BinOp::Le, false) => "<=",
                (BinOp::Gt, false) => ">",
                (BinOp::Ge, false) => ">=",
                (BinOp::Lt, true) => "bvslt",
                (BinOp::Le, true) => "bvsle",
                (BinOp::Gt, true) => "bvsgt",
                (BinOp::Ge, true) => "bvsge",
                (BinOp::Eq, _) => "=",
                _ => return format!("(not (= {x} {y}))"),
            };
            format!("({f} {x} {y})")
        }
        Expr::Ite(c, a, b) => format!(
            "(ite {} {} {})",
            enc_bool(c, bv),
            enc_bool(a, bv),
            enc_bool(b, bv)
        ),
        _ => format!("(not (= {} {}))", enc_int(e, bv), lit(0, bv)),
    }
}

pub(crate) fn enc_int(e: &Expr, bv: bool) -> String {
    match e {
        Expr::Const(c) => lit(*c, bv),
        Expr::Var(v) => sym(v),
        Expr::Un(UnOp::Neg, a) => {
            if bv {
                format!("(bvneg {})", enc_int(a, bv))
            } else {
                format!("(- {})", enc_int(a, bv))
            }
        }
        Expr::Un(UnOp::BitNot, a) => {
            if bv {
                format!("(bvnot {})", enc_int(a, bv))
            } else {
                format!("(- (- {}) 1)", enc_int(a, bv))
            }
        }
        Expr::Un(UnOp::Not, _) => {
            format!("(ite {} {} {})", enc_bool(e, bv), lit(1, bv), lit(0, bv))
        }
        Expr::Bin(op, ..) if op.is_boolean() => {
            format!("(ite {} {} {})", enc_bool(e, bv), lit(1, bv), lit(0, bv))
        }
        Expr::Ite(c, a, b) => format!(
            "(ite {} {} {})",
            enc_bool(c, bv),
            enc_int(a, bv),
            enc_int(b, bv)
        ),
        Expr::Pow2(a) => pow2_chain(&enc_int(a, bv), bv),
        Expr::Bin(op, a, b) if !bv => match linear_shift(*op, a, b) {
            Some(text) => text,
            None => enc_arith(*op, a, b, bv),
        },
        Expr::Bin(op, a, b) => enc_arith(*op, a, b, bv),
    }
}

/// A constant shifted by a symbolic amount (`c << e`, `c >> e`) or times a
/// power of two of a symbolic exponent (`c * 2^e`), as linear cases on the
/// exponent (`pow2_cases`); `None` for anything else. Exactly the values
/// of the general encoding: `c << e` is `c * 2^e`, `c >> e` is `c div 2^e`
/// (floor). Only constants: `x << e` and `x >> e` stay a product with and
/// a division by `2^e` (in a Blelloch scan's queries, which have other
/// nonlinear terms, 63 linear cases of them cost Z3 3-10 times more than
/// the one nonlinear term).
fn linear_shift(op: BinOp, a: &Expr, b: &Expr) -> Option<String> {
    let (c, e) = match op {
        BinOp::Shl | BinOp::Shr if b.as_const().is_none() => (a.as_const()?, b),
        BinOp::Mul => match (a, b) {
            (Expr::Pow2(e), x) | (x, Expr::Pow2(e)) if e.as_const().is_none() => {
                (x.as_const()?, &**e)
            }
            _ => return None,
        },
        _ => return None,
    };
    let c = c as i128;
    pow2_cases(&enc_int(e, false), |p| match op {
        BinOp::Shr => Some(c.div_euclid(p)),
        _ => c.checked_mul(p),
    })
}

/// A binary arithmetic operation.
fn enc_arith(op: BinOp, a: &Expr, b: &Expr, bv: bool) -> String {
    let x = enc_int(a, bv);
    let y = enc_int(b, bv);
    if bv {
        let f = match op {
            BinOp::Add => "bvadd",
            BinOp::Sub => "bvsub",
            BinOp::Mul => "bvmul",
            BinOp::Div => "bvsdiv",
            BinOp::Rem => "bvsrem",
            BinOp::Shl => "bvshl",
            BinOp::Shr => "bvashr",
            BinOp::BitAnd => "bvand",
            BinOp::BitOr => "bvor",
            BinOp::BitXor => "bvxor",
            BinOp::Min => return format!("(ite (bvslt {x} {y}) {x} {y})"),
            BinOp::Max => return format!("(ite (bvsgt {x} {y}) {x} {y})"),
            _ => unreachable!("boolean operators are handled above"),
        };
        return format!("({f} {x} {y})");
    }
    match op {
                BinOp::Add => format!("(+ {x} {y})"),
                BinOp::Sub => format!("(- {x} {y})"),
                BinOp::Mul => format!("(* {x} {y})"),
                BinOp::Div => match b.as_const() {
                    Some(c) if c > 0 => format!("(ite (>= {x} 0) (div {x} {c}) (- (div (- {x}) {c})))"),
                    _ => format!(
                        "(ite (= (< {x} 0) (< {y} 0)) (div (abs {x}) (abs {y})) (- (div (abs {x}) (abs {y}))))"
                    ),
                },
                BinOp::Rem => match b.as_const() {
                    Some(c) if c != 0 => {
                        let c = c.unsigned_abs();
                        format!("(ite (>= {x} 0) (mod {x} {c}) (- (mod (- {x}) {c})))")
                    }
                    _ => format!(
                        "(ite (>= {x} 0) (mod {x} (abs {y})) (- (mod (- {x}) (abs {y}))))"
                    ),
                },
                BinOp::Shl => match b.as_const() {
                    Some(c) if (0..63).contains(&c) => format!("(* {x} {})", 1i64 << c),
                    _ => format!("(* {x} {})", pow2_chain(&y, false)),
                },
                BinOp::Shr => match b.as_const() {
                    Some(c) if (0..63).contains(&c) => format!("(div {x} {})", 1i64 << c),
                    _ => format!("(div {x} {})", pow2_chain(&y, false)),
                },
                BinOp::BitAnd => match (a.as_const(), b.as_const()) {
                    (_, Some(m)) if m > 0 && (m & (m + 1)) == 0 => format!("(mod {x} {})", m as i128 + 1),
                    (Some(m), _) if m > 0 && (m & (m + 1)) == 0 => format!("(mod {y} {})", m as i128 + 1),
                    _ => bitwise("bvand", &x, &y),
                },
                BinOp::BitOr => bitwise("bvor", &x, &y),
                BinOp::BitXor => bitwise("bvxor", &x, &y),
                BinOp::Min => format!("(ite (< {x} {y}) {x} {y})"),
                BinOp::Max => format!("(ite (> {x} {y}) {x} {y})"),
                _ => unreachable!("boolean operators are handled above"),
            }
}

/// A bitwise operation on mathematical integers through 32-bit vectors
/// (results read back as signed 32-bit values).
fn bitwise(f: &str, x: &str, y: &str) -> String {
    let r = format!("({f} ((_ int2bv 32) {x}) ((_ int2bv 32) {y}))");
    format!("(let ((r {r})) (- (bv2int r) (ite (bvslt r (_ bv0 32)) 4294967296 0)))")
}

fn has_bitwise(e: &Expr) -> bool {
    let mut found = false;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        // The power-of-two test has an exact linear encoding.
        if let Some((x, _)) = power_of_two_comparison(e) {
            stack.push(x);
            continue;
        }
        match e {
            Expr::Bin(op, a, b) => {
                let mask =
                    |x: &Expr| matches!(x.as_const(), Some(m) if m > 0 && (m & (m + 1)) == 0);
                found |= matches!(op, BinOp::BitOr | BinOp::BitXor)
                    || (*op == BinOp::BitAnd && !mask(a) && !mask(b));
                stack.push(a);
                stack.push(b);
            }
            Expr::Un(op, a) => {
                found |= *op == UnOp::BitNot;
                stack.push(a);
            }
            Expr::Pow2(a) => stack.push(a),
            Expr::Ite(c, a, b) => {
                stack.push(c);
                stack.push(a);
                stack.push(b);
            }
            _ => {}
        }
        if found {
            return true;
        }
    }
    false
}

/// Whether `e` has a bitwise operation that sends a query holding it to
/// 32-bit vectors (see [`switched_to_bitvectors`]).
pub(crate) fn needs_bitvectors(e: &Expr) -> bool {
    has_bitwise(e)
}

/// Whether [`solve`] decides these integer-mode assertions in 32-bit
/// vectors: they have bitwise operations other than masks and power-of-two
/// tests. Its models may then wrap around, which the integer model (and
/// its replay) does not.
pub(crate) fn switched_to_bitvectors(assertions: &[Expr], env: &LaunchEnv) -> bool {
    !env.bitvector && assertions.iter().any(has_bitwise)
}

/// FNV-1a: a stable 64-bit hash of query text (stable across runs and builds).
pub(crate) fn stable_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.as_bytes().iter().chain(std::iter::once(&0xff)) {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Solver settings: the limits are part of every query's identity; the
/// cancel flag and the kernel's deadline only stop a check early (such
/// outcomes are never cached).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverConfig<'a> {
    pub timeout_ms: u32,
    pub rlimit: u32,
    pub cancel: Option<&'a AtomicBool>,
    pub deadline: Option<Instant>,
    /// The kernel's resource budget: every check is charged what it spent,
    /// and none gets more than is left (`budget`).
    pub budget: Option<&'a KernelBudget>,
    /// A satisfying model will be shown as a witness: prefer small values
    /// (readable) and take the model from a fresh solver (reproducible).
    /// Off where only sat/unsat matters.
    pub witness: bool,
}

impl SolverConfig<'_> {
    /// Limits only: no cancellation, no kernel deadline.
    #[cfg(test)]
    pub(crate) fn limits(timeout_ms: u32, rlimit: u32) -> SolverConfig<'static> {
        SolverConfig {
            timeout_ms,
            rlimit,
            cancel: None,
            deadline: None,
            budget: None,
            witness: true,
        }
    }

    /// The resource limit of a shorter try: `units`, or this config's own
    /// limit where it is smaller (0, no limit, gives `units`).
    pub(crate) fn rlimit_at_most(&self, units: u32) -> u32 {
        match self.rlimit {
            0 => units,
            r => r.min(units),
        }
    }

    /// This config with at most `units` resource units
    /// ([`Self::rlimit_at_most`]).
    pub(crate) fn capped(self, units: u32) -> Self {
        SolverConfig {
            rlimit: self.rlimit_at_most(units),
            ..self
        }
    }

    /// The analysis was cancelled (an edit made it obsolete).
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The kernel's budget is spent: its resources (deterministic), or its
    /// wall-clock safety net.
    pub(crate) fn out_of_budget(&self) -> bool {
        self.budget.is_some_and(KernelBudget::spent_all)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// The `unknown` reason of a check stopped because its analysis was
/// cancelled (not cached).
pub(crate) const CANCELLED: &str = "cancelled";
/// The `unknown` reason of a check stopped by the kernel's budget (not
/// cached: the query itself may be decided within its own limit).
pub(crate) const OUT_OF_BUDGET: &str = "the kernel's budget ran out";

/// Counters of one analysis.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct Counters {
    pub run: u64,
    pub reused: u64,
    /// Conflicting access pairs the race pre-checks considered, and those
    /// they decided without Z3 (see `Stats`).
    pub pairs: u64,
    pub pairs_without_z3: u64,
    /// Satisfiable race queries answered on a small concrete launch.
    pub concrete_first: u64,
}

/// A query's assertions as Z3 gets them. Launch sizes the user (or the
/// usage policy) fixed become constants: `blockIdx.x * gridDim.y` with a
/// fixed grid is linear, which Z3 decides quickly and completely; left
/// symbolic it is nonlinear and may come back `unknown` (integer mode only:
/// folding in i64 is not 32-bit wrap-around). A division by zero is
/// undefined behaviour: no execution divides by zero where it evaluates a
/// division (SMT's `div` by 0 is any value, which the concrete model and
/// the machine do not have). Divisions become digits (integer mode only).
fn prepared_assertions(assertions: &[Expr], env: &LaunchEnv) -> Vec<Expr> {
    prepared_assertions_by(assertions, env, always_positive, false)
}

/// [`prepared_assertions`] with the divisions by a `d` that `positive`
/// says is positive as digits, and with `pins`, a parameter the query pins
/// to one value (`lb == 16`) folded like a fixed size (`pinned`; integer
/// mode only): for the forms that are split, where a product through it
/// is then one run-time product fewer. The query as written keeps its
/// pins: folded there, the barrier-independence pre-check of a GEMM with
/// pinned sizes ran out of its 5M units where as written it took
/// milliseconds.
fn prepared_assertions_by(
    assertions: &[Expr],
    env: &LaunchEnv,
    positive: fn(&Expr) -> bool,
    pins: bool,
) -> Vec<Expr> {
    let mut prepared: Vec<Expr> = if env.bitvector {
        assertions.to_vec()
    } else {
        let folded: Vec<Expr> = assertions
            .iter()
            .map(|a| a.subst(&mut |v: &Var| env.fixed(v.kind).map(Expr::Const)))
            .collect();
        if pins {
            super::pinned::fold_pinned_parameters(&folded)
        } else {
            folded
        }
    };
    let divisors = nonzero_divisors(&prepared);
    prepared.extend(divisors);
    if env.bitvector {
        prepared
    } else {
        divisions_as_digits(&prepared, positive)
    }
}

/// The answer a query needs no check for: its cached outcome, or
/// `unknown` when the analysis was cancelled or the kernel's budget is
/// spent. `None`: the query is to be checked (counted as run).
fn answered_without_check(
    key: u64,
    config: &SolverConfig,
    cache: &dyn QueryCache,
    counters: &mut Counters,
) -> Option<QueryOutcome> {
    // Stopped before the cache is read, as a check would be: a kernel's
    // answers do not depend on what the cache holds.
    if config.cancelled() {
        return Some(QueryOutcome::Unknown(CANCELLED.into()));
    }
    if config.out_of_budget() {
        return Some(QueryOutcome::Unknown(OUT_OF_BUDGET.into()));
    }
    if let Some(hit) = cache.get(key) {
        counters.reused += 1;
        // The units the check spent, charged as the check would have been:
        // one that needed more than is left would have stopped at the
        // kernel's budget.
        if let Some(budget) = config.budget {
            match budget.remaining() {
                Some(left) if hit.units > left => {
                    budget.charge(left);
                    return Some(QueryOutcome::Unknown(OUT_OF_BUDGET.into()));
                }
                _ => budget.charge(hit.units),
            }
        }
        return Some(hit.outcome);
    }
    counters.run += 1;
    None
}

/// The units the kernel's budget was charged since `before` (0 without a
/// budget).
fn units_since(config: &SolverConfig, before: Option<u64>) -> u64 {
    match (config.budget, before) {
        (Some(b), Some(before)) => b.spent().saturating_sub(before),
        _ => 0,
    }
}

/// Caches a checked query's outcome, unless the check was stopped (a
/// cancellation or the kernel's budget: the query itself may be decided).
/// With the units its solve spent since `units_before` (see
/// [`CachedAnswer`]).
fn remembered(
    key: u64,
    outcome: QueryOutcome,
    cache: &dyn QueryCache,
    config: &SolverConfig,
    units_before: Option<u64>,
) -> QueryOutcome {
    let stopped =
        matches!(&outcome, QueryOutcome::Unknown(r) if r == CANCELLED || r == OUT_OF_BUDGET);
    if !stopped {
        cache.insert(
            key,
            CachedAnswer {
                outcome: outcome.clone(),
                units: units_since(config, units_before),
            },
        );
    }
    outcome
}

/// What Z3 is given for `assertions` under `env`: the launch it is
/// solved under (bit-vectors where bitwise operations switch it), the
/// prepared assertions, their small-factor split, and the queries as
/// written and split.
struct Forms {
    env: LaunchEnv,
    prepared: Vec<Expr>,
    split: Option<Vec<Expr>>,
    q: Query,
    q_split: Option<Query>,
}

fn forms(assertions: &[Expr], env: &LaunchEnv) -> Forms {
    // Bitwise operations (other than masks) are hard for integer
    // arithmetic: such queries use 32-bit vectors, C's `int` semantics.
    let env = if switched_to_bitvectors(assertions, env) {
        LaunchEnv {
            bitvector: true,
            ..env.clone()
        }
    } else {
        env.clone()
    };
    let prepared = prepared_assertions(assertions, &env);
    // Products with a factor of few values (a thread index of a fixed
    // block size, a loop counter below a constant) as case splits, linear
    // in the other factor (`small_factors`; integer mode only). The digit
    // lemmas still come from the products: split, `(b * 32 + t * 8) * S`
    // is no longer a sum with the radix `S`.
    let split = (!env.bitvector)
        .then(|| {
            let pinned = super::pinned::fold_pinned_parameters(&prepared);
            super::small_factors::split_small_factors(&pinned, &env)
        })
        .flatten();
    let q = build_query(&prepared, &env);
    let q_split = split
        .as_ref()
        .map(|split| build_query_with_lemmas(split, &prepared, &env));
    Forms {
        env,
        prepared,
        split,
        q,
        q_split,
    }
}

/// The question `assertions` put to Z3 under one launch, rendered once:
/// asked with [`solve_question`] and compared with another launch's with
/// [`Question::same_as`], where `solve` and a comparison each rendered it
/// again (a kernel's race query at the small launch was rendered three
/// times, four with the kernel's own launch; most of the time of a kernel
/// decided without Z3).
pub(crate) struct Question(Forms);

impl Question {
    pub(crate) fn new(assertions: &[Expr], env: &LaunchEnv) -> Question {
        Question(forms(assertions, env))
    }

    /// Whether this is the same question for Z3 as `other` (asked under
    /// another launch): the same query text as written and split (a launch
    /// size the query never mentions changes nothing, as in a bit-vector
    /// query of a block size the launch fixes, whose grid the small launch
    /// would fix). Then an `unsat` under one is the `unsat` under the
    /// other: only the limits differ, and more resources do not change a
    /// proof.
    pub(crate) fn same_as(&self, other: &Question) -> bool {
        let (a, b) = (&self.0, &other.0);
        a.q.text == b.q.text
            && a.q_split.as_ref().map(|q| &q.text) == b.q_split.as_ref().map(|q| &q.text)
    }
}

/// Solves `question`, through the cache (as [`solve`] does its assertions).
pub(crate) fn solve_question(
    question: &Question,
    config: SolverConfig,
    cache: &dyn QueryCache,
    counters: &mut Counters,
) -> QueryOutcome {
    solve_forms(&question.0, config, cache, counters)
}

/// Solves `assertions`, through the cache.
pub(crate) fn solve(
    assertions: &[Expr],
    env: &LaunchEnv,
    config: SolverConfig,
    cache: &dyn QueryCache,
    counters: &mut Counters,
) -> QueryOutcome {
    solve_forms(&forms(assertions, env), config, cache, counters)
}

/// [`solve`] of rendered forms, borrowed: only the two query texts are
/// copied (a query that wants no witness drops their small-value
/// preferences), not the prepared assertions.
fn solve_forms(
    forms: &Forms,
    config: SolverConfig,
    cache: &dyn QueryCache,
    counters: &mut Counters,
) -> QueryOutcome {
    let Forms {
        env,
        prepared,
        split,
        q,
        q_split,
    } = forms;
    let (mut q, mut q_split) = (q.clone(), q_split.clone());
    let assertions = &prepared[..];
    if !config.witness {
        q.small.clear();
        if let Some(qs) = &mut q_split {
            qs.small.clear();
        }
    }
    let key = stable_hash(&[
        &q.text,
        &format!(
            "{}/{}/{}/{}",
            config.timeout_ms, config.rlimit, env.bitvector, config.witness
        ),
    ]);
    if let Some(answer) = answered_without_check(key, &config, cache, counters) {
        return answer;
    }
    let started = Instant::now();
    let units_before = config.budget.map(|b| b.spent());
    // Where there is a split, both forms are first asked with small,
    // growing allowances (`probe_forms`): which of them Z3 decides quickly
    // differs from query to query (a stride product the split makes linear;
    // an index the digit lemmas already decide as written, where the split
    // multiplies the cases and ran out of its million units before the
    // query as written was asked, 20K units later). An unsat probe is the
    // answer; a satisfiable one goes to the full check of the query as
    // written, whose witness comes from a solver with the query's limits.
    //
    // Products of run-time values that the linear abstraction with their
    // order facts separates (`product_orders`) are decided by it in tens of
    // thousands of resource units, where the query as written (or split)
    // may run to its limit first, millions of units, before the same
    // abstraction answered it as a rescue. So it is asked early, with a
    // small limit (after the first, shortest round of probes, which decide
    // most index queries for less): its unsat is the answer (sound: every
    // model of the query is one of the abstraction); anything else, or no
    // abstraction, sends the query on exactly as before.
    let orders_sources = orders_sources(assertions, split.as_deref(), env);
    // Only the first source: a query that none decides pays each one's
    // allowance, and the later rescue (after the split) asks them all.
    let orders_first = || {
        orders_sources.first().and_then(|source| {
            product_orders_query(
                source,
                key,
                env,
                started,
                units_before,
                config,
                ORDERS_FIRST_RLIMIT,
            )
        })
    };
    let mut probed = Probe::Undecided;
    for (round, limit) in PROBE_RLIMITS.into_iter().enumerate() {
        if round == 1 || q_split.is_none() {
            if let Some(outcome) = orders_first() {
                return remembered(key, outcome, cache, &config, units_before);
            }
        }
        let Some(qs) = &q_split else { break };
        probed = probe_forms(qs, &q, key, env, started, units_before, config, limit);
        if probed != Probe::Undecided {
            break;
        }
    }
    let undecided = probed == Probe::Undecided;
    match probed {
        Probe::Unsat => {
            return remembered(key, QueryOutcome::Unsat, cache, &config, units_before);
        }
        // No witness wanted: the probe's model is what the full check of
        // the same query on the same warm solver would give, a model and
        // no more (the caller replays it); solving again only costs the
        // full check's units.
        Probe::Sat(model) | Probe::SatSplit(model) if !config.witness => {
            return remembered(key, model, cache, &config, units_before);
        }
        // The split form found it: each split is an identity, so a model
        // of it is one of the query, and its witness comes from the same
        // form. The query as written may be what Z3 finds hard (a stride
        // product the split makes linear): a corpus kernel's split probe
        // found its model in 150 thousand units, and the query as written
        // then took 2.3 million for the witness. Anything short of a model
        // goes on to the query as written.
        Probe::SatSplit(_) => {
            if let Some(qs) = &q_split {
                let outcome = run_z3_in(qs, env, config, true);
                log_query(
                    qs,
                    key,
                    "split-witness",
                    env,
                    started,
                    units_before,
                    config,
                    &outcome,
                );
                if matches!(outcome, QueryOutcome::Sat(_)) {
                    return remembered(key, outcome, cache, &config, units_before);
                }
            }
        }
        Probe::Sat(_) | Probe::Undecided => {}
    }
    // Satisfiable: the query as written gives the witness; the split and
    // the abstraction have nothing to add.
    let q_split = q_split.filter(|_| undecided);
    // The split query first, with at most `SPLIT_FIRST_RLIMIT` units: it
    // is the same query (each split an identity), so its sat or unsat is
    // the answer; where the case splits do not help (a radix the digit
    // lemmas already decide), the products as they are decide.
    let first = q_split.as_ref().map(|qs| {
        let capped = config.capped(SPLIT_FIRST_RLIMIT);
        let outcome = run_z3_in(qs, env, capped, true);
        log_query(
            qs,
            key,
            "split",
            env,
            started,
            units_before,
            capped,
            &outcome,
        );
        outcome
    });
    // Products a split leaves (a block index times a run-time stride) are
    // what Z3's nonlinear core gives up on: where the split did not decide
    // and two of them differ in one factor, the linear abstraction with
    // their order facts (`product_orders`) is asked before the query as
    // written. Its unsat is the answer; anything else only sends the query
    // on. (Only after an undecided split: a query the split decides keeps
    // its cost. A query with no split is asked so only once Z3 could not
    // decide it as written, below.)
    let first = match first {
        Some(QueryOutcome::Unknown(r))
            if r != CANCELLED && r != OUT_OF_BUDGET && !config.out_of_budget() =>
        {
            orders_sources
                .iter()
                .find_map(|source| {
                    product_orders_query(
                        source,
                        key,
                        env,
                        started,
                        units_before,
                        config,
                        ORDERS_RLIMIT,
                    )
                })
                .or(Some(QueryOutcome::Unknown(r)))
        }
        other => other,
    };
    let outcome = match first {
        Some(o @ (QueryOutcome::Sat(_) | QueryOutcome::Unsat)) => o,
        _ => {
            // Probed (there is a split) and not unsat: hard, or known
            // satisfiable, and then its witness is wanted from one solve.
            let outcome = run_z3_in(&q, env, config, split.is_some());
            log_query(&q, key, "", env, started, units_before, config, &outcome);
            let rescue = split.is_none()
                && !env.bitvector
                && matches!(&outcome, QueryOutcome::Unknown(r) if r != CANCELLED && r != OUT_OF_BUDGET)
                && !config.cancelled()
                && !config.out_of_budget();
            rescue
                .then(|| {
                    product_orders_query(
                        assertions,
                        key,
                        env,
                        started,
                        units_before,
                        config,
                        ORDERS_RLIMIT,
                    )
                })
                .flatten()
                .unwrap_or(outcome)
        }
    };
    remembered(key, outcome, cache, &config, units_before)
}

/// A shortcut to a model of `assertions` (integer mode only): the query
/// with its products split over factors of few values
/// (`small_factors`), asked only when the split leaves it linear, and
/// without digit lemmas. The lemmas are valid over the integers, so they
/// change no answer; on a split query they are the only nonlinear part,
/// and Z3 searches them for millions of resource units where the linear
/// query finds its model in a few hundred thousand. For the caller's
/// shortcuts (`small_factors::small_values_restriction`), which use a
/// `Sat` alone: its `unsat` is that of the query, but a query with the
/// lemmas is what decides race-free ones. `Unknown` without asking Z3 when
/// there is no split or it stays nonlinear.
pub(crate) fn solve_linear_split(
    assertions: &[Expr],
    env: &LaunchEnv,
    config: SolverConfig,
    cache: &dyn QueryCache,
    counters: &mut Counters,
) -> QueryOutcome {
    const NOT_LINEAR: &str = "the split leaves the query nonlinear";
    if env.bitvector || switched_to_bitvectors(assertions, env) {
        return QueryOutcome::Unknown(NOT_LINEAR.into());
    }
    // Prepared as `solve` prepares a query (integer mode), and a division
    // by a sum its types keep positive (`frame + 1` of a parameter the
    // caller's restriction typed `0..16`) as digits too: exact, and the
    // split makes the digits' products linear.
    let prepared = prepared_assertions_by(assertions, env, positive_by_types, true);
    let Some(split) = super::small_factors::split_small_factors_up_to(
        &prepared,
        env,
        super::small_factors::MAX_RESTRICTED_CASES,
    )
    .filter(|split| !split.iter().any(Expr::is_nonlinear)) else {
        return QueryOutcome::Unknown(NOT_LINEAR.into());
    };
    let mut q = build_query_with_lemmas(&split, &[], env);
    if !config.witness {
        q.small.clear();
    }
    let key = stable_hash(&[
        &q.text,
        &format!(
            "linear-split/{}/{}/{}",
            config.timeout_ms, config.rlimit, config.witness
        ),
    ]);
    if let Some(answer) = answered_without_check(key, &config, cache, counters) {
        return answer;
    }
    let started = Instant::now();
    let units_before = config.budget.map(|b| b.spent());
    let outcome = run_z3(&q, env, config);
    log_query(
        &q,
        key,
        "linear-split",
        env,
        started,
        units_before,
        config,
        &outcome,
    );
    remembered(key, outcome, cache, &config, units_before)
}

/// The queries whose linear abstraction with order facts
/// (`product_orders`) is asked, in order: the query with its products
/// split over factors of few values (`small_factors`), as written where
/// nothing splits; only those that stay nonlinear (a linear one has no
/// products to compare). Integer mode only.
///
/// Under a fixed grid the split also turns each block index into one case
/// per block (`blockIdx.y * S` into sixteen multiples of `S`), and the
/// abstraction then loses what decides a tiled image's cross-block
/// queries: rows of different blocks lie at least one stride apart, the
/// order fact of `blockIdx.y#1 * S` against `blockIdx.y#2 * S`. With the
/// `dct8x8` short kernels' shape and a fixed 16 x 16 grid, Z3 ran the
/// abstraction of the full split to its limit (4 to 10 million units)
/// where the one keeping the block products is unsat in 4 to 500 thousand.
/// So, under a fixed grid, the split that keeps block-index products is
/// asked first, the full split after it (each an abstraction of the same
/// query: either one's unsat is the query's; the early try asks only the
/// first).
fn orders_sources(assertions: &[Expr], split: Option<&[Expr]>, env: &LaunchEnv) -> Vec<Vec<Expr>> {
    if env.bitvector {
        return Vec::new();
    }
    let full = split.unwrap_or(assertions);
    let keeping_blocks = (env.grid_dim.is_some() && split.is_some())
        .then(|| {
            // The splitter splits a block index only over a fixed grid.
            let symbolic_grid = LaunchEnv {
                grid_dim: None,
                ..env.clone()
            };
            super::small_factors::split_small_factors(assertions, &symbolic_grid)
                .unwrap_or_else(|| assertions.to_vec())
        })
        .filter(|kept| kept.as_slice() != full);
    keeping_blocks
        .into_iter()
        .chain(std::iter::once(full.to_vec()))
        .filter(|source| source.iter().any(Expr::is_nonlinear))
        .collect()
}

/// Z3 resource units of a query with its products split over factors of
/// few values (`small_factors`) before the query as written is asked.
const SPLIT_FIRST_RLIMIT: u32 = 1_000_000;

/// Z3 resource units of each form's short tries (`probe_forms`), in
/// rounds: the queries either form decides quickly take a few tens of
/// thousands, and a form that needs more than the last round is left to
/// the full checks. Growing allowances spend at most a small multiple of
/// what the form that decides needs.
const PROBE_RLIMITS: [u32; 2] = [100_000, 500_000];

/// What the short tries of a query's forms found (`probe_forms`).
#[derive(Clone, PartialEq, Eq, Debug)]
enum Probe {
    Unsat,
    /// Satisfiable as written, with the probe's model (no witness
    /// preferences): a witness comes from the full check.
    Sat(QueryOutcome),
    /// Satisfiable in the split form, with the probe's model: a witness
    /// comes from the split form's full check.
    SatSplit(QueryOutcome),
    Undecided,
}

/// The query as written, then its split form, with at most `limit` units
/// each (one round of `PROBE_RLIMITS`); each is the same query, so either
/// one's answer is the query's. The written form goes first: on index
/// queries Z3 decides it in tens of thousands of units where the split's
/// cases take a million; a stride product only the split makes linear
/// costs the written form's short try.
#[allow(clippy::too_many_arguments)]
fn probe_forms(
    split: &Query,
    written: &Query,
    key: u64,
    env: &LaunchEnv,
    started: Instant,
    units_before: Option<u64>,
    config: SolverConfig,
    limit: u32,
) -> Probe {
    let probe = SolverConfig {
        witness: false,
        ..config.capped(limit)
    };
    for (q, form) in [(written, "probe"), (split, "split-probe")] {
        if config.cancelled() || config.out_of_budget() {
            return Probe::Undecided;
        }
        let outcome = run_z3(q, env, probe);
        log_query(q, key, form, env, started, units_before, probe, &outcome);
        match outcome {
            QueryOutcome::Unsat => return Probe::Unsat,
            model @ QueryOutcome::Sat(_) if form == "split-probe" => return Probe::SatSplit(model),
            model @ QueryOutcome::Sat(_) => return Probe::Sat(model),
            QueryOutcome::Unknown(_) => {}
        }
    }
    Probe::Undecided
}

/// Z3 resource units of the linear abstraction with the products' order
/// facts (`product_orders`): linear arithmetic with case splits.
const ORDERS_RLIMIT: u32 = 1_500_000;

/// Z3 resource units of the same abstraction asked before the query
/// itself (`solve`): enough for the abstractions that decide (a few
/// thousand to about 600 thousand units in NVIDIA's samples: the `dct8x8`
/// short kernels' cross-block rows of a run-time stride take 617 thousand,
/// and just short of that each of their queries went on through both
/// forms' probes and the split, 3.4 million units, before the same
/// abstraction decided it), little against the millions a query it
/// decides ran to before. Only a query that none of it decides pays the
/// whole allowance (one in NVIDIA's samples).
const ORDERS_FIRST_RLIMIT: u32 = 1_000_000;

/// The query's linear abstraction with its products' order facts, asked
/// without a witness with at most `limit` units: `Some(Unsat)` proves the
/// query unsatisfiable; any other answer is `None` (a model of the
/// abstraction is none of the query), as is a query with no two products
/// one factor apart (nothing to add to the plain abstraction).
fn product_orders_query(
    source: &[Expr],
    key: u64,
    env: &LaunchEnv,
    started: Instant,
    units_before: Option<u64>,
    config: SolverConfig,
    limit: u32,
) -> Option<QueryOutcome> {
    let linear = super::product_orders::linear_with_orders(source)?;
    // No digit lemmas: in the abstraction every product is one unknown, and
    // a constant times one is no radix.
    let mut q = build_query_with_lemmas(&linear, &[], env);
    q.small.clear();
    let capped = SolverConfig {
        witness: false,
        ..config.capped(limit)
    };
    let outcome = run_z3(&q, env, capped);
    log_query(
        &q,
        key,
        if limit == ORDERS_FIRST_RLIMIT {
            "orders-first"
        } else {
            "orders"
        },
        env,
        started,
        units_before,
        capped,
        &outcome,
    );
    matches!(outcome, QueryOutcome::Unsat).then_some(outcome)
}

/// Profiling aid: with `SYNCSCOPE_QUERY_LOG=<folder>`, each query Z3 runs
/// is written there (`<key>.smt2`, or `<key>.<form>.smt2` for a rewritten
/// form of the query such as its small-factor split) and one line on stderr
/// says its time, the kernel budget's units it spent and its outcome. Only
/// observes: no verdict depends on it.
#[allow(clippy::too_many_arguments)]
fn log_query(
    q: &Query,
    key: u64,
    form: &str,
    env: &LaunchEnv,
    started: Instant,
    units_before: Option<u64>,
    config: SolverConfig,
    outcome: &QueryOutcome,
) {
    let Some(dir) = std::env::var_os("SYNCSCOPE_QUERY_LOG") else {
        return;
    };
    let name = match form {
        "" => format!("{key:016x}.smt2"),
        form => format!("{key:016x}.{form}.smt2"),
    };
    let path = std::path::Path::new(&dir).join(name);
    let _ = std::fs::write(&path, &q.text);
    let units = match (units_before, config.budget) {
        (Some(before), Some(b)) => b.spent().saturating_sub(before).to_string(),
        _ => "-".into(),
    };
    let verdict = match outcome {
        QueryOutcome::Sat(_) => "sat".to_string(),
        QueryOutcome::Unsat => "unsat".to_string(),
        QueryOutcome::Unknown(r) => format!("unknown ({r})"),
    };
    eprintln!(
        "syncscope-query {key:016x}{}{form} {} ms {units} units bv={} nonlinear={} {verdict}",
        if form.is_empty() { "" } else { "." },
        started.elapsed().as_millis(),
        env.bitvector,
        q.nonlinear
    );
}

/// Z3 resources for the small-values solve of a satisfiable query. Budgets
/// are resources, not time: a witness and a verdict never depend on how
/// loaded the machine is (wall time is only the safety net).
const SMALL_MODEL_RLIMIT: u32 = 2_000_000;
/// Z3 resources the incremental core gets on a linear query before the
/// non-incremental solver takes over.
const INCREMENTAL_SLICE_RLIMIT: u32 = 3_000_000;
/// Z3 resources for the small-values solve of a satisfiable bit-vector
/// query (a solve of its own, see `run_z3_here`): a short try, since the
/// first model is a witness already and the query's own solve is cheap
/// next to a search among small values of 32-bit products.
const BLASTED_SMALL_MODEL_RLIMIT: u32 = 250_000;
/// The literal that switches the small-value preferences on.
const SMALL: &str = "|small!|";

fn run_z3(q: &Query, env: &LaunchEnv, config: SolverConfig) -> QueryOutcome {
    run_z3_in(q, env, config, false)
}

/// [`run_z3`]; `hard`: the query's short tries (`probe_forms`) did not
/// decide it, so it will take at least hundreds of thousands of units.
/// A hard query that wants a witness is solved in a fresh Z3 context at
/// once, like a bit-vector one: its first model is then the reproducible
/// witness, where a model found on the warm solver is solved again in a
/// fresh context, as long again (the Mandelbrot kernels' first race
/// query: 3.5 million units on the warm solver, then 3.2 million in the
/// fresh context, which ran out and left the warm model as the witness).
/// The fresh context's setup, a few milliseconds, is nothing next to such
/// a query; an easy query keeps the warm solver.
fn run_z3_in(q: &Query, env: &LaunchEnv, config: SolverConfig, hard: bool) -> QueryOutcome {
    in_kernel_context(|| run_z3_in_kernel_context(q, env, config, hard))
}

fn run_z3_in_kernel_context(
    q: &Query,
    env: &LaunchEnv,
    config: SolverConfig,
    hard: bool,
) -> QueryOutcome {
    if (env.bitvector || hard) && config.witness {
        // A bit-vector query is solved on a fresh non-incremental solver
        // (see `run_z3_here`): in a fresh context, its model is already
        // the reproducible witness, with no second solve.
        return z3::with_z3_config(&z3::Config::new(), || run_z3_here(q, env, config, true));
    }
    run_z3_here(q, env, config, false)
}

/// [`run_z3`] in the current Z3 context; `fresh_context`: the context was
/// made for this query (its models are reproducible as they are).
fn run_z3_here(
    q: &Query,
    env: &LaunchEnv,
    config: SolverConfig,
    fresh_context: bool,
) -> QueryOutcome {
    use z3::SatResult;
    let started = Instant::now();
    // Two ways to solve, because Z3 4.8's two engines fail on different
    // queries:
    // - the incremental core (selected by a `push`) answers most queries in
    //   well under a millisecond and handles nonlinear arithmetic;
    // - the non-incremental solver pays ~10 ms of preprocessing per query,
    //   but its tactics decide linear index-injectivity queries (tiled
    //   transposes with fixed sizes) in milliseconds where the incremental
    //   core can take seconds.
    // So: the incremental core first; a linear query it cannot finish in
    // a short slice goes to a fresh non-incremental solver for the rest of
    // the time.
    //
    // The incremental core is one warm solver per thread (Z3's core alone,
    // see `z3_solver`), each query in its own push/pop scope: setting up a
    // fresh one (its first `push`, its parameters, its teardown) cost about
    // 80% of a typical query. No assertion outlives its scope; a solver
    // that was interrupted or gave up is not reused, and a query it gives
    // up on ("incomplete") is asked again of a fresh combined solver (the
    // core, then Z3's tactic, which decides some nonlinear queries the
    // core gives up on), so that no answer depends on what it saw before.
    // Witness models come from a fresh solver too (below).
    //
    // Bit-vector queries (a kernel with bitwise operations) are the
    // exception: the non-incremental solver bit-blasts them after its
    // simplifications (constant launch sizes propagated, equalities
    // solved), while the incremental core bit-blasts every multiplier as
    // written. On NVIDIA's sorting and FFT samples the core spent 2 to 10
    // times the resource units on a satisfiable query (and as much on
    // unsatisfiable ones), so these go to a fresh non-incremental solver
    // directly (`blast`). With a witness wanted they are solved in a fresh
    // context (`run_z3`), which makes the first model reproducible, and
    // the small values get a short try of their own.
    let blast = env.bitvector;
    let text = format!(
        "(declare-const {SMALL} Bool)\n{}{}",
        q.text,
        q.small
            .iter()
            .map(|c| format!("(assert (=> {SMALL} {c}))\n"))
            .collect::<String>()
    );
    let solver_for = |kind: Fresh| {
        let solver = match kind {
            Fresh::Core => Solver::incremental_core(),
            Fresh::Incremental | Fresh::NonIncremental => Solver::combined(),
        };
        if kind != Fresh::NonIncremental {
            solver.push();
        }
        solver
    };
    // A fresh solver holding this query.
    let loaded = |kind: Fresh| {
        let solver = solver_for(kind);
        load(&solver, &text)?;
        Ok::<Solver, String>(solver)
    };
    // `limit_ms` is the wall-clock safety net; `rlimit` decides.
    // Whether the watchdog stopped the last check (its deadline passed or
    // the analysis was cancelled): Z3 reports an exhausted rlimit with the
    // same "canceled" as an interruption, and only the clock tells them
    // apart.
    let clock_stopped = AtomicBool::new(false);
    // Whether the last check got less than its own rlimit because the
    // kernel's budget had less left: running out of it then is the
    // kernel's budget, not the query's answer (and is not cached).
    let capped = AtomicBool::new(false);
    let check = |solver: &Solver, limit_ms: u32, rlimit: u32, small: bool| {
        let given = config.budget.map_or(rlimit, |b| b.cap(rlimit));
        capped.store(given != rlimit, Ordering::Relaxed);
        let _rlimit = CheckRlimit::set(solver, given);
        let timeout = Instant::now() + Duration::from_millis(limit_ms.max(1) as u64);
        let deadline = config.deadline.map_or(timeout, |d| d.min(timeout));
        let before = config.budget.and_then(|_| solver.units_counted());
        let result = {
            let _stopped = Stopped {
                deadline,
                config: &config,
                flag: &clock_stopped,
            };
            // The solver's own context (not whichever is thread-local now).
            let _guard = super::watchdog::watch(solver.z3_context(), deadline, config.cancel);
            if small {
                solver.check_assumptions(&[z3::ast::Bool::new_const(SMALL.trim_matches('|'))])
            } else {
                solver.check()
            }
        };
        if let (Some(b), Some(before), Some(after)) =
            (config.budget, before, solver.units_counted())
        {
            b.charge(units_between(before, after));
            // Profiling aid, beside `log_query`'s line per query: each
            // check of it (warm or fresh solver, small values, the witness's
            // fresh context) with the units it spent.
            if std::env::var_os("SYNCSCOPE_QUERY_LOG").is_some() {
                eprintln!(
                    "syncscope-check {} units small={small} fresh={fresh_context} witness={} {result:?}",
                    units_between(before, after),
                    config.witness
                );
            }
        }
        result
    };
    let remaining = || {
        config
            .timeout_ms
            .saturating_sub(started.elapsed().as_millis() as u32)
    };
    let stopped_early = |solver: &Solver| {
        matches!(
            solver.get_reason_unknown().as_deref(),
            Some("canceled" | "interrupted")
        ) || solver
            .get_reason_unknown()
            .is_some_and(|r| r.contains("resource"))
    };
    // Stopped by the clock (the safety net) or a cancellation.
    let interrupted =
        |solver: &Solver| stopped_early(solver) && clock_stopped.load(Ordering::Relaxed);
    // Stopped by the resource budget (deterministic).
    let out_of_resources =
        |solver: &Solver| stopped_early(solver) && !clock_stopped.load(Ordering::Relaxed);
    let mut other: Option<Solver> = None;
    let mut warm = None;
    let mut result = if blast {
        match loaded(Fresh::NonIncremental) {
            Ok(fresh) => {
                let result = check(&fresh, config.timeout_ms, config.rlimit, false);
                other = Some(fresh);
                result
            }
            Err(e) => return QueryOutcome::Unknown(e),
        }
    } else {
        // The kernel context's warm solver is not of a fresh context: a
        // fresh context gets an incremental core of its own.
        let w = warm.insert(if fresh_context {
            WarmSolver::own(config.rlimit, solver_for(Fresh::Core))
        } else {
            WarmSolver::take(config.rlimit, || solver_for(Fresh::Core))
        });
        if let Err(e) = load(w.solver(), &text) {
            w.reusable = false;
            return QueryOutcome::Unknown(e);
        }
        let slice = if q.nonlinear || config.rlimit == 0 {
            config.rlimit
        } else {
            config.rlimit.min(INCREMENTAL_SLICE_RLIMIT)
        };
        check(w.solver(), config.timeout_ms, slice, false)
    };
    if let (SatResult::Unknown, Some(warm)) = (result, warm.as_mut()) {
        warm.reusable = false;
        let more_time = !config.cancelled() && !config.out_of_budget() && remaining() > 0;
        // Gave up ("incomplete"): once more on a fresh combined solver;
        // out of its slice on a linear query: the non-incremental solver.
        let incremental = !interrupted(warm.solver()) && !out_of_resources(warm.solver());
        if more_time && (incremental || (!q.nonlinear && !interrupted(warm.solver()))) {
            match loaded(if incremental {
                Fresh::Incremental
            } else {
                Fresh::NonIncremental
            }) {
                Ok(fresh) => {
                    result = check(&fresh, remaining(), config.rlimit, false);
                    other = Some(fresh);
                }
                Err(e) => return QueryOutcome::Unknown(e),
            }
        }
    }
    let solver: &Solver = match (&other, &warm) {
        (Some(fresh), _) => fresh,
        (None, Some(warm)) => warm.solver(),
        (None, None) => unreachable!("a query is checked on the warm solver or a fresh one"),
    };
    match result {
        SatResult::Unsat => QueryOutcome::Unsat,
        SatResult::Unknown => {
            let reason = solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".to_string());
            let kernel_budget = capped.load(Ordering::Relaxed)
                || config.budget.is_some_and(KernelBudget::spent_all);
            QueryOutcome::Unknown(if out_of_resources(solver) && kernel_budget {
                OUT_OF_BUDGET.to_string()
            } else if out_of_resources(solver) {
                format!("out of its resource budget (rlimit {})", config.rlimit)
            } else if !interrupted(solver) {
                reason
            } else if config.cancelled() {
                CANCELLED.to_string()
            } else if config.out_of_budget() {
                OUT_OF_BUDGET.to_string()
            } else {
                format!("timeout after {} ms", config.timeout_ms)
            })
        }
        SatResult::Sat => {
            // The model, preferring small values (witnesses people can
            // read): a short try on the same solver; the first model stands
            // if it fails.
            let witness_of = |solver: &Solver| {
                let mut values = model_values(solver, q, env)?;
                if blast && !q.small.is_empty() {
                    // The small values as assertions of one more
                    // non-incremental solve (assumptions would put the
                    // query back on the incremental core).
                    let small_rlimit = config.rlimit_at_most(BLASTED_SMALL_MODEL_RLIMIT);
                    let small = solver_for(Fresh::NonIncremental);
                    if load(&small, &format!("{text}(assert {SMALL})\n")).is_ok()
                        && check(&small, remaining().max(1), small_rlimit, false) == SatResult::Sat
                    {
                        if let Some(small) = model_values(&small, q, env) {
                            values = small;
                        }
                    }
                    return Some(values);
                }
                if !q.small.is_empty()
                    && check(
                        solver,
                        config.timeout_ms,
                        config.rlimit_at_most(SMALL_MODEL_RLIMIT),
                        true,
                    ) == SatResult::Sat
                {
                    if let Some(small) = model_values(solver, q, env) {
                        values = small;
                    }
                }
                Some(values)
            };
            // A witness that will be shown is solved again in a fresh Z3
            // context: models depend on the context's history (the order
            // its terms were made in), and the same kernel must give the
            // same witness in a fresh analysis and after any edits.
            let reproducible = (config.witness && !fresh_context)
                .then(|| {
                    z3::with_z3_config(&z3::Config::new(), || {
                        let fresh = loaded(if blast {
                            Fresh::NonIncremental
                        } else {
                            Fresh::Core
                        })
                        .ok()?;
                        if check(&fresh, remaining().max(1), config.rlimit, false) == SatResult::Sat
                        {
                            witness_of(&fresh)
                        } else {
                            None
                        }
                    })
                })
                .flatten();
            let Some(values) = reproducible.or_else(|| witness_of(solver)) else {
                return QueryOutcome::Unknown("no model".into());
            };
            // A witness must be a launch the hardware allows (<= 1024 threads).
            if q.product_check {
                let get = |d: u8| {
                    let n = format!("blockDim.{}", DIMS[d as usize]);
                    values
                        .iter()
                        .find(|(k, _)| *k == n)
                        .map(|(_, v)| *v)
                        .or(env.fixed(VarKind::BlockDim(d)))
                        .unwrap_or(1)
                };
                let limit = env.max_threads.unwrap_or(1024).min(1024);
                if get(0).saturating_mul(get(1)).saturating_mul(get(2)) > limit {
                    let mut product = String::new();
                    for d in 0..3u8 {
                        let n = format!("|blockDim.{}|", DIMS[d as usize]);
                        if q.text.contains(&format!("(declare-const {n}")) {
                            product.push_str(&format!(" {n}"));
                        }
                    }
                    let text = format!("{}(assert (<= (* 1{product}) {limit}))\n", q.text);
                    let q2 = Query {
                        text,
                        vars: q.vars.clone(),
                        small: q.small.clone(),
                        product_check: false,
                        nonlinear: true,
                    };
                    return if fresh_context {
                        z3::with_z3_config(&z3::Config::new(), || {
                            run_z3_here(&q2, env, config, true)
                        })
                    } else {
                        run_z3(&q2, env, config)
                    };
                }
            }
            QueryOutcome::Sat(values)
        }
    }
}

/// Which fresh solver a check gets (see `run_z3_here`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fresh {
    /// The incremental core alone, inside a scope.
    Core,
    /// Z3's combined solver inside a scope: the incremental core, then
    /// Z3's tactic where the core gives up on a quantifier-free query.
    Incremental,
    /// The combined solver without scopes: Z3's default tactic.
    NonIncremental,
}

/// Asserts the SMT-LIB `text` (declarations and assertions) in `solver`'s
/// current scope. Parsed by the context (`Z3_parse_smtlib2_string`), not by
/// the solver (`Z3_solver_from_string`): since Z3 4.12 a solver remembers
/// the declarations of every text it parsed, so the next query's
/// `declare-const` of the same name fails and the solver is left without
/// its assertions (satisfiable, with an empty model). Context-level parsing
/// keeps no state between calls in every Z3 version, and constants are the
/// same terms as `Int::new_const` of their names. A parse error is an
/// error, never an empty query.
pub(crate) fn load(solver: &impl Asserts, text: &str) -> Result<(), String> {
    use z3::ast::Ast;
    let ctx = solver.context();
    let raw = ctx.get_z3_context();
    let source = std::ffi::CString::new(text).map_err(|_| "a query with a NUL byte".to_string())?;
    // SAFETY: `raw` is the live context of `solver`; the vector is reference
    // counted for the time it is read, and each element is wrapped (which
    // takes its own reference) before the vector is released.
    unsafe {
        let parsed = z3_sys::Z3_parse_smtlib2_string(
            raw,
            source.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        );
        let code = z3_sys::Z3_get_error_code(raw);
        let Some(vector) = parsed.filter(|_| code == z3_sys::ErrorCode::Ok) else {
            let message = z3_sys::Z3_get_error_msg(raw, code);
            let message = if message.is_null() {
                format!("{code:?}")
            } else {
                std::ffi::CStr::from_ptr(message)
                    .to_string_lossy()
                    .into_owned()
            };
            return Err(format!("the solver could not read the query: {message}"));
        };
        z3_sys::Z3_ast_vector_inc_ref(raw, vector);
        let n = z3_sys::Z3_ast_vector_size(raw, vector);
        for i in 0..n {
            if let Some(a) = z3_sys::Z3_ast_vector_get(raw, vector, i) {
                solver.assert_bool(&z3::ast::Bool::wrap(ctx, a));
            }
        }
        z3_sys::Z3_ast_vector_dec_ref(raw, vector);
    }
    Ok(())
}

/// The resource budget of one check (Z3 counts it from the check's start):
/// the deterministic per-query budget, set on the solver's context for the
/// time of the check and cleared after it. Z3 reads a solver's `rlimit`
/// parameter, or failing that its context's, when a check starts; a context
/// parameter costs nothing to set, where `Z3_solver_set_params` validates
/// the parameters against every module's descriptions (about a sixth of
/// the time of a run of short queries). No solver of `run_z3` has an
/// `rlimit` parameter of its own, so the context's decides; a solver made
/// elsewhere in the context, with or without its own, sees no limit of
/// this check's once it is over.
struct CheckRlimit {
    context: z3_sys::Z3_context,
}

impl CheckRlimit {
    fn set(solver: &Solver, rlimit: u32) -> CheckRlimit {
        let context = solver.z3_context();
        set_context_rlimit(context, rlimit);
        CheckRlimit { context }
    }
}

impl Drop for CheckRlimit {
    fn drop(&mut self) {
        // 0: no limit, the context's default.
        set_context_rlimit(self.context, 0);
    }
}

fn set_context_rlimit(context: z3_sys::Z3_context, rlimit: u32) {
    let value = std::ffi::CString::new(rlimit.to_string()).expect("digits have no NUL byte");
    // SAFETY: `context` is the live context of the solver being checked
    // (the guard lives inside the check, which holds the solver); both
    // strings outlive the call, which copies what it keeps.
    unsafe { z3_sys::Z3_update_param_value(context, c"rlimit".as_ptr(), value.as_ptr()) };
}

/// Records, when a check ends, whether the watchdog had a reason to stop it.
struct Stopped<'a, 'c> {
    deadline: Instant,
    config: &'a SolverConfig<'c>,
    flag: &'a AtomicBool,
}

impl Drop for Stopped<'_, '_> {
    fn drop(&mut self) {
        let stopped = Instant::now() >= self.deadline || self.config.cancelled();
        self.flag.store(stopped, Ordering::Relaxed);
    }
}

thread_local! {
    /// This thread's warm incremental solver and the resource limit of the
    /// queries it answered (see [`run_z3`]). A query with another limit (a
    /// pre-check, a split, a probe) gets a fresh one: what the incremental
    /// core decides within a limit depends on the queries it answered
    /// before, and queries of one kind after those of another were seen to
    /// run to their limit on a warm solver where a fresh one decided them
    /// at once.
    static WARM: std::cell::RefCell<Option<(Solver, u32)>> =
        const { std::cell::RefCell::new(None) };
}

thread_local! {
    /// The Z3 context of the kernel this thread verifies, made at the
    /// kernel's first query that reaches Z3 (see [`verifying_one_kernel`]).
    static KERNEL_CONTEXT: std::cell::RefCell<Option<z3::Context>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `verify`, one kernel's verification, so that the kernel's queries
/// are solved in a Z3 context of its own. What the solver decides within a
/// resource limit depends on the terms its context made before (their order
/// and numbering) and on the queries the warm solver answered before, and
/// which kernels a worker thread verified before depends on the scheduling
/// of a parallel run. In a fresh context, with a fresh warm solver, a
/// kernel's answers depend on its own queries only: same input, same
/// verdict, in any run and after any edit.
///
/// The context is made when the first query reaches Z3, not before: making
/// and dropping one costs about 10 ms (mostly the kernel's page faults), and
/// most kernels of a file with many kernels are decided without Z3 (exact
/// rules, cached answers). A file of 2,000 small kernels took 4 times as
/// long with a context made for every kernel.
pub(crate) fn verifying_one_kernel<R>(verify: impl FnOnce() -> R) -> R {
    let forget = || {
        // The warm solver belongs to the kernel's context: both go.
        WARM.with(|w| *w.borrow_mut() = None);
        KERNEL_CONTEXT.with(|c| *c.borrow_mut() = None);
    };
    forget();
    let result = verify();
    forget();
    result
}

/// Runs `f` in the context of the kernel being verified (made now if this
/// is its first query to reach Z3).
fn in_kernel_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    let context = KERNEL_CONTEXT
        .with(|c| c.borrow().clone())
        .unwrap_or_else(|| {
            // `with_z3_config` is the crate's one way to make a context; the
            // clone kept here outlives the call.
            z3::with_z3_config(&z3::Config::new(), || {
                KERNEL_CONTEXT.with(|c| *c.borrow_mut() = Some(z3::Context::thread_local()));
            });
            KERNEL_CONTEXT
                .with(|c| c.borrow().clone())
                .expect("the kernel's context was just made")
        });
    z3::with_z3_context(&context, f)
}

/// A warm solver taken out of [`WARM`] for one query, inside a scope of its
/// own; the scope is popped and the solver put back when the query is done
/// (unless it must not be reused).
struct WarmSolver {
    solver: Option<Solver>,
    rlimit: u32,
    reusable: bool,
}

impl WarmSolver {
    fn take(rlimit: u32, make: impl FnOnce() -> Solver) -> WarmSolver {
        let solver = WARM
            .with(|w| w.borrow_mut().take())
            .filter(|(_, r)| *r == rlimit)
            .map(|(s, _)| s)
            .unwrap_or_else(make);
        solver.push();
        WarmSolver {
            solver: Some(solver),
            rlimit,
            reusable: true,
        }
    }

    /// A solver that is not the thread's warm one, used as it would be
    /// and then dropped (never kept for the next query).
    fn own(rlimit: u32, solver: Solver) -> WarmSolver {
        solver.push();
        WarmSolver {
            solver: Some(solver),
            rlimit,
            reusable: false,
        }
    }

    fn solver(&self) -> &Solver {
        self.solver.as_ref().expect("taken only on drop")
    }
}

impl Drop for WarmSolver {
    fn drop(&mut self) {
        let Some(solver) = self.solver.take() else {
            return;
        };
        if !self.reusable || std::thread::panicking() {
            return;
        }
        solver.pop(1);
        let rlimit = self.rlimit;
        WARM.with(|w| *w.borrow_mut() = Some((solver, rlimit)));
    }
}

/// The values of the query's variables in the solver's model.
fn model_values(solver: &Solver, q: &Query, env: &LaunchEnv) -> Option<Vec<(String, i64)>> {
    let shown: Vec<&Var> = q
        .vars
        .iter()
        .filter(|v| !crate::symbols::is_solver_auxiliary(&v.name))
        .collect();
    let values = solver.model_values(&shown, |model, v| {
        let name = sym(v);
        if env.bitvector {
            let c = z3::ast::BV::new_const(name.trim_matches('|'), 32);
            // Two's complement: the 32 bits as a signed int.
            model.value(&c).map(|u| u as u32 as i32 as i64)
        } else {
            let c = z3::ast::Int::new_const(name.trim_matches('|'));
            model.value(&c).and_then(|x| i64::try_from(x).ok())
        }
    })?;
    Some(
        shown
            .iter()
            .zip(values)
            .filter_map(|(v, value)| Some((v.name.to_string(), value?)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scope;

    fn env() -> LaunchEnv {
        LaunchEnv {
            block_dim: None,
            grid_dim: None,
            block_used: [true, false, false],
            grid_used: [true, false, false],
            max_threads: None,
            bitvector: false,
        }
    }

    /// The value a model gives `name`.
    fn model_value(values: &[(String, i64)], name: &str) -> Option<i64> {
        values.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    fn tid(t: u8) -> Expr {
        Expr::Var(Var::new(
            crate::symbols::thread_idx(0, t),
            VarKind::ThreadIdx(0),
        ))
    }

    /// Tiles at row `tile / across` of a run-time `across` and a written
    /// value divided by `weight + 1`: nonlinear as written; under the
    /// small-values restriction the parameters are typed small (`across`
    /// positive, `weight` non-negative), both divisions become digits and
    /// the split is linear, so `solve_linear_split` asks Z3 and its model
    /// is one of the query (the divisor positive, the collision real).
    #[test]
    fn the_small_values_restriction_makes_divisions_by_parameters_linear() {
        let param = |name: &str| {
            Expr::Var(Var::new(
                name,
                VarKind::Param {
                    lo: i32::MIN as i64,
                    hi: i32::MAX as i64,
                },
            ))
        };
        let (across, width, weight, tile) = (
            param("across"),
            param("width"),
            param("weight"),
            param("tile"),
        );
        let row = Expr::bin(BinOp::Div, tile.clone(), across.clone());
        let col = Expr::bin(BinOp::Rem, tile, across.clone());
        let value = Expr::bin(
            BinOp::Div,
            Expr::Var(Var::new(
                "v",
                VarKind::Unknown {
                    scope: Scope::Thread,
                    lo: 0,
                    hi: 255,
                },
            )),
            Expr::add(weight.clone(), Expr::Const(1)),
        );
        let index = |t: u8| {
            Expr::add(
                Expr::mul(width.clone(), row.clone()),
                Expr::add(col.clone(), tid(t)),
            )
        };
        let query = vec![
            Expr::bin(BinOp::Ne, tid(1), tid(2)),
            Expr::eq(index(1), Expr::add(index(2), Expr::Const(1))),
            Expr::bin(BinOp::Gt, row.clone(), Expr::Const(0)),
            Expr::bin(BinOp::Gt, value, Expr::Const(3)),
        ];
        let launch = LaunchEnv {
            block_dim: Some([64, 1, 1]),
            grid_dim: Some([2, 1, 1]),
            ..env()
        };
        let cfg = SolverConfig::limits(10_000, 400_000);
        let mut c = Counters::default();
        // As written, the divisions by parameters leave the split nonlinear.
        assert!(matches!(
            solve_linear_split(&query, &launch, cfg, &crate::cache::NoCache, &mut c),
            QueryOutcome::Unknown(_)
        ));
        assert_eq!(c.run, 0, "no query asked of Z3");
        let restricted = crate::verify::small_factors::small_values_restriction(&query, &launch)
            .expect("restricted");
        let QueryOutcome::Sat(values) =
            solve_linear_split(&restricted, &launch, cfg, &crate::cache::NoCache, &mut c)
        else {
            panic!("the restricted query has small models");
        };
        let get = |n: &str| model_value(&values, n);
        let across = get("across").expect("across in the model");
        let weight = get("weight").expect("weight in the model");
        assert!((1..16).contains(&across), "across = {across}");
        assert!((0..16).contains(&weight), "weight = {weight}");
        assert!(get("v").expect("v") / (weight + 1) > 3);
    }

    #[test]
    fn distinct_threads_same_index_is_unsat() {
        let a = vec![
            Expr::bin(BinOp::Ne, tid(1), tid(2)),
            Expr::eq(tid(1), tid(2)),
        ];
        let cache = crate::cache::MemoryCache::default();
        let mut c = Counters::default();
        let cfg = SolverConfig::limits(2000, 0);
        assert_eq!(solve(&a, &env(), cfg, &cache, &mut c), QueryOutcome::Unsat);
        // The second time it comes from the cache.
        assert_eq!(solve(&a, &env(), cfg, &cache, &mut c), QueryOutcome::Unsat);
        assert_eq!((c.run, c.reused), (1, 1));
    }

    #[test]
    fn the_warm_solver_reads_every_query_declaring_the_same_names() {
        // One thread's warm solver answers query after query that declare
        // the same constants. Z3 4.12 and later remember a solver's
        // declarations across `Z3_solver_from_string` calls, and the
        // re-declaration left the solver empty: "sat" with a model of
        // zeros. Alternate satisfiable and unsatisfiable queries on the same
        // names, uncached, and check each answer and each model.
        let mut c = Counters::default();
        let cfg = SolverConfig::limits(2000, 0);
        for round in 0..3 {
            let unsat = vec![
                Expr::bin(BinOp::Ne, tid(1), tid(2)),
                Expr::eq(tid(1), tid(2)),
            ];
            assert_eq!(
                solve(&unsat, &env(), cfg, &crate::cache::NoCache, &mut c),
                QueryOutcome::Unsat,
                "round {round}"
            );
            let sat = vec![Expr::eq(Expr::add(tid(1), Expr::Const(3 + round)), tid(2))];
            let QueryOutcome::Sat(values) =
                solve(&sat, &env(), cfg, &crate::cache::NoCache, &mut c)
            else {
                panic!("round {round}: expected sat")
            };
            let get = |n: &str| model_value(&values, n);
            assert_eq!(
                get("threadIdx.x#1").map(|t| t + 3 + round),
                get("threadIdx.x#2"),
                "round {round}: {values:?}"
            );
        }
    }

    /// Rows of a tile written several per thread into a matrix of
    /// symbolic width `w`: the cell `col + row * w + 8 * i * w` of two
    /// distinct threads, `col < w`. The radix `w` multiplies two terms of
    /// the sum, which only the grouped digit lemma (`radix_groupings`)
    /// relates: without it Z3's nonlinear core spends far more than this
    /// resource budget (the same on any machine) and gives up.
    #[test]
    fn a_radix_multiplying_several_terms_of_a_sum_is_one_digit() {
        // Steps of 8 rows for 8 rows of threads: no two cells meet; steps
        // of 4 overlap (thread row 4 at step 0, thread row 0 at step 1).
        assert_eq!(rows_by_step(8), QueryOutcome::Unsat);
        assert!(matches!(rows_by_step(4), QueryOutcome::Sat(_)));
    }

    fn rows_by_step(step: i64) -> QueryOutcome {
        let var = |name: String, kind: VarKind| Expr::Var(Var::new(name, kind));
        let w = var(
            "w".into(),
            VarKind::Param {
                lo: i32::MIN as i64,
                hi: i32::MAX as i64,
            },
        );
        let mut assertions = Vec::new();
        let mut coords = Vec::new();
        let mut cells = Vec::new();
        for t in [1u8, 2] {
            let tx = var(crate::symbols::thread_idx(0, t), VarKind::ThreadIdx(0));
            let ty = var(crate::symbols::thread_idx(1, t), VarKind::ThreadIdx(1));
            let bx = var(crate::symbols::block_idx(0, t), VarKind::BlockIdx(0));
            let by = var(crate::symbols::block_idx(1, t), VarKind::BlockIdx(1));
            let i = var(format!("i@0#{t}"), VarKind::Counter { pow2: false });
            let col = Expr::add(Expr::mul(bx.clone(), Expr::Const(32)), tx.clone());
            let row = Expr::add(Expr::mul(by.clone(), Expr::Const(32)), ty.clone());
            assertions.push(Expr::bin(BinOp::Lt, col.clone(), w.clone()));
            assertions.push(Expr::bin(BinOp::Lt, i.clone(), Expr::Const(4)));
            cells.push(Expr::add(
                Expr::add(col, Expr::mul(row, w.clone())),
                Expr::mul(Expr::mul(Expr::Const(step), i.clone()), w.clone()),
            ));
            coords.push([tx, ty, bx, by, i]);
        }
        assertions.push(Expr::eq(cells[0].clone(), cells[1].clone()));
        // Distinct threads, or one thread at two iterations.
        assertions.push(
            coords[0]
                .iter()
                .zip(&coords[1])
                .fold(Expr::fals(), |any, (a, b)| {
                    Expr::or(any, Expr::bin(BinOp::Ne, a.clone(), b.clone()))
                }),
        );
        let env = LaunchEnv {
            block_dim: Some([32, 8, 1]),
            grid_dim: None,
            block_used: [true, true, false],
            grid_used: [true, true, false],
            max_threads: None,
            bitvector: false,
        };
        let mut c = Counters::default();
        let cfg = SolverConfig::limits(600_000, 300_000);
        solve(&assertions, &env, cfg, &crate::cache::NoCache, &mut c)
    }

    #[test]
    fn a_bitvector_witness_is_solved_once_and_reproducible() {
        // A query with a mask by a run-time value is decided in 32-bit
        // vectors on a fresh non-incremental solver in a fresh context:
        // its first model is the witness. The same query gives the same
        // witness whatever the thread's solver saw before, and the witness
        // satisfies the query.
        let param = |n: &str| Expr::Var(Var::new(n, VarKind::Param { lo: 1, hi: 4096 }));
        let cell = |t: u8| {
            let lane = Expr::bin(
                BinOp::BitAnd,
                tid(t),
                Expr::bin(BinOp::Sub, param("span"), Expr::Const(1)),
            );
            Expr::add(Expr::mul(lane, param("width")), tid(t))
        };
        let a = vec![
            Expr::bin(BinOp::Ne, tid(1), tid(2)),
            Expr::eq(cell(1), cell(2)),
        ];
        assert!(switched_to_bitvectors(&a, &env()));
        let mut c = Counters::default();
        let cfg = SolverConfig::limits(60_000, 5_000_000);
        let first = solve(&a, &env(), cfg, &crate::cache::NoCache, &mut c);
        let QueryOutcome::Sat(values) = first.clone() else {
            panic!("expected sat, got {first:?}")
        };
        // Other queries in between, on this thread's solvers.
        let other = vec![Expr::eq(Expr::add(tid(1), Expr::Const(7)), tid(2))];
        assert!(matches!(
            solve(&other, &env(), cfg, &crate::cache::NoCache, &mut c),
            QueryOutcome::Sat(_)
        ));
        assert_eq!(
            solve(&a, &env(), cfg, &crate::cache::NoCache, &mut c),
            first
        );
        let get = |n: &str| model_value(&values, n);
        let (t1, t2) = (get("threadIdx.x#1").unwrap(), get("threadIdx.x#2").unwrap());
        let (span, width) = (get("span").unwrap(), get("width").unwrap());
        let cell_of = |t: i64| ((t & (span - 1)) * width + t) as i32;
        assert_ne!(t1, t2);
        assert_eq!(cell_of(t1), cell_of(t2), "{values:?}");
    }

    #[test]
    fn a_hard_query_with_a_witness_is_solved_once_in_a_fresh_context() {
        // A query the probes did not decide is solved in a context of its
        // own, on a solver of its own: the thread's warm solver (of the
        // thread's usual context) is neither used there nor lost, the
        // witness satisfies the query, and the same query gives the same
        // witness whatever the thread solved before.
        let param = |n: &str| Expr::Var(Var::new(n, VarKind::Param { lo: 1, hi: 4096 }));
        let a = vec![
            Expr::bin(BinOp::Ne, tid(1), tid(2)),
            Expr::eq(
                Expr::add(Expr::mul(tid(1), param("w")), param("h")),
                Expr::add(Expr::mul(tid(2), param("h")), param("w")),
            ),
        ];
        let q = build_query(&a, &env());
        assert!(q.nonlinear);
        let cfg = SolverConfig::limits(60_000, 5_000_000);
        let mut c = Counters::default();
        // Easy queries on the thread's warm solver, before and between.
        let mut easy = |k: i64| {
            let sat = vec![Expr::eq(Expr::add(tid(1), Expr::Const(k)), tid(2))];
            let QueryOutcome::Sat(v) = solve(&sat, &env(), cfg, &crate::cache::NoCache, &mut c)
            else {
                panic!("expected sat")
            };
            let get = |n: &str| model_value(&v, n);
            assert_eq!(get("threadIdx.x#1").map(|t| t + k), get("threadIdx.x#2"));
        };
        easy(5);
        let first = run_z3_in(&q, &env(), cfg, true);
        let QueryOutcome::Sat(values) = first.clone() else {
            panic!("expected sat, got {first:?}")
        };
        easy(7);
        assert_eq!(run_z3_in(&q, &env(), cfg, true), first);
        easy(9);
        let get = |n: &str| model_value(&values, n);
        let (t1, t2) = (get("threadIdx.x#1").unwrap(), get("threadIdx.x#2").unwrap());
        let (w, h) = (get("w").unwrap(), get("h").unwrap());
        assert_ne!(t1, t2);
        assert_eq!(t1 * w + h, t2 * h + w, "{values:?}");
    }

    #[test]
    fn a_satisfiable_probe_answers_with_a_model_of_the_query() {
        // A product of a thread index of a fixed block and a parameter
        // has a split (`small_factors`), so the query is probed first.
        // Without a witness wanted, the probe's model is the answer; with
        // one, the full check gives it. Either is a model of the query.
        let fixed = LaunchEnv {
            block_dim: Some([8, 1, 1]),
            ..env()
        };
        let w = Expr::Var(Var::new("w", VarKind::Param { lo: 1, hi: 4096 }));
        let a = vec![
            Expr::bin(BinOp::Ne, tid(1), tid(2)),
            Expr::eq(
                Expr::add(Expr::mul(tid(1), w.clone()), Expr::Const(3)),
                Expr::mul(tid(2), w),
            ),
        ];
        assert!(forms(&a, &fixed).q_split.is_some(), "the query has a split");
        for witness in [false, true] {
            let cfg = SolverConfig {
                witness,
                ..SolverConfig::limits(60_000, 5_000_000)
            };
            let outcome = solve(
                &a,
                &fixed,
                cfg,
                &crate::cache::NoCache,
                &mut Counters::default(),
            );
            let QueryOutcome::Sat(values) = outcome else {
                panic!("expected sat, got {outcome:?}")
            };
            let get = |n: &str| model_value(&values, n).unwrap();
            let (t1, t2, w) = (get("threadIdx.x#1"), get("threadIdx.x#2"), get("w"));
            assert!(t1 != t2 && (0..8).contains(&t1) && (0..8).contains(&t2));
            assert_eq!(t1 * w + 3, t2 * w, "witness {witness}: {values:?}");
        }
    }

    #[test]
    fn a_cached_answer_charges_the_units_its_check_spent() {
        // The same query asked twice with one cache: the second is a hit,
        // and its kernel's budget is charged what the first check spent,
        // so a kernel's budget does not depend on the cache. A budget with
        // less left than that stops where the check would have.
        let a = vec![
            Expr::bin(BinOp::Ne, tid(1), tid(2)),
            Expr::eq(Expr::add(tid(1), Expr::Const(3)), tid(2)),
        ];
        let cache = crate::cache::MemoryCache::default();
        let ask = |budget: &KernelBudget| {
            let cfg = SolverConfig {
                budget: Some(budget),
                ..SolverConfig::limits(60_000, 5_000_000)
            };
            let mut c = Counters::default();
            let outcome = solve(&a, &env(), cfg, &cache, &mut c);
            (outcome, budget.spent(), c.reused)
        };
        let cold = KernelBudget::for_rlimit(5_000_000);
        let (first, spent, reused) = ask(&cold);
        assert!(matches!(first, QueryOutcome::Sat(_)), "{first:?}");
        assert!(spent > 0 && reused == 0);
        let warm = KernelBudget::for_rlimit(5_000_000);
        assert_eq!(ask(&warm), (first, spent, 1));
        let short = KernelBudget::for_rlimit(5_000_000);
        short.charge(5_000_000 - (spent - 1));
        let (stopped, _, _) = ask(&short);
        assert_eq!(stopped, QueryOutcome::Unknown(OUT_OF_BUDGET.into()));
        assert!(short.spent_all());
    }

    #[test]
    fn neighbour_index_collides() {
        let a = vec![
            Expr::bin(BinOp::Ne, tid(1), tid(2)),
            Expr::eq(Expr::add(tid(1), Expr::Const(1)), tid(2)),
        ];
        let mut c = Counters::default();
        let cfg = SolverConfig::limits(2000, 0);
        let out = solve(&a, &env(), cfg, &crate::cache::NoCache, &mut c);
        let QueryOutcome::Sat(values) = out else {
            panic!("expected sat, got {out:?}")
        };
        let get = |n: &str| model_value(&values, n).unwrap();
        assert_eq!(get("threadIdx.x#1") + 1, get("threadIdx.x#2"));
        assert!(get("blockDim.x") > get("threadIdx.x#2"));
    }

    #[test]
    fn power_of_two_test_is_exact_and_stays_integer() {
        let x = Expr::Var(Var::new(
            "x",
            VarKind::Unknown {
                scope: Scope::Thread,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        ));
        let test = Expr::bin(
            BinOp::BitAnd,
            x.clone(),
            Expr::bin(BinOp::Sub, x.clone(), Expr::Const(1)),
        );
        let is_pow2 = Expr::eq(test.clone(), Expr::Const(0));
        let not_pow2 = Expr::bin(BinOp::Ne, test, Expr::Const(0));
        assert!(!switched_to_bitvectors(
            std::slice::from_ref(&is_pow2),
            &env()
        ));
        let cfg = SolverConfig::limits(2000, 0);
        // Against the replay's 32-bit semantics, value by value.
        for value in [
            0,
            1,
            2,
            3,
            12,
            16,
            1 << 31,
            -(1 << 31),
            -4,
            1 << 32,
            (1 << 32) + 8,
            (1 << 32) + 6,
        ] {
            let low = value as i32;
            let want = low & low.wrapping_sub(1) == 0;
            for (claim, holds) in [(&is_pow2, want), (&not_pow2, !want)] {
                let a = vec![claim.clone(), Expr::eq(x.clone(), Expr::Const(value))];
                let mut c = Counters::default();
                let out = solve(&a, &env(), cfg, &crate::cache::NoCache, &mut c);
                assert_eq!(
                    matches!(out, QueryOutcome::Sat(_)),
                    holds,
                    "x = {value}: {out:?}"
                );
            }
        }
    }

    #[test]
    fn constant_shifts_by_a_symbolic_amount_are_linear_and_exact() {
        // For every exponent (negative, in range, past 62), the linear
        // cases equal the general encoding (a product with, a division by,
        // the power-of-two chain).
        let e = Expr::Var(Var::new(
            "e",
            VarKind::Unknown {
                scope: Scope::Thread,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        ));
        let pow = Expr::Pow2(Arc::new(e.clone()));
        for c in [0, 1, 3, 256, -5, i64::MAX, i64::MIN] {
            let c = Expr::Const(c);
            for (op, a, b) in [
                (BinOp::Shr, &c, &e),
                (BinOp::Shl, &c, &e),
                (BinOp::Mul, &c, &pow),
                (BinOp::Mul, &pow, &c),
            ] {
                let general = enc_arith(op, a, b, false);
                let Some(linear) = linear_shift(op, a, b) else {
                    // Only where a case would not fit 128 bits.
                    assert!(matches!(op, BinOp::Shl | BinOp::Mul));
                    continue;
                };
                assert!(!linear.contains("(* ") && !linear.contains("(div "));
                let solver = z3::Solver::new();
                let text =
                    format!("(declare-const |e| Int)\n(assert (not (= {linear} {general})))\n");
                load(&solver, &text).unwrap();
                assert_eq!(solver.check(), z3::SatResult::Unsat, "{op:?} {c:?}");
            }
        }
        // `256 >> e`: nine cases (256 .. 1), then 0.
        let text = linear_shift(BinOp::Shr, &Expr::Const(256), &e).unwrap();
        assert_eq!(text.matches("(ite").count(), 9);
    }

    #[test]
    fn division_by_a_launch_size_truncates_like_c() {
        // x / blockDim.x and x % blockDim.x through quotient and remainder
        // variables: (-7) / 2 == -3, (-7) % 2 == -1, 7 / 2 == 3, 7 % 2 == 1.
        let x = Expr::Var(Var::new(
            "x",
            VarKind::Unknown {
                scope: Scope::Thread,
                lo: -100,
                hi: 100,
            },
        ));
        let d = Expr::Var(block_dim_var(0));
        let cfg = SolverConfig::limits(2000, 0);
        for (value, quot, rem) in [(-7, -3, -1), (7, 3, 1), (-8, -4, 0)] {
            for (q, r, holds) in [
                (quot, rem, true),
                (quot, -rem, rem == 0),
                (quot + 1, rem, false),
            ] {
                let a = vec![
                    Expr::eq(x.clone(), Expr::Const(value)),
                    Expr::eq(d.clone(), Expr::Const(2)),
                    Expr::eq(Expr::bin(BinOp::Div, x.clone(), d.clone()), Expr::Const(q)),
                    Expr::eq(Expr::bin(BinOp::Rem, x.clone(), d.clone()), Expr::Const(r)),
                ];
                assert!(divisions_as_digits(&a, always_positive)
                    .iter()
                    .all(|e| !e
                        .any_node(&mut |n| matches!(n, Expr::Bin(BinOp::Div | BinOp::Rem, ..)))));
                let mut c = Counters::default();
                let out = solve(&a, &env(), cfg, &crate::cache::NoCache, &mut c);
                assert_eq!(
                    matches!(out, QueryOutcome::Sat(_)),
                    holds,
                    "{value} / 2 == {q}, % 2 == {r}: {out:?}"
                );
                if let QueryOutcome::Sat(values) = out {
                    assert!(values
                        .iter()
                        .all(|(n, _)| !crate::symbols::is_solver_auxiliary(n)));
                }
            }
        }
    }

    #[test]
    fn c_division_and_remainder_truncate() {
        // (-7) / 2 == -3 and (-7) % 2 == -1 in C.
        let x = Expr::Var(Var::new(
            "x",
            VarKind::Unknown {
                scope: Scope::Thread,
                lo: -7,
                hi: -7,
            },
        ));
        for bv in [false, true] {
            let mut e = env();
            e.bitvector = bv;
            let a = vec![Expr::and(
                Expr::eq(
                    Expr::bin(BinOp::Div, x.clone(), Expr::Const(2)),
                    Expr::Const(-3),
                ),
                Expr::eq(
                    Expr::bin(BinOp::Rem, x.clone(), Expr::Const(2)),
                    Expr::Const(-1),
                ),
            )];
            let mut c = Counters::default();
            let cfg = SolverConfig::limits(2000, 0);
            assert!(
                matches!(
                    solve(&a, &e, cfg, &crate::cache::NoCache, &mut c),
                    QueryOutcome::Sat(_)
                ),
                "bv={bv}"
            );
        }
    }
}
