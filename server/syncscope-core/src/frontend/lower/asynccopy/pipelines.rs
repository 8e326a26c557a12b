//! `cuda::pipeline` and the pipeline primitives: `make_pipeline`,
//! `producer_commit` / `consumer_wait` / `pipeline_consumer_wait_prior<N>`
//! of a thread-scope pipeline (a channel of copies completed stage by
//! stage, oldest first), `__pipeline_memcpy_async` / `__pipeline_commit` /
//! `__pipeline_wait_prior` (one thread's own channel), and a block-scope
//! pipeline over a shared state of a constant stage count, modelled
//! exactly by the window in which a stage's copy may meet another
//! thread's access (`BlockPipe`). Kept apart because a block-scope
//! pipeline orders threads by per-thread counts of its operations, not by
//! completing copies: any other block-scope pipeline is `not-verified`.

use super::*;

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
pub(in crate::frontend::lower) struct BlockPipe {
    /// The stage count (a constant, or a value every thread shares).
    pub(in crate::frontend::lower) stages: Expr,
    /// The scope of the local the pipeline is bound to, and its name.
    pub(in crate::frontend::lower) scope: usize,
    pub(in crate::frontend::lower) name: String,
    pub(in crate::frontend::lower) stage: Var,
    /// A pipeline made with roles (`make_pipeline(block, &state, role)`):
    /// whether the thread is a producer (it only acquires, copies and
    /// commits; the others only wait and release). `None`: every thread
    /// does both.
    pub(in crate::frontend::lower) producer: Option<Expr>,
}

/// `cuda::pipeline_role::producer` and `::consumer`, in the order libcu++
/// declares them.
pub(in crate::frontend::lower) const PRODUCER_ROLE: i64 = 0;
pub(in crate::frontend::lower) const CONSUMER_ROLE: i64 = 1;

const PIPE_COUNTERS: [&str; 3] = ["commits", "waits", "releases"];

impl BlockPipe {
    pub(in crate::frontend::lower) fn counter_keys(&self) -> Vec<String> {
        PIPE_COUNTERS.iter().map(|c| self.key(c)).collect()
    }
    /// The name its `counter` is bound to in the pipeline's scope.
    fn key(&self, counter: &str) -> String {
        format!("{}.{counter}", self.name)
    }
}

impl<'a, 't> Lowerer<'a, 't> {
    /// The calls of pipelines (`make_pipeline`, the primitives, the
    /// `pipeline_consumer_wait_prior` function); `None` for any other name.
    pub(super) fn pipeline_call(
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
                // stage count, or `make_pipeline(block, &state, role)` with
                // each thread's role a function of its position.
                let role = match args.get(2) {
                    Some(r) if args.len() == 3 => match self.eval(*r) {
                        Value::Int(e)
                            if !e.mentions(&mut |v| matches!(v.kind, VarKind::Unknown { .. })) =>
                        {
                            Some(Some(Expr::eq(e, Expr::Const(PRODUCER_ROLE))))
                        }
                        _ => Some(None),
                    },
                    _ => None,
                };
                // Roles the model cannot evaluate: the lowering without the
                // exact model names the pipeline `not-verified`.
                if matches!(role, Some(None)) {
                    self.block_pipe_broken = true;
                }
                if (args.len() == 2 || matches!(role, Some(Some(_)))) && !self.block_pipes_off {
                    let state = self.text(args[1]);
                    let state = state.trim().trim_start_matches('&').trim();
                    if let Some(Some(n)) = self.pipeline_states.get(state).cloned() {
                        if n.as_const().is_none_or(|c| c >= 1) {
                            self.block_pipe_stages.insert(id, n);
                            if let Some(Some(producer)) = role {
                                self.block_pipe_producers.insert(id, producer);
                            }
                        }
                    }
                }
                Some(Value::Pipeline(id, !args.is_empty()))
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
            _ => None,
        }
    }
    /// The constant value of the last template argument of a type
    /// (`cuda::pipeline_shared_state<cuda::thread_scope_block, kStages>`).
    pub(in crate::frontend::lower) fn last_template_arg(&mut self, ty: Node) -> Option<Expr> {
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
    pub(super) fn start_pipe_copy(&mut self, ch: Channel, node: Node) -> bool {
        let Channel::Pipeline(id) = ch else {
            return false;
        };
        if !self.block_pipes.contains_key(&id) {
            return false;
        }
        let Some(commits) = self.pipe_counter(id, "commits") else {
            return false;
        };
        self.uniform_pipe_op(id, node, "memcpy_async");
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
    pub(in crate::frontend::lower) fn bind_block_pipe(&mut self, id: usize, name: &str) {
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
            producer: self.block_pipe_producers.get(&id).cloned(),
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

    /// Which block-scope pipelines have their stage acquired, and which
    /// waited for, here.
    pub(in crate::frontend::lower) fn pipe_stage_states(&self) -> (Vec<usize>, Vec<usize>) {
        let mut acquired = self.async_state.acquired.clone();
        let mut waited = self.async_state.waited.clone();
        acquired.sort_unstable();
        waited.sort_unstable();
        (acquired, waited)
    }

    /// A loop body is lowered once, from the state on entry: an iteration
    /// that ends with a pipeline's stage acquired or waited for where it
    /// began without (or the reverse) would start the next iteration in a
    /// state the model did not lower it from, so the checks of
    /// `producer_acquire` / `consumer_wait` pairing would not hold for it.
    pub(in crate::frontend::lower) fn check_pipe_stages_per_iteration(
        &mut self,
        before: (Vec<usize>, Vec<usize>),
        node: Node,
    ) {
        if self.dry > 0 || self.block_pipes.is_empty() || self.pipe_stage_states() == before {
            return;
        }
        self.block_pipe_broken = true;
        self.unsupported(
            node,
            "a loop iteration that leaves a block-scope `cuda::pipeline` stage acquired or waited for differently from how it found it",
        );
    }

    /// The constraints an access carries for the block-scope pipelines of
    /// the kernel (see `BlockPipe`).
    pub(in crate::frontend::lower) fn pipeline_windows(&mut self) -> Vec<Expr> {
        if self.block_pipes.is_empty() {
            return Vec::new();
        }
        let unknown = |e: &Expr| e.mentions(&mut |v| matches!(v.kind, VarKind::Unknown { .. }));
        let mut ids: Vec<usize> = self.block_pipes.keys().copied().collect();
        ids.sort_unstable();
        let mut out = Vec::new();
        for id in ids {
            let p = &self.block_pipes[&id];
            let stage = Expr::Var(p.stage.clone());
            // Counts that are not closed forms of the loops' iterations
            // (values a loop left unknown) where the window uses them (a
            // copy its stage, any other access the waits and releases): the
            // window would not be exact.
            if let Some((copy_of, s)) = &self.pipe_copy {
                if *copy_of == id {
                    // A commit count known where its loop's guard holds
                    // (`asynccopy::lockstep`), the guard on the path: the
                    // stage is the counter it steps with, as exact as the
                    // buffer index made from that counter.
                    let s = match self.lockstep_stage(s) {
                        Some(exact) => exact,
                        None => {
                            if unknown(s) {
                                self.block_pipe_broken = true;
                            }
                            s.clone()
                        }
                    };
                    out.push(Expr::eq(stage, s));
                    continue;
                }
            }
            let used = ["waits", "releases"].map(|c| self.pipe_counter(id, c));
            if used.iter().flatten().any(unknown) {
                self.block_pipe_broken = true;
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
            // A producer of a pipeline with roles neither waits nor
            // releases: nothing orders its accesses with another
            // producer's copies (its own acquires and commits do, through
            // the consumers, but the model does not follow that), so they
            // meet every stage.
            let window = match &p.producer {
                Some(producer) => Expr::or(producer.clone(), window),
                None => window,
            };
            out.push(Expr::or(
                Expr::bin(BinOp::Lt, stage, Expr::Const(0)),
                window,
            ));
        }
        out
    }

    /// An operation of a block-scope pipeline every thread must perform:
    /// one that some threads of the block may skip is outside the model.
    fn uniform_pipe_op(&mut self, id: usize, node: Node, what: &str) {
        if self.dry > 0 {
            return;
        }
        // With roles, each operation is one role's: threads skip the other
        // role's by design, and each thread's counts are its own.
        let with_roles = self
            .block_pipes
            .get(&id)
            .is_some_and(|p| p.producer.is_some());
        if !with_roles && thread_dependent(&self.guard()) {
            self.block_pipe_broken = true;
            self.unsupported(
                node,
                format!("`{what}` of a block-scope `cuda::pipeline` that some threads of the block may skip"),
            );
        }
    }

    pub(super) fn block_scope_pipeline(&mut self, node: Node) {
        self.unsupported(
            node,
            "a block-scope `cuda::pipeline` (its `consumer_wait` orders every thread's copies of a stage, and `producer_acquire` every thread's release of it, which the model does not represent exactly)",
        );
    }

    /// `pipe.producer_commit()` and friends.
    pub(in crate::frontend::lower) fn pipeline_method(
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
                self.uniform_pipe_op(id, node, method);
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
                    // `consumer_wait` waits for the stage the thread has
                    // not released yet, and does not move on: the counts
                    // number the stages only while each stage is waited for
                    // once and released once, in turn.
                    "consumer_wait" => {
                        if self.async_state.waited.contains(&id) && self.dry == 0 {
                            self.block_pipe_broken = true;
                            self.unsupported(
                                node,
                                "a second `consumer_wait` of a block-scope `cuda::pipeline` before the `consumer_release` of its stage",
                            );
                        }
                        self.async_state.waited.push(id);
                        self.bump_pipe_counter(id, "waits");
                    }
                    "consumer_release" => {
                        if !self.async_state.waited.contains(&id) && self.dry == 0 {
                            self.block_pipe_broken = true;
                            self.unsupported(
                                node,
                                "a `consumer_release` of a block-scope `cuda::pipeline` stage not waited for (`consumer_wait`) on every path",
                            );
                        }
                        self.async_state.waited.retain(|p| *p != id);
                        self.bump_pipe_counter(id, "releases");
                    }
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
}
