//! `cuda::barrier` objects in shared memory and their phases:
//! `arrive_and_wait`, split `arrive()` / `wait(token)`, `arrive_and_drop`,
//! the same phases through the `__mbarrier_*` and `cuda::ptx::mbarrier_*`
//! primitives (a spin loop on a phase test is a wait), and transaction
//! copies (`memcpy_async_tx`, `cp_async_bulk`) whose phase waits for them
//! only for the bytes an `expect_tx` counts. A barrier of the whole block
//! is `__syncthreads()` that also completes the copies of its phase; any
//! other participation, and every ordering the model does not follow, is
//! `not-verified` with a barrier that never counts as divergent, so that
//! no race is claimed which that ordering would prevent.

use super::*;

/// The `__mbarrier_*` tests of a phase's completion: a thread waits by
/// spinning on one of them.
const MBARRIER_WAITS: [&str; 8] = [
    "__mbarrier_test_wait",
    "__mbarrier_try_wait",
    "__mbarrier_test_wait_parity",
    "__mbarrier_try_wait_parity",
    "mbarrier_test_wait",
    "mbarrier_try_wait",
    "mbarrier_test_wait_parity",
    "mbarrier_try_wait_parity",
];

/// An open phase of a `cuda::barrier`: after this thread's `bar.arrive()`,
/// before its `bar.wait(token)`.
#[derive(Clone, Debug)]
pub(in crate::frontend::lower) struct SplitPhase {
    pub(super) array: ArrayId,
    /// The enclosing loops and `async_seq` at the arrive.
    pub(super) loops: Vec<usize>,
    pub(super) async_seq: usize,
    /// The accesses made since the arrive (collected by `emit`).
    pub(in crate::frontend::lower) accesses: Vec<Access>,
    /// A barrier came after one of `accesses` (set by `barrier`).
    pub(in crate::frontend::lower) barrier_after_access: bool,
}

impl<'a, 't> Lowerer<'a, 't> {
    /// The calls of barrier objects that are functions (transaction
    /// copies and counts, the `mbarrier` primitives, `init`); `None` for
    /// any other name.
    pub(super) fn barrier_call(&mut self, name: &str, node: Node, args: &[Node]) -> Option<Value> {
        match name {
            // Transaction copies (TMA): `cuda::device::memcpy_async_tx(dst,
            // src, size, bar)`, `cuda::ptx::cp_async_bulk(space, space, dst,
            // src, size, &bar)`.
            "memcpy_async_tx" | "cp_async_bulk" if args.len() == 4 || args.len() == 6 => {
                let args = &args[args.len() - 4..];
                let array = self.barrier_arg(args[3]);
                let vals: Vec<Value> = args[..3].iter().map(|a| self.eval_buffer(*a)).collect();
                let Some(array) = array else {
                    self.unsupported(
                        node,
                        format!("`{name}` completing on an object the model does not track"),
                    );
                    return Some(Value::Int(Expr::Const(0)));
                };
                self.use_barrier(array, node);
                let seq = self.async_seq;
                self.issue(
                    Channel::Barrier(array),
                    false,
                    node,
                    &vals[0],
                    &vals[1],
                    &vals[2],
                );
                if let Some(p) = self.async_state.pending.iter_mut().find(|p| p.seq == seq) {
                    p.tx = true;
                }
                Some(Value::Int(Expr::Const(0)))
            }
            // `cuda::device::barrier_arrive_tx(bar, 1, bytes)`,
            // `cuda::ptx::mbarrier_arrive_expect_tx(sem, scope, space, &bar,
            // bytes)`: this thread's arrival, the phase also waiting for
            // `bytes` bytes of transaction copies; `barrier_expect_tx(bar,
            // bytes)` and `mbarrier_expect_tx(..., &bar, bytes)` without the
            // arrival.
            "barrier_arrive_tx"
            | "mbarrier_arrive_expect_tx"
            | "barrier_expect_tx"
            | "mbarrier_expect_tx"
                if args.len() >= 2 =>
            {
                let arrive = name.contains("arrive");
                let (bar, rest) = match name {
                    "barrier_arrive_tx" if args.len() == 3 => (args[0], &args[1..]),
                    "barrier_expect_tx" if args.len() == 2 => (args[0], &args[1..]),
                    _ => (args[args.len() - 2], &args[args.len() - 1..]),
                };
                let array = self.barrier_arg(bar);
                let vals: Vec<Value> = rest.iter().map(|a| self.eval(*a)).collect();
                let Some(array) = array else {
                    self.unsupported(
                        node,
                        format!("`{name}` of a barrier the model does not track"),
                    );
                    return Some(Value::Int(Expr::Const(0)));
                };
                if vals.len() == 2 && !matches!(vals[0], Value::Int(Expr::Const(1))) {
                    self.unsupported(node, format!("`{name}` with an arrival count other than 1"));
                }
                self.expect_tx(array, vals.last(), name, node);
                if arrive {
                    return Some(self.barrier_method(array, "arrive", node, &[]));
                }
                self.use_barrier(array, node);
                Some(Value::Int(Expr::Const(0)))
            }
            // `__mbarrier_*` (cuda_awbarrier_primitives.h) on a
            // `__shared__ __mbarrier_t`: the same phases as `cuda::barrier`.
            // `cuda::ptx::mbarrier_*` on a `__shared__ uint64_t` are the same.
            "__mbarrier_arrive"
            | "__mbarrier_arrive_and_drop"
            | "__mbarrier_inval"
            | "mbarrier_arrive"
            | "mbarrier_arrive_and_drop"
            | "mbarrier_inval"
                if args.len() == 1 =>
            {
                let Value::Ptr(p) = self.eval(args[0]) else {
                    return None;
                };
                if !self.barrier_objects.contains_key(&p.array) {
                    return None;
                }
                Some(match name.trim_start_matches("__") {
                    "mbarrier_arrive" => self.barrier_method(p.array, "arrive", node, &[]),
                    "mbarrier_arrive_and_drop" => {
                        self.barrier_method(p.array, "arrive_and_drop", node, &[])
                    }
                    _ => {
                        // Invalidating writes the barrier: every use must be
                        // ordered before it.
                        let text = self.text(node);
                        self.record_access(AccessKind::Write, &p, &[], Some(node), &text);
                        Value::Int(Expr::Const(0))
                    }
                })
            }
            _ if MBARRIER_WAITS.contains(&name) => {
                let vals: Vec<Value> = args.iter().map(|a| self.eval(*a)).collect();
                self.unsupported(
                    node,
                    format!("`{name}` outside a spin loop `while (!{name}(&bar, token));`"),
                );
                // Some threads may pass it only once the phase completed: a
                // block barrier that never counts as divergent claims no
                // race that ordering would prevent.
                // The same after the loop that spins on it, if any.
                if let Some(Value::Ptr(p)) = vals.first() {
                    if self.barrier_objects.contains_key(&p.array) && self.dry == 0 {
                        self.split_arrive = None;
                        self.barrier(BarrierKind::Block, node, self.span(node), false, true);
                        let mut up = node.parent();
                        while let Some(n) = up {
                            if matches!(
                                n.kind(),
                                "for_statement" | "while_statement" | "do_statement"
                            ) {
                                self.spin_loops.push(n.id());
                                break;
                            }
                            up = n.parent();
                        }
                    }
                }
                Some(Value::Int(self.fresh_unknown(name, Scope::Thread)))
            }
            "init" | "__mbarrier_init" | "mbarrier_init" if args.len() == 2 => {
                let Value::Ptr(p) = self.eval(args[0]) else {
                    return None;
                };
                // `cuda::ptx::mbarrier_init(&bar, n)` makes a `__shared__`
                // 64-bit scalar a barrier object.
                // (One barrier object: a pointer that may point into several
                // arrays is none, left to the calls the model reports.)
                if name == "mbarrier_init"
                    && p.others.is_empty()
                    && self.arrays[p.array].space == MemorySpace::Shared
                {
                    self.barrier_objects.entry(p.array).or_insert(None);
                }
                if !self.barrier_objects.contains_key(&p.array) {
                    return None;
                }
                let count = self.eval(args[1]);
                let full = self.is_block_size(&count);
                if self.dry == 0 {
                    self.barrier_objects.insert(p.array, Some(full));
                }
                // Initialising writes the barrier: the threads that use it
                // must be ordered after it. It writes the expected count, so
                // threads that all initialise it alike write the same value.
                let text = self.text(node);
                let written = match &count {
                    Value::Int(c) if c.unseen_origins().is_empty() => Some(c.clone()),
                    _ => None,
                };
                let saved = std::mem::replace(&mut self.written_value, written);
                self.record_access(AccessKind::Write, &p, &[], Some(node), &text);
                self.written_value = saved;
                Some(Value::Int(Expr::Const(0)))
            }
            _ => None,
        }
    }
    /// The `cuda::barrier` an argument designates: its name, or a pointer
    /// to it (`&bar`).
    fn barrier_arg(&mut self, node: Node) -> Option<ArrayId> {
        self.barrier_object(node).or_else(|| match self.eval(node) {
            Value::Ptr(p) if self.barrier_objects.contains_key(&p.array) => Some(p.array),
            _ => None,
        })
    }

    /// The `cuda::barrier` a name designates, if it is one.
    pub(in crate::frontend::lower) fn barrier_object(&mut self, node: Node) -> Option<ArrayId> {
        if node.kind() != "identifier" || self.barrier_objects.is_empty() {
            return None;
        }
        let name = self.text(node);
        // A reference parameter bound to the barrier (`cuda::barrier<...>
        // &bar` of an inlined device function) names the same object.
        let array = match self.lookup(&name) {
            Some((_, Value::Alias(lv))) => match lv.as_ref() {
                LValue::Mem { ptr, .. } if ptr.level == 0 && ptr.offset == Expr::Const(0) => {
                    ptr.array
                }
                _ => return None,
            },
            _ => self.scalar_memory(&name)?.array,
        };
        self.barrier_objects.contains_key(&array).then_some(array)
    }

    /// An `expect_tx` of `bytes` on the barrier `array`: the phase waits
    /// for this thread's transaction copies on it when the expected bytes
    /// cover them (constants both); else the phase may complete before a
    /// copy lands, which the model does not follow (reported).
    fn expect_tx(&mut self, array: ArrayId, bytes: Option<&Value>, name: &str, node: Node) {
        if self.dry > 0 {
            return;
        }
        let expected = match bytes {
            Some(Value::Int(Expr::Const(b))) => Some(*b),
            _ => None,
        };
        let copies: Vec<Option<i64>> = self
            .async_state
            .pending
            .iter()
            .filter(|p| p.channel == Channel::Barrier(array) && p.tx && !p.expected)
            .map(|p| p.bytes)
            .collect();
        let issued = copies.iter().copied().sum::<Option<i64>>();
        match (expected, issued) {
            (Some(e), Some(i)) if e >= i => {
                for p in &mut self.async_state.pending {
                    if p.channel == Channel::Barrier(array) && p.tx {
                        p.expected = true;
                    }
                }
            }
            _ => self.unsupported(
                node,
                format!("`{name}` expecting bytes that do not cover the transaction copies of the phase (or that the model cannot evaluate)"),
            ),
        }
    }

    /// Whether a count is the number of threads of the block.
    fn is_block_size(&self, v: &Value) -> bool {
        let Value::Int(e) = v else { return false };
        let dim = |d: u8| {
            Expr::Var(Var::new(
                format!("blockDim.{}", DIMS[d as usize]),
                VarKind::BlockDim(d),
            ))
        };
        let block = Expr::mul(dim(0), Expr::mul(dim(1), dim(2)));
        if *e == block {
            return true;
        }
        // A product of the dimensions the kernel mentions, each once, is the
        // whole block (a dimension it never mentions is 1:
        // docs/architecture.md; so is one an assumption fixes to 1): `blockDim.x` in a one-dimensional kernel,
        // `blockDim.x * blockDim.y` in a two-dimensional one.
        let mut factors = Vec::new();
        if !product_of_block_dims(e, &mut factors) {
            return false;
        }
        (0..3u8)
            .filter(|d| self.block_dims_used[*d as usize] && !self.assumed_unit_dim(*d))
            .all(|d| factors.iter().filter(|f| **f == d).count() == 1)
    }

    /// Whether an assumption of the kernel (a `__requires`, a fact of its
    /// launch site) makes the block dimension `d` 1.
    fn assumed_unit_dim(&self, d: u8) -> bool {
        self.assumptions.iter().any(|a| a.pins_block_dim_to_one(d))
    }

    /// A use of a barrier object: an atomic update of its cell (uses never
    /// race with each other, but with its `init`).
    pub(super) fn use_barrier(&mut self, array: ArrayId, node: Node) {
        let p = Ptr {
            array,
            others: Vec::new(),
            offset: Expr::Const(0),
            inner: Expr::Const(0),
            level: 0,
            view: None,
        };
        let text = self.text(node);
        self.record_access(AccessKind::Atomic, &p, &[], Some(node), &text);
    }

    /// `bar.arrive_and_wait()`, `bar.arrive()`, `bar.wait(token)` of a
    /// `cuda::barrier` in shared memory.
    ///
    /// Split phases (`auto token = bar.arrive(); ...; bar.wait(std::move(token));`):
    /// every thread's accesses before its arrive happen before every
    /// thread's accesses after its wait, but what a thread does between its
    /// arrive and its wait may happen before another thread arrives or after
    /// it has waited. The model puts the barrier at the wait and records the
    /// accesses between the two again after it, so they meet other threads'
    /// accesses on both sides.
    pub(in crate::frontend::lower) fn barrier_method(
        &mut self,
        array: ArrayId,
        method: &str,
        node: Node,
        args: &[Node],
    ) -> Value {
        // (`bar.wait(bar.arrive())` opens its phase in its argument.)
        for a in args {
            self.eval(*a);
        }
        let phase = if method == "wait" && self.dry == 0 {
            self.split_arrive.take()
        } else {
            None
        };
        self.use_barrier(array, node);
        let stmt_span = self.statement_span(node);
        let full = self.barrier_objects.get(&array).copied().flatten();
        let mut between = Vec::new();
        if matches!(method, "arrive" | "arrive_and_wait") && self.dry == 0 {
            // The phase may complete before a transaction copy nothing
            // expects has landed.
            let unexpected = self
                .async_state
                .pending
                .iter()
                .find(|p| p.channel == Channel::Barrier(array) && p.tx && !p.expected);
            if let Some(p) = unexpected {
                let line = p.span.start.line + 1;
                self.unsupported(
                    node,
                    format!("a transaction copy (line {line}) whose bytes no `expect_tx` of the phase counts"),
                );
            }
        }
        match method {
            "arrive_and_wait" => {}
            "arrive" => {
                if self.dry == 0 {
                    if self.split_arrive.is_some() {
                        self.unsupported(
                            node,
                            "a second `arrive()` of a `cuda::barrier` before the `wait()` of the first",
                        );
                    }
                    self.split_arrive = Some(SplitPhase {
                        array,
                        loops: self.loops.clone(),
                        async_seq: self.async_seq,
                        accesses: Vec::new(),
                        barrier_after_access: false,
                    });
                }
                return Value::Int(Expr::Const(0));
            }
            "wait" => {
                if self.dry > 0 {
                    return Value::Int(Expr::Const(0));
                }
                // The phase must be this barrier's, in the same loop
                // iteration, with no copy in between (a copy issued after
                // the arrive belongs to the next phase) and no barrier after
                // an access of the phase (a barrier before the phase's first
                // access changes nothing).
                let same_phase = phase.filter(|p| {
                    p.array == array
                        && !p.barrier_after_access
                        && p.loops == self.loops
                        && p.async_seq == self.async_seq
                        && p.accesses.iter().all(|a| a.loops == self.loops)
                });
                let Some(phase) = same_phase else {
                    self.unsupported(
                        node,
                        "split `arrive()` / `wait()` of a `cuda::barrier` with a barrier, a loop or an asynchronous copy between them (or a `wait()` without its `arrive()`)",
                    );
                    // Not modelled (and reported): a block barrier that
                    // never counts as divergent claims no race the phase
                    // would prevent.
                    self.barrier(BarrierKind::Block, node, stmt_span, false, true);
                    return Value::Int(Expr::Const(0));
                };
                between = phase.accesses;
            }
            "arrive_and_drop" => {
                if self.dry == 0 && !self.dropped_barriers.contains(&array) {
                    self.dropped_barriers.push(array);
                }
                self.unsupported(node, "`arrive_and_drop` of a `cuda::barrier`");
                return Value::Int(Expr::Const(0));
            }
            _ => {
                self.unsupported(
                    node,
                    format!("`cuda::barrier` method `{method}` the model does not know"),
                );
                return Value::Int(Expr::Const(0));
            }
        }
        if full == Some(true) {
            // Every thread of the block arrives: `__syncthreads()`, and the
            // copies of the phase have landed.
            self.complete(Channel::Barrier(array), Completion::All);
            if self.dry == 0 {
                self.object_waits.push((self.next_barrier, array));
            }
            self.barrier(BarrierKind::Block, node, stmt_span, false, false);
            for mut a in between {
                a.id = self.next_access;
                self.next_access += 1;
                self.emit(Stmt::Access(a));
            }
        } else {
            let name = self.arrays[array].name.clone();
            self.unsupported(
                node,
                format!("`cuda::barrier` `{name}` whose participants are not the whole block (or not initialised in the kernel)"),
            );
            // Not modelled (and reported): a block barrier that never counts
            // as divergent claims no race its real ordering would prevent.
            self.barrier(BarrierKind::Block, node, stmt_span, false, true);
        }
        Value::Int(Expr::Const(0))
    }

    /// `while (!__mbarrier_test_wait(&bar, token));` (or `try_wait`, a `do`
    /// loop, a body of nothing but `__nanosleep`): the thread leaves the
    /// loop once the phase it arrived at completes, which is `bar.wait`.
    /// The parity forms name a phase by parity, which the model does not
    /// follow: they stay `not-verified`.
    pub(in crate::frontend::lower) fn mbarrier_spin(&mut self, node: Node) -> bool {
        let mut cond = node.field("condition");
        while let Some(c) = cond {
            match c.kind() {
                "condition_clause" => cond = c.field("value").or_else(|| c.named_child(0)),
                "parenthesized_expression" => cond = c.named_child(0),
                _ => break,
            }
        }
        let Some(call) = cond
            .filter(|c| c.kind() == "unary_expression" && self.text(*c).starts_with('!'))
            .and_then(|c| c.field("argument"))
            .filter(|c| c.kind() == "call_expression")
        else {
            return false;
        };
        let name = call
            .field("function")
            .map(|f| self.text(f))
            .unwrap_or_default();
        // `cuda::ptx::mbarrier_try_wait(&bar, token)` is named by its last
        // segment.
        let name = name.rsplit("::").next().unwrap_or_default().to_string();
        if !matches!(
            name.as_str(),
            "__mbarrier_test_wait"
                | "__mbarrier_try_wait"
                | "mbarrier_test_wait"
                | "mbarrier_try_wait"
        ) {
            return false;
        }
        let idle = |n: Node| -> bool {
            match n.kind() {
                "comment" => true,
                "expression_statement" => n.named_child(0).is_none_or(|e| {
                    e.kind() == "call_expression"
                        && e.field("function").is_some_and(|f| {
                            f.utf8_text(self.src.as_bytes()).ok() == Some("__nanosleep")
                        })
                }),
                _ => false,
            }
        };
        let body_idle = node.field("body").is_some_and(|b| {
            if b.kind() == "compound_statement" {
                let mut c = b.walk();
                let all = b.named_children(&mut c).all(idle);
                all
            } else {
                idle(b)
            }
        });
        if !body_idle {
            return false;
        }
        let args = crate::syntax::call_arguments(call);
        // `__mbarrier_try_wait(&bar, token, max_sleep_ns)`.
        if args.len() != 2 && !(args.len() == 3 && name.ends_with("mbarrier_try_wait")) {
            return false;
        }
        let Value::Ptr(p) = self.eval(args[0]) else {
            return false;
        };
        if !self.barrier_objects.contains_key(&p.array) {
            return false;
        }
        self.barrier_method(p.array, "wait", node, &args[1..]);
        true
    }

    /// After a loop around an `__mbarrier_*` test the model does not follow
    /// (`while (!done) done = __mbarrier_test_wait(&bar, tok);`): a barrier
    /// that is never divergent, so no race is claimed that the phase's
    /// completion would prevent (the kernel is `not-verified` already).
    pub(in crate::frontend::lower) fn after_spin_loop(&mut self, node: Node) {
        if self.spin_loops.contains(&node.id()) {
            self.barrier(BarrierKind::Block, node, self.span(node), false, true);
        }
    }

    /// Once the kernel is lowered: a thread that drops out of a barrier
    /// (`arrive_and_drop`) lowers the count of its later phases, so its
    /// waits, wherever they are, are not whole-block barriers (a thread that
    /// dropped out does not miss them): never divergent.
    pub(in crate::frontend::lower) fn unorder_dropped_barriers(&self, body: &mut [Stmt]) {
        if self.dropped_barriers.is_empty() {
            return;
        }
        for s in body {
            match s {
                Stmt::Barrier(b) => {
                    if self
                        .object_waits
                        .iter()
                        .any(|(id, a)| *id == b.id && self.dropped_barriers.contains(a))
                    {
                        b.partial_mask = true;
                    }
                }
                Stmt::If(t, e) => {
                    self.unorder_dropped_barriers(t);
                    self.unorder_dropped_barriers(e);
                }
                Stmt::Loop(l) => self.unorder_dropped_barriers(&mut l.body),
                Stmt::Access(_) | Stmt::LoopExit(_) => {}
            }
        }
    }
}

/// Collects the dimensions of a product of `blockDim` components
/// (`blockDim.x * blockDim.y`); false for anything else.
fn product_of_block_dims(e: &Expr, out: &mut Vec<u8>) -> bool {
    match e {
        Expr::Var(v) => match v.kind {
            VarKind::BlockDim(d) => {
                out.push(d);
                true
            }
            _ => false,
        },
        Expr::Const(1) => true,
        Expr::Bin(BinOp::Mul, a, b) => {
            product_of_block_dims(a, out) && product_of_block_dims(b, out)
        }
        _ => false,
    }
}
