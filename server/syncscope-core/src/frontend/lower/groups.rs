//! Cooperative groups as written: `this_thread_block()`, `this_grid()`,
//! `tiled_partition<N>(g)` / `tiled_partition(g, n)`, `this_thread()`,
//! `coalesced_threads()`, their methods (`sync`, `thread_rank`, `size`,
//! `meta_group_rank`, `shfl*`, `ballot`, `any`, `all`, `match_*`) and the
//! free functions `cg::sync(g)`, `cg::synchronize(g)`, `cg::reduce`. A
//! tile's `sync()` orders only that tile's threads: it is a warp-level
//! barrier of a group of N threads, and the kernel records N so the
//! verifier pairs threads of one tile. `cg::memcpy_async`, `cg::wait` and
//! `cg::wait_prior<N>` are asynchronous copies: see `asynccopy`.

use super::*;
use crate::syntax::queries::{self, BarrierName};

/// Register operations of a group: their values are per thread and they
/// touch no memory beyond their arguments.
const REGISTER_METHODS: [&str; 10] = [
    "shfl",
    "shfl_up",
    "shfl_down",
    "shfl_xor",
    "ballot",
    "any",
    "all",
    "match_any",
    "match_all",
    "reduce",
];

impl<'a, 't> Lowerer<'a, 't> {
    /// Free functions of cooperative groups; `None` for any other name.
    pub(super) fn group_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Option<Value> {
        let v = match name {
            "this_thread_block" => Value::Group(GroupKind::Block),
            "this_grid" => Value::Group(GroupKind::Grid),
            "this_thread" => Value::Group(GroupKind::Single),
            "coalesced_threads" => Value::Group(self.new_coalesced(Partition::Whole)),
            // A partition of a group by a label or a predicate: the members
            // of one part are active threads of one warp.
            "labeled_partition" | "binary_partition" if args.len() == 2 => {
                let parent = self.eval(args[0]);
                self.eval(args[1]);
                match parent {
                    Value::Group(GroupKind::Coalesced(..) | GroupKind::Tile(1..=32)) => {
                        Value::Group(self.new_coalesced(Partition::Labeled))
                    }
                    _ => {
                        self.unsupported(
                            node,
                            format!("`{name}` of a group larger than a warp (or not tracked)"),
                        );
                        Value::Group(self.new_coalesced(Partition::Labeled))
                    }
                }
            }
            "tiled_partition" => {
                let explicit_text = template_args.and_then(|t| {
                    let mut c = t.walk();
                    let first = t.named_children(&mut c).next();
                    first.map(|n| self.text(n))
                });
                let explicit = explicit_text.and_then(|t| self.eval_snippet_const(&t));
                let mut runtime = None;
                for (i, a) in args.iter().enumerate() {
                    let v = self.eval(*a);
                    if i == 1 {
                        runtime = match v {
                            Value::Int(Expr::Const(c)) => Some(c),
                            _ => None,
                        };
                    }
                }
                match explicit.or(runtime) {
                    Some(n) if n > 0 => Value::Group(GroupKind::Tile(n)),
                    _ => {
                        self.unsupported(
                            node,
                            "`tiled_partition` with a size the model cannot evaluate",
                        );
                        Value::Group(GroupKind::Tile(0))
                    }
                }
            }
            _ if !args.is_empty() && queries::is_barrier(BarrierName::GroupFunction, name) => {
                match self.eval(args[0]) {
                    Value::Group(g) => self.group_method(g, "sync", node, &[]),
                    _ => return None,
                }
            }
            "wait" | "wait_prior" if !args.is_empty() => {
                let Value::Group(g) = self.eval(args[0]) else {
                    return None;
                };
                let prior = template_args.and_then(|t| {
                    let mut c = t.walk();
                    let first = t.named_children(&mut c).next();
                    first.map(|n| self.text(n))
                });
                let prior = match prior {
                    None => Some(0),
                    Some(t) => self.eval_snippet_const(&t),
                };
                match prior {
                    Some(0) => self.complete(asynccopy::Channel::Group, asynccopy::Completion::All),
                    Some(n) => {
                        self.complete(asynccopy::Channel::Group, asynccopy::Completion::Prior(n))
                    }
                    None => self.unsupported(
                        node,
                        "`cg::wait_prior<N>` with an N the model cannot evaluate",
                    ),
                }
                // Then the group synchronises.
                self.group_method(g, "sync", node, &[])
            }
            "reduce" | "inclusive_scan" | "exclusive_scan" if !args.is_empty() => {
                match self.eval(args[0]) {
                    Value::Group(_) => {
                        for a in &args[1..] {
                            self.eval(*a);
                        }
                        Value::Int(self.fresh_unknown(name, Scope::Thread))
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some(v)
    }

    pub(super) fn group_method(
        &mut self,
        g: GroupKind,
        method: &str,
        node: Node,
        args: &[Node],
    ) -> Value {
        let stmt_span = self.statement_span(node);
        let tid = |d: u8| {
            Expr::Var(Var::new(
                format!("threadIdx.{}", DIMS[d as usize]),
                VarKind::ThreadIdx(d),
            ))
        };
        let bdim = |d: u8| {
            Expr::Var(Var::new(
                format!("blockDim.{}", DIMS[d as usize]),
                VarKind::BlockDim(d),
            ))
        };
        let linear = Expr::add(
            tid(0),
            Expr::mul(bdim(0), Expr::add(tid(1), Expr::mul(bdim(1), tid(2)))),
        );
        let block_size = Expr::mul(bdim(0), Expr::mul(bdim(1), bdim(2)));
        let bid = |d: u8| {
            Expr::Var(Var::new(
                format!("blockIdx.{}", DIMS[d as usize]),
                VarKind::BlockIdx(d),
            ))
        };
        let gdim = |d: u8| {
            Expr::Var(Var::new(
                format!("gridDim.{}", DIMS[d as usize]),
                VarKind::GridDim(d),
            ))
        };
        let block_rank = Expr::add(
            bid(0),
            Expr::mul(gdim(0), Expr::add(bid(1), Expr::mul(gdim(1), bid(2)))),
        );
        let grid_blocks = Expr::mul(gdim(0), Expr::mul(gdim(1), gdim(2)));
        // Arguments are evaluated first: `tile.shfl_down(s[i], 1)` reads `s`.
        let arg_values: Vec<Value> = args.iter().map(|a| self.eval(*a)).collect();
        match (g, method) {
            (_, m) if queries::is_barrier(BarrierName::GroupMethod, m) => {
                let kind = match g {
                    GroupKind::Tile(n) => {
                        if !self.warp_barrier_width(n, node) {
                            // Not modelled (and reported): a block barrier
                            // that never counts as divergent claims no race
                            // that the tile's real barrier would prevent.
                            self.barrier(BarrierKind::Block, node, stmt_span, false, true);
                            return Value::Int(Expr::Const(0));
                        }
                        BarrierKind::Warp
                    }
                    GroupKind::Coalesced(_, Partition::Labeled) => {
                        // The parts of a partition synchronise apart: a warp
                        // barrier would order threads of different parts.
                        self.unsupported(node, "`sync()` of a labeled or binary partition");
                        self.barrier(BarrierKind::Block, node, stmt_span, false, true);
                        return Value::Int(Expr::Const(0));
                    }
                    GroupKind::Coalesced(_, Partition::Whole) => {
                        let _ = self.warp_barrier_width(32, node);
                        // Only the active threads take part: never divergent.
                        self.barrier(BarrierKind::Warp, node, stmt_span, false, true);
                        return Value::Int(Expr::Const(0));
                    }
                    GroupKind::Block => BarrierKind::Block,
                    GroupKind::Grid => BarrierKind::Grid,
                    // One thread orders nothing with anyone.
                    GroupKind::Single => return Value::Int(Expr::Const(0)),
                };
                self.barrier(kind, node, stmt_span, false, false);
                Value::Int(Expr::Const(0))
            }
            (_, "barrier_arrive") => Value::Int(Expr::Const(0)),
            (GroupKind::Block, "thread_rank") => Value::Int(linear),
            (GroupKind::Tile(n), "thread_rank") if n > 0 => {
                Value::Int(Expr::bin(BinOp::Rem, linear, Expr::Const(n)))
            }
            (GroupKind::Tile(n), "meta_group_rank") if n > 0 => {
                Value::Int(Expr::bin(BinOp::Div, linear, Expr::Const(n)))
            }
            (GroupKind::Tile(n), "meta_group_size") if n > 0 => {
                let up = Expr::add(block_size, Expr::Const(n - 1));
                Value::Int(Expr::bin(BinOp::Div, up, Expr::Const(n)))
            }
            (GroupKind::Tile(n), "size" | "num_threads") if n > 0 => Value::Int(Expr::Const(n)),
            (GroupKind::Single, "thread_rank") => Value::Int(Expr::Const(0)),
            (GroupKind::Single, "size" | "num_threads") => Value::Int(Expr::Const(1)),
            // A grid's ranks are linear in the block's place in the grid
            // (x fastest), as a block's are in the thread's place.
            (GroupKind::Grid, "thread_rank") => {
                Value::Int(Expr::add(Expr::mul(block_rank, block_size), linear))
            }
            (GroupKind::Grid, "block_rank") => Value::Int(block_rank),
            (GroupKind::Block, "size" | "num_threads") => Value::Int(block_size),
            (GroupKind::Grid, "size" | "num_threads") => {
                Value::Int(Expr::mul(block_size, grid_blocks))
            }
            (GroupKind::Grid, "num_blocks") => Value::Int(grid_blocks),
            (GroupKind::Block, "thread_index") => Value::Dim3(0),
            (GroupKind::Block, "group_index") | (GroupKind::Grid, "block_index") => Value::Dim3(1),
            (GroupKind::Block, "group_dim" | "dim_threads") => Value::Dim3(2),
            (GroupKind::Grid, "dim_blocks") => Value::Dim3(3),
            (GroupKind::Coalesced(id, _), "thread_rank") => Value::Int(self.coalesced_rank(id).0),
            (GroupKind::Coalesced(id, _), "size" | "num_threads") => {
                Value::Int(self.coalesced_rank(id).1)
            }
            (GroupKind::Coalesced(id, _), "shfl") => {
                let leader_value = match arg_values.as_slice() {
                    [Value::Int(v), Value::Int(Expr::Const(0))] => self.broadcast(id, v),
                    _ => None,
                };
                Value::Int(
                    leader_value.unwrap_or_else(|| self.fresh_unknown(method, Scope::Thread)),
                )
            }
            (_, "is_valid") => Value::Int(Expr::tru()),
            (_, m) if REGISTER_METHODS.contains(&m) => {
                let value = self.fresh_unknown(method, Scope::Thread);
                if let GroupKind::Tile(n) = g {
                    // A tile's lanes are `thread_rank() % n` of the warp's
                    // segments of n lanes (n up to 32).
                    if (1..=32).contains(&n) {
                        self.record_shuffle(method, &value, Expr::Const(-1), &arg_values, n);
                    }
                }
                Value::Int(value)
            }
            _ => {
                self.unsupported(
                    node,
                    format!("cooperative-groups method `{method}` the model does not know"),
                );
                Value::Int(self.fresh_unknown(method, Scope::Thread))
            }
        }
    }

    fn new_coalesced(&mut self, partition: Partition) -> GroupKind {
        self.coalesced_groups += 1;
        GroupKind::Coalesced(self.coalesced_groups, partition)
    }

    /// The thread's rank in the coalesced group `id` and the group's size:
    /// unknowns (which threads are active is not modelled), the same ones
    /// at every use of the group object.
    fn coalesced_rank(&mut self, id: usize) -> (Expr, Expr) {
        if let Some(r) = self.coalesced_ranks.get(&id) {
            return r.clone();
        }
        let rank = self.fresh_value_in("coalesced_rank", Scope::Thread, (0, 31));
        let size = self.fresh_value_in("coalesced_size", Scope::Thread, (1, 32));
        self.coalesced_ranks
            .insert(id, (rank.clone(), size.clone()));
        (rank, size)
    }

    /// The group `id`'s size, when `v` is it (an atomic's increment).
    pub(super) fn coalesced_size_of(&self, v: &Value) -> Option<usize> {
        let Value::Int(e) = v else { return None };
        self.coalesced_ranks
            .iter()
            .find(|(_, (_, size))| size == e)
            .map(|(id, _)| *id)
    }

    /// `g.shfl(v, 0)`: the value `v` has in the group's rank-0 thread, when
    /// the model knows it. Here: a warp-aggregated atomic, where rank 0
    /// reserved `g.size()` slots of a ticket counter (`res = atomicAdd(&c,
    /// g.size())`, `v` is `res` or `rank == 0 ? res : x`) and hands the
    /// first one out. `v` at rank 0 is then the reservation, so the
    /// shuffle's value plus the rank is this thread's own slot: its values
    /// over the launch are distinct, as the tickets of `atomicAdd(&c, 1)`
    /// are (one per thread and call), so the shuffle's value is a fresh
    /// ticket of the counter minus the rank. Anything else is an unknown.
    fn broadcast(&mut self, id: usize, v: &Expr) -> Option<Expr> {
        let (rank, _) = self.coalesced_ranks.get(&id)?.clone();
        let Expr::Var(rank_var) = &rank else {
            return None;
        };
        let at_leader = v.subst(&mut |x| (x == rank_var).then_some(Expr::Const(0)));
        let Expr::Var(reserved) = at_leader else {
            return None;
        };
        let (group, ticket) = self.reservations.get(&reserved)?.clone();
        if group != id {
            return None;
        }
        let slot = self.fresh_value(&ticket, Scope::Thread);
        Some(Expr::bin(BinOp::Sub, slot, rank))
    }

    pub(super) fn note_atomic_target(&mut self, array: ArrayId, node: Node) {
        if self.dry > 0 {
            return;
        }
        self.atomic_targets.insert(array);
        if self.async_targets.contains(&array) {
            self.async_and_atomic(array, node);
        }
    }

    pub(super) fn async_and_atomic(&mut self, array: ArrayId, node: Node) {
        let name = self.arrays[array].name.clone();
        self.unsupported(
            node,
            format!("atomics on `{name}`, which an asynchronous copy also writes"),
        );
    }

    /// `cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);`
    /// can reach the model as the expression `(T < 32) > (tile = ...)`
    /// (the grammar's reading of a template type with a number argument).
    /// When the assigned value is a group, it is the declaration it looks
    /// like: `tile` is declared with the group. Returns whether it was one.
    pub(super) fn group_declaration_read_as_comparison(&mut self, e: Node) -> bool {
        let is_op = |n: Node, op: &str| {
            n.kind() == "binary_expression"
                && n.child_by_field_name("operator")
                    .is_some_and(|o| o.kind() == op)
        };
        if !is_op(e, ">") {
            return false;
        }
        let (Some(left), Some(right)) = (e.field("left"), e.field("right")) else {
            return false;
        };
        if !is_op(left, "<") || right.kind() != "assignment_expression" {
            return false;
        }
        let type_text = left.field("left").map(|t| self.text(t)).unwrap_or_default();
        if !type_text.ends_with("thread_block_tile") {
            return false;
        }
        let (Some(name), Some(value)) = (right.field("left"), right.field("right")) else {
            return false;
        };
        if name.kind() != "identifier" {
            return false;
        }
        let v = self.eval(value);
        let name = self.text(name);
        self.declare(&name, v);
        true
    }

    /// A warp-level barrier of a group of `n` threads. The verifier pairs
    /// the threads of one group by `rank / n`, which needs one size per
    /// kernel and a tile that does not span warps.
    /// Returns whether such a barrier is modelled.
    pub(super) fn warp_barrier_width(&mut self, n: i64, node: Node) -> bool {
        if !(1..=32).contains(&n) || n & (n - 1) != 0 {
            self.unsupported(
                node,
                format!("`sync()` of a {n}-thread tile (tiles of 1, 2, 4, 8, 16 or 32 threads are modelled)"),
            );
            return false;
        }
        if self.dry > 0 {
            return true;
        }
        if let Some(other) = self.warp_widths.iter().find(|w| **w != n) {
            self.unsupported(
                node,
                format!("barriers of groups of {other} and {n} threads in one kernel"),
            );
        }
        self.warp_widths.insert(n);
        true
    }

    /// Once the kernel is lowered: with warp-level barriers of groups of
    /// different sizes (reported), each stands for a barrier of the whole
    /// warp, which a group of fewer lanes legitimately reaches without the
    /// rest of the warp: never divergent.
    pub(super) fn unorder_mixed_warp_barriers(&self, body: &mut [Stmt]) {
        if self.warp_widths.len() < 2 {
            return;
        }
        for s in body {
            match s {
                Stmt::Barrier(b) if b.kind == BarrierKind::Warp => b.partial_mask = true,
                Stmt::If(t, e) => {
                    self.unorder_mixed_warp_barriers(t);
                    self.unorder_mixed_warp_barriers(e);
                }
                Stmt::Loop(l) => self.unorder_mixed_warp_barriers(&mut l.body),
                Stmt::Barrier(_) | Stmt::Access(_) | Stmt::LoopExit(_) => {}
            }
        }
    }

    /// The kernel's warp-level group size: 32 unless every warp-level
    /// barrier is the `sync()` of a smaller tile.
    pub(super) fn warp_width(&self) -> i64 {
        match self.warp_widths.iter().collect::<Vec<_>>()[..] {
            [n] => *n,
            _ => 32,
        }
    }
}

impl Lowerer<'_, '_> {
    /// Records the shuffle `method` (`shfl`, `shfl_down`, ... with the value
    /// and lane operands first in `args`) whose result is `value`, in
    /// segments of `width` lanes: what `equiv` follows (`Kernel::shuffles`).
    pub(super) fn record_shuffle(
        &mut self,
        method: &str,
        value: &Expr,
        mask: Expr,
        args: &[Value],
        width: i64,
    ) {
        let kind = match method.trim_end_matches("_sync").trim_start_matches("__") {
            "shfl" => ShuffleKind::Idx,
            "shfl_up" => ShuffleKind::Up,
            "shfl_down" => ShuffleKind::Down,
            "shfl_xor" => ShuffleKind::Xor,
            _ => return,
        };
        let (Expr::Var(v), [Value::Int(source), Value::Int(lane), ..]) = (value, args) else {
            return;
        };
        self.shuffles.push(crate::model::Shuffle {
            value: v.clone(),
            kind,
            source: source.clone(),
            lane: lane.clone(),
            width,
            mask,
            guard: self.guard(),
        });
    }
}
