//! Exact reasoning about index expressions without Z3: when is an index
//! function injective in the thread identity? Global ids are mixed-radix
//! numbers (`q * M + r` with `0 <= r < M` determines `q` and `r`), warp
//! layouts rebuild the thread id (`(t >> 5) * 32 + (t & 31) == t`), grid-
//! stride loops add a multiple of the grid's thread count to a global id
//! below it. Every rule here is a theorem over mathematical integers; a
//! form no rule covers is "don't know" (the caller asks Z3). Must not
//! decide anything under 32-bit wrap-around (`--bitvector`): the caller
//! does not use it there.

use crate::model::*;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// What the judgements may assume about the variables of one access.
pub(super) struct Facts<'a> {
    /// Whether a variable differs between the two threads of a query
    /// (thread and block ids, per-thread counters and unknowns).
    pub varying: &'a dyn Fn(&Var) -> bool,
    /// The launch size a launch variable is fixed to, if any.
    pub fixed: &'a dyn Fn(VarKind) -> Option<i64>,
    /// The conjuncts of the access's guard (true whenever it happens).
    pub guard: Vec<&'a Expr>,
    /// The conjuncts every access compared with this one also holds: the
    /// bounds a digit takes from them hold for both threads of a pair
    /// (`Facts::mixed_radix`).
    pub shared: Vec<&'a Expr>,
}

impl Facts<'_> {
    fn is_varying(&self, e: &Expr) -> bool {
        e.mentions(&mut |v| (self.varying)(v))
    }

    /// Whether `e` mentions a variable that differs between the threads.
    pub(super) fn varies(&self, e: &Expr) -> bool {
        self.is_varying(e)
    }

    /// `e` as `r + X`: `X` the sum of the thread-uniform addends at the top
    /// of `e` (0 if none), `r` the rest.
    pub(super) fn split_offset(&self, e: &Expr) -> (Expr, Expr) {
        let mut r = e.clone();
        let mut x = Expr::Const(0);
        loop {
            match &r {
                Expr::Bin(BinOp::Add, a, b) if !self.is_varying(b) => {
                    x = Expr::add(x, (**b).clone());
                    r = (**a).clone();
                }
                Expr::Bin(BinOp::Add, a, b) if !self.is_varying(a) => {
                    x = Expr::add(x, (**a).clone());
                    r = (**b).clone();
                }
                Expr::Bin(BinOp::Sub, a, b) if !self.is_varying(b) => {
                    x = Expr::bin(BinOp::Sub, x, (**b).clone());
                    r = (**a).clone();
                }
                _ => return (r, x),
            }
        }
    }

    /// `e` as a constant, folding fixed launch sizes.
    pub(super) fn constant(&self, e: &Expr) -> Option<i64> {
        match e {
            Expr::Const(c) => Some(*c),
            Expr::Var(v) => (self.fixed)(v.kind),
            Expr::Bin(op, a, b) => fold(*op, self.constant(a)?, self.constant(b)?),
            _ => None,
        }
    }

    /// The multiset of factors of a product of non-varying terms, constants
    /// folded into one leading factor: `blockDim.x * gridDim.x` and
    /// `gridDim.x * blockDim.x` compare equal.
    fn factors(&self, e: &Expr) -> Option<(i64, Vec<Expr>)> {
        let mut coef = 1i64;
        let mut out = Vec::new();
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match (e, self.constant(e)) {
                (_, Some(c)) => coef = coef.checked_mul(c)?,
                (Expr::Bin(BinOp::Mul, a, b), None) => {
                    stack.push(a);
                    stack.push(b);
                }
                (other, None) => out.push(other.clone()),
            }
        }
        out.sort();
        Some((coef, out))
    }

    fn same_product(&self, a: &Expr, b: &Expr) -> bool {
        a == b || self.factors(a).is_some_and(|f| Some(f) == self.factors(b))
    }

    /// Whether `e >= 0` holds whenever the access happens.
    pub(super) fn nonneg(&self, e: &Expr, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        let rec = |x: &Expr| self.nonneg(x, depth + 1);
        if let Some(c) = self.constant(e) {
            return c >= 0;
        }
        let structural = match e {
            Expr::Var(v) => match v.kind {
                VarKind::ThreadIdx(_)
                | VarKind::BlockIdx(_)
                | VarKind::BlockDim(_)
                | VarKind::GridDim(_)
                | VarKind::Counter { .. } => true,
                VarKind::Param { lo, .. } | VarKind::Unknown { lo, .. } => lo >= 0,
                VarKind::Shared => false,
            },
            Expr::Bin(BinOp::Add | BinOp::Mul, a, b) => rec(a) && rec(b),
            Expr::Bin(BinOp::Div, a, b) => rec(a) && self.positive(b),
            // C's remainder takes the dividend's sign, whatever the
            // divisor's (not zero where the access happens: the thread
            // evaluated it).
            Expr::Bin(BinOp::Rem, a, _) => rec(a),
            Expr::Bin(BinOp::Shr | BinOp::Shl, a, b) => {
                rec(a) && self.constant(b).is_some_and(|k| (0..31).contains(&k))
            }
            Expr::Bin(BinOp::BitAnd, a, b) => rec(a) || rec(b),
            Expr::Bin(BinOp::Min, a, b) => rec(a) && rec(b),
            Expr::Bin(BinOp::Max, a, b) => rec(a) || rec(b),
            _ => false,
        };
        structural
            || self.guard.iter().any(|g| match g {
                Expr::Bin(BinOp::Ge, x, z) | Expr::Bin(BinOp::Le, z, x) => {
                    **x == *e && self.constant(z).is_some_and(|c| c >= 0)
                }
                Expr::Bin(BinOp::Gt, x, z) | Expr::Bin(BinOp::Lt, z, x) => {
                    **x == *e && self.constant(z).is_some_and(|c| c >= -1)
                }
                _ => false,
            })
    }

    /// Whether `e < m` holds whenever the access happens (`m` non-varying).
    pub(super) fn below(&self, e: &Expr, m: &Expr, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        if let (Some(x), Some(y)) = (self.constant(e), self.constant(m)) {
            return x < y;
        }
        let by_kind = match e {
            Expr::Var(v) => match v.kind {
                VarKind::ThreadIdx(d) => self.same_size(m, VarKind::BlockDim(d)),
                VarKind::BlockIdx(d) => self.same_size(m, VarKind::GridDim(d)),
                _ => false,
            },
            // a & (2^k - 1) <= 2^k - 1 for every a.
            Expr::Bin(BinOp::BitAnd, a, b) => [a, b].iter().any(|x| {
                self.constant(x).is_some_and(|mask| {
                    mask >= 0 && self.constant(m).is_some_and(|limit| mask < limit)
                })
            }),
            // a % c lies in [0, c) for a >= 0 (C remainder).
            Expr::Bin(BinOp::Rem, a, c) => {
                self.nonneg(a, depth + 1)
                    && ((self.positive(c) && self.same_product(c, m))
                        || matches!(
                            (self.constant(c), self.constant(m)),
                            (Some(c), Some(l)) if c > 0 && c <= l
                        ))
            }
            // q * M2 + r2 < Q * M2 when 0 <= q < Q and 0 <= r2 < M2.
            Expr::Bin(BinOp::Add, x, y) => [(x, y), (y, x)].iter().any(|(qm, r)| {
                self.radix_split(qm).into_iter().any(|(q, m2)| {
                    self.nonneg(r, depth + 1)
                        && self.below(r, &m2, depth + 1)
                        && self.nonneg(&q, depth + 1)
                        && self.quotient_bound(&q, &m2, m, depth)
                })
            }),
            _ => false,
        };
        by_kind
            || self.guard.iter().any(|g| match g {
                Expr::Bin(BinOp::Lt, x, z) | Expr::Bin(BinOp::Gt, z, x) => {
                    **x == *e && (**z == *m || self.same_product(z, m))
                }
                _ => false,
            })
            // `G * d <= m` from a fact `G == m / d`: below `G * d` is below `m`.
            || self.launch_quotients().into_iter().any(|(size, n, d)| {
                n == *m && self.below(e, &Expr::mul(size, d), depth + 1)
            })
    }

    /// The launch sizes a fact of the access fixes to a quotient: `(G, n,
    /// d)` for each fact `G == n / d` with `G` a grid or block size, `d`
    /// positive and `n` at least `-2^31` (a launch site's `<<<width /
    /// threads, threads>>>` read as `gridDim.x == width / blockDim.x`),
    /// also in the form C gives the comparison of an `unsigned` size with
    /// a signed quotient `q` (`q < 0 ? G == q + 2^32 : G == q`, or either
    /// leaf when the quotient's type is not known). Then `G * d <= n`: the
    /// wrapped leaf cannot hold (`|q| <= |n|` puts `q + 2^32` at `2^31` or
    /// more, above every launch size), so `q == G >= 1`, which makes `n`
    /// positive and `q * d <= n` (C truncation).
    fn launch_quotients(&self) -> Vec<(Expr, Expr, Expr)> {
        const WRAP: i64 = 1 << 32;
        let mut out = Vec::new();
        for fact in &self.guard {
            let mut leaves = Vec::new();
            if !equation_leaves(fact, &mut leaves) {
                continue;
            }
            let mut found: Option<(Expr, Expr)> = None;
            let consistent = leaves.iter().all(|leaf| {
                let Expr::Bin(BinOp::Eq, a, b) = leaf else {
                    return false;
                };
                let (size, value) = match (&**a, &**b) {
                    (Expr::Var(v), q) | (q, Expr::Var(v)) if self.launch_size(v.kind) => {
                        (Expr::Var(v.clone()), q)
                    }
                    _ => return false,
                };
                let q = match value {
                    Expr::Bin(BinOp::Add, q, c) if c.as_const() == Some(WRAP) => &**q,
                    q => q,
                };
                let pair = (size, q.clone());
                *found.get_or_insert_with(|| pair.clone()) == pair
            });
            let Some((size, Expr::Bin(BinOp::Div, n, d))) = found.filter(|_| consistent) else {
                continue;
            };
            if self.positive(&d) && self.at_least_int_min(&n) {
                out.push((size, (*n).clone(), (*d).clone()));
            }
        }
        out
    }

    /// A grid or block size: at least 1, below `2^31`.
    fn launch_size(&self, kind: VarKind) -> bool {
        matches!(kind, VarKind::GridDim(_) | VarKind::BlockDim(_))
            && (self.fixed)(kind).is_none_or(|v| (1..1 << 31).contains(&v))
    }

    /// Whether `n >= -2^31` whenever the access happens.
    fn at_least_int_min(&self, n: &Expr) -> bool {
        let least = -(1i64 << 31);
        match (n, self.constant(n)) {
            (_, Some(c)) => c >= least,
            (Expr::Var(v), None) => match v.kind {
                VarKind::Param { lo, .. } | VarKind::Unknown { lo, .. } => lo >= least,
                _ => self.nonneg(n, 0),
            },
            _ => self.nonneg(n, 0),
        }
    }

    /// `e` as `g + k * m`: the addends of `e` that are multiples of `m`
    /// (`m`, a product with the factor `m`, negated or not) make `k * m`
    /// (`k == 0` when there are none), the others `g`, returned.
    pub(super) fn low_digit(&self, e: &Expr, m: &Expr) -> Expr {
        // The other addends keep their grouping: the rules that bound a sum
        // (`below`) read `q * M2 + r` as written, and a grid rank `b * B +
        // (x + B.x * y)` flattened into `(b * B + x) + B.x * y` is no such
        // sum.
        fn strip(e: &Expr, m: &Expr) -> Option<Expr> {
            match e {
                Expr::Bin(BinOp::Add, a, b) => match (strip(a, m), strip(b, m)) {
                    (None, None) => None,
                    (Some(x), None) | (None, Some(x)) => Some(x),
                    (Some(x), Some(y)) => Some(Expr::add(x, y)),
                },
                Expr::Bin(BinOp::Sub, a, b) => match (strip(a, m), strip(b, m)) {
                    (None, None) => None,
                    (Some(x), None) => Some(x),
                    (None, Some(y)) => Some(Expr::bin(BinOp::Sub, Expr::Const(0), y)),
                    (Some(x), Some(y)) => Some(Expr::bin(BinOp::Sub, x, y)),
                },
                Expr::Un(UnOp::Neg, a) => {
                    strip(a, m).map(|x| Expr::bin(BinOp::Sub, Expr::Const(0), x))
                }
                other if has_factor(other, m) => None,
                other => Some(other.clone()),
            }
        }
        strip(e, m).unwrap_or(Expr::Const(0))
    }

    /// The thread-uniform non-constant factors of the products among the
    /// addends of `e` (a thread-uniform product as a whole too: a grid's
    /// thread count `(bdx * bdy * bdz) * (gdx * gdy * gdz)`, the stride of
    /// a loop over the grid's thread ranks, is one place value, none of
    /// its factors alone), and its thread-uniform variables: the place
    /// values `M` an index `g + k * M` may have.
    pub(super) fn place_values(&self, e: &Expr, out: &mut Vec<Expr>) {
        let mut addends = Vec::new();
        signed_addends(e, false, &mut addends);
        for (_, t) in addends {
            let mut stack = vec![&t];
            while let Some(x) = stack.pop() {
                match x {
                    Expr::Bin(BinOp::Mul, a, b) => {
                        if !self.is_varying(x) && self.constant(x).is_none() && !out.contains(x) {
                            out.push(x.clone());
                        }
                        stack.push(a);
                        stack.push(b);
                    }
                    Expr::Var(_) | Expr::Bin(..)
                        if !self.is_varying(x)
                            && self.constant(x).is_none()
                            && !out.contains(x) =>
                    {
                        out.push(x.clone());
                    }
                    _ => {}
                }
            }
        }
    }

    /// A key equal for two sums of the same terms in any order.
    pub(super) fn sum_key(&self, e: &Expr) -> (Vec<(i64, Expr)>, i64) {
        match self.linear_form(e) {
            Some((mut terms, k)) => {
                terms.retain(|(c, _)| *c != 0);
                terms.sort();
                (terms, k)
            }
            None => (vec![(1, e.clone())], 0),
        }
    }

    /// Whether `q < m / m2` (exactly: `q * m2 + m2 <= m`) follows from a
    /// bound on `q` that is a factor of `m` besides `m2`.
    fn quotient_bound(&self, q: &Expr, m2: &Expr, m: &Expr, depth: usize) -> bool {
        let (Some((c_m, mut f_m)), Some((c_2, f_2))) = (self.factors(m), self.factors(m2)) else {
            return false;
        };
        if c_2 == 0 || c_m % c_2 != 0 {
            return false;
        }
        for f in &f_2 {
            let Some(at) = f_m.iter().position(|x| x == f) else {
                return false;
            };
            f_m.remove(at);
        }
        let rest_coef = c_m / c_2;
        let rest = f_m
            .into_iter()
            .fold(Expr::Const(rest_coef), |acc, f| match acc.as_const() {
                Some(1) => f,
                _ => Expr::mul(acc, f),
            });
        rest_coef > 0 && self.below(q, &rest, depth + 1)
    }

    fn same_size(&self, m: &Expr, kind: VarKind) -> bool {
        match (self.constant(m), (self.fixed)(kind)) {
            (Some(a), Some(b)) => a == b,
            _ => matches!(m, Expr::Var(v) if v.kind == kind),
        }
    }

    /// The ways of reading `e` as `q * M` with a non-varying `M` (the
    /// callers show `0 <= r < M`, hence `M > 0`).
    fn radix_split(&self, e: &Expr) -> Vec<(Expr, Expr)> {
        let mut out = Vec::new();
        if let Expr::Bin(BinOp::Mul, a, b) = e {
            for (q, m) in [(a, b), (b, a)] {
                if !self.is_varying(m) {
                    out.push(((**q).clone(), (**m).clone()));
                }
            }
        }
        out
    }

    /// A positive non-varying factor: a positive constant, a launch size,
    /// a product of those.
    fn positive(&self, e: &Expr) -> bool {
        if let Some(c) = self.constant(e) {
            return c > 0;
        }
        match e {
            Expr::Var(v) => matches!(v.kind, VarKind::BlockDim(_) | VarKind::GridDim(_)),
            Expr::Bin(BinOp::Mul, a, b) => self.positive(a) && self.positive(b),
            _ => false,
        }
    }

    /// The varying variables `e` is injective in: `Some(S)` means two
    /// valuations that agree on everything non-varying and give `e` the
    /// same value agree on every variable of `S`, and `S` holds every
    /// varying variable of `e`. `None`: no rule applies.
    ///
    /// The rules first read each part of `e` on its own; where that fails,
    /// once more with quotients and remainders by a thread-uniform divisor
    /// standing as digits of their own ([`Facts::injective_parts`]): a
    /// quotient `a / m` and a remainder `a % m` found in different places
    /// of `e` give back `a` together (`a == (a / m) * m + a % m`, C
    /// truncation), so a block position split into a row `p / w` of one
    /// digit and a column `p % w` of another (`(16 * (p / w) + ty) * W +
    /// 16 * (p % w) + tx`) is determined.
    pub(super) fn injective(&self, e: &Expr, depth: usize) -> Option<BTreeSet<Var>> {
        if depth > 32 {
            return None;
        }
        if let Some(s) = self.injective_parts(e, depth, None) {
            return Some(s);
        }
        let digits = RefCell::new(Vec::new());
        let mut s = self.injective_parts(e, depth, Some(&digits))?;
        let mut digits = digits.into_inner();
        digits.sort();
        digits.dedup();
        while let Some(d) = digits.pop() {
            let Expr::Bin(op, a, m) = &d else {
                return None;
            };
            let partner = match op {
                BinOp::Div => BinOp::Rem,
                _ => BinOp::Div,
            };
            let at = digits.iter().position(
                |x| matches!(x, Expr::Bin(op2, a2, m2) if *op2 == partner && a2 == a && m2 == m),
            )?;
            digits.swap_remove(at);
            s.extend(self.injective(a, depth + 1)?);
        }
        Some(s)
    }

    /// [`Facts::injective`]'s rules. With `digits`, a quotient or remainder
    /// by a thread-uniform divisor (`a / m`, `a % m`, `m` not zero wherever
    /// the access happens: the thread evaluated it, and the race query
    /// states it, `smt::nonzero_divisors`) is determined as a value of its
    /// own, recorded in `digits` for the caller to pair; the set returned
    /// then holds the variables determined besides those values. Nothing
    /// is recorded by a reading that fails.
    fn injective_parts(
        &self,
        e: &Expr,
        depth: usize,
        digits: Option<&RefCell<Vec<Expr>>>,
    ) -> Option<BTreeSet<Var>> {
        let mark = digits.map(|d| d.borrow().len());
        let out = self.injective_rules(e, depth, digits);
        if out.is_none() {
            if let (Some(d), Some(mark)) = (digits, mark) {
                d.borrow_mut().truncate(mark);
            }
        }
        out
    }

    fn injective_rules(
        &self,
        e: &Expr,
        depth: usize,
        digits: Option<&RefCell<Vec<Expr>>>,
    ) -> Option<BTreeSet<Var>> {
        if depth > 32 {
            return None;
        }
        if !self.is_varying(e) {
            return Some(BTreeSet::new());
        }
        let rec = |x: &Expr| self.injective_parts(x, depth + 1, digits);
        let mark = || digits.map(|d| d.borrow().len());
        let undo = |at: Option<usize>| {
            if let (Some(d), Some(at)) = (digits, at) {
                d.borrow_mut().truncate(at);
            }
        };
        match e {
            Expr::Var(v) => Some(BTreeSet::from([v.clone()])),
            Expr::Un(UnOp::Neg | UnOp::BitNot, a) => rec(a),
            Expr::Bin(BinOp::Add | BinOp::Sub, a, b) if !self.is_varying(b) => rec(a),
            Expr::Bin(BinOp::Add | BinOp::Sub, a, b) if !self.is_varying(a) => rec(b),
            Expr::Bin(BinOp::Mul, a, b) if !self.is_varying(b) && self.nonzero(b) => rec(a),
            Expr::Bin(BinOp::Mul, a, b) if !self.is_varying(a) && self.nonzero(a) => rec(b),
            Expr::Bin(BinOp::Shl, a, b)
                if self.constant(b).is_some_and(|k| (0..31).contains(&k)) =>
            {
                rec(a)
            }
            Expr::Bin(BinOp::Add, x, y) => {
                for (qm, r) in [(x, y), (y, x)] {
                    for (q, m) in self.radix_split(qm) {
                        // (a / M) * M + a % M == a (C, any a), and
                        // (a >> k) * 2^k + (a & (2^k - 1)) == a.
                        if let Some(a) = self.digits_of(&q, &m, r) {
                            return rec(&a);
                        }
                        if self.nonneg(r, depth + 1) && self.below(r, &m, depth + 1) {
                            let mut s = rec(&q)?;
                            s.extend(rec(r)?);
                            return Some(s);
                        }
                    }
                }
                // Regrouped: the addends that are multiples of one `M`
                // form `q * M`, the rest `r` (`b * D + t + D * k` is
                // `(b + k) * D + t`).
                let terms = addends(e);
                for m in terms
                    .iter()
                    .flat_map(|t| self.radix_split(t))
                    .map(|(_, m)| m)
                {
                    let mut q = Expr::Const(0);
                    let mut r = Expr::Const(0);
                    for t in &terms {
                        match self.radix_split(t).into_iter().find(|(_, m2)| *m2 == m) {
                            Some((cofactor, _)) => q = Expr::add(q, cofactor),
                            None => r = Expr::add(r, t.clone()),
                        }
                    }
                    if self.nonneg(&r, depth + 1) && self.below(&r, &m, depth + 1) {
                        let at = mark();
                        if let (Some(mut s), Some(s2)) = (rec(&q), rec(&r)) {
                            s.extend(s2);
                            return Some(s);
                        }
                        undo(at);
                    }
                }
                None
            }
            // 2 * g - (g & (s - 1)) with s a power of two: writing g as
            // q * s + m (0 <= m < s), it is 2 * q * s + m, which gives back
            // m (its remainder by 2 * s) and then q.
            Expr::Bin(BinOp::Sub, ..) => rec(self.interleaved(e)?.0),
            Expr::Bin(BinOp::Div | BinOp::Rem, _, m) if !self.is_varying(m) => {
                let d = digits?;
                d.borrow_mut().push(e.clone());
                Some(BTreeSet::new())
            }
            _ => None,
        }
        .or_else(|| self.mixed_radix(e, depth))
    }

    /// `e` as a sum of digits with constant place values, `c1 * d1 + c2 *
    /// d2 + ...` (each digit `0 <= d < R`, each place value above the
    /// largest sum of the places below it): equal sums have equal digits.
    /// A digit `a / M` beside `a % M` gives back `a`; any other digit must
    /// be injective itself. `(8 * x) / 256` is read as `x / 32` and
    /// `(8 * x) % 256` as `8 * (x % 32)` (C truncation: exact for every
    /// `x`), so a tile position scaled before its division is a digit.
    fn mixed_radix(&self, e: &Expr, depth: usize) -> Option<BTreeSet<Var>> {
        let (terms, _) = self.linear_form(e)?;
        let mut digits: Vec<(i64, Expr)> = terms
            .into_iter()
            .filter(|(c, d)| *c != 0 && self.is_varying(d))
            .collect();
        if digits.len() < 2 || digits.iter().any(|(c, _)| *c < 0) {
            return None;
        }
        digits.sort_by_key(|(c, _)| *c);
        // Each place value exceeds the largest sum of the places below.
        let mut below: i64 = 0;
        for (i, (c, d)) in digits.iter().enumerate() {
            if i > 0 && below >= *c {
                return None;
            }
            if !self.nonneg(d, depth + 1) {
                return None;
            }
            if i + 1 < digits.len() {
                let r = self.digit_bound(d)?;
                below = below.checked_add(c.checked_mul(r - 1)?)?;
            }
        }
        // The digits determine their variables.
        let mut out = BTreeSet::new();
        let mut used = vec![false; digits.len()];
        for i in 0..digits.len() {
            if used[i] {
                continue;
            }
            let paired = match &digits[i].1 {
                Expr::Bin(BinOp::Div, a, m) => digits
                    .iter()
                    .enumerate()
                    .position(|(j, (_, d))| {
                        !used[j]
                            && j != i
                            && matches!(d, Expr::Bin(BinOp::Rem, a2, m2) if a2 == a && m2 == m)
                    })
                    .map(|j| (j, (**a).clone())),
                Expr::Bin(BinOp::Rem, a, m) => digits
                    .iter()
                    .enumerate()
                    .position(|(j, (_, d))| {
                        !used[j]
                            && j != i
                            && matches!(d, Expr::Bin(BinOp::Div, a2, m2) if a2 == a && m2 == m)
                    })
                    .map(|j| (j, (**a).clone())),
                _ => None,
            };
            used[i] = true;
            let whole = match paired {
                Some((j, a)) => {
                    used[j] = true;
                    a
                }
                None => digits[i].1.clone(),
            };
            out.extend(self.injective(&whole, depth + 1)?);
        }
        Some(out)
    }

    /// The exclusive upper bound of a digit (`d < R` whenever the access
    /// happens), where a constant one is known.
    fn digit_bound(&self, d: &Expr) -> Option<i64> {
        if let Some(c) = self.constant(d) {
            return c.checked_add(1);
        }
        let from_kind = match d {
            Expr::Var(v) => match v.kind {
                VarKind::ThreadIdx(k) => (self.fixed)(VarKind::BlockDim(k)),
                VarKind::BlockIdx(k) => (self.fixed)(VarKind::GridDim(k)),
                VarKind::Param { hi, .. } | VarKind::Unknown { hi, .. } if hi < i64::MAX => {
                    hi.checked_add(1)
                }
                _ => None,
            },
            Expr::Bin(BinOp::Rem, _, m) => self.constant(m).filter(|m| *m > 0),
            Expr::Bin(BinOp::Div, a, m) => {
                let m = self.constant(m).filter(|m| *m > 0)?;
                let r = self.digit_bound(a)?;
                Some((r + m - 1) / m)
            }
            Expr::Bin(BinOp::BitAnd, a, b) => [a, b]
                .iter()
                .find_map(|x| self.constant(x).filter(|m| *m >= 0))
                .and_then(|m| m.checked_add(1)),
            _ => None,
        };
        let from_guard = self.shared.iter().find_map(|g| match g {
            Expr::Bin(BinOp::Lt, x, z) | Expr::Bin(BinOp::Gt, z, x) if **x == *d => {
                self.constant(z)
            }
            Expr::Bin(BinOp::Le, x, z) | Expr::Bin(BinOp::Ge, z, x) if **x == *d => {
                self.constant(z)?.checked_add(1)
            }
            _ => None,
        });
        match (from_kind, from_guard) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// `e` as `Σ c * atom + k` with constant `c` and `k` (sums,
    /// differences, negations, products and shifts by constants spread
    /// out; fixed launch sizes folded; equal atoms merged). A division or
    /// remainder by a constant `M` of a sum whose every coefficient and
    /// constant share a factor `g` dividing `M` is normalised:
    /// `(g * x) / M` is `x / (M / g)`, `(g * x) % M` is `g * (x % (M / g))`.
    pub(super) fn linear_form(&self, e: &Expr) -> Option<(Vec<(i64, Expr)>, i64)> {
        let mut terms: Vec<(i64, Expr)> = Vec::new();
        let mut konst = 0i64;
        self.spread(e, 1, &mut terms, &mut konst, 0)?;
        Some((terms, konst))
    }

    fn spread(
        &self,
        e: &Expr,
        scale: i64,
        terms: &mut Vec<(i64, Expr)>,
        konst: &mut i64,
        depth: usize,
    ) -> Option<()> {
        if depth > 64 {
            return None;
        }
        if let Some(c) = self.constant(e) {
            *konst = konst.checked_add(c.checked_mul(scale)?)?;
            return Some(());
        }
        let atom = |terms: &mut Vec<(i64, Expr)>, c: i64, a: Expr| -> Option<()> {
            match terms.iter_mut().find(|(_, x)| *x == a) {
                Some((c0, _)) => *c0 = c0.checked_add(c)?,
                None => terms.push((c, a)),
            }
            Some(())
        };
        match e {
            Expr::Bin(BinOp::Add, a, b) => {
                self.spread(a, scale, terms, konst, depth + 1)?;
                self.spread(b, scale, terms, konst, depth + 1)
            }
            Expr::Bin(BinOp::Sub, a, b) => {
                self.spread(a, scale, terms, konst, depth + 1)?;
                self.spread(b, scale.checked_neg()?, terms, konst, depth + 1)
            }
            Expr::Un(UnOp::Neg, a) => self.spread(a, scale.checked_neg()?, terms, konst, depth + 1),
            Expr::Bin(BinOp::Mul, a, b) => match (self.constant(a), self.constant(b)) {
                (Some(c), _) => self.spread(b, scale.checked_mul(c)?, terms, konst, depth + 1),
                (_, Some(c)) => self.spread(a, scale.checked_mul(c)?, terms, konst, depth + 1),
                _ => atom(terms, scale, e.clone()),
            },
            Expr::Bin(BinOp::Shl, a, k) => match self.constant(k) {
                Some(k) if (0..31).contains(&k) => {
                    self.spread(a, scale.checked_mul(1i64 << k)?, terms, konst, depth + 1)
                }
                _ => atom(terms, scale, e.clone()),
            },
            Expr::Bin(op @ (BinOp::Div | BinOp::Rem), a, m) => {
                let Some(m) = self.constant(m).filter(|m| *m > 0) else {
                    return atom(terms, scale, e.clone());
                };
                let (inner, k) = self.linear_form(a)?;
                let g = inner.iter().map(|(c, _)| *c).fold(k, gcd).unsigned_abs() as i64;
                if g <= 1 || m % g != 0 {
                    return atom(terms, scale, e.clone());
                }
                let reduced = inner.iter().fold(Expr::Const(k / g), |acc, (c, x)| {
                    Expr::add(acc, Expr::mul(Expr::Const(c / g), x.clone()))
                });
                let m2 = Expr::Const(m / g);
                match op {
                    BinOp::Div => atom(terms, scale, Expr::bin(BinOp::Div, reduced, m2)),
                    _ => atom(
                        terms,
                        scale.checked_mul(g)?,
                        Expr::bin(BinOp::Rem, reduced, m2),
                    ),
                }
            }
            _ => atom(terms, scale, e.clone()),
        }
    }

    /// `(g, s)` when `e` is `2 * g - (g & (s - 1))` for a power of two `s`
    /// ([`Facts::power_of_two`]): the cell of the lower element of thread
    /// g's pair in a compare-exchange network of stride `s` (bitonic and
    /// odd-even merges). In the integer model the mask reads the low 32
    /// bits of `g`, and `s` (at most `2^31`) divides `2^32`, so the mask
    /// is `g mod s` (floor) for every integer `g`, and `e` is
    /// `(g div s) * 2s + g mod s`: its remainder by `2 * s` is below `s`.
    pub(super) fn interleaved<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
        let Expr::Bin(BinOp::Sub, twice, mask) = e else {
            return None;
        };
        let g = match &**twice {
            Expr::Bin(BinOp::Mul, c, g) | Expr::Bin(BinOp::Mul, g, c)
                if c.as_const() == Some(2) =>
            {
                g
            }
            _ => return None,
        };
        let Expr::Bin(BinOp::BitAnd, x, y) = &**mask else {
            return None;
        };
        let below = |m: &'e Expr| match m {
            Expr::Bin(BinOp::Add, s, one) if one.as_const() == Some(-1) => Some(&**s),
            _ => None,
        };
        let s = match (below(x), below(y)) {
            (_, Some(s)) if **x == **g => s,
            (Some(s), _) if **y == **g => s,
            _ => return None,
        };
        self.power_of_two(s).then_some((&**g, s))
    }

    /// Whether the non-varying `s` is a power of two of at most `2^31`
    /// whenever the access happens: it is a power of two or zero by its
    /// form ([`Facts::power_of_two_or_zero`]), below `2^32`
    /// ([`Facts::below_two_to_32`]), and a fact says it is positive (`s >
    /// c` with `c >= 0`, `s >= c` with `c >= 1`, `s != 0`): the loop
    /// guard `stride > 0` of `for (stride = size / 2; stride > 0; stride
    /// >>= 1)`.
    pub(super) fn power_of_two(&self, s: &Expr) -> bool {
        if self.is_varying(s) {
            return false;
        }
        let is_s = |x: &Expr| *x == *s;
        let positive = self.constant(s).is_some_and(|c| c > 0)
            || self.guard.iter().any(|g| match g {
                Expr::Bin(BinOp::Gt, x, z) | Expr::Bin(BinOp::Lt, z, x) => {
                    is_s(x) && self.constant(z).is_some_and(|c| c >= 0)
                }
                Expr::Bin(BinOp::Ge, x, z) | Expr::Bin(BinOp::Le, z, x) => {
                    is_s(x) && self.constant(z).is_some_and(|c| c >= 1)
                }
                Expr::Bin(BinOp::Ne, x, z) => {
                    (is_s(x) && z.as_const() == Some(0)) || (is_s(z) && x.as_const() == Some(0))
                }
                _ => false,
            });
        positive && self.power_of_two_or_zero(s, 0) && self.below_two_to_32(s, 0)
    }

    /// Whether `e` is zero or a power of two whenever the access happens,
    /// in the integer model (the SMT encoding, where `2^k` is a power of
    /// two for every `k`: `2^64` past 62):
    /// - a constant zero or power of two;
    /// - a variable whose values are its low 32 bits (a range in
    ///   `0..2^32`) with a fact `(s & (s - 1)) == 0` (its low 32 bits are
    ///   0 or one bit);
    /// - `2^k` (a doubling loop's closed form), `p << k` (`p * 2^k`),
    ///   `p * c` with a constant power of two `c`;
    /// - `p >> k` (`p div 2^k`) and `p / c` with a constant power of two
    ///   `c` (`p >= 0`, so C truncation is the floor): a power of two
    ///   divided by a power of two is one, or zero.
    fn power_of_two_or_zero(&self, e: &Expr, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        let rec = |x: &Expr| self.power_of_two_or_zero(x, depth + 1);
        let constant_power = |x: &Expr| self.constant(x).is_some_and(|c| c > 0 && c & (c - 1) == 0);
        if let Some(c) = self.constant(e) {
            return c == 0 || constant_power(e);
        }
        match e {
            Expr::Var(_) => self.single_bit_variable(e),
            Expr::Pow2(_) => true,
            Expr::Bin(BinOp::Mul, a, b) => {
                (constant_power(a) && rec(b)) || (constant_power(b) && rec(a))
            }
            Expr::Bin(BinOp::Div, a, c) => constant_power(c) && rec(a),
            Expr::Bin(BinOp::Shl | BinOp::Shr, a, _) => rec(a),
            _ => false,
        }
    }

    /// Whether the variable `s` holds a single bit or zero: its values are
    /// its low 32 bits (a range in `0..2^32`) and a fact says `(s & (s -
    /// 1)) == 0`.
    fn single_bit_variable(&self, s: &Expr) -> bool {
        let Expr::Var(v) = s else {
            return false;
        };
        let in_32_bits = match v.kind {
            VarKind::Param { lo, hi } | VarKind::Unknown { lo, hi, .. } => {
                lo >= 0 && hi < (1i64 << 32)
            }
            _ => false,
        };
        let is_s = |x: &Expr| *x == *s;
        in_32_bits
            && self.guard.iter().any(|g| match g {
                Expr::Bin(BinOp::Eq, t, z) | Expr::Bin(BinOp::Eq, z, t)
                    if z.as_const() == Some(0) =>
                {
                    match &**t {
                        Expr::Bin(BinOp::BitAnd, a, b) => {
                            let minus_one = |m: &Expr| {
                                matches!(m, Expr::Bin(BinOp::Add, x, one)
                                    if is_s(x) && one.as_const() == Some(-1))
                            };
                            (is_s(a) && minus_one(b)) || (is_s(b) && minus_one(a))
                        }
                        _ => false,
                    }
                }
                _ => false,
            })
    }

    /// Whether `0 <= e < 2^32` for a zero or power of two `e`
    /// ([`Facts::power_of_two_or_zero`], so nonnegative): a constant, a
    /// variable whose range is in `0..2^32`, a fact `e < x` (or `e <= x`)
    /// with `x` such a constant or variable, and a quotient (`/ c`, `>>
    /// k`: the divisor is at least 1) of such a value.
    fn below_two_to_32(&self, e: &Expr, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        const LIMIT: i64 = 1 << 32;
        let at_most = |x: &Expr| -> Option<i64> {
            match self.constant(x) {
                Some(c) => Some(c),
                None => match x {
                    Expr::Var(v) => match v.kind {
                        VarKind::Param { hi, .. } | VarKind::Unknown { hi, .. } => Some(hi),
                        _ => None,
                    },
                    _ => None,
                },
            }
        };
        if at_most(e).is_some_and(|c| c < LIMIT) {
            return true;
        }
        let by_fact = self.guard.iter().any(|g| match g {
            Expr::Bin(BinOp::Lt, x, z) | Expr::Bin(BinOp::Gt, z, x) => {
                **x == *e && at_most(z).is_some_and(|c| c <= LIMIT)
            }
            Expr::Bin(BinOp::Le, x, z) | Expr::Bin(BinOp::Ge, z, x) => {
                **x == *e && at_most(z).is_some_and(|c| c < LIMIT)
            }
            _ => false,
        });
        by_fact
            || match e {
                Expr::Bin(BinOp::Div, a, c) => {
                    self.constant(c).is_some_and(|c| c >= 1) && self.below_two_to_32(a, depth + 1)
                }
                Expr::Bin(BinOp::Shr, a, _) => self.below_two_to_32(a, depth + 1),
                _ => false,
            }
    }

    fn nonzero(&self, e: &Expr) -> bool {
        self.constant(e)
            .map_or_else(|| self.positive(e), |c| c != 0)
    }

    /// `a` when `q` and `r` are the quotient and remainder of `a` by `m`.
    fn digits_of(&self, q: &Expr, m: &Expr, r: &Expr) -> Option<Expr> {
        let m = self.constant(m)?;
        let quotient = match q {
            Expr::Bin(BinOp::Div, a, d) if self.constant(d) == Some(m) => a,
            Expr::Bin(BinOp::Shr, a, k)
                if self
                    .constant(k)
                    .is_some_and(|k| (0..62).contains(&k) && 1i64 << k == m) =>
            {
                a
            }
            _ => return None,
        };
        let remainder = match r {
            Expr::Bin(BinOp::Rem, a, d) if self.constant(d) == Some(m) => a,
            Expr::Bin(BinOp::BitAnd, a, k) | Expr::Bin(BinOp::BitAnd, k, a)
                if m > 0 && m & (m - 1) == 0 && self.constant(k) == Some(m - 1) =>
            {
                a
            }
            _ => return None,
        };
        // Division and remainder pair up (C truncation), shift and mask
        // pair up (floor); a quotient of one kind with a remainder of the
        // other differs for negative `a`.
        let same_kind = matches!(
            (q, r),
            (Expr::Bin(BinOp::Div, ..), Expr::Bin(BinOp::Rem, ..))
                | (Expr::Bin(BinOp::Shr, ..), Expr::Bin(BinOp::BitAnd, ..))
        ) || self.nonneg(quotient, 0);
        (quotient == remainder && same_kind).then(|| (**quotient).clone())
    }

    /// The varying coordinates the guard pins to a thread-uniform value
    /// (`threadIdx.x == 0`, `blockIdx.x == gridDim.x - 1`), with that value.
    /// A pin alone says nothing about which thread runs the access: only
    /// [`common_pins`] (both accesses pin a coordinate to one value) tells
    /// that the two threads agree on it.
    pub(super) fn pins(&self) -> Vec<(Var, &Expr)> {
        let mut out = Vec::new();
        for g in &self.guard {
            if let Expr::Bin(BinOp::Eq, a, b) = g {
                for (x, c) in [(a, b), (b, a)] {
                    if let Expr::Var(v) = &**x {
                        if (self.varying)(v) && !self.is_varying(c) {
                            out.push((v.clone(), &**c));
                        }
                    }
                }
            }
        }
        out
    }
}

/// The coordinates on which two threads running the accesses of `fa` and
/// `fb` agree because both guards pin them to the same thread-uniform
/// value: `threadIdx.x == 0` in both. `threadIdx.x == 0` against
/// `threadIdx.x == 1` (or `blockIdx.x == 0` against `blockIdx.x ==
/// gridDim.x - 1`) pins each thread but not to one value, so the two are
/// not known to be one thread there.
pub(super) fn common_pins(fa: &Facts, fb: &Facts) -> BTreeSet<Var> {
    let same_value = |x: &Expr, y: &Expr| {
        x == y || matches!((fa.constant(x), fb.constant(y)), (Some(p), Some(q)) if p == q)
    };
    let pins_b = fb.pins();
    fa.pins()
        .into_iter()
        .filter(|(v, x)| pins_b.iter().any(|(w, y)| v == w && same_value(x, y)))
        .map(|(v, _)| v)
        .collect()
}

/// Whether `r + xa` and `r + xb` (thread-uniform `xa != xb`) never meet
/// for two threads: the offsets differ by a nonzero constant `d` with `0
/// <= r < |d|`, or both are multiples of one `M` (`q * M`, or 0) with `0 <=
/// r < M`, so `r1 - r2 = (qb - qa) * M` forces `qa == qb`.
pub(super) fn offsets_apart(r: &Expr, xa: &Expr, xb: &Expr, fa: &Facts, fb: &Facts) -> bool {
    // r = 2 * g - (g & (s - 1)) has its remainder by 2 * s below s, so
    // r1 - r2 = d * s with d odd (remainders differing by s mod 2 * s)
    // is impossible: the two cells of a pair (pos, pos + s), (pos - s,
    // pos) never meet another thread's.
    if let Some((_, s)) = fa.interleaved(r).or_else(|| fb.interleaved(r)) {
        if let (Some(a), Some(b)) = (multiple_of(xa, s), multiple_of(xb, s)) {
            if a.checked_sub(b).is_some_and(|d| d % 2 != 0) {
                return true;
            }
        }
    }
    let both = |m: &Expr| [fa, fb].iter().all(|f| f.nonneg(r, 0) && f.below(r, m, 0));
    if let (Some(a), Some(b)) = (fa.constant(xa), fa.constant(xb)) {
        return a
            .checked_sub(b)
            .and_then(i64::checked_abs)
            .is_some_and(|d| d > 0 && both(&Expr::Const(d)));
    }
    // The factors `M` of which `x` is an integer multiple: both factors
    // of a product, and `x` itself (`x == 1 * x`).
    let multiplier = |x: &Expr| -> Vec<Expr> {
        match x {
            Expr::Bin(BinOp::Mul, p, q) => vec![(**p).clone(), (**q).clone(), x.clone()],
            _ => vec![x.clone()],
        }
    };
    let ma = multiplier(xa);
    let mb = multiplier(xb);
    let zero = |x: &Expr| fa.constant(x) == Some(0);
    let candidates: Vec<Expr> = if zero(xa) {
        mb
    } else if zero(xb) {
        ma
    } else {
        ma.into_iter().filter(|m| mb.contains(m)).collect()
    };
    candidates.iter().any(|m| !fa.varies(m) && both(m))
}

/// `x` as `c * s` for a constant `c`: 0, `s`, `-s`, `c * s`, and sums
/// and differences of those.
fn multiple_of(x: &Expr, s: &Expr) -> Option<i64> {
    if *x == *s {
        return Some(1);
    }
    match x {
        Expr::Const(0) => Some(0),
        Expr::Un(UnOp::Neg, a) => multiple_of(a, s)?.checked_neg(),
        Expr::Bin(BinOp::Mul, c, y) | Expr::Bin(BinOp::Mul, y, c) if **y == *s => c.as_const(),
        Expr::Bin(BinOp::Add, a, b) => multiple_of(a, s)?.checked_add(multiple_of(b, s)?),
        Expr::Bin(BinOp::Sub, a, b) => multiple_of(a, s)?.checked_sub(multiple_of(b, s)?),
        _ => None,
    }
}

/// Whether the guards of two accesses exclude each other for any two
/// threads: one holds a condition that is the same for both threads
/// (mentions nothing varying) and the other its negation (`if (stride <
/// half) ... else ...` on a parameter).
pub(super) fn exclusive_guards(fa: &Facts, fb: &Facts) -> bool {
    let negates = |p: &Expr, q: &Expr| matches!(q, Expr::Un(UnOp::Not, n) if **n == *p);
    fa.guard
        .iter()
        .any(|p| !fa.varies(p) && fb.guard.iter().any(|q| negates(p, q) || negates(q, p)))
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.min(i64::MAX as u64) as i64
}

/// The addends of a sum (`a + b + c`), left to right.
fn addends(e: &Expr) -> Vec<Expr> {
    match e {
        Expr::Bin(BinOp::Add, a, b) => {
            let mut out = addends(a);
            out.extend(addends(b));
            out
        }
        other => vec![other.clone()],
    }
}

/// The addends of a sum with their signs (`a - (b + c)` is `a`, `-b`,
/// `-c`), `true` for a subtracted one.
fn signed_addends(e: &Expr, negated: bool, out: &mut Vec<(bool, Expr)>) {
    match e {
        Expr::Bin(BinOp::Add, a, b) => {
            signed_addends(a, negated, out);
            signed_addends(b, negated, out);
        }
        Expr::Bin(BinOp::Sub, a, b) => {
            signed_addends(a, negated, out);
            signed_addends(b, !negated, out);
        }
        Expr::Un(UnOp::Neg, a) => signed_addends(a, !negated, out),
        other => out.push((negated, other.clone())),
    }
}

/// Whether `e` is an integer multiple of `m`: `m` itself, or a product
/// (or a negation, or a left shift by a constant) with the factor `m`.
fn has_factor(e: &Expr, m: &Expr) -> bool {
    if e == m {
        return true;
    }
    match e {
        Expr::Bin(BinOp::Mul, a, b) => has_factor(a, m) || has_factor(b, m),
        Expr::Un(UnOp::Neg, a) => has_factor(a, m),
        Expr::Bin(BinOp::Shl, a, k) if k.as_const().is_some_and(|k| (0..31).contains(&k)) => {
            has_factor(a, m)
        }
        _ => false,
    }
}

/// The equations a fact holds in its leaves: `true` with the leaves
/// pushed when `fact` is an equation, `x != 0` of such a fact, or a
/// choice (`c ? a : b`) between such facts (one of the leaves holds).
fn equation_leaves<'e>(fact: &'e Expr, out: &mut Vec<&'e Expr>) -> bool {
    match fact {
        Expr::Bin(BinOp::Eq, ..) => {
            out.push(fact);
            true
        }
        Expr::Bin(BinOp::Ne, x, z) if z.as_const() == Some(0) => equation_leaves(x, out),
        Expr::Ite(_, a, b) => equation_leaves(a, out) && equation_leaves(b, out),
        _ => false,
    }
}

/// The conjuncts of a guard.
pub(super) fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Bin(BinOp::And, a, b) => {
                stack.push(b);
                stack.push(a);
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, kind: VarKind) -> Expr {
        Expr::Var(Var::new(name, kind))
    }
    fn tid() -> Expr {
        var("threadIdx.x", VarKind::ThreadIdx(0))
    }
    fn bid() -> Expr {
        var("blockIdx.x", VarKind::BlockIdx(0))
    }
    fn bdim() -> Expr {
        var("blockDim.x", VarKind::BlockDim(0))
    }
    fn gdim() -> Expr {
        var("gridDim.x", VarKind::GridDim(0))
    }
    fn counter() -> Expr {
        var("i@0", VarKind::Counter { pow2: false })
    }
    fn gid() -> Expr {
        Expr::add(Expr::mul(bid(), bdim()), tid())
    }

    /// Whether `index` is injective in thread and block id (two threads of
    /// different blocks) under `guard`.
    fn decided(index: &Expr, guard: &Expr) -> bool {
        let varying = |v: &Var| {
            matches!(
                v.kind,
                VarKind::ThreadIdx(_) | VarKind::BlockIdx(_) | VarKind::Counter { .. }
            )
        };
        let fixed = |_: VarKind| None;
        let facts = Facts {
            varying: &varying,
            fixed: &fixed,
            guard: conjuncts(guard),
            shared: conjuncts(guard),
        };
        facts.injective(index, 0).is_some_and(|s| {
            s.iter().any(|v| v.kind == VarKind::ThreadIdx(0))
                && s.iter().any(|v| v.kind == VarKind::BlockIdx(0))
        })
    }

    #[test]
    fn global_ids_grid_strides_and_rows_are_injective() {
        let yes = Expr::tru();
        assert!(decided(&gid(), &yes));
        // gid + (blockDim.x * gridDim.x) * i
        let stride = Expr::mul(Expr::mul(bdim(), gdim()), counter());
        assert!(decided(&Expr::add(gid(), stride), &yes));
        // y * w + gid under gid < w (y a counter here)
        let w = var("w", VarKind::Param { lo: 0, hi: 1 << 20 });
        let row = Expr::add(Expr::mul(counter(), w.clone()), gid());
        assert!(decided(&row, &Expr::bin(BinOp::Lt, gid(), w)));
    }

    /// A launch fact `gridDim.x == w / blockDim.x` bounds every global id
    /// below `w`, plain and in C's `unsigned == int` form (the wrapped leaf
    /// `q + 2^32` cannot hold); `w / blockDim.x + 1` (one block more) and
    /// a dividend of no known range do not.
    #[test]
    fn a_quotient_grid_bounds_global_ids_below_its_dividend() {
        let w = var(
            "w",
            VarKind::Param {
                lo: i32::MIN as i64,
                hi: i32::MAX as i64,
            },
        );
        let q = Expr::bin(BinOp::Div, w.clone(), bdim());
        let plain = Expr::eq(gdim(), q.clone());
        let wrapped = Expr::bin(
            BinOp::Ne,
            Expr::ite(
                Expr::bin(BinOp::Lt, q.clone(), Expr::Const(0)),
                Expr::ite(
                    var(
                        "unsigned_cmp#0",
                        VarKind::Unknown {
                            scope: Scope::Thread,
                            lo: 0,
                            hi: 1,
                        },
                    ),
                    Expr::eq(gdim(), Expr::add(q.clone(), Expr::Const(1 << 32))),
                    plain.clone(),
                ),
                plain.clone(),
            ),
            Expr::Const(0),
        );
        let extra = Expr::eq(gdim(), Expr::add(q.clone(), Expr::Const(1)));
        let wide = var(
            "n",
            VarKind::Unknown {
                scope: Scope::Grid,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        );
        let unbounded = Expr::eq(gdim(), Expr::bin(BinOp::Div, wide.clone(), bdim()));
        let below = |fact: &Expr, m: &Expr| {
            let varying = |v: &Var| matches!(v.kind, VarKind::ThreadIdx(_) | VarKind::BlockIdx(_));
            let fixed = |_: VarKind| None;
            let facts = Facts {
                varying: &varying,
                fixed: &fixed,
                guard: vec![fact],
                shared: Vec::new(),
            };
            facts.below(&gid(), m, 0)
        };
        assert!(below(&plain, &w));
        assert!(below(&wrapped, &w));
        assert!(!below(&extra, &w));
        assert!(!below(&unbounded, &wide));
    }

    #[test]
    fn pair_cells_of_a_power_of_two_stride_are_injective_and_apart() {
        let s = var(
            "s",
            VarKind::Param {
                lo: 0,
                hi: u32::MAX as i64,
            },
        );
        let mask = Expr::bin(BinOp::BitAnd, gid(), Expr::add(s.clone(), Expr::Const(-1)));
        let pos = Expr::bin(BinOp::Sub, Expr::mul(Expr::Const(2), gid()), mask);
        let single_bit = Expr::eq(
            Expr::bin(
                BinOp::BitAnd,
                s.clone(),
                Expr::add(s.clone(), Expr::Const(-1)),
            ),
            Expr::Const(0),
        );
        let positive = Expr::bin(BinOp::Gt, s.clone(), Expr::Const(0));
        let pow2 = Expr::and(single_bit.clone(), positive.clone());
        assert!(decided(&pos, &pow2));
        // Either fact alone is not enough: s = 3, or s = 0 (mask all ones).
        assert!(!decided(&pos, &single_bit));
        assert!(!decided(&pos, &positive));
        let varying = |v: &Var| matches!(v.kind, VarKind::ThreadIdx(_) | VarKind::BlockIdx(_));
        let fixed = |_: VarKind| None;
        let facts = Facts {
            varying: &varying,
            fixed: &fixed,
            guard: conjuncts(&pow2),
            shared: conjuncts(&pow2),
        };
        let neg = Expr::bin(BinOp::Sub, Expr::Const(0), s.clone());
        let zero = Expr::Const(0);
        // pos against pos + s and pos - s: an odd multiple of s apart.
        assert!(offsets_apart(&pos, &zero, &s, &facts, &facts));
        assert!(offsets_apart(&pos, &neg, &zero, &facts, &facts));
        // pos - s against pos + s: 2s apart, thread g + s's lower cell.
        assert!(!offsets_apart(&pos, &neg, &s, &facts, &facts));
    }

    #[test]
    fn strides_of_a_sorting_step_are_powers_of_two_by_form() {
        // `size = 2 * 2^i` below a bound, `stride = (size / 2) >> j`: both
        // counters the step's own (not varying), as in a barrier interval.
        let i = var("size@0'", VarKind::Counter { pow2: true });
        let j = var("stride@0'", VarKind::Counter { pow2: false });
        let size = Expr::mul(Expr::Const(2), Expr::Pow2(std::sync::Arc::new(i)));
        let stride = Expr::bin(
            BinOp::Shr,
            Expr::bin(BinOp::Div, size.clone(), Expr::Const(2)),
            j,
        );
        // The judgement `f` under the facts `guard` (thread indices vary).
        fn facts(guard: Vec<Expr>) -> impl Fn(&dyn Fn(&Facts) -> bool) -> bool {
            move |f: &dyn Fn(&Facts) -> bool| {
                let varying = |v: &Var| matches!(v.kind, VarKind::ThreadIdx(_));
                let fixed = |_: VarKind| None;
                let facts = Facts {
                    varying: &varying,
                    fixed: &fixed,
                    guard: guard.iter().collect(),
                    shared: guard.iter().collect(),
                };
                f(&facts)
            }
        }
        let positive = Expr::bin(BinOp::Gt, stride.clone(), Expr::Const(0));
        let bounded = Expr::bin(BinOp::Lt, size.clone(), Expr::Const(1024));
        let n = var(
            "n",
            VarKind::Param {
                lo: 0,
                hi: u32::MAX as i64,
            },
        );
        let bounded_by_param = Expr::bin(BinOp::Lt, size.clone(), n);
        let mask = Expr::bin(
            BinOp::BitAnd,
            tid(),
            Expr::add(stride.clone(), Expr::Const(-1)),
        );
        let pos = Expr::bin(BinOp::Sub, Expr::mul(Expr::Const(2), tid()), mask);
        let zero = Expr::Const(0);
        for bound in [bounded, bounded_by_param] {
            let with = facts(vec![positive.clone(), bound.clone()]);
            assert!(with(&|f| f.power_of_two(&stride)));
            assert!(with(&|f| f.injective(&pos, 0).is_some()));
            assert!(with(&|f| offsets_apart(&pos, &zero, &stride, f, f)));
            // Without the loop's test the stride may be 0 (mask all ones).
            let unguarded = facts(vec![bound]);
            assert!(!unguarded(&|f| f.power_of_two(&stride)));
        }
        // Without a bound, `2^i` may be past 32 bits, where the mask reads
        // only the low ones.
        let unbounded = facts(vec![positive.clone()]);
        assert!(!unbounded(&|f| f.power_of_two(&stride)));
        // A stride started one above half the size is no power of two.
        let off = Expr::bin(
            BinOp::Shr,
            Expr::add(
                Expr::bin(BinOp::Div, size.clone(), Expr::Const(2)),
                Expr::Const(1),
            ),
            var("stride@0'", VarKind::Counter { pow2: false }),
        );
        let off_facts = facts(vec![
            Expr::bin(BinOp::Gt, off.clone(), Expr::Const(0)),
            Expr::bin(BinOp::Lt, size.clone(), Expr::Const(1024)),
        ]);
        assert!(!off_facts(&|f| f.power_of_two(&off)));
        // A stride stepped down by one (`s - j`) is none either.
        let minus = Expr::bin(
            BinOp::Sub,
            Expr::bin(BinOp::Div, size.clone(), Expr::Const(2)),
            var("k", VarKind::Counter { pow2: false }),
        );
        let minus_facts = facts(vec![
            Expr::bin(BinOp::Gt, minus.clone(), Expr::Const(0)),
            Expr::bin(BinOp::Lt, size, Expr::Const(1024)),
        ]);
        assert!(!minus_facts(&|f| f.power_of_two(&minus)));
    }

    #[test]
    fn digits_of_a_scaled_tile_position() {
        // A block position p = blockIdx.x + gridDim.x * k, tiles at
        // (8p) / 256 and (8p) % 256, rows t / 32 of a tile, lanes t % 32:
        // 2^21 * (8p / 256) + 2^18 * (t / 32) + 64 * ((8p) % 256) + 16 * (t % 32),
        // with blockDim.x = 256 fixed.
        let c = Expr::Const;
        let p = Expr::add(bid(), Expr::mul(gdim(), counter()));
        let scaled = Expr::mul(p, c(8));
        let tile_row = Expr::bin(BinOp::Div, scaled.clone(), c(256));
        let tile_col = Expr::bin(BinOp::Rem, scaled, c(256));
        let warp = Expr::bin(BinOp::Div, tid(), c(32));
        let lane = Expr::bin(BinOp::Rem, tid(), c(32));
        let index = |col_place: i64| {
            Expr::add(
                Expr::add(
                    Expr::mul(tile_row.clone(), c(1 << 21)),
                    Expr::mul(warp.clone(), c(1 << 18)),
                ),
                Expr::add(
                    Expr::mul(tile_col.clone(), c(col_place)),
                    Expr::mul(lane.clone(), c(16)),
                ),
            )
        };
        let varying = |v: &Var| {
            matches!(
                v.kind,
                VarKind::ThreadIdx(_) | VarKind::BlockIdx(_) | VarKind::Counter { .. }
            )
        };
        let fixed = |k: VarKind| (k == VarKind::BlockDim(0)).then_some(256);
        let facts = Facts {
            varying: &varying,
            fixed: &fixed,
            guard: Vec::new(),
            shared: Vec::new(),
        };
        let s = facts.injective(&index(64), 0).expect("digits");
        assert!(s.iter().any(|v| v.kind == VarKind::ThreadIdx(0)));
        assert!(s.iter().any(|v| v.kind == VarKind::BlockIdx(0)));
        // Columns 16 bytes apart overlap the lanes (8 * 16 < 16 * 31).
        assert!(facts.injective(&index(16), 0).is_none());
        // Without the fixed block size a row t / 32 has no bound.
        let unfixed = |_: VarKind| None;
        let loose = Facts {
            varying: &varying,
            fixed: &unfixed,
            guard: Vec::new(),
            shared: Vec::new(),
        };
        assert!(loose.injective(&index(64), 0).is_none());
    }

    #[test]
    fn block_position_split_into_row_and_column_digits() {
        // Blocks of 16 x 16 threads taking tiles p = blockIdx.x +
        // gridDim.x * k in turn, the tile at row p / w and column p % w of
        // an image W pixels wide: (16 * (p / w) + ty) * W + 16 * (p % w)
        // + tx under 16 * (p % w) + tx < W.
        let c = Expr::Const;
        let ty = var("threadIdx.y", VarKind::ThreadIdx(1));
        let w = var(
            "w",
            VarKind::Param {
                lo: -(1 << 31),
                hi: (1 << 31) - 1,
            },
        );
        let image = var(
            "W",
            VarKind::Param {
                lo: -(1 << 31),
                hi: (1 << 31) - 1,
            },
        );
        let p = Expr::add(bid(), Expr::mul(gdim(), counter()));
        let row = Expr::add(
            Expr::mul(c(16), Expr::bin(BinOp::Div, p.clone(), w.clone())),
            ty.clone(),
        );
        let column =
            |p: Expr| Expr::add(Expr::mul(c(16), Expr::bin(BinOp::Rem, p, w.clone())), tid());
        let index = |col: Expr| Expr::add(Expr::mul(image.clone(), row.clone()), col);
        let varying = |v: &Var| {
            matches!(
                v.kind,
                VarKind::ThreadIdx(_) | VarKind::BlockIdx(_) | VarKind::Counter { .. }
            )
        };
        let fixed =
            |k: VarKind| matches!(k, VarKind::BlockDim(0) | VarKind::BlockDim(1)).then_some(16);
        let decides = |index: &Expr, guard: &Expr| {
            let guard = conjuncts(guard);
            let facts = Facts {
                varying: &varying,
                fixed: &fixed,
                guard: guard.clone(),
                shared: guard,
            };
            facts.injective(index, 0)
        };
        let inside = Expr::bin(BinOp::Lt, column(p.clone()), image.clone());
        let s =
            decides(&index(column(p.clone())), &inside).expect("row and column give back the tile");
        for kind in [
            VarKind::ThreadIdx(0),
            VarKind::ThreadIdx(1),
            VarKind::BlockIdx(0),
        ] {
            assert!(s.iter().any(|v| v.kind == kind), "{kind:?}");
        }
        assert!(s.iter().any(|v| matches!(v.kind, VarKind::Counter { .. })));
        // Without the column below W rows overlap.
        assert!(decides(&index(column(p.clone())), &Expr::tru()).is_none());
        // The column of the block alone: the tiles of one block's rounds
        // k share their columns, and rows p / w repeat (no pair).
        let inside = Expr::bin(BinOp::Lt, column(bid()), image.clone());
        assert!(decides(&index(column(bid())), &inside).is_none());
    }

    /// A loop over the grid's thread ranks in three dimensions (what a
    /// cooperative groups `grid.thread_rank()` and `grid.size()` read as),
    /// with the launch one-dimensional: the grid's thread count as a whole
    /// is a place value, below which the rank is the low digit, injective
    /// in thread and block. A stride of one block's threads is no such
    /// place value for the rank.
    #[test]
    fn a_grid_rank_is_the_low_digit_of_a_grid_stride() {
        let dims = |name: &str, kind: fn(u8) -> VarKind| {
            [0u8, 1, 2].map(|d| var(&format!("{name}.{}", ["x", "y", "z"][d as usize]), kind(d)))
        };
        let [tx, ty, tz] = dims("threadIdx", VarKind::ThreadIdx);
        let [bx, by, bz] = dims("blockIdx", VarKind::BlockIdx);
        let [dx, dy, dz] = dims("blockDim", VarKind::BlockDim);
        let [gx, gy, gz] = dims("gridDim", VarKind::GridDim);
        let block_size = Expr::mul(dx.clone(), Expr::mul(dy.clone(), dz));
        let block_rank = Expr::add(
            bx,
            Expr::mul(gx.clone(), Expr::add(by, Expr::mul(gy.clone(), bz))),
        );
        let thread_rank = Expr::add(tx, Expr::mul(dx, Expr::add(ty, Expr::mul(dy, tz))));
        let rank = Expr::add(Expr::mul(block_rank, block_size.clone()), thread_rank);
        let grid_size = Expr::mul(block_size.clone(), Expr::mul(gx, Expr::mul(gy, gz)));
        let varying = |v: &Var| {
            matches!(
                v.kind,
                VarKind::ThreadIdx(_) | VarKind::BlockIdx(_) | VarKind::Counter { .. }
            )
        };
        let fixed = |k: VarKind| {
            matches!(k, VarKind::BlockDim(1 | 2) | VarKind::GridDim(1 | 2)).then_some(1)
        };
        let facts = Facts {
            varying: &varying,
            fixed: &fixed,
            guard: Vec::new(),
            shared: Vec::new(),
        };
        let owned = |stride: &Expr| {
            let index = Expr::add(rank.clone(), Expr::mul(stride.clone(), counter()));
            let mut places = Vec::new();
            facts.place_values(&index, &mut places);
            places.iter().any(|m| {
                let g = facts.low_digit(&index, m);
                facts.nonneg(&g, 0)
                    && facts.below(&g, m, 0)
                    && facts.injective(&g, 0).is_some_and(|s| {
                        [VarKind::ThreadIdx(0), VarKind::BlockIdx(0)]
                            .iter()
                            .all(|k| s.iter().any(|v| v.kind == *k))
                    })
            })
        };
        assert!(owned(&grid_size));
        assert!(!owned(&block_size));
    }

    #[test]
    fn near_misses_are_left_to_the_solver() {
        let yes = Expr::tru();
        // stride of one block only: thread t of block 1 meets block 0's.
        let short = Expr::add(gid(), Expr::mul(bdim(), counter()));
        assert!(!decided(&short, &yes));
        // y * w + x without x < w, and with x <= w.
        let w = var("w", VarKind::Param { lo: 0, hi: 1 << 20 });
        let row = Expr::add(Expr::mul(counter(), w.clone()), gid());
        assert!(!decided(&row, &yes));
        assert!(!decided(&row, &Expr::bin(BinOp::Le, gid(), w)));
        // blockIdx.x + threadIdx.x collides (b, t) with (b + 1, t - 1).
        assert!(!decided(&Expr::add(bid(), tid()), &yes));
    }

    #[test]
    fn warp_layout_rebuilds_the_thread_id() {
        let lane = Expr::bin(BinOp::BitAnd, tid(), Expr::Const(31));
        let warp = Expr::bin(BinOp::Shr, tid(), Expr::Const(5));
        let slot = Expr::add(Expr::mul(warp.clone(), Expr::Const(32)), lane.clone());
        let facts = Facts {
            varying: &|v: &Var| v.kind == VarKind::ThreadIdx(0),
            fixed: &|_| None,
            guard: Vec::new(),
            shared: Vec::new(),
        };
        assert!(facts.injective(&slot, 0).is_some());
        // Warps placed 16 apart overlap.
        let packed = Expr::add(Expr::mul(warp, Expr::Const(16)), lane);
        assert!(facts.injective(&packed, 0).is_none());
    }
}
