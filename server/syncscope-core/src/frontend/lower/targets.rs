//! Pointers chosen among several arrays (`c ? a : b`, a pointer assigned
//! on the branches of an `if`): which arrays such a pointer may point
//! into, each under its condition (`Ptr::others`), and the one access per
//! array that an access through it becomes. Only arrays laid out alike
//! are joined, so arithmetic, subscripts and views computed from one
//! array's layout hold for all; anything else stays a named pointer the
//! model cannot represent.

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    /// Whether a pointer into `a`'s arrays and one into `b`'s may be one
    /// pointer value: every array involved has `a`'s space, dimensions and
    /// element type, and none is memory the model follows by its identity
    /// (barrier objects, unions, objects, the `extern __shared__` buffer
    /// other views share).
    pub(super) fn alike_pointers(&self, a: &Ptr, b: &Ptr) -> bool {
        let ids = || {
            std::iter::once(a.array)
                .chain(a.others.iter().map(|(_, id)| *id))
                .chain(std::iter::once(b.array))
                .chain(b.others.iter().map(|(_, id)| *id))
        };
        if ids().all(|id| id == a.array) {
            return true;
        }
        let first = a.array;
        ids().all(|id| {
            let (x, y) = (&self.arrays[first], &self.arrays[id]);
            x.space == y.space
                && x.dims == y.dims
                && self.elem_types.contains_key(&first)
                && self.elem_types.get(&first) == self.elem_types.get(&id)
                && self.elem_ranges.get(&first) == self.elem_ranges.get(&id)
                && self.symbolic_dims.get(&first) == self.symbolic_dims.get(&id)
                && !self.followed_by_identity(id)
        })
    }

    /// What a pointer that may point into `a`'s or `b`'s arrays, not laid
    /// out alike, is called where the model reports it.
    pub(super) fn unlike_pointers(&self, a: &Ptr, b: &Ptr) -> String {
        let mut names: Vec<String> = Vec::new();
        for (_, id) in Self::targets_of(a).into_iter().chain(Self::targets_of(b)) {
            let n = format!("`{}`", self.arrays[id].name);
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let why = if a.level != b.level || a.view != b.view {
            "seen as different element types or rows"
        } else {
            "laid out differently"
        };
        format!(
            "pointer that may point into different arrays ({}, {why})",
            names.join(" or ")
        )
    }

    /// Memory the lowering tracks by which array it is, beyond its
    /// accesses: a pointer that may be one of several of them is not
    /// joined.
    fn followed_by_identity(&self, id: ArrayId) -> bool {
        self.extern_shared == Some(id)
            || self.shared_unions.contains_key(&id)
            || self.shared_objects.contains_key(&id)
            || self.barrier_objects.contains_key(&id)
    }

    /// The other arrays of `c ? t : e` (its main array is `e.array`): `t`'s
    /// arrays under `c`, `e`'s others under `!c`, each array once.
    pub(super) fn merged_targets(&self, c: &Expr, t: &Ptr, e: &Ptr) -> Vec<(Expr, ArrayId)> {
        if t.array == e.array && t.others == e.others {
            return e.others.clone();
        }
        let mut out: Vec<(Expr, ArrayId)> = Vec::new();
        let mut add = |cond: Expr, id: ArrayId| {
            // `e.array` is where no other condition holds.
            if id == e.array || cond.is_false() {
                return;
            }
            match out.iter_mut().find(|(_, x)| *x == id) {
                Some((c0, _)) => *c0 = Expr::or(c0.clone(), cond),
                None => out.push((cond, id)),
            }
        };
        for (ci, id) in &t.others {
            add(Expr::and(c.clone(), ci.clone()), *id);
        }
        add(Expr::and(c.clone(), Self::main_target_cond(t)), t.array);
        let not_c = Expr::not(c.clone());
        for (ci, id) in &e.others {
            add(Expr::and(not_c.clone(), ci.clone()), *id);
        }
        out
    }

    /// When a pointer points into its main array: none of its others'
    /// conditions holds.
    fn main_target_cond(p: &Ptr) -> Expr {
        Expr::all(p.others.iter().map(|(c, _)| Expr::not(c.clone())))
    }

    /// Each array `p` may point into, with the condition under which it
    /// does (the main array last).
    pub(super) fn targets_of(p: &Ptr) -> Vec<(Expr, ArrayId)> {
        let mut out = p.others.clone();
        out.push((Self::main_target_cond(p), p.array));
        out
    }

    /// `p` where code follows the memory it points to by the array's
    /// identity (an atomic's counter, a copy in flight, a barrier object):
    /// a pointer that may point into several arrays is reported there,
    /// naming them, and `None` is returned.
    pub(super) fn single_target(&mut self, p: Ptr, node: Node, what: &str) -> Option<Ptr> {
        if p.others.is_empty() {
            return Some(p);
        }
        let names: Vec<String> = Self::targets_of(&p)
            .iter()
            .map(|(_, id)| format!("`{}`", self.arrays[*id].name))
            .collect();
        self.unsupported(
            node,
            format!(
                "{what} through a pointer that may point into {}",
                names.join(" or ")
            ),
        );
        None
    }
}
