//! The two kinds of Z3 solver `smt::run_z3` uses, made through the C API.
//!
//! The `z3` crate makes only Z3's *combined* solver (`Z3_mk_solver`). Its
//! first `push` builds the non-incremental half too (Z3's default tactic,
//! every sub-tactic with its parameters), about 10 ms, although a query
//! checked inside a scope never runs it: the incremental half answers.
//! With a context and a warm solver per kernel, that was most of the time
//! of a kernel decided by a few small queries (a file of 2,000 such
//! kernels: 110 s). Z3's *simple* solver (`Z3_mk_simple_solver`) is that
//! incremental half alone (the `smt` core under the same parameters): the
//! same answers within the same resource units, made in well under a
//! millisecond. The `z3` crate has no constructor for it, so both kinds
//! live here behind one type.

use std::ffi::CStr;
use z3::ast::Ast;
use z3::SatResult;
use z3_sys::{Z3_context, Z3_solver};

/// A Z3 solver of the thread's current context (see `z3::with_z3_context`).
pub(crate) struct Solver {
    /// Keeps the context alive for as long as the solver.
    context: z3::Context,
    raw: Z3_solver,
}

impl Solver {
    /// Z3's combined solver: a tactic-based non-incremental solver for a
    /// check without scopes, the incremental core inside a `push`, and the
    /// tactic again when that core gives up on a quantifier-free query.
    pub(crate) fn combined() -> Solver {
        Solver::made_by(z3_sys::Z3_mk_solver)
    }

    /// Z3's incremental core alone (what the combined solver runs inside
    /// a scope), without building the tactic it never uses there.
    pub(crate) fn incremental_core() -> Solver {
        Solver::made_by(z3_sys::Z3_mk_simple_solver)
    }

    fn made_by(make: unsafe extern "C" fn(Z3_context) -> Option<Z3_solver>) -> Solver {
        let context = z3::Context::thread_local();
        let ctx = context.get_z3_context();
        // SAFETY: `ctx` is a live context (`context` holds it); the solver
        // is reference counted from here until `drop`.
        let raw = unsafe { make(ctx) }.expect("Z3 makes a solver");
        unsafe { z3_sys::Z3_solver_inc_ref(ctx, raw) };
        Solver { context, raw }
    }

    /// The solver's own context (not whichever is thread-local now).
    pub(crate) fn z3_context(&self) -> Z3_context {
        self.context.get_z3_context()
    }

    pub(crate) fn push(&self) {
        // SAFETY: a live solver of a live context (for every call below).
        unsafe { z3_sys::Z3_solver_push(self.z3_context(), self.raw) };
    }

    pub(crate) fn pop(&self, n: u32) {
        unsafe { z3_sys::Z3_solver_pop(self.z3_context(), self.raw, n) };
    }

    pub(crate) fn assert(&self, b: &z3::ast::Bool) {
        unsafe { z3_sys::Z3_solver_assert(self.z3_context(), self.raw, b.get_z3_ast()) };
    }

    pub(crate) fn check(&self) -> SatResult {
        sat_result(unsafe { z3_sys::Z3_solver_check(self.z3_context(), self.raw) })
    }

    pub(crate) fn check_assumptions(&self, assumptions: &[z3::ast::Bool]) -> SatResult {
        let raw: Vec<_> = assumptions.iter().map(|a| a.get_z3_ast()).collect();
        sat_result(unsafe {
            z3_sys::Z3_solver_check_assumptions(
                self.z3_context(),
                self.raw,
                raw.len() as u32,
                raw.as_ptr(),
            )
        })
    }

    /// Why the last check answered unknown.
    pub(crate) fn get_reason_unknown(&self) -> Option<String> {
        let p = unsafe { z3_sys::Z3_solver_get_reason_unknown(self.z3_context(), self.raw) };
        if p.is_null() {
            return None;
        }
        // SAFETY: a NUL-terminated string owned by the context, copied
        // before the next call.
        unsafe { CStr::from_ptr(p) }
            .to_str()
            .ok()
            .map(str::to_string)
    }

    /// The resource units Z3 has counted in the solver's context so far
    /// (one count per context, from which each check's `rlimit` is
    /// measured), read from the solver's statistics ("rlimit count", an
    /// unsigned 32-bit value or a double).
    pub(crate) fn units_counted(&self) -> Option<u64> {
        let ctx = self.z3_context();
        // SAFETY: the statistics object is reference counted while read;
        // each key is a string owned by it, read before it is released.
        unsafe {
            let stats = z3_sys::Z3_solver_get_statistics(ctx, self.raw)?;
            z3_sys::Z3_stats_inc_ref(ctx, stats);
            let mut found = None;
            for i in 0..z3_sys::Z3_stats_size(ctx, stats) {
                let key = CStr::from_ptr(z3_sys::Z3_stats_get_key(ctx, stats, i));
                if key.to_bytes() == b"rlimit count" {
                    found = Some(if z3_sys::Z3_stats_is_uint(ctx, stats, i) {
                        u64::from(z3_sys::Z3_stats_get_uint_value(ctx, stats, i))
                    } else {
                        z3_sys::Z3_stats_get_double_value(ctx, stats, i) as u64
                    });
                    break;
                }
            }
            z3_sys::Z3_stats_dec_ref(ctx, stats);
            found
        }
    }

    /// The model of the last satisfiable check: `eval` gives the value of
    /// an integer or bit-vector term in it (model completion on).
    pub(crate) fn model_values<T>(
        &self,
        terms: impl IntoIterator<Item = T>,
        eval: impl Fn(&Model, &T) -> Option<i64>,
    ) -> Option<Vec<Option<i64>>> {
        let ctx = self.z3_context();
        let raw = unsafe { z3_sys::Z3_solver_get_model(ctx, self.raw) }?;
        unsafe { z3_sys::Z3_model_inc_ref(ctx, raw) };
        let model = Model { ctx, raw };
        Some(terms.into_iter().map(|t| eval(&model, &t)).collect())
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        unsafe { z3_sys::Z3_solver_dec_ref(self.z3_context(), self.raw) };
    }
}

fn sat_result(r: z3_sys::Z3_lbool) -> SatResult {
    match r {
        z3_sys::Z3_L_FALSE => SatResult::Unsat,
        z3_sys::Z3_L_TRUE => SatResult::Sat,
        _ => SatResult::Unknown,
    }
}

/// A model, borrowed for the time of [`Solver::model_values`].
pub(crate) struct Model {
    ctx: Z3_context,
    raw: z3_sys::Z3_model,
}

impl Model {
    /// The value of `term` (an integer, or a bit-vector read as unsigned).
    pub(crate) fn value<A: Ast>(&self, term: &A) -> Option<i128> {
        let mut out: Option<z3_sys::Z3_ast> = None;
        // SAFETY: `term` belongs to this model's context; the evaluated
        // term is reference counted while its value is read.
        unsafe {
            let out_ptr = (&mut out as *mut Option<z3_sys::Z3_ast>).cast();
            if !z3_sys::Z3_model_eval(self.ctx, self.raw, term.get_z3_ast(), true, out_ptr) {
                return None;
            }
            let v = out?;
            z3_sys::Z3_inc_ref(self.ctx, v);
            let mut n: i64 = 0;
            let mut u: u64 = 0;
            let value = if z3_sys::Z3_get_numeral_int64(self.ctx, v, &mut n) {
                Some(i128::from(n))
            } else if z3_sys::Z3_get_numeral_uint64(self.ctx, v, &mut u) {
                Some(i128::from(u))
            } else {
                None
            };
            z3_sys::Z3_dec_ref(self.ctx, v);
            value
        }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        unsafe { z3_sys::Z3_model_dec_ref(self.ctx, self.raw) };
    }
}

/// A solver that assertions parsed from SMT-LIB text can be added to (see
/// `smt::load`): this module's, or the `z3` crate's.
pub(crate) trait Asserts {
    fn context(&self) -> &z3::Context;
    fn assert_bool(&self, b: &z3::ast::Bool);
}

impl Asserts for Solver {
    fn context(&self) -> &z3::Context {
        &self.context
    }

    fn assert_bool(&self, b: &z3::ast::Bool) {
        self.assert(b);
    }
}

impl Asserts for z3::Solver {
    fn context(&self) -> &z3::Context {
        self.get_context()
    }

    fn assert_bool(&self, b: &z3::ast::Bool) {
        self.assert(b);
    }
}
