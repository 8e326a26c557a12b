//! Asynchronous copies and the objects that complete them:
//! `cg::memcpy_async` with `cg::wait` / `cg::wait_prior<N>`,
//! `cuda::memcpy_async` into a `cuda::pipeline` (`producer_commit`,
//! `consumer_wait`, `cuda::pipeline_consumer_wait_prior<N>`) or a
//! `cuda::barrier` (`arrive_and_wait`, split `arrive()` / `wait(token)`,
//! and the same phases through the `__mbarrier_*` primitives), and the
//! pipeline primitives (`__pipeline_memcpy_async`, `__pipeline_commit`,
//! `__pipeline_wait_prior`).
//!
//! A copy is a write of its destination that may land at any time from its
//! issue until the operation that completes it. It is recorded where it is
//! issued and recorded again after every barrier it is still in flight
//! across, so it conflicts with every access of another thread in each of
//! those barrier intervals; once completed it is an ordinary write, ordered
//! for other threads only by a later barrier. A copy a loop iteration leaves
//! in flight is in the iteration's tail interval, which the verifier pairs
//! with the next iteration's head; it must be completed before the next
//! iteration's first barrier, else the loop is reported `not-verified`.

use super::*;

/// What completes a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Channel {
    /// `cg::memcpy_async`: `cg::wait` / `cg::wait_prior<N>` of the group.
    Group,
    /// A `cuda::pipeline` (numbered in the kernel).
    Pipeline(usize),
    /// The pipeline primitives of one thread (`__pipeline_*`).
    Primitives,
    /// A `cuda::barrier` (its shared cell).
    Barrier(ArrayId),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Completion {
    /// Every copy of the channel.
    All,
    /// All but the N most recent copies (a group) or committed batches.
    Prior(i64),
    /// The oldest committed batch (`consumer_wait`).
    Oldest,
}

#[derive(Clone, Debug)]
pub(super) struct PendingCopy {
    seq: usize,
    channel: Channel,
    /// The commit batch of a pipeline copy, once committed.
    batch: Option<usize>,
    /// The path condition it was issued under.
    path: Vec<Expr>,
    /// Where it was issued, for messages.
    span: Span,
    /// Its accesses as first recorded (the destination's write, the
    /// source's read), recorded again after each barrier it crosses.
    accesses: Vec<Access>,
    /// Its size in bytes, when constant.
    bytes: Option<i64>,
    /// A transaction copy (`memcpy_async_tx`, `cp_async_bulk`): the phase of
    /// its barrier waits for it only for the bytes an `expect_tx` of the
    /// phase counts; `expected` once one does.
    tx: bool,
    expected: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Commit {
    channel: Channel,
    batch: usize,
    path: Vec<Expr>,
    consumed: bool,
    /// Made in a loop that has ended: it stands for one batch per iteration,
    /// so which one is the oldest is not known.
    repeated: bool,
}

/// A block-scope `cuda::pipeline` with a constant stage count, bound to a
/// local: modelled by the guarantees of its operations, which every
/// thread of the block performs. Each thread counts its `producer_acquire`s,
/// `producer_commit`s, `consumer_wait`s and `consumer_release`s (hidden
/// locals of the pipeline's scope, so loops give them closed forms); stage
/// `s` is the `s`-th commit (from 0). A copy of stage `s` (its acquire
/// done) lands after every thread's release of stage `s - STAGES` (the
/// acquire waits for it) and before any thread's `consumer_wait` of stage
/// `s` returns; nothing else is ordered. So a copy's accesses and another
/// thread's access meet only in that window: the copy's accesses carry
/// `stage == s`, every other access `stage < 0 || (releases > stage -
/// STAGES && waits <= stage)`, with `stage` one block-wide unknown of the
/// pipeline (any two accesses that are not a copy's meet with `stage = -1`).
#[derive(Clone, Debug)]
pub(super) struct BlockPipe {
    /// The stage count (a constant, or a value every thread shares).
    pub(super) stages: Expr,
    /// The scope of the local the pipeline is bound to, and its name.
    pub(super) scope: usize,
    pub(super) name: String,
    pub(super) stage: Var,
}

const PIPE_COUNTERS: [&str; 3] = ["commits", "waits", "releases"];

impl BlockPipe {
    pub(super) fn counter_keys(&self) -> Vec<String> {
        PIPE_COUNTERS.iter().map(|c| self.key(c)).collect()
    }
    /// The name its `counter` is bound to in the pipeline's scope.
    fn key(&self, counter: &str) -> String {
        format!("{}.{counter}", self.name)
    }
}

/// What the branches of a conditional each start from and end with: the
/// copies, whether each loop body being lowered is still before its first
/// barrier, the open split phase.
pub(super) type BranchAsync = (AsyncState, Vec<bool>, Option<SplitPhase>);

/// The state of the asynchronous copies at one point of the lowering.
#[derive(Clone, Debug, Default)]
pub(super) struct AsyncState {
    pending: Vec<PendingCopy>,
    commits: Vec<Commit>,
    /// Block-scope pipelines whose current stage is acquired and not yet
    /// committed (on every path here).
    acquired: Vec<usize>,
}

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
pub(super) struct SplitPhase {
    array: ArrayId,
    /// The enclosing loops and `async_seq` at the arrive.
    loops: Vec<usize>,
    async_seq: usize,
    /// The accesses made since the arrive (collected by `emit`).
    pub(super) accesses: Vec<Access>,
    /// A barrier came after one of `accesses` (set by `barrier`).
    pub(super) barrier_after_access: bool,
}

/// An operation of a loop body before its first barrier, on the body's own
/// path (always executed by an iteration that gets there).
#[derive(Clone, Debug)]
enum Op {
    Issue(Channel),
    Commit(Channel),
    Complete(Channel, Completion),
}

/// A loop body being lowered.
#[derive(Clone, Debug)]
pub(super) struct LoopAsync {
    first_seq: usize,
    first_batch: usize,
    /// Commits not consumed when the body started.
    open_at_start: Vec<usize>,
    path_len: usize,
    /// The body's operations before its first barrier.
    log: Vec<Op>,
    /// No barrier yet: operations are still logged.
    recording: bool,
    /// Channels whose oldest stage the body waits for (`consumer_wait`).
    waits_oldest: Vec<Channel>,
    /// Copies in flight when the body started (they stand for the copies
    /// an earlier iteration leaves), and those of them still in flight at
    /// a first barrier of the body on some path.
    start: Vec<(usize, Channel)>,
    survivors: Vec<usize>,
    /// How many times the body runs at most, when the loop's condition
    /// decides it from its counter alone (`for (c = 0; c < 4; ++c)`).
    trips: Option<i64>,
}

impl<'a, 't> Lowerer<'a, 't> {
    /// `cuda::*` and primitive calls of asynchronous copies; `None` for
    /// any other name.
    pub(super) fn async_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Option<Value> {
        let prior_arg = |lw: &mut Self| -> Option<i64> {
            let t = template_args.and_then(|t| {
                let mut c = t.walk();
                let first = t.named_children(&mut c).next();
                first.map(|n| lw.text(n))
            })?;
            lw.eval_snippet_const(&t)
        };
        match name {
            "make_pipeline" => {
                for a in args {
                    self.eval(*a);
                }
                let id = self.next_pipeline;
                self.next_pipeline += 1;
                // `make_pipeline(block, &state)` over a state of a constant
                // stage count.
                if args.len() == 2 && !self.block_pipes_off {
                    let state = self.text(args[1]);
                    let state = state.trim().trim_start_matches('&').trim();
                    if let Some(Some(n)) = self.pipeline_states.get(state).cloned() {
                        if n.as_const().is_none_or(|c| c >= 1) {
                            self.block_pipe_stages.insert(id, n);
                        }
                    }
                }
                Some(Value::Pipeline(id, !args.is_empty()))
            }
            "memcpy_async" if args.len() == 4 || args.len() == 5 => {
                let vals: Vec<Value> = args
                    .iter()
                    .map(|a| match self.barrier_object(*a) {
                        // The barrier object itself, not a read of its cell.
                        Some(id) => self.base_ptr(id),
                        None => self.eval_buffer(*a),
                    })
                    .collect();
                Some(self.memcpy_async_call(node, &vals))
            }
            // `cuda::aligned_size_t<16>(bytes)`: the size itself.
            "aligned_size_t" if args.len() == 1 => Some(self.eval(args[0])),
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
            "pipeline_consumer_wait_prior" if args.len() == 1 => {
                let pipe = self.eval(args[0]);
                let n = prior_arg(self);
                match (pipe, n) {
                    (Value::Pipeline(id, block), Some(n)) => {
                        self.pipeline_wait(id, block, Completion::Prior(n), node)
                    }
                    _ => self.unsupported(
                        node,
                        "`pipeline_consumer_wait_prior` of a pipeline the model does not track",
                    ),
                }
                Some(Value::Int(Expr::Const(0)))
            }
            "__pipeline_memcpy_async" if args.len() >= 3 => {
                let vals: Vec<Value> = args.iter().map(|a| self.eval_buffer(*a)).collect();
                self.issue(
                    Channel::Primitives,
                    false,
                    node,
                    &vals[0],
                    &vals[1],
                    &vals[2],
                );
                Some(Value::Int(Expr::Const(0)))
            }
            "__pipeline_commit" => {
                self.commit(Channel::Primitives);
                Some(Value::Int(Expr::Const(0)))
            }
            "__pipeline_wait_prior" if args.len() == 1 => {
                match self.eval(args[0]) {
                    Value::Int(Expr::Const(n)) => {
                        self.complete(Channel::Primitives, Completion::Prior(n))
                    }
                    _ => self.unsupported(
                        node,
                        "`__pipeline_wait_prior` with a count the model cannot evaluate",
                    ),
                }
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
                if name == "mbarrier_init" && self.arrays[p.array].space == MemorySpace::Shared {
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
                // must be ordered after it.
                let text = self.text(node);
                self.record_access(AccessKind::Write, &p, &[], Some(node), &text);
                Some(Value::Int(Expr::Const(0)))
            }
            _ => None,
        }
    }

    /// An argument that may be a row of a multi-dimensional array (`buf[s]`
    /// of `buf[2][N]`): the row's pointer, not a read of an element.
    fn eval_buffer(&mut self, arg: Node) -> Value {
        if arg.kind() == "subscript_expression" {
            self.dry += 1;
            let row = matches!(self.lvalue_base(arg), Some((Value::Ptr(_), _)));
            self.dry -= 1;
            if row {
                if let Some((v, _)) = self.lvalue_base(arg) {
                    return v;
                }
            }
        }
        self.eval(arg)
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
    pub(super) fn barrier_object(&mut self, node: Node) -> Option<ArrayId> {
        if node.kind() != "identifier" || self.barrier_objects.is_empty() {
            return None;
        }
        let name = self.text(node);
        let p = self.scalar_memory(&name)?;
        self.barrier_objects
            .contains_key(&p.array)
            .then_some(p.array)
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
        // `blockDim.x` is the whole block when the kernel is one-dimensional
        // (a dimension it never mentions is 1: docs/architecture.md).
        *e == block || (*e == dim(0) && !self.block_dims_used[1] && !self.block_dims_used[2])
    }

    /// `cg::memcpy_async(group, dst, src, bytes)`,
    /// `cg::memcpy_async(group, dst, n, src, n)`,
    /// `cuda::memcpy_async(dst, src, bytes, pipe_or_barrier)`,
    /// `cuda::memcpy_async(group, dst, src, bytes, pipe_or_barrier)`.
    fn memcpy_async_call(&mut self, node: Node, vals: &[Value]) -> Value {
        let target = match vals.last() {
            Some(Value::Pipeline(id, block)) => Some((Channel::Pipeline(*id), *block)),
            Some(Value::Ptr(p)) if self.barrier_objects.contains_key(&p.array) => {
                self.use_barrier(p.array, node);
                Some((Channel::Barrier(p.array), false))
            }
            _ => None,
        };
        match (&vals[0], target, vals.len()) {
            (Value::Group(g), None, 4) => {
                self.group_copy(*g, Channel::Group, node, &vals[1], &vals[2], &vals[3])
            }
            // Element counts: `(group, dst, n, src, n)`.
            (Value::Group(g), None, 5) => {
                let bytes = Value::Int(Expr::Const(-1));
                self.group_copy(*g, Channel::Group, node, &vals[1], &vals[3], &bytes)
            }
            (Value::Group(g), Some((ch, block)), 5) => {
                let exact = block && self.start_pipe_copy(ch, node);
                if block && !exact {
                    self.block_scope_pipeline(node);
                }
                self.group_copy(*g, ch, node, &vals[1], &vals[2], &vals[3]);
                self.pipe_copy = None;
            }
            (_, Some((ch, block)), 4) => {
                let exact = block && self.start_pipe_copy(ch, node);
                if block && !exact {
                    self.block_scope_pipeline(node);
                }
                self.issue(ch, false, node, &vals[0], &vals[1], &vals[2]);
                self.pipe_copy = None;
            }
            _ => self.unsupported(
                node,
                "`memcpy_async` with a group, pipeline or barrier the model does not track",
            ),
        }
        Value::Int(Expr::Const(0))
    }

    /// The constant value of the last template argument of a type
    /// (`cuda::pipeline_shared_state<cuda::thread_scope_block, kStages>`).
    pub(super) fn last_template_arg(&mut self, ty: Node) -> Option<Expr> {
        let mut stack = vec![ty];
        let mut list = None;
        while let Some(n) = stack.pop() {
            if n.kind() == "template_argument_list" {
                list = Some(n);
                break;
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        let list = list?;
        let mut c = list.walk();
        let arg = list.named_children(&mut c).last()?;
        let text = self.text(arg);
        if let Some(v) = crate::frontend::parse_int(text.trim()) {
            return Some(Expr::Const(v));
        }
        let v = if arg.kind() == "type_descriptor" {
            self.named_value(text.trim(), arg)
        } else {
            self.eval(arg)
        };
        match v {
            Value::Int(e) if e.scope() != Scope::Thread => Some(e),
            _ => None,
        }
    }

    /// A copy into a block-scope pipeline modelled exactly: its stage (the
    /// commits so far), once its `producer_acquire` is done (one more
    /// acquire than commits); false when the pipeline is not modelled
    /// exactly.
    fn start_pipe_copy(&mut self, ch: Channel, node: Node) -> bool {
        let Channel::Pipeline(id) = ch else {
            return false;
        };
        if !self.block_pipes.contains_key(&id) {
            return false;
        }
        let Some(commits) = self.pipe_counter(id, "commits") else {
            return false;
        };
        self.uniform_pipe_op(node, "memcpy_async");
        if !self.async_state.acquired.contains(&id) && self.dry == 0 {
            self.block_pipe_broken = true;
            self.unsupported(
                node,
                "a copy into a block-scope `cuda::pipeline` stage that is not acquired exactly once (`producer_acquire` before its copies, `producer_commit` after)",
            );
        }
        self.pipe_copy = Some((id, commits));
        true
    }

    /// `auto pipe = cuda::make_pipeline(block, &state);`: the pipeline's
    /// counters, from 0, in the local's scope.
    pub(super) fn bind_block_pipe(&mut self, id: usize, name: &str) {
        let Some(stages) = self.block_pipe_stages.get(&id).cloned() else {
            return;
        };
        if self.block_pipes.contains_key(&id) {
            return;
        }
        let scope = self.scopes.len() - 1;
        let pipe = BlockPipe {
            stages,
            scope,
            name: name.to_string(),
            stage: Var::new(
                crate::symbols::fresh(&format!("pipeline{id}_stage"), 0, ""),
                VarKind::Unknown {
                    scope: Scope::Block,
                    lo: -1,
                    hi: i64::from(i32::MAX),
                },
            ),
        };
        for k in pipe.counter_keys() {
            self.scopes.insert(scope, k, Value::Int(Expr::Const(0)));
        }
        self.block_pipes.insert(id, pipe);
    }

    /// A counter of a block-scope pipeline, now.
    fn pipe_counter(&self, id: usize, counter: &str) -> Option<Expr> {
        let p = self.block_pipes.get(&id)?;
        match self.scopes.get(p.scope)?.get(&p.key(counter))? {
            Value::Int(e) => Some(e.clone()),
            _ => None,
        }
    }

    fn bump_pipe_counter(&mut self, id: usize, counter: &str) {
        let Some(p) = self.block_pipes.get(&id) else {
            return;
        };
        let (scope, key) = (p.scope, p.key(counter));
        if let Some(v) = self.pipe_counter(id, counter) {
            let next = self.bound(Expr::add(v, Expr::Const(1)), Scope::Thread);
            self.scopes.insert(scope, key, Value::Int(next));
        }
    }

    /// The constraints an access carries for the block-scope pipelines of
    /// the kernel (see `BlockPipe`).
    pub(super) fn pipeline_windows(&mut self) -> Vec<Expr> {
        if self.block_pipes.is_empty() {
            return Vec::new();
        }
        // Counts that are not closed forms of the loops' iterations (values
        // a loop left unknown): the window would not be exact.
        let unknown_counts = self.block_pipes.keys().any(|id| {
            PIPE_COUNTERS.iter().any(|c| {
                self.pipe_counter(*id, c)
                    .is_some_and(|e| e.mentions(&mut |v| matches!(v.kind, VarKind::Unknown { .. })))
            })
        });
        if unknown_counts {
            self.block_pipe_broken = true;
        }
        let mut ids: Vec<usize> = self.block_pipes.keys().copied().collect();
        ids.sort_unstable();
        let mut out = Vec::new();
        for id in ids {
            let p = &self.block_pipes[&id];
            let stage = Expr::Var(p.stage.clone());
            if let Some((copy_of, s)) = &self.pipe_copy {
                if *copy_of == id {
                    out.push(Expr::eq(stage, s.clone()));
                    continue;
                }
            }
            let (Some(waits), Some(releases)) = (
                self.pipe_counter(id, "waits"),
                self.pipe_counter(id, "releases"),
            ) else {
                continue;
            };
            let window = Expr::and(
                Expr::bin(
                    BinOp::Gt,
                    releases,
                    Expr::bin(BinOp::Sub, stage.clone(), p.stages.clone()),
                ),
                Expr::bin(BinOp::Le, waits, stage.clone()),
            );
            out.push(Expr::or(
                Expr::bin(BinOp::Lt, stage, Expr::Const(0)),
                window,
            ));
        }
        out
    }

    /// An operation of a block-scope pipeline every thread must perform:
    /// one that some threads of the block may skip is outside the model.
    fn uniform_pipe_op(&mut self, node: Node, what: &str) {
        if self.dry > 0 {
            return;
        }
        if thread_dependent(&self.guard()) {
            self.block_pipe_broken = true;
            self.unsupported(
                node,
                format!("`{what}` of a block-scope `cuda::pipeline` that some threads of the block may skip"),
            );
        }
    }

    fn block_scope_pipeline(&mut self, node: Node) {
        self.unsupported(
            node,
            "a block-scope `cuda::pipeline` (its `consumer_wait` orders every thread's copies of a stage, and `producer_acquire` every thread's release of it, which the model does not represent exactly)",
        );
    }

    fn group_copy(
        &mut self,
        g: GroupKind,
        ch: Channel,
        node: Node,
        dst: &Value,
        src: &Value,
        bytes: &Value,
    ) {
        let group_ok = match g {
            GroupKind::Block => true,
            GroupKind::Tile(n) => (1..=32).contains(&n) && n & (n - 1) == 0,
            _ => false,
        };
        if !group_ok {
            self.unsupported(node, "`memcpy_async` of a group the model does not track");
            return;
        }
        self.issue(ch, true, node, dst, src, bytes);
    }

    /// One copy of `bytes` bytes (a constant, or unknown) from `src` to
    /// `dst`: by the whole group (`collective`: any thread may copy any
    /// element, recorded as atomic updates that conflict with every plain
    /// access of another thread but not with the rest of the copy), or by
    /// this thread alone.
    fn issue(
        &mut self,
        ch: Channel,
        collective: bool,
        node: Node,
        dst: &Value,
        src: &Value,
        bytes: &Value,
    ) {
        let (Value::Ptr(dst), Value::Ptr(src)) = (dst, src) else {
            self.unsupported(node, "`memcpy_async` of pointers the model does not track");
            return;
        };
        if self.dry > 0 {
            return;
        }
        let text = self.text(node);
        let first = self.next_access;
        let write = if collective {
            AccessKind::Atomic
        } else {
            AccessKind::Write
        };
        for (p, kind) in [(src, AccessKind::Read), (dst, write)] {
            if kind == AccessKind::Atomic {
                self.async_targets.insert(p.array);
                if self.atomic_targets.contains(&p.array) {
                    self.async_and_atomic(p.array, node);
                }
            }
            // Elements `0 .. bytes / element size` from the pointer on; all
            // of them from there when the size is not known.
            let elems = match (bytes, self.elem_of(p).1) {
                (Value::Int(Expr::Const(b)), Some(e)) if *b > 0 && e > 0 && b % e == 0 => {
                    Some(b / e)
                }
                _ => None,
            };
            self.record_range(p, elems, kind, node, &text, "copied_element");
        }
        let accesses: Vec<Access> = self
            .out
            .last()
            .map(|body| {
                body.iter()
                    .filter_map(|s| match s {
                        Stmt::Access(a) if a.id >= first => Some(a.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let seq = self.async_seq;
        self.async_seq += 1;
        self.async_state.pending.push(PendingCopy {
            seq,
            channel: ch,
            batch: None,
            path: self.path.clone(),
            span: self.span(node),
            accesses,
            bytes: match bytes {
                Value::Int(Expr::Const(b)) if *b >= 0 => Some(*b),
                _ => None,
            },
            tx: false,
            expected: false,
        });
        self.log_op(Op::Issue(ch));
    }

    fn commit(&mut self, ch: Channel) {
        if self.dry > 0 {
            return;
        }
        let batch = self.async_batch;
        self.async_batch += 1;
        for p in &mut self.async_state.pending {
            if p.channel == ch && p.batch.is_none() {
                p.batch = Some(batch);
            }
        }
        self.async_state.commits.push(Commit {
            channel: ch,
            batch,
            path: self.path.clone(),
            consumed: false,
            repeated: false,
        });
        self.log_op(Op::Commit(ch));
    }

    /// Whether something issued under `path` has certainly been issued
    /// when the current path is taken.
    fn definite(&self, path: &[Expr]) -> bool {
        self.path.starts_with(path)
    }

    /// Completes the copies `how` says. Never completes a copy that might
    /// still be in flight: where the model cannot tell (a later copy issued
    /// only on some paths), the copy stays in flight.
    pub(super) fn complete(&mut self, ch: Channel, how: Completion) {
        if self.dry > 0 {
            return;
        }
        // After a `break` or `continue` some threads skip this wait and go
        // on with their copies in flight: nothing is completed for anyone.
        // (Threads that returned make no further accesses.)
        if self
            .frames
            .iter()
            .any(|f| !f.continued.is_false() || !f.broke.is_false())
        {
            return;
        }
        let st = &self.async_state;
        let done: Vec<usize> = match how {
            Completion::All => st
                .pending
                .iter()
                .filter(|p| p.channel == ch)
                .map(|p| p.seq)
                .collect(),
            Completion::Prior(n) if ch == Channel::Group => st
                .pending
                .iter()
                .filter(|p| p.channel == ch)
                .filter(|p| {
                    let later = st
                        .pending
                        .iter()
                        .filter(|q| q.channel == ch && q.seq > p.seq && self.definite(&q.path))
                        .count();
                    later as i64 >= n
                })
                .map(|p| p.seq)
                .collect(),
            Completion::Prior(n) => st
                .pending
                .iter()
                .filter(|p| p.channel == ch)
                .filter(|p| {
                    p.batch.is_some_and(|b| {
                        let later = st
                            .commits
                            .iter()
                            .filter(|c| {
                                c.channel == ch
                                    && c.batch > b
                                    && !c.repeated
                                    && self.definite(&c.path)
                            })
                            .count();
                        later as i64 >= n
                    })
                })
                .map(|p| p.seq)
                .collect(),
            Completion::Oldest => {
                let oldest = st
                    .commits
                    .iter()
                    .position(|c| c.channel == ch && !c.consumed);
                match oldest {
                    Some(i) if self.definite(&st.commits[i].path) && !st.commits[i].repeated => {
                        let batch = st.commits[i].batch;
                        self.async_state.commits[i].consumed = true;
                        self.async_state
                            .pending
                            .iter()
                            .filter(|p| p.channel == ch && p.batch == Some(batch))
                            .map(|p| p.seq)
                            .collect()
                    }
                    _ => Vec::new(),
                }
            }
        };
        self.async_state.pending.retain(|p| !done.contains(&p.seq));
        if how == Completion::Oldest {
            for frame in &mut self.async_loops {
                if !frame.waits_oldest.contains(&ch) {
                    frame.waits_oldest.push(ch);
                }
            }
        }
        self.log_op(Op::Complete(ch, how));
    }

    fn log_op(&mut self, op: Op) {
        let len = self.path.len();
        for frame in &mut self.async_loops {
            if frame.path_len == len && frame.recording {
                frame.log.push(op.clone());
            }
        }
    }

    /// After a barrier: every copy still in flight may land in the new
    /// interval too.
    pub(super) fn copies_cross_barrier(&mut self) {
        let now: Vec<usize> = self.async_state.pending.iter().map(|p| p.seq).collect();
        for frame in &mut self.async_loops {
            if frame.recording {
                for (seq, _) in &frame.start {
                    if now.contains(seq) && !frame.survivors.contains(seq) {
                        frame.survivors.push(*seq);
                    }
                }
            }
            frame.recording = false;
        }
        let again: Vec<Access> = self
            .async_state
            .pending
            .iter()
            .flat_map(|p| p.accesses.clone())
            .collect();
        for mut a in again {
            a.id = self.next_access;
            self.next_access += 1;
            a.loops = self.loops.clone();
            self.emit(Stmt::Access(a));
        }
    }

    /// `pipe.producer_commit()` and friends.
    pub(super) fn pipeline_method(
        &mut self,
        id: usize,
        block: bool,
        method: &str,
        node: Node,
        args: &[Node],
    ) -> Value {
        for a in args {
            self.eval(*a);
        }
        match method {
            // Acquiring a stage and releasing it only wait for room: a model
            // without a bound on the stages in flight already allows more.
            // In a block-scope pipeline `producer_acquire` waits for every
            // consumer's release of the stage (which one depends on the
            // stage count): not modelled, a never-divergent barrier so that
            // no race is claimed that this ordering would prevent.
            _ if block && self.block_pipes.contains_key(&id) => {
                self.uniform_pipe_op(node, method);
                match method {
                    "producer_acquire" => {
                        if self.async_state.acquired.contains(&id) && self.dry == 0 {
                            self.block_pipe_broken = true;
                            self.unsupported(
                                node,
                                "a second `producer_acquire` of a block-scope `cuda::pipeline` before the `producer_commit` of the first",
                            );
                        }
                        self.async_state.acquired.push(id);
                    }
                    "producer_commit" => {
                        self.async_state.acquired.retain(|p| *p != id);
                        self.commit(Channel::Pipeline(id));
                        self.bump_pipe_counter(id, "commits");
                    }
                    // Every thread's copies of the stage have landed: their
                    // accesses meet no access after this (the window), so
                    // they stay in flight for the rest of the model (recorded
                    // again after each barrier, each time with its window).
                    "consumer_wait" => self.bump_pipe_counter(id, "waits"),
                    "consumer_release" => self.bump_pipe_counter(id, "releases"),
                    "quit" => {}
                    _ => self.unsupported(
                        node,
                        format!("`cuda::pipeline` method `{method}` the model does not know"),
                    ),
                }
            }
            "producer_acquire" if block => {
                self.block_scope_pipeline(node);
                self.unmodelled_block_order(node);
            }
            "producer_acquire" | "consumer_release" => {}
            "producer_commit" => self.commit(Channel::Pipeline(id)),
            "consumer_wait" => self.pipeline_wait(id, block, Completion::Oldest, node),
            "quit" => {}
            _ => self.unsupported(
                node,
                format!("`cuda::pipeline` method `{method}` the model does not know"),
            ),
        }
        Value::Int(Expr::Const(0))
    }

    fn pipeline_wait(&mut self, id: usize, block: bool, how: Completion, node: Node) {
        if block {
            self.block_scope_pipeline(node);
        }
        // A thread-scope pipeline: the waiting thread's own copies land; other
        // threads see them only after a barrier.
        self.complete(Channel::Pipeline(id), how);
        // A block-scope one: every thread's copies of the stage have landed,
        // and what each thread did before committing it is ordered before
        // this thread's next accesses; not modelled (reported above), a
        // never-divergent barrier claims no race this would prevent.
        if block {
            self.unmodelled_block_order(node);
        }
    }

    /// A block-wide ordering the model does not represent exactly (the kernel
    /// is `not-verified` already): a block barrier that never counts as
    /// divergent.
    fn unmodelled_block_order(&mut self, node: Node) {
        let stmt_span = self.statement_span(node);
        self.barrier(BarrierKind::Block, node, stmt_span, false, true);
    }

    /// A use of a barrier object: an atomic update of its cell (uses never
    /// race with each other, but with its `init`).
    fn use_barrier(&mut self, array: ArrayId, node: Node) {
        let p = Ptr {
            array,
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
    pub(super) fn barrier_method(
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
    pub(super) fn mbarrier_spin(&mut self, node: Node) -> bool {
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
    pub(super) fn after_spin_loop(&mut self, node: Node) {
        if self.spin_loops.contains(&node.id()) {
            self.barrier(BarrierKind::Block, node, self.span(node), false, true);
        }
    }

    /// Once the kernel is lowered: a thread that drops out of a barrier
    /// (`arrive_and_drop`) lowers the count of its later phases, so its
    /// waits, wherever they are, are not whole-block barriers (a thread that
    /// dropped out does not miss them): never divergent.
    pub(super) fn unorder_dropped_barriers(&self, body: &mut [Stmt]) {
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

    /// Before lowering a loop body.
    pub(super) fn async_loop_enter(&mut self, counter: &Var, guard: &Expr) {
        let open_at_start = self
            .async_state
            .commits
            .iter()
            .filter(|c| !c.consumed)
            .map(|c| c.batch)
            .collect();
        self.async_loops.push(LoopAsync {
            first_seq: self.async_seq,
            first_batch: self.async_batch,
            open_at_start,
            path_len: self.path.len(),
            log: Vec::new(),
            recording: true,
            waits_oldest: Vec::new(),
            start: self
                .async_state
                .pending
                .iter()
                .map(|p| (p.seq, p.channel))
                .collect(),
            survivors: Vec::new(),
            trips: constant_trips(counter, guard),
        });
    }

    /// After lowering a loop body: the copies it leaves in flight must be
    /// what the next iteration completes before its first barrier, and a
    /// pipeline must not hold more stages at the end of an iteration than
    /// at its start (older stages the lowering of one iteration never saw).
    pub(super) fn async_loop_exit(&mut self, node: Node) {
        let Some(frame) = self.async_loops.pop() else {
            return;
        };
        if self.dry > 0 {
            return;
        }
        // A transaction copy the body issued and no `expect_tx` of the
        // body counted stands, after the loop, for one copy per iteration:
        // the phase that expects it must count the bytes of all of them.
        for p in &mut self.async_state.pending {
            if p.seq >= frame.first_seq && p.tx && !p.expected {
                p.bytes = p.bytes.zip(frame.trips).and_then(|(b, n)| b.checked_mul(n));
            }
        }
        let left: Vec<PendingCopy> = self
            .async_state
            .pending
            .iter()
            .filter(|p| p.seq >= frame.first_seq)
            .cloned()
            .collect();
        // Pipelines: stages still open now that this iteration committed,
        // against stages open at its start that it consumed.
        let mut channels: Vec<Channel> = self
            .async_state
            .commits
            .iter()
            .filter(|c| c.batch >= frame.first_batch)
            .map(|c| c.channel)
            .collect();
        channels.dedup();
        for ch in channels {
            let opened = self
                .async_state
                .commits
                .iter()
                .filter(|c| c.channel == ch && c.batch >= frame.first_batch && !c.consumed)
                .count();
            let consumed = self
                .async_state
                .commits
                .iter()
                .filter(|c| c.channel == ch && c.consumed && frame.open_at_start.contains(&c.batch))
                .count();
            if frame.waits_oldest.contains(&ch) && opened > consumed {
                self.unsupported(
                    node,
                    "pipeline stages left in flight by a loop iteration beyond those it found (a `consumer_wait` could complete a stage of an earlier iteration the model does not see)",
                );
            }
        }
        // After the loop, its commits stand for one batch per iteration.
        for c in &mut self.async_state.commits {
            if c.batch >= frame.first_batch {
                c.repeated = true;
            }
        }
        if left.is_empty() || frame.recording {
            return;
        }
        let log = frame.log;
        for p in &left {
            // The copies found in flight at the body's start play the part of
            // those the previous iteration leaves: older than every copy of
            // the body, completed (on every path) before its first barrier.
            let same = |c: &&(usize, Channel)| c.1 == p.channel;
            let stand_ins = frame.start.iter().filter(same).count();
            let completed_stand_ins = frame
                .start
                .iter()
                .filter(same)
                .filter(|(seq, _)| !frame.survivors.contains(seq))
                .count();
            let carried = left.iter().filter(|q| q.channel == p.channel).count();
            let like_start =
                stand_ins > 0 && completed_stand_ins == stand_ins && carried <= stand_ins;
            if !like_start && !completed_by(p, &self.async_state, &log) {
                let line = p.span.start.line + 1;
                self.unsupported(
                    node,
                    format!("an asynchronous copy (line {line}) may still be in flight after the next iteration's first barrier"),
                );
            }
        }
    }

    /// Around the two branches of a conditional: a copy is in flight after
    /// it when it is in flight after either branch.
    /// (Whether each loop body being lowered has met no barrier yet is
    /// per path too.)
    /// (The open split phase of a `cuda::barrier` is per path too.)
    pub(super) fn async_branch_start(&self) -> BranchAsync {
        let recording = self.async_loops.iter().map(|f| f.recording).collect();
        (
            self.async_state.clone(),
            recording,
            self.split_arrive.clone(),
        )
    }

    pub(super) fn async_branch_switch(&mut self, before: BranchAsync) -> BranchAsync {
        let recording = self.set_recording(before.1);
        (
            std::mem::replace(&mut self.async_state, before.0),
            recording,
            std::mem::replace(&mut self.split_arrive, before.2),
        )
    }

    fn set_recording(&mut self, to: Vec<bool>) -> Vec<bool> {
        let mut old = Vec::new();
        for (frame, r) in self.async_loops.iter_mut().zip(to) {
            old.push(frame.recording);
            frame.recording = r;
        }
        old
    }

    pub(super) fn async_branch_merge(&mut self, then_branch: BranchAsync) {
        let (then_state, then_recording, then_phase) = then_branch;
        // A phase open after both branches (each arrived, `if (t == 0)
        // token = barrier_arrive_tx(...); else token = bar.arrive();`): one
        // phase, with the accesses of both; open after only one: a wait
        // after the branches is not modelled (reported there).
        if self.dry == 0 {
            let else_phase = self.split_arrive.take();
            self.split_arrive = match (then_phase, else_phase) {
                (Some(mut a), Some(b)) if a.array == b.array && a.loops == b.loops => {
                    for x in b.accesses {
                        if !a.accesses.iter().any(|y| y.id == x.id) {
                            a.accesses.push(x);
                        }
                    }
                    a.async_seq = a.async_seq.max(b.async_seq);
                    a.barrier_after_access |= b.barrier_after_access;
                    Some(a)
                }
                _ => None,
            };
        }
        for (frame, r) in self.async_loops.iter_mut().zip(then_recording) {
            frame.recording &= r;
        }
        for p in then_state.pending {
            match self.async_state.pending.iter_mut().find(|q| q.seq == p.seq) {
                Some(q) => {
                    if q.batch != p.batch {
                        q.batch = None;
                    }
                }
                None => self.async_state.pending.push(p),
            }
        }
        self.async_state.pending.sort_by_key(|p| p.seq);
        for c in then_state.commits {
            match self
                .async_state
                .commits
                .iter_mut()
                .find(|d| d.batch == c.batch)
            {
                Some(d) => d.consumed &= c.consumed,
                None => self.async_state.commits.push(c),
            }
        }
        self.async_state.commits.sort_by_key(|c| c.batch);
        // Acquired after the branches only if acquired after both.
        self.async_state
            .acquired
            .retain(|p| then_state.acquired.contains(p));
    }
}

/// Whether the next iteration's operations before its first barrier
/// (`log`, those on the body's own path) complete `p`, a copy the previous
/// iteration left in flight.
/// The number of iterations of a loop whose condition at iteration
/// `counter` is `guard`, when the guard is a constant at every iteration
/// (it depends on the counter alone): the first iteration where it fails.
/// A `break` only runs fewer. `None` when it does not (or runs past a
/// bound the count of copies never needs).
fn constant_trips(counter: &Var, guard: &Expr) -> Option<i64> {
    const MOST: i64 = 1 << 12;
    (0..=MOST).find_map(|k| {
        let at_k = guard.subst(&mut |v: &Var| (v == counter).then_some(Expr::Const(k)));
        match at_k.as_const() {
            Some(0) => Some(Some(k)),
            Some(_) if k < MOST => None,
            _ => Some(None),
        }
    })?
}

fn completed_by(p: &PendingCopy, st: &AsyncState, log: &[Op]) -> bool {
    let ch = p.channel;
    // Stages of the channel older than `p` or `p`'s own, still open.
    let older_or_own = st
        .commits
        .iter()
        .filter(|c| c.channel == ch && !c.consumed && p.batch.is_some_and(|b| c.batch <= b))
        .count();
    let mut issued = 0i64;
    let mut committed = 0i64;
    let mut popped = 0usize;
    for op in log {
        match op {
            Op::Issue(c) if *c == ch => issued += 1,
            Op::Commit(c) if *c == ch => committed += 1,
            Op::Complete(c, how) if *c == ch => {
                let done = match how {
                    Completion::All => true,
                    Completion::Prior(n) if ch == Channel::Group => issued >= *n,
                    Completion::Prior(n) => p.batch.is_some() && committed >= *n,
                    Completion::Oldest => {
                        popped += 1;
                        p.batch.is_some() && popped >= older_or_own
                    }
                };
                if done {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trips_of_a_loop_come_from_a_condition_on_its_counter_alone() {
        let k = Var::new("c@0", VarKind::Counter { pow2: false });
        let kv = Expr::Var(k.clone());
        // `for (c = 0; c < 4; ++c)`: four iterations.
        let four = Expr::bin(BinOp::Lt, kv.clone(), Expr::Const(4));
        assert_eq!(constant_trips(&k, &four), Some(4));
        // `for (c = 2; c < 2; ++c)`: none.
        let none = Expr::bin(
            BinOp::Lt,
            Expr::add(kv.clone(), Expr::Const(2)),
            Expr::Const(2),
        );
        assert_eq!(constant_trips(&k, &none), Some(0));
        // A bound the counter alone does not fix: unknown.
        let n = Expr::Var(Var::new("n", VarKind::Param { lo: 0, hi: 100 }));
        let symbolic = Expr::bin(BinOp::Lt, kv.clone(), n);
        assert_eq!(constant_trips(&k, &symbolic), None);
        // A loop that never ends (as far as the counter says): unknown.
        assert_eq!(constant_trips(&k, &Expr::tru()), None);
    }
}
