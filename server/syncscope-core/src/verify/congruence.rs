//! Equal operands give equal results: what the same-value check of two
//! writes (`benign-race`) may conclude about values the model keeps as
//! unknowns. Must not decide races (`races::written_values` adds these
//! constraints to its queries).
//!
//! A thread's written value is often computed from values the model does
//! not interpret: floating-point operations, conversions and literals
//! (`Function::Site`), texture fetches (`Function::Fetch`) and reads of
//! memory the kernel never writes. Each is a deterministic function of its
//! operands on the machine, so two threads that apply one of them to equal
//! operands get one result, although the model names the two results by
//! two unknowns. No algebraic identity is assumed: `(a + b) + c` and `a +
//! (b + c)` are two sites, never related.
//!
//! "Equal operands" is meant on the machine. For an operation at one place
//! of the code, the two applications compute one expression of the
//! original variables, so the operands are equal when every variable they
//! mention has equal values for the two threads (the two instances'
//! images of that variable are equal in the model: an input, a thread
//! index, an iteration count and an unknown each stand for their machine
//! value). For a read (a texture fetch, an element of a read-only array),
//! the cell is the one the model's index names, as for every access of the
//! model (its indices are mathematical integers, see `docs/diagnostics.md`).
//!
//! Read-only memory is a global array (or `__constant__` one) that the
//! kernel never writes nor updates atomically, read through its own element
//! type (`input_orders::one_cell`): distinct pointer parameters do not
//! alias, so no thread of the launch changes such a cell while it runs. A
//! `__shared__` array is one per block, so it never qualifies; a read of a
//! `__shared__` cell the reading thread wrote itself is that write's value
//! (`own_slots`), a fact of each thread alone.

use super::context::*;
use super::intervals::Instance;
use crate::model::*;
use std::collections::{HashMap, HashSet};

/// At most this many unknowns are followed from the written values of one
/// query; what lies beyond is left unrelated (no claim, never a false one).
const MAX_UNKNOWNS: usize = 4096;

/// At most this many congruence constraints per query.
const MAX_FACTS: usize = 20_000;

impl Origin<'_> {
    /// The expressions whose variables the value depends on.
    fn operands(&self) -> Vec<&Expr> {
        match self {
            Origin::Site(_, a) | Origin::Fetch(_, a) => a.iter().collect(),
            Origin::Read(_, i) => vec![*i],
            Origin::OwnSlot(read, writes) => [&read.index, &read.guard]
                .into_iter()
                .chain(
                    writes
                        .iter()
                        .flat_map(|w| [&w.index, &w.guard].into_iter().chain(w.value.as_ref())),
                )
                .collect(),
        }
    }
}

/// One thread's instance of an unknown with a known origin.
struct Applied<'k> {
    thread: u8,
    original: &'k Var,
    value: Expr,
    /// The substitution it was instantiated under (its instance's).
    inst: usize,
}

impl<'k> KernelContext<'k> {
    /// What each unknown of the kernel is a function of, by name: the
    /// recorded applications (one record per name: a name recorded with two
    /// different operands is left out) and the reads of read-only arrays.
    fn origins(&self) -> &Origins<'k> {
        self.origins.get_or_init(|| self.find_origins())
    }

    fn find_origins(&self) -> Origins<'k> {
        let kernel: &'k Kernel = self.kernel;
        let mut out: Origins<'k> = HashMap::new();
        let mut conflicting: HashSet<&str> = HashSet::new();
        for app in &kernel.applications {
            let origin = match &app.function {
                Function::Site(s) => Origin::Site(s, &app.args),
                Function::Fetch(f) => Origin::Fetch(f, &app.args),
            };
            let name: &str = &app.value.name;
            match out.get(name) {
                Some((_, Origin::Site(s, a) | Origin::Fetch(s, a)))
                    if *a != app.args.as_slice()
                        || !matches!(&app.function, Function::Site(t) | Function::Fetch(t) if t == s) =>
                {
                    conflicting.insert(name);
                }
                _ => {
                    out.insert(name, (&app.value, origin));
                }
            }
        }
        for name in conflicting {
            out.remove(name);
        }
        let written: HashSet<ArrayId> = self
            .accesses
            .values()
            .filter(|a| a.kind != AccessKind::Read)
            .map(|a| a.array)
            .collect();
        for (value, id) in &kernel.read_values {
            let Some(&access) = self.accesses.get(id) else {
                continue;
            };
            let array = &kernel.arrays[access.array];
            if array.space != MemorySpace::Global
                || written.contains(&access.array)
                || !super::input_orders::one_cell(value, access, array)
            {
                continue;
            }
            out.entry(&value.name)
                .or_insert((value, Origin::Read(access.array, &access.index)));
        }
        for (value, read, writes) in super::own_slots::own_slot_reads(kernel) {
            out.entry(&value.name)
                .or_insert((value, Origin::OwnSlot(read, writes)));
        }
        out
    }

    /// The constraints "equal operands give equal results" over the
    /// unknowns the written values of `values` (instance index, original
    /// expression) depend on, for the two threads of the query.
    pub(super) fn congruence_facts(
        &self,
        insts: &[&Instance],
        values: &[(usize, &Expr)],
        rel: Relation,
    ) -> Vec<Expr> {
        if values.is_empty() {
            return Vec::new();
        }
        let origins = self.origins();
        if origins.is_empty() {
            return Vec::new();
        }
        // The unknowns with an origin each value depends on, through the
        // operands of the ones it mentions.
        let mut applied: Vec<Applied<'_>> = Vec::new();
        let mut seen_applied: HashSet<Expr> = HashSet::new();
        for &(i, value) in values {
            let mut wanted: Vec<&Var> = Vec::new();
            let mut known: HashSet<&str> = HashSet::new();
            note(value, origins, &mut known, &mut wanted);
            let mut next = 0;
            while next < wanted.len() {
                let v = wanted[next];
                next += 1;
                if let Some((_, origin)) = origins.get(&*v.name) {
                    for e in origin.operands() {
                        note(e, origins, &mut known, &mut wanted);
                    }
                }
            }
            for v in wanted {
                for t in [1u8, 2] {
                    let value =
                        self.instantiate(&Expr::Var(v.clone()), t, rel, &insts[i].subst, false);
                    if seen_applied.insert(value.clone()) {
                        applied.push(Applied {
                            thread: t,
                            original: v,
                            value,
                            inst: i,
                        });
                    }
                }
            }
        }
        // Only applications of one function are related: thread 2's by
        // function, so that the pairs asked are those that may relate.
        let function = |a: &Applied<'_>| match origins.get(&*a.original.name) {
            Some((_, Origin::Site(s, _))) => (0u8, s.to_string()),
            Some((_, Origin::Fetch(f, _))) => (1, f.to_string()),
            Some((_, Origin::Read(array, _))) => (2, array.to_string()),
            Some((_, Origin::OwnSlot(read, _))) => (3, read.id.to_string()),
            None => (4, String::new()),
        };
        let mut out = Vec::new();
        // A read of the thread's own shared slot is its own write's value:
        // a fact of each thread alone.
        for a in &applied {
            if let Some((var, Origin::OwnSlot(read, writes))) = origins.get(&*a.original.name) {
                out.extend(self.own_slot_facts((var, read, writes), a.thread, insts, a.inst, rel));
            }
        }
        let mut second: HashMap<(u8, String), Vec<&Applied<'_>>> = HashMap::new();
        for b in applied.iter().filter(|b| b.thread == 2) {
            second.entry(function(b)).or_default().push(b);
        }
        for a in applied.iter().filter(|a| a.thread == 1) {
            for &b in second.get(&function(a)).into_iter().flatten() {
                if out.len() >= MAX_FACTS {
                    return out;
                }
                if a.value == b.value {
                    continue;
                }
                let (Some((_, oa)), Some((_, ob))) = (
                    origins.get(&*a.original.name),
                    origins.get(&*b.original.name),
                ) else {
                    continue;
                };
                let premise = match (oa, ob) {
                    // One operation: every variable its operands mention
                    // has one value for both.
                    (Origin::Site(s, args), Origin::Site(t, _)) if s == t => {
                        Some(Expr::all(args.iter().map(|x| {
                            self.equal_operand(x, insts, (a.inst, b.inst), rel)
                        })))
                    }
                    // One fetch function, wherever called: equal operands.
                    (Origin::Fetch(f, xa), Origin::Fetch(g, xb))
                        if f == g && xa.len() == xb.len() =>
                    {
                        Some(Expr::all(xa.iter().zip(xb.iter()).map(|(x, y)| {
                            Expr::eq(
                                self.instantiate(x, 1, rel, &insts[a.inst].subst, false),
                                self.instantiate(y, 2, rel, &insts[b.inst].subst, false),
                            )
                        })))
                    }
                    // One read-only cell.
                    (Origin::Read(p, xa), Origin::Read(q, xb)) if p == q => Some(Expr::eq(
                        self.instantiate(xa, 1, rel, &insts[a.inst].subst, false),
                        self.instantiate(xb, 2, rel, &insts[b.inst].subst, false),
                    )),
                    _ => None,
                };
                if let Some(p) = premise {
                    out.push(Expr::or(
                        Expr::not(p),
                        Expr::eq(a.value.clone(), b.value.clone()),
                    ));
                }
            }
        }
        out
    }

    /// The condition under which the operand `x` of one operation, as
    /// thread 1 computes it under `insts[i]` and thread 2 under
    /// `insts[j]`, has one value on the machine: every variable it
    /// mentions is equal for the two (one computation of equal inputs), or
    /// the two are equal in the model with every intermediate value exact
    /// (`machine_values`: no step wrapped). Equal in the model alone is
    /// not enough: `min(base + t, c)` is `c` for two threads in the model
    /// and not on the machine once one sum wraps.
    fn equal_operand(
        &self,
        x: &Expr,
        insts: &[&Instance],
        (i, j): (usize, usize),
        rel: Relation,
    ) -> Expr {
        let one_computation = self.same_inputs(x, insts, (i, j), rel);
        let x1 = self.instantiate(x, 1, rel, &insts[i].subst, false);
        let x2 = self.instantiate(x, 2, rel, &insts[j].subst, false);
        let exact = match (
            super::machine_values::machine_exact(&x1),
            super::machine_values::machine_exact(&x2),
        ) {
            (Some(c1), Some(c2)) => Expr::all([Expr::eq(x1, x2), c1, c2]),
            _ => Expr::fals(),
        };
        Expr::or(one_computation, exact)
    }

    /// The condition under which one access's written value `value`,
    /// instantiated for thread 1 under `insts[i]` and thread 2 under
    /// `insts[j]`, is one computation of equal inputs: every variable it
    /// mentions has equal values for the two threads.
    pub(super) fn same_inputs(
        &self,
        value: &Expr,
        insts: &[&Instance],
        (i, j): (usize, usize),
        rel: Relation,
    ) -> Expr {
        Expr::all(value.vars().into_iter().map(|v| {
            let e = Expr::Var(v);
            Expr::eq(
                self.instantiate(&e, 1, rel, &insts[i].subst, false),
                self.instantiate(&e, 2, rel, &insts[j].subst, false),
            )
        }))
    }
}

/// Adds to `wanted` the unknowns with an origin that `e` mentions and
/// `known` does not hold yet.
fn note<'o>(
    e: &Expr,
    origins: &HashMap<&'o str, (&'o Var, Origin<'o>)>,
    known: &mut HashSet<&'o str>,
    wanted: &mut Vec<&'o Var>,
) {
    e.for_each_var(&mut |v| {
        if let Some((orig, _)) = origins.get(&*v.name) {
            if known.len() < MAX_UNKNOWNS && known.insert(&orig.name) {
                wanted.push(orig);
            }
        }
    });
}
