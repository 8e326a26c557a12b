//! Witnesses: the concrete launch, thread identities, parameters and loop
//! values of a satisfying model, in the typed form every renderer uses.
//! Must not decide anything: it only reads models.

use super::context::*;
use super::intervals::Instance;
use super::replay::eval_expr;
use super::small_factors;
use super::smt::{self, LaunchEnv, SolverConfig};
use crate::cache::QueryOutcome;
use crate::model::*;
use crate::report::*;
use crate::symbols;

/// Z3 resource units of the small-launch attempt of a race query
/// ([`KernelContext::solve_concrete_first`]): a resource count, not a time,
/// so that whether the shortcut answers is the same on any machine.
pub(super) const SMALL_LAUNCH_RLIMIT: u32 = 500_000;

/// Z3 resource units of the small-values attempt of a race query (linear
/// once split: a model of an index query takes tens of thousands of
/// units, where a query with no small-valued race can take its whole
/// allowance, twice, as a linear query goes on to a fresh solver). A
/// group of 16 neighbour accesses whose written values are divided by a
/// parameter (`(v * frame + c) / (frame + 1)`, then split over `frame`)
/// is a linear query of a megabyte, whose model took about 550,000 units
/// over the two solvers: 150,000 found none, and the nonlinear query as
/// written then searched for millions.
const SMALL_VALUES_RLIMIT: u32 = 400_000;

/// Z3 resource units of the narrow try of the small-values attempt
/// (`small_factors::NARROW_VALUES`), before the wide one: a model of the
/// narrow split takes a few tens of thousands of units.
const NARROW_VALUES_RLIMIT: u32 = 100_000;

/// Z3 resource units of the pinned try of a bit-vector race query
/// ([`KernelContext::solve_pinned_bitvectors`]).
const PINNED_RLIMIT: u32 = 100_000;

/// The values the pinned try gives each variable, in order (at least:
/// a divisor at least 1, a parameter at least what its type allows): 0
/// takes products away; 2 keeps `DX / 2` a divisor and a counter's
/// second iteration (NVIDIA's FFT post-processing indices, `i * DY * DX`
/// with `i` divided by `DX / 2`, have no model at 0, and took 1 to 3.5
/// million units per race query as written).
const PIN_STARTS: [i64; 2] = [0, 2];

/// Z3 resource units of each later launch of the small-values attempt
/// ([`KernelContext::solve_small_values`]): the NV12 conversions' witness
/// at two blocks along the untied grid dimensions took 15,000 units; a
/// query with no small-valued race there spends all of them, twice.
const LATER_LAUNCH_RLIMIT: u32 = 150_000;

impl<'k> KernelContext<'k> {
    /// Solves a race query concrete launch first: with the launch sizes
    /// the kernel leaves symbolic fixed to a small launch (blocks of 64
    /// threads, 2 blocks per used grid dimension), the query is linear
    /// and usually answers in a millisecond. A model of it is a model of
    /// the symbolic query (it only adds `blockDim.x == 64`, ...), with the
    /// launch sizes added to its values, so a race it finds is a race of
    /// the kernel and replays like any other. Only when it has none (or
    /// cannot decide) is the symbolic query asked.
    ///
    /// The small launch is a shortcut, never the answer of a race-free
    /// query: it gets at most [`SMALL_LAUNCH_RLIMIT`] resource units. A
    /// race it finds takes a fraction of them; a query whose indices
    /// multiply run-time values (`ImgStride * threadIdx.z`) is no easier for
    /// fixed launch sizes, and spent the whole per-query budget here (10 s
    /// and more) before the symbolic query, which decides it, was asked.
    pub(super) fn solve_concrete_first(
        &mut self,
        assertions: &[Expr],
        config: SolverConfig,
    ) -> QueryOutcome {
        let small = small_launch(&self.env);
        let capped = config.capped(SMALL_LAUNCH_RLIMIT);
        if let Some((values, launch)) = self.solve_small_values(assertions, capped) {
            return self.at_launch(values, &launch);
        }
        // Each launch's question is rendered once (see `smt::Question`).
        let mut own = None;
        if let Some(small) = small {
            let at_small = smt::Question::new(assertions, &small);
            let outcome = smt::solve_question(&at_small, capped, self.cache, &mut self.counters);
            match outcome {
                QueryOutcome::Sat(values) => return self.at_launch(values, &small),
                // The small launch changed nothing in the query (its sizes
                // are fixed or unused there): its proof is the answer, where
                // the symbolic query would solve it again, only with more
                // units (a bit-vector query of a sorting step, hundreds of
                // thousands of units, twice).
                QueryOutcome::Unsat => {
                    let at_own = smt::Question::new(assertions, &self.env);
                    if at_small.same_as(&at_own) {
                        return QueryOutcome::Unsat;
                    }
                    own = Some(at_own);
                }
                QueryOutcome::Unknown(_) => {}
            }
        }
        let own = own.unwrap_or_else(|| smt::Question::new(assertions, &self.env));
        smt::solve_question(&own, config, self.cache, &mut self.counters)
    }

    /// A model of `assertions` with the run-time values of its products and
    /// divisors small, and the launch it was solved at; `None` when there
    /// is no such restriction, or no launch below has a model of it within
    /// its allowance. Products of run-time values that stay nonlinear at a
    /// launch (`(y + r) * w`, `i / width`) become linear with those values
    /// small (`small_factors::small_values_restriction_in`; only more
    /// constraints, so its model is one of the query). The launches, in
    /// order:
    /// - the small launch (or the kernel's own when it fixes every size),
    ///   with the values in two each first ([`NARROW_VALUES_RLIMIT`]
    ///   units), then in sixteen ([`SMALL_VALUES_RLIMIT`] units);
    /// - the kernel's launch with only the grid dimensions whose size the
    ///   launch ties to parameters (`gridDim.y == (nHeight / 2 - 1) / 10 +
    ///   1`) free and the others at two blocks: two blocks along a tied
    ///   dimension hold its parameters above the small values, while a free
    ///   dimension that is not tied leaves its block index in products no
    ///   split makes linear (`(blockIdx.z + 2 * i) * batchStride`);
    /// - the kernel's own launch (where the small launch has no such race:
    ///   a row pitch of at least 4096 bytes, which two blocks of 64 columns
    ///   never span; its grid is free, and the products through the
    ///   symbolic block index, `blockIdx.y * pitch`, are linear with the
    ///   pitch held in 16 values);
    ///
    /// each of the last two with [`LATER_LAUNCH_RLIMIT`] units.
    pub(super) fn solve_small_values(
        &mut self,
        assertions: &[Expr],
        config: SolverConfig,
    ) -> Option<(Vec<(String, i64)>, LaunchEnv)> {
        let small = small_launch(&self.env);
        let first = small.clone().unwrap_or_else(|| self.env.clone());
        if self.env.bitvector || smt::switched_to_bitvectors(assertions, &first) {
            // The small launch, then the kernel's own (whose facts, such
            // as `gridDim.y == 1`, the small launch may contradict).
            let own = small.is_some().then(|| self.env.clone());
            return std::iter::once(first)
                .chain(own)
                .find_map(|launch| self.solve_pinned_bitvectors(assertions, config, launch));
        }
        let mut launches = vec![(first, vec![])];
        if small.is_some() {
            let two_blocks = two_blocks_along_untied(assertions, &self.env);
            if !two_blocks.is_empty() {
                launches.push((self.env.clone(), two_blocks));
            }
            launches.push((self.env.clone(), vec![]));
        }
        for (i, (launch, extra)) in launches.into_iter().enumerate() {
            if smt::switched_to_bitvectors(assertions, &launch) {
                break;
            }
            let with_extra;
            let query = if extra.is_empty() {
                assertions
            } else {
                with_extra = [assertions, &extra[..]].concat();
                &with_extra[..]
            };
            // At the first launch, the narrow window first (a smaller
            // split that holds most races, see `NARROW_VALUES`), then the
            // wide one.
            let tries: &[(i64, u32)] = if i == 0 {
                &[
                    (small_factors::NARROW_VALUES, NARROW_VALUES_RLIMIT),
                    (small_factors::SMALL_VALUES, SMALL_VALUES_RLIMIT),
                ]
            } else {
                &[(small_factors::SMALL_VALUES, LATER_LAUNCH_RLIMIT)]
            };
            for &(values, allowance) in tries {
                let Some(restricted) =
                    small_factors::small_values_restriction_in(query, &launch, values, 0)
                else {
                    break;
                };
                let cheap = config.capped(allowance);
                // An unsat or undecided try says nothing of the others.
                if let QueryOutcome::Sat(values) = smt::solve_linear_split(
                    &restricted,
                    &launch,
                    cheap,
                    self.cache,
                    &mut self.counters,
                ) {
                    return Some((values, launch));
                }
            }
        }
        None
    }

    /// The small-values shortcut of a bit-vector query (wrapping or
    /// bitwise arithmetic, where no split makes anything linear): every
    /// parameter and loop counter of a product or divisor pinned to the
    /// start of its window (a divisor to 1, any other to 0 or the least
    /// its type allows; then each to 2 at least, [`PIN_STARTS`]), solved
    /// at `launch` with [`PINNED_RLIMIT`] units (the caller asks the small
    /// launch first, then the kernel's own).
    /// A product or division of two run-time values is a multiplier or
    /// divider circuit of 32 bits to Z3; pinned, it folds to a constant
    /// or a copy. An index `hash(tid) % size` of a parameter `size` took
    /// 1.5 to 6 million units per race query as written (NVIDIA's
    /// `simpleAttributes`); with `size == 1` every thread meets at 0.
    /// Only more constraints: a model is one of the query; no model says
    /// nothing (the caller asks the query itself).
    fn solve_pinned_bitvectors(
        &mut self,
        assertions: &[Expr],
        config: SolverConfig,
        launch: LaunchEnv,
    ) -> Option<(Vec<(String, i64)>, LaunchEnv)> {
        let cheap = config.capped(PINNED_RLIMIT);
        for from in PIN_STARTS {
            let pinned = small_factors::small_values_restriction_in(assertions, &launch, 1, from)?;
            // Pins that take no product, division or shift of run-time
            // values away leave the query as hard as it was: no try.
            if !small_factors::pins_take_nonlinearity_away(&pinned, &launch) {
                continue;
            }
            if let QueryOutcome::Sat(values) =
                smt::solve(&pinned, &launch, cheap, self.cache, &mut self.counters)
            {
                return Some((values, launch));
            }
        }
        None
    }

    /// A model of a race query solved at `launch` (the small launch, or
    /// the kernel's own): with the launch sizes the kernel leaves symbolic
    /// added to its values, so that it replays like a model of the query.
    fn at_launch(&mut self, mut values: Vec<(String, i64)>, launch: &LaunchEnv) -> QueryOutcome {
        for d in 0..3u8 {
            for (name, kind, size) in [
                ("blockDim", VarKind::BlockDim(d), launch.block_dim),
                ("gridDim", VarKind::GridDim(d), launch.grid_dim),
            ] {
                let name = format!("{name}.{}", DIMS[d as usize]);
                if self.env.fixed(kind).is_none() && !values.iter().any(|(n, _)| *n == name) {
                    let size = size.map_or(1, |s| s[d as usize] as i64);
                    values.push((name, size));
                }
            }
        }
        self.counters.concrete_first += 1;
        QueryOutcome::Sat(values)
    }

    pub(super) fn loop_values(
        &self,
        access: usize,
        inst: &Instance,
        t: u8,
        rel: Relation,
        lookup: &dyn Fn(&Var) -> Option<i64>,
    ) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for lid in &self.accesses[&access].loops {
            let Some(l) = self.loops.get(lid) else {
                continue;
            };
            for (name, e) in &l.display {
                let x = self.instantiate(e, t, rel, &inst.subst, false);
                let v = eval_expr(&x, lookup, self.env.bitvector);
                if let Some(v) = v {
                    out.push((name.clone(), v));
                }
            }
        }
        out
    }

    pub(super) fn witness(&self, values: &[(String, i64)], rel: Relation, index: i64) -> Witness {
        let get = |n: &str| values.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
        let mut threads = Vec::new();
        for t in [1u8, 2] {
            let mut tid = [0i64; 3];
            let mut bid = [0i64; 3];
            for d in 0..3 {
                tid[d] = get(&symbols::thread_idx(d, t)).unwrap_or(0);
                bid[d] = if rel.cross_block() {
                    get(&symbols::block_idx(d, t))
                } else {
                    get(&format!("blockIdx.{}", DIMS[d]))
                }
                .unwrap_or(0);
            }
            threads.push(WitnessThread {
                thread_idx: tid,
                block_idx: bid,
            });
        }
        let mut out = Vec::new();
        for d in 0..3u8 {
            let name = format!("blockDim.{}", DIMS[d as usize]);
            let v = get(&name)
                .or(self.env.fixed(VarKind::BlockDim(d)))
                .unwrap_or(1);
            out.push((name, v));
        }
        for d in 0..3u8 {
            let name = format!("gridDim.{}", DIMS[d as usize]);
            let v = get(&name)
                .or(self.env.fixed(VarKind::GridDim(d)))
                .unwrap_or(1);
            out.push((name, v));
        }
        for p in &self.params {
            if let Some(v) = get(p) {
                out.push((p.clone(), v));
            }
        }
        out.push(("index".to_string(), index));
        Witness {
            threads,
            values: out,
        }
    }

    /// The value of an instantiated (query-level) expression under a model.
    pub(super) fn eval_value(&self, e: &Expr, values: &[(String, i64)]) -> Option<i64> {
        let lookup = |v: &Var| {
            values
                .iter()
                .find(|(k, _)| **k == *v.name)
                .map(|(_, x)| *x)
                .or_else(|| self.env.fixed(v.kind))
        };
        eval_expr(e, &lookup, self.env.bitvector)
    }

    /// Evaluates an instantiated condition under a model: 1 or 0.
    pub(super) fn eval_model(&self, e: &Expr, values: &[(String, i64)]) -> Option<i64> {
        self.eval_value(e, values).map(|x| (x != 0) as i64)
    }
}

/// Whether a witness names a launch the hardware can run and two distinct
/// threads standing in `rel` to each other: every launch size at least 1,
/// every thread and block index inside its launch, the two threads not the
/// same thread, in one block when the relation says so and in two blocks
/// when it says that. A witness that fails this came from a model that does
/// not belong to the query (a solver or library fault); it is never shown.
pub(super) fn is_launchable(w: &Witness, rel: Relation) -> bool {
    let dims = |name: &str| {
        let d = w.launch_dim(name).unwrap_or([None; 3]);
        d.map(|x| x.unwrap_or(1))
    };
    let (block, grid) = (dims("blockDim"), dims("gridDim"));
    if block.iter().chain(grid.iter()).any(|&n| n < 1) {
        return false;
    }
    let inside = |t: &WitnessThread| {
        (0..3).all(|d| {
            (0..block[d]).contains(&t.thread_idx[d]) && (0..grid[d]).contains(&t.block_idx[d])
        })
    };
    if !w.threads.iter().all(inside) {
        return false;
    }
    match w.threads.as_slice() {
        [a, b] => {
            let same_block = a.block_idx == b.block_idx;
            let distinct = a != b;
            distinct
                && match rel {
                    Relation::CrossBlock => !same_block,
                    Relation::Any => true,
                    Relation::SameWarp | Relation::OtherWarp | Relation::SameBlock => same_block,
                }
        }
        _ => true,
    }
}

/// The small launch of [`KernelContext::solve_concrete_first`]: the
/// kernel's symbolic launch sizes fixed (blocks of 64 x 2 x 2 threads at
/// most, within `__launch_bounds__`; 2 blocks per grid dimension), or
/// `None` when the launch is already fixed.
pub(super) fn small_launch(env: &LaunchEnv) -> Option<LaunchEnv> {
    let symbolic = |kind| env.fixed(kind).is_none();
    if !(0..3u8).any(|d| symbolic(VarKind::BlockDim(d)) || symbolic(VarKind::GridDim(d))) {
        return None;
    }
    let mut block = [1u32; 3];
    let mut grid = [1u32; 3];
    for d in 0..3u8 {
        let i = d as usize;
        block[i] = match env.fixed(VarKind::BlockDim(d)) {
            Some(n) => n as u32,
            None if d == 0 => 64,
            None => 2,
        };
        grid[i] = match env.fixed(VarKind::GridDim(d)) {
            Some(n) => n as u32,
            None => 2,
        };
    }
    let limit = env.max_threads.unwrap_or(1024).clamp(1, 1024) as u64;
    while block.iter().map(|b| *b as u64).product::<u64>() > limit {
        // Halve a symbolic dimension (fixed ones are the user's).
        let d = (0..3)
            .filter(|d| symbolic(VarKind::BlockDim(*d as u8)) && block[*d] > 1)
            .max_by_key(|d| block[*d])?;
        block[d] /= 2;
    }
    Some(LaunchEnv {
        block_dim: Some(block),
        grid_dim: Some(grid),
        ..env.clone()
    })
}

/// For the grid dimensions the launch `env` leaves free and does not tie
/// to a parameter (no `gridDim.d == f(param)` in `query`), when some other
/// free one is so tied: `gridDim.d == 2` and each block index along it in
/// `0..2` (stated on the index itself, so that the small-factor split sees
/// its two values). Empty when there is no such mix.
fn two_blocks_along_untied(query: &[Expr], env: &LaunchEnv) -> Vec<Expr> {
    let mut tied = [false; 3];
    let mut block_indices: Vec<Var> = Vec::new();
    for a in query {
        a.any_node(&mut |e| {
            match e {
                Expr::Bin(BinOp::Eq, x, y) => {
                    for (g, other) in [(x, y), (y, x)] {
                        if let Expr::Var(Var {
                            kind: VarKind::GridDim(d),
                            ..
                        }) = &**g
                        {
                            if other.mentions(&mut |v| matches!(v.kind, VarKind::Param { .. })) {
                                tied[*d as usize] = true;
                            }
                        }
                    }
                }
                Expr::Var(v)
                    if matches!(v.kind, VarKind::BlockIdx(_)) && !block_indices.contains(v) =>
                {
                    block_indices.push(v.clone());
                }
                _ => {}
            }
            false
        });
    }
    let free = |d: u8| env.fixed(VarKind::GridDim(d)).is_none();
    if !(0..3u8).any(|d| free(d) && tied[d as usize]) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for d in (0..3u8).filter(|d| free(*d) && !tied[*d as usize]) {
        out.push(Expr::eq(
            Expr::Var(super::smt::grid_dim_var(d)),
            Expr::Const(2),
        ));
        for b in block_indices
            .iter()
            .filter(|b| b.kind == VarKind::BlockIdx(d))
        {
            let x = Expr::Var(b.clone());
            out.push(Expr::bin(BinOp::Ge, x.clone(), Expr::Const(0)));
            out.push(Expr::bin(BinOp::Lt, x, Expr::Const(2)));
        }
    }
    out
}

/// A constraint that excludes the thread identities of one model.
pub(super) fn exclude_model(values: &[(String, i64)]) -> Expr {
    let mut same = Expr::tru();
    for (n, v) in values {
        if n.starts_with("threadIdx") || n.starts_with("blockIdx") || n.starts_with("blockDim") {
            let kind = if n.starts_with("threadIdx") {
                VarKind::ThreadIdx(dim_of(n))
            } else if n.starts_with("blockIdx") {
                VarKind::BlockIdx(dim_of(n))
            } else {
                VarKind::BlockDim(dim_of(n))
            };
            same = Expr::and(
                same,
                Expr::eq(Expr::Var(Var::new(n.as_str(), kind)), Expr::Const(*v)),
            );
        }
    }
    Expr::not(same)
}

pub(super) fn dim_of(name: &str) -> u8 {
    if name.contains(".y") {
        1
    } else if name.contains(".z") {
        2
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(t: i64, b: i64) -> WitnessThread {
        WitnessThread {
            thread_idx: [t, 0, 0],
            block_idx: [b, 0, 0],
        }
    }

    fn witness(a: WitnessThread, b: WitnessThread, block_x: i64) -> Witness {
        Witness {
            threads: vec![a, b],
            values: vec![("blockDim.x".into(), block_x), ("gridDim.x".into(), 4)],
        }
    }

    #[test]
    fn a_witness_must_be_two_distinct_threads_of_a_real_launch() {
        let ok = witness(thread(0, 0), thread(63, 0), 64);
        assert!(is_launchable(&ok, Relation::SameBlock));
        assert!(!is_launchable(&ok, Relation::CrossBlock), "one block");
        // The same thread twice, or an empty block (what a model that does
        // not belong to the query reads as: every value 0).
        assert!(!is_launchable(
            &witness(thread(0, 0), thread(0, 0), 64),
            Relation::SameBlock
        ));
        assert!(!is_launchable(
            &witness(thread(0, 0), thread(1, 0), 0),
            Relation::SameBlock
        ));
        // A thread outside its block, a block outside the grid.
        assert!(!is_launchable(
            &witness(thread(0, 0), thread(64, 0), 64),
            Relation::SameBlock
        ));
        assert!(!is_launchable(
            &witness(thread(0, 0), thread(1, 4), 64),
            Relation::Any
        ));
        assert!(is_launchable(
            &witness(thread(5, 0), thread(5, 3), 64),
            Relation::CrossBlock
        ));
        assert!(!is_launchable(
            &witness(thread(5, 0), thread(6, 0), 64),
            Relation::CrossBlock
        ));
    }
}
