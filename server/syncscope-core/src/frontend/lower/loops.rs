//! Loops without unrolling: a dry run finds each variable's update per
//! iteration; induction variables become closed forms of the iteration
//! counter, anything else an unknown per iteration. Must not emit accesses
//! outside the loop node it builds.

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn loop_statement(&mut self, node: Node) {
        let kind = node.kind();
        // A value computed from a kept atomic result may become a loop's
        // per-iteration unknown: the schedule checks must not read the
        // model as showing every use of that result.
        if self
            .atomic_ops
            .iter()
            .any(|o| !o.discarded && o.result.is_some())
        {
            self.atomic_results_summarised = true;
        }
        self.push_scope();
        if kind == "for_statement" {
            if let Some(init) = node.field("initializer") {
                if init.kind() == "declaration" {
                    self.declaration(init);
                } else {
                    self.eval(init);
                }
            }
        }
        let cond_node = node.field("condition").map(|c| {
            if c.kind() == "condition_clause" {
                c.field("value").or_else(|| c.named_child(0)).unwrap_or(c)
            } else {
                c
            }
        });
        let update_node = node.field("update");
        let body_node = node.field("body");

        // Candidates: locals the loop may assign (of a block-scope
        // pipeline, only the counters its method calls there step).
        let parts: Vec<Node> = [body_node, update_node, cond_node]
            .into_iter()
            .flatten()
            .collect();
        let targets = self.assigned_targets(&parts, None).unwrap_or_default();
        let mut cands: Vec<(usize, String, Value)> = Vec::new();
        let mut seen = HashSet::new();
        for (scope, target) in targets {
            if !seen.insert((scope, target.clone())) {
                continue;
            }
            if let Some(v) = self.scopes.get(scope).and_then(|s| s.get(&target)) {
                // A `__shared__` scalar is bound to its cell: assigning
                // it writes memory, it is not a local the loop updates.
                if self.is_scalar_cell(&target, v) {
                    continue;
                }
                if matches!(v, Value::Int(_) | Value::Ptr(_)) {
                    cands.push((scope, target, v.clone()));
                }
            }
        }
        cands.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));

        if self.dry > 0 {
            // Inside another loop's dry run: summarise without descending.
            for (scope, name, v) in cands {
                let nv = self.havoc_value(&name, &v, Scope::Thread);
                self.scopes.insert(scope, name, nv);
            }
            self.pop_scope();
            return;
        }

        // Pass 1: a dry run of one iteration from symbolic entry values. A
        // candidate the iteration leaves unchanged keeps its value: when
        // some are, and another's update could not be classified, the dry
        // run is repeated with those at their actual values (`i += step`
        // with `step` a member of an object a method call may change).
        let saved_scopes = self.scopes.clone();
        let saved_counts = self.unknown_counts.clone();
        let saved_returned = self.returned.clone();
        let saved_jumped = self.jumped.clone();
        let saved_locks = self.locks.clone();
        let saved_fence = (
            self.fence_pending,
            self.fenced.clone(),
            self.fence_guard.clone(),
        );
        let saved_hung = self.hung.clone();
        let mut fixed = vec![false; cands.len()];
        let mut round = 0;
        let (updates, ends, thread_exit) = loop {
            for ((scope, name, v), keep) in cands.iter().zip(&fixed) {
                if !keep {
                    let (ev, _) = entry_value(name, v);
                    // The entry value of a floating-point local is one too
                    // (`acc * 2` is no induction `acc0 * 2^k`).
                    if let (Value::Int(e), Value::Int(Expr::Var(m))) = (v, &ev) {
                        if self.is_float(e) {
                            self.float_vars.insert(m.name.clone());
                        } else {
                            self.float_vars.remove(&m.name);
                        }
                    }
                    self.scopes.insert(*scope, name.clone(), ev);
                }
            }
            self.dry += 1;
            self.out.push(Vec::new());
            self.frames.push(Frame {
                is_loop: true,
                broke: Expr::fals(),
                continued: Expr::fals(),
                thread_exit: false,
                gotos: Vec::new(),
            });
            if let Some(c) = cond_node {
                self.eval(c);
            }
            if let Some(b) = body_node {
                self.statement(b);
            }
            if let Some(u) = update_node {
                self.eval(u);
            }
            let frame = self.frames.pop().expect("loop frame");
            let thread_exit = frame.thread_exit
                || self.returned.scope() == Scope::Thread && self.returned != saved_returned
                || self.hung.scope() == Scope::Thread && self.hung != saved_hung;
            let mut updates = Vec::new();
            let mut ends = Vec::new();
            for ((scope, name, v), keep) in cands.iter().zip(&fixed) {
                let end = self.scopes[*scope]
                    .get(name)
                    .cloned()
                    .unwrap_or(Value::Local);
                if *keep {
                    updates.push(Update::Unchanged);
                } else {
                    updates.push(classify(name, v, &end));
                }
                ends.push(end);
            }
            self.out.pop();
            self.dry -= 1;
            self.scopes = saved_scopes.clone();
            self.unknown_counts = saved_counts.clone();
            self.returned = saved_returned.clone();
            self.jumped = saved_jumped.clone();
            self.locks = saved_locks.clone();
            (self.fence_pending, self.fenced, self.fence_guard) = saved_fence.clone();
            self.hung = saved_hung.clone();
            round += 1;
            let unchanged: Vec<usize> = (0..cands.len())
                .filter(|i| !fixed[*i] && matches!(updates[*i], Update::Unchanged))
                .collect();
            let havoc = updates
                .iter()
                .any(|u| matches!(u, Update::Havoc(_) | Update::Retarget(_)));
            if round == 1 && havoc && !unchanged.is_empty() {
                for i in unchanged {
                    fixed[i] = true;
                }
                continue;
            }
            break (updates, ends, thread_exit);
        };
        // Commit counts that step with a counter under a monotone guard
        // (`asynccopy::lockstep`): known where the guard holds.
        let locksteps = if thread_exit {
            Vec::new()
        } else {
            self.lockstep_commits(node, &cands, &updates, &ends)
        };

        // Pass 2: the loop over a symbolic iteration counter.
        let pow2 = updates
            .iter()
            .any(|u| matches!(u, Update::Pow2Up(_) | Update::Pow2Down(_)));
        let base_name = cands
            .iter()
            .zip(&updates)
            .find(|(_, u)| {
                !matches!(
                    u,
                    Update::Unchanged | Update::Havoc(_) | Update::Retarget(_)
                )
            })
            .map(|((_, n, _), _)| n.clone())
            .unwrap_or_else(|| "loop".to_string());
        let n = self.counter_counts.entry(base_name.clone()).or_insert(0);
        let counter = Var::new(format!("{base_name}@{n}"), VarKind::Counter { pow2 });
        *n += 1;
        let k = Expr::Var(counter.clone());
        self.loop_counters.push(counter.name.to_string());
        let mut display = Vec::new();
        // Accumulators: the unknown standing for each havocked local at the
        // start of an iteration (`Kernel::folds`).
        let mut carried: Vec<Option<Var>> = vec![None; cands.len()];
        for (i, ((scope, name, v), u)) in cands.iter().zip(&updates).enumerate() {
            let nv = match u {
                Update::Unchanged => continue,
                Update::Havoc(s) => {
                    let nv = self.havoc_value(name, v, *s);
                    if let Value::Int(Expr::Var(h)) = &nv {
                        carried[i] = Some(h.clone());
                    }
                    nv
                }
                Update::Retarget(ids) => self.retargeted_value(name, v, ids),
                _ => induction_value(v, u, &k),
            };
            if let Value::Int(e) = &nv {
                if !matches!(u, Update::Havoc(_)) {
                    display.push((name.clone(), e.clone()));
                }
            }
            self.scopes.insert(*scope, name.clone(), nv);
        }
        for l in &locksteps {
            let value = |lw: &Self, i: usize| match lw.scopes[cands[i].0].get(&cands[i].1) {
                Some(Value::Int(e)) => Some(e.clone()),
                _ => None,
            };
            let (Some(moving), Some(x), Some(unknown)) = (
                value(self, l.moving),
                value(self, l.counter),
                value(self, l.commits),
            ) else {
                continue;
            };
            let marker = entry_marker(&cands[l.moving].1);
            let guard = l
                .guard
                .subst(&mut |v| (*v.name == *marker).then(|| moving.clone()));
            let exact = Expr::add(x, l.offset.clone());
            let Expr::Var(u) = &unknown else {
                continue;
            };
            self.lockstep_unknowns.insert(u.name.clone());
            // The unknown is no accumulator of the whole iteration now.
            carried[l.commits] = None;
            self.scopes.insert(
                cands[l.commits].0,
                cands[l.commits].1.clone(),
                Value::Int(Expr::ite(guard, exact, unknown)),
            );
        }
        // This loop encloses the code below it (`asynccopy::lockstep`).
        self.enclosing_loops.push(asynccopy::EnclosingLoop {
            range: (node.start_byte(), node.end_byte()),
            entries: cands.clone(),
        });
        let id = self.next_loop;
        self.next_loop += 1;
        self.loops.push(id);
        let mut range = Expr::bin(BinOp::Ge, k.clone(), Expr::Const(0));
        if pow2 {
            range = Expr::and(range, Expr::bin(BinOp::Lt, k.clone(), Expr::Const(64)));
        }
        self.path.push(range);
        self.out.push(Vec::new());
        let first_claim = self.assertions.len();
        self.loop_head += 1;
        let cond = match cond_node {
            Some(c) if kind != "do_statement" => self.eval_cond(c),
            _ => Expr::tru(),
        };
        self.loop_head -= 1;
        // `while (__invariant(p), c)`: claims of the loop head.
        self.close_loop_head_claims(first_claim, &counter, &cond);
        // Reads in the condition happen on every check, the failing one too.
        let cond_len = self.out.last().map(|v| v.len()).unwrap_or(0);
        let guard = if kind == "do_statement" {
            // The condition is checked after each iteration: iteration k runs
            // if k == 0 or the condition held on the values at its start.
            let c = match cond_node {
                Some(c) => {
                    // Evaluate without recording reads twice: a dry evaluation.
                    self.dry += 1;
                    let saved = self.unknown_counts.clone();
                    let e = self.eval_cond(c);
                    self.unknown_counts = saved;
                    self.dry -= 1;
                    e
                }
                None => Expr::tru(),
            };
            Expr::or(Expr::eq(k.clone(), Expr::Const(0)), c)
        } else {
            cond
        };
        let cond_span = cond_node
            .map(|c| self.span(c))
            .unwrap_or_else(|| self.span(node));
        self.path.push(guard.clone());
        self.cond_spans.push((cond_span, Arc::new(guard.clone())));
        if thread_exit {
            let u = self.fresh_bool(&symbols::loop_exited(&counter.name), Scope::Thread);
            let earlier = Expr::and(u, Expr::bin(BinOp::Gt, k.clone(), Expr::Const(0)));
            self.path.push(Expr::not(earlier));
        }
        self.frames.push(Frame {
            is_loop: true,
            broke: Expr::fals(),
            continued: Expr::fals(),
            thread_exit: false,
            gotos: Vec::new(),
        });
        let returned_before = self.returned.clone();
        let hung_before = self.hung.clone();
        self.async_loop_enter(&counter, &guard);
        let pipe_stages_before = self.pipe_stage_states();
        if let Some(b) = body_node {
            self.statement(b);
        }
        self.check_pipe_stages_per_iteration(pipe_stages_before, node);
        // The next iteration starts with the copies this one left in flight.
        self.async_loop_exit(node);
        if let Some(f) = self.frames.last_mut() {
            f.continued = Expr::fals();
        }
        if let Some(u) = update_node {
            self.eval(u);
        }
        // What each accumulator holds at the end of an iteration.
        let nexts: Vec<Option<Expr>> = cands
            .iter()
            .zip(&carried)
            .map(|((scope, name, _), h)| {
                h.as_ref()?;
                match self.scopes.get(*scope).and_then(|s| s.get(name)) {
                    Some(Value::Int(e)) => Some(e.clone()),
                    _ => None,
                }
            })
            .collect();
        let frame = self.frames.pop();
        let never_breaks = frame.as_ref().is_some_and(|f| f.broke.is_false());
        // Threads that left by `goto` skip the code after the loop until the
        // label: whether a thread did is unknown there, as for `return`.
        let goto_exits: Vec<(String, Scope)> = frame
            .as_ref()
            .map(|f| {
                let scope = f.broke.scope();
                f.gotos.iter().map(|l| (l.clone(), scope)).collect()
            })
            .unwrap_or_default();
        let goto_free = goto_exits.is_empty()
            && self.returned == returned_before
            && self.hung == hung_before
            && body_node.is_some_and(|b| {
                let j = jumps(b, &mut self.jumps_memo);
                !j.leaves && !j.continues
            });
        if kind == "do_statement" {
            if let Some(c) = cond_node {
                self.eval(c);
            }
        }
        if thread_exit {
            self.path.pop();
        }
        self.path.pop();
        self.cond_spans.pop();
        self.path.pop();
        let body = self.out.pop().unwrap_or_default();
        self.enclosing_loops.pop();
        self.loops.pop();
        self.loop_counters.pop();
        self.emit(Stmt::Loop(Loop {
            id,
            counter: counter.clone(),
            guard: guard.clone(),
            cond_len,
            body,
            span: self.span(node),
            display,
        }));
        // A loop that spins on `atomicCAS`/`atomicExch` acquires a lock.
        if let Some(target) = cond_node.and_then(|c| lock_target(&self.text(c))) {
            self.acquire_lock(target);
        }
        for (label, scope) in goto_exits {
            let u = self.fresh_bool(&format!("goto {label}@{}", counter.name), scope);
            self.jumped.push((label, u));
        }
        // Returns inside the loop: after it, whether a thread left is unknown.
        if self.returned != returned_before {
            let scope = self.returned.scope();
            let u = self.fresh_bool(&format!("returned@{}", counter.name), scope);
            self.returned = Expr::or(returned_before.clone(), u);
        }
        // A loop inside that never ends: whether a thread is stuck in it is
        // unknown after this loop (its condition named this loop's trips).
        if self.hung != hung_before {
            let scope = self.hung.scope();
            let u = self.fresh_bool(&format!("hung@{}", counter.name), scope);
            self.hung = Expr::or(hung_before, u);
        }
        // A loop whose condition no trip changes (`while (1)`, a counter
        // that never moves) and that no `break` or `return` leaves never
        // ends for the threads that enter it: the code after it is
        // unreachable for them, as after a `return` — also after the call,
        // when the loop is in an inlined function.
        let invariant = match kind {
            "do_statement" => None,
            _ => Some(&guard),
        }
        .filter(|g| !depends_on_trip(g, &counter));
        if let Some(g) = invariant {
            if never_breaks && self.returned == returned_before {
                let entered = Expr::and(self.guard(), g.clone());
                if entered.scope() == Scope::Thread {
                    for f in self.frames.iter_mut() {
                        f.thread_exit = true;
                    }
                }
                self.hung = Expr::or(self.hung.clone(), entered);
            }
        }
        // After the loop, assigned variables hold unknown exit values. The
        // counters of a block-scope pipeline (`asynccopy::BlockPipe`) that
        // the loop advances by a constant step keep their relation: their
        // values after one unknown number of whole iterations (a loop with
        // no `break`, `return` or `goto` leaves only by its condition).
        // A fold needs every iteration whole: no early exit of any kind.
        let folds_ok =
            self.track_values && self.dry == 0 && !thread_exit && never_breaks && goto_free;
        let pipe_keys: Vec<String> = self
            .block_pipes
            .values()
            .flat_map(|p| p.counter_keys())
            .collect();
        let leaves_by_condition_only =
            body_node.is_none_or(|b| !jumps(b, &mut self.jumps_memo).leaves);
        let whole_iterations = !pipe_keys.is_empty() && leaves_by_condition_only;
        // How many iterations ran: the same for every thread of the block
        // when the loop's condition is.
        let uniform = !thread_exit && !thread_dependent(&guard);
        // (A counter stepping by a constant other than 1, `pos += 32`, is
        // counted too here: the quotient stays inside kernels with
        // block-scope pipelines, whose windows need the counts exact.)
        let exact_trips = whole_iterations
            .then(|| trip_count(&guard, &counter).or_else(|| strided_trip_count(&guard, &counter)))
            .flatten();
        // A loop every thread leaves only by its condition, after whole
        // iterations, that is linear in the counter: an induction
        // variable's exit value is its closed form at the trip count
        // (`for (i = 2; i >= 0; i--) p += s;` leaves `p0 + 3 * s`), not an
        // unknown: code after the loop indexes with it.
        let counted_exit = (kind != "do_statement"
            && !thread_exit
            && never_breaks
            && goto_free
            && leaves_by_condition_only)
            .then(|| trip_count(&guard, &counter))
            .flatten();
        let trips = whole_iterations.then(|| {
            if let Some(t) = exact_trips {
                return t;
            }
            let scope = if uniform { Scope::Block } else { Scope::Thread };
            self.note_unknown_after_atomic();
            self.fresh_value_in("trips", scope, (0, i64::from(i32::MAX)))
        });
        for (i, ((scope, name, v), u)) in cands.iter().zip(&updates).enumerate() {
            if matches!(u, Update::Unchanged) || *scope >= self.scopes.len() {
                continue;
            }
            if let (Some(t), Update::Add(c), Value::Int(x0)) = (&trips, u, v) {
                if pipe_keys.contains(name) && constant_like(c) {
                    let at_exit = stepped(x0, c, t);
                    self.scopes
                        .insert(*scope, name.clone(), Value::Int(at_exit));
                    continue;
                }
            }
            // Only a product with a constant: `s * trips` of two run-time
            // values would make the queries nonlinear.
            if let (Some(t), Update::Add(c)) = (&counted_exit, u) {
                if constant_like(c) || t.as_const().is_some() {
                    let at_exit = induction_value(v, u, t);
                    self.scopes.insert(*scope, name.clone(), at_exit);
                    continue;
                }
            }
            let s = match u {
                Update::Havoc(s) => *s,
                _ => value_scope(v),
            };
            let nv = match u {
                Update::Retarget(ids) => self.retargeted_value(&format!("{name}@exit"), v, ids),
                _ => self.havoc_value(&format!("{name}@exit"), v, s),
            };
            // `cands` has each (scope, name) once: its index is the loop's.
            let step = carried[i].clone().zip(nexts[i].clone());
            if let (true, Some((h, next)), Value::Int(init), Value::Int(Expr::Var(exit))) =
                (folds_ok, step, v, &nv)
            {
                self.folds.push(Fold {
                    exit: exit.clone(),
                    init: init.clone(),
                    carried: h,
                    next,
                    loop_id: id,
                });
            }
            self.scopes.insert(*scope, name.clone(), nv);
        }
        self.pop_scope();
    }

    /// The locals a name that code assigns stands for: itself; the variable
    /// a reference (or a member inside a method) aliases; every member of an
    /// object (`acc`, `acc.inner`; a method call may change any of them).
    pub(super) fn resolve_assigned(&self, name: &str) -> Vec<(usize, String)> {
        let (root, rest) = match name.find('.') {
            Some(i) => (&name[..i], &name[i..]),
            None => (name, ""),
        };
        let (scope, mut target) = match self.lookup(root) {
            Some((_, Value::Alias(lv))) => match &**lv {
                LValue::Local { scope, name } => (*scope, name.clone()),
                _ => return Vec::new(),
            },
            Some((scope, _)) => (scope, root.to_string()),
            None => return Vec::new(),
        };
        target.push_str(rest);
        // A block-scope pipeline: its counters (`asynccopy::BlockPipe`).
        if let Some(Value::Pipeline(id, true)) = self.scopes.get(scope).and_then(|s| s.get(&target))
        {
            if let Some(p) = self.block_pipes.get(id) {
                let mut out = vec![(scope, target.clone())];
                out.extend(p.counter_keys().into_iter().map(|k| (p.scope, k)));
                return out;
            }
        }
        match self.object_at(scope, &target) {
            Some(obj) => self
                .object_keys(&obj)
                .into_iter()
                .map(|k| (scope, k))
                .collect(),
            None => vec![(scope, target)],
        }
    }

    /// A pointer `v` after iterations that may point it into any of `ids`
    /// (`Update::Retarget`): into an unknown one of them, at an unknown
    /// offset; a pointer the model cannot follow when they are not arrays
    /// laid out alike.
    pub(super) fn retargeted_value(&mut self, name: &str, v: &Value, ids: &[ArrayId]) -> Value {
        let unknown =
            || Value::Opaque("pointer that a loop may point into different arrays".into());
        let Value::Ptr(p) = v else {
            return unknown();
        };
        let Some((&main, rest)) = ids.split_first() else {
            return unknown();
        };
        let off = self.fresh_unknown(&format!("{name}@off"), Scope::Thread);
        let mut others = Vec::new();
        let mut none_before = Expr::tru();
        for &id in rest {
            let chosen = self.fresh_bool(&format!("{name}@into"), Scope::Thread);
            others.push((Expr::and(none_before.clone(), chosen.clone()), id));
            none_before = Expr::and(none_before, Expr::not(chosen));
        }
        let q = Ptr {
            array: main,
            others,
            offset: off.clone(),
            inner: off,
            level: p.level,
            view: p.view.clone(),
        };
        if !self.alike_pointers(&q, &q) {
            return unknown();
        }
        Value::Ptr(q)
    }

    pub(super) fn havoc_value(&mut self, name: &str, v: &Value, scope: Scope) -> Value {
        match v {
            Value::Ptr(p) => {
                let off = self.fresh_unknown(&format!("{name}@off"), scope);
                Value::Ptr(Ptr {
                    array: p.array,
                    others: p.others.clone(),
                    offset: off.clone(),
                    inner: off,
                    level: p.level,
                    view: p.view.clone(),
                })
            }
            Value::Int(e) if self.is_float(e) => {
                let h = self.fresh_unknown(name, scope);
                Value::Int(self.mark_float(h))
            }
            _ => Value::Int(self.fresh_unknown(name, scope)),
        }
    }

    // ----- expressions ---------------------------------------------------
}

/// Whether a loop condition may change from one trip to the next: it
/// names the trip counter or a value made inside the loop (tagged with it).
fn depends_on_trip(guard: &Expr, counter: &Var) -> bool {
    guard.mentions(&mut |v| {
        v == counter
            || crate::symbols::split_iteration_tag(&v.name)
                .is_some_and(|(_, tag)| tag.split(',').any(|c| c == &*counter.name))
    })
}

pub(super) fn entry_marker(name: &str) -> String {
    format!("@entry:{name}")
}

pub(super) fn entry_value(name: &str, v: &Value) -> (Value, String) {
    let marker = entry_marker(name);
    let scope = value_scope(v);
    let var = Expr::Var(Var::new(
        marker.clone(),
        VarKind::Unknown {
            scope,
            lo: i64::MIN,
            hi: i64::MAX,
        },
    ));
    match v {
        Value::Ptr(p) => (
            Value::Ptr(Ptr {
                array: p.array,
                others: p.others.clone(),
                offset: var.clone(),
                inner: var,
                level: p.level,
                view: p.view.clone(),
            }),
            marker,
        ),
        _ => (Value::Int(var), marker),
    }
}

pub(super) fn is_entry(v: &Var) -> bool {
    v.name.starts_with("@entry:")
}

/// A pointer `before` that an iteration leaves as `end`: the arrays it may
/// point into after any number of iterations, those of both (none known
/// if `end` is no pointer into arrays).
fn retarget(before: &Ptr, end: &Value) -> Update {
    let Value::Ptr(p) = end else {
        return Update::Retarget(Vec::new());
    };
    if p.view != before.view || p.level != before.level {
        return Update::Retarget(Vec::new());
    }
    let mut ids = vec![before.array];
    for id in before
        .others
        .iter()
        .map(|(_, id)| *id)
        .chain(std::iter::once(p.array))
        .chain(p.others.iter().map(|(_, id)| *id))
    {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Update::Retarget(ids)
}

/// Classifies a variable's update over one iteration.
pub(super) fn classify(name: &str, before: &Value, end: &Value) -> Update {
    let marker = entry_marker(name);
    let x = |e: &Expr| matches!(e, Expr::Var(v) if *v.name == *marker);
    let end_e = match (before, end) {
        (Value::Int(_), Value::Int(e)) => e.clone(),
        (Value::Ptr(b), Value::Ptr(p)) if b.array == p.array && b.view == p.view => {
            if b.others != p.others {
                return retarget(b, end);
            }
            p.offset.clone()
        }
        // An iteration that leaves a pointer pointing elsewhere: its
        // value at an iteration's start is not the entry's array at
        // another offset.
        (Value::Ptr(b), _) => return retarget(b, end),
        _ => return Update::Havoc(Scope::Thread),
    };
    if x(&end_e) {
        return Update::Unchanged;
    }
    let invariant = |e: &Expr| {
        !e.mentions(&mut |v| {
            is_entry(v) || (matches!(v.kind, VarKind::Unknown { .. }) && v.name.contains('#'))
        })
    };
    let havoc_scope = || {
        let mut s = value_scope(before);
        end_e.for_each_var(&mut |v| {
            if !is_entry(v) {
                s = s.max(v.scope());
            }
        });
        Update::Havoc(s)
    };
    match &end_e {
        // `if (c) x += d;` with `c` the same at every iteration (a thread's
        // role): a step of `d` or of 0, chosen once for the whole loop.
        Expr::Ite(c, a, b) if invariant(c) => match (constant_step(a, &x), constant_step(b, &x)) {
            (Some(p), Some(q)) if p != q => {
                Update::Add(Expr::ite((**c).clone(), Expr::Const(p), Expr::Const(q)))
            }
            _ => havoc_scope(),
        },
        Expr::Bin(BinOp::Add, a, b) if x(a) && invariant(b) => Update::Add((**b).clone()),
        Expr::Bin(BinOp::Add, a, b) if x(b) && invariant(a) => Update::Add((**a).clone()),
        Expr::Bin(BinOp::Sub, a, b) if x(a) && invariant(b) => {
            Update::Add(Expr::un(UnOp::Neg, (**b).clone()))
        }
        Expr::Bin(BinOp::Mul, a, b) | Expr::Bin(BinOp::Mul, b, a) if x(a) => match b.as_const() {
            Some(c) if c > 1 && (c & (c - 1)) == 0 => Update::Pow2Up(c.trailing_zeros() as i64),
            _ => havoc_scope(),
        },
        Expr::Bin(BinOp::Shl, a, b) if x(a) => match b.as_const() {
            Some(c) if (1..32).contains(&c) => Update::Pow2Up(c),
            _ => havoc_scope(),
        },
        Expr::Bin(BinOp::Shr, a, b) if x(a) => match b.as_const() {
            Some(c) if (1..32).contains(&c) => Update::Pow2Down(c),
            _ => havoc_scope(),
        },
        Expr::Bin(BinOp::Div, a, b) if x(a) => match b.as_const() {
            Some(c) if c > 1 && (c & (c - 1)) == 0 => Update::Pow2Down(c.trailing_zeros() as i64),
            _ => havoc_scope(),
        },
        _ => havoc_scope(),
    }
}

/// The constant `d` of `x + d` (`x` itself: 0), where `x` is the entry value.
fn constant_step(e: &Expr, x: &impl Fn(&Expr) -> bool) -> Option<i64> {
    if x(e) {
        return Some(0);
    }
    match e {
        Expr::Bin(BinOp::Add, a, b) if x(a) => b.as_const(),
        Expr::Bin(BinOp::Add, a, b) if x(b) => a.as_const(),
        Expr::Bin(BinOp::Sub, a, b) if x(a) => b.as_const().and_then(i64::checked_neg),
        _ => None,
    }
}

/// `x0 + step * k`, for a step that is a constant or a choice between two
/// constants made once for the loop (`ite(c, p, q)`, see `classify`): the
/// choice outside, so that no product of a run-time value with `k` is made.
pub(super) fn stepped(x0: &Expr, step: &Expr, k: &Expr) -> Expr {
    match step {
        Expr::Ite(c, p, q) if p.as_const().is_some() && q.as_const().is_some() => Expr::ite(
            (**c).clone(),
            Expr::add(x0.clone(), Expr::mul((**p).clone(), k.clone())),
            Expr::add(x0.clone(), Expr::mul((**q).clone(), k.clone())),
        ),
        _ => Expr::add(x0.clone(), Expr::mul(step.clone(), k.clone())),
    }
}

/// Whether a step is a constant, or a choice between two constants.
pub(super) fn constant_like(step: &Expr) -> bool {
    match step {
        Expr::Ite(_, p, q) => p.as_const().is_some() && q.as_const().is_some(),
        _ => step.as_const().is_some(),
    }
}

/// The number of iterations of a loop whose condition is linear in its
/// counter `k` (from 0, step 1) with a coefficient of 1 or -1, true for the
/// first iterations and false from some trip on (`k < E`, `k <= E`,
/// `E - k >= 0` of `for (i = E; i >= 0; i--)`, `E - k > 0`), with `E` free
/// of `k` and of every value the loop makes (which may change between its
/// trips). `None` for any other condition.
fn trip_count(guard: &Expr, counter: &Var) -> Option<Expr> {
    let Expr::Bin(op, a, b) = guard else {
        return None;
    };
    // `a - b` as `coef * k + rest`.
    let (ca, ra) = linear_in(a, counter)?;
    let (cb, rb) = linear_in(b, counter)?;
    let coef = ca.checked_sub(cb)?;
    if depends_on_trip(&ra, counter) || depends_on_trip(&rb, counter) {
        return None;
    }
    // The condition holds while `k` is below the count: `k + ra < rb`
    // runs while `k < rb - ra`, `ra - k >= rb` while `k < ra - rb + 1`.
    let n = match (op, coef) {
        (BinOp::Lt, 1) => Expr::bin(BinOp::Sub, rb, ra),
        (BinOp::Le, 1) => Expr::add(Expr::bin(BinOp::Sub, rb, ra), Expr::Const(1)),
        (BinOp::Gt, -1) => Expr::bin(BinOp::Sub, ra, rb),
        (BinOp::Ge, -1) => Expr::add(Expr::bin(BinOp::Sub, ra, rb), Expr::Const(1)),
        _ => return None,
    };
    Some(Expr::ite(
        Expr::bin(BinOp::Gt, n.clone(), Expr::Const(0)),
        n,
        Expr::Const(0),
    ))
}

/// The number of iterations of a loop whose condition is linear in its
/// counter `k` with a constant coefficient `c` of magnitude 2 or more,
/// true for the first iterations and false from some trip on (`c * k + r
/// <= E` of `for (p = r; p <= E; p += c)`, `<`, and `E - c * k >= r`,
/// `>`): `m / c + 1` iterations where `c * k <= m` is the condition, none
/// when `m < 0` (so the quotient is of a value that is not negative, where
/// C's and the solver's division agree). `None` for any other condition.
fn strided_trip_count(guard: &Expr, counter: &Var) -> Option<Expr> {
    let Expr::Bin(op, a, b) = guard else {
        return None;
    };
    let (ca, ra) = linear_in(a, counter)?;
    let (cb, rb) = linear_in(b, counter)?;
    let coef = ca.checked_sub(cb)?;
    if depends_on_trip(&ra, counter) || depends_on_trip(&rb, counter) {
        return None;
    }
    // `c * k <= m`, with `c >= 2`.
    let (c, m) = match (op, coef) {
        (BinOp::Le, c) if c >= 2 => (c, Expr::bin(BinOp::Sub, rb, ra)),
        (BinOp::Lt, c) if c >= 2 => (c, Expr::add(Expr::bin(BinOp::Sub, rb, ra), Expr::Const(-1))),
        (BinOp::Ge, c) if c <= -2 => (c.checked_neg()?, Expr::bin(BinOp::Sub, ra, rb)),
        (BinOp::Gt, c) if c <= -2 => (
            c.checked_neg()?,
            Expr::add(Expr::bin(BinOp::Sub, ra, rb), Expr::Const(-1)),
        ),
        _ => return None,
    };
    Some(Expr::ite(
        Expr::bin(BinOp::Ge, m.clone(), Expr::Const(0)),
        Expr::add(Expr::bin(BinOp::Div, m, Expr::Const(c)), Expr::Const(1)),
        Expr::Const(0),
    ))
}

/// `e` as `coef * k + rest` with `rest` free of the counter `k`, when `e` is
/// built from `k` by sums, differences, negation and constant factors.
fn linear_in(e: &Expr, counter: &Var) -> Option<(i64, Expr)> {
    if !e.mentions(&mut |v| v == counter) {
        return Some((0, e.clone()));
    }
    match e {
        Expr::Var(v) if v == counter => Some((1, Expr::Const(0))),
        Expr::Bin(BinOp::Add, a, b) => {
            let (ca, ra) = linear_in(a, counter)?;
            let (cb, rb) = linear_in(b, counter)?;
            Some((ca.checked_add(cb)?, Expr::add(ra, rb)))
        }
        Expr::Bin(BinOp::Sub, a, b) => {
            let (ca, ra) = linear_in(a, counter)?;
            let (cb, rb) = linear_in(b, counter)?;
            Some((ca.checked_sub(cb)?, Expr::bin(BinOp::Sub, ra, rb)))
        }
        Expr::Un(UnOp::Neg, a) => {
            let (ca, ra) = linear_in(a, counter)?;
            Some((ca.checked_neg()?, Expr::un(UnOp::Neg, ra)))
        }
        Expr::Bin(BinOp::Mul, a, b) => {
            let (c, x) = match (a.as_const(), b.as_const()) {
                (Some(c), _) => (c, b),
                (_, Some(c)) => (c, a),
                _ => return None,
            };
            let (cx, rx) = linear_in(x, counter)?;
            Some((cx.checked_mul(c)?, Expr::mul(Expr::Const(c), rx)))
        }
        _ => None,
    }
}

/// The jumps a piece of code holds, syntactically: a `break`, `return` or
/// `goto` (`leaves`: the loop around it may be left other than by its
/// condition; a `break` of an inner loop or switch counts too:
/// conservative), and a `continue` (of this loop or an inner one).
#[derive(Clone, Copy, Default)]
pub(super) struct Jumps {
    pub(super) leaves: bool,
    pub(super) continues: bool,
}

/// The jumps below `node` (`node` included).
///
/// `memo` holds the answer for each loop statement already walked (by node
/// id), as for `assigned_names`: each loop of a nest asks about its body,
/// and walking the whole body from every enclosing loop made deep loop nests
/// quadratic.
pub(super) fn jumps(node: Node, memo: &mut HashMap<usize, Jumps>) -> Jumps {
    let is_loop = |n: &Node| {
        matches!(
            n.kind(),
            "for_statement" | "while_statement" | "do_statement"
        )
    };
    if is_loop(&node) {
        if let Some(known) = memo.get(&node.id()) {
            return *known;
        }
    }
    let mut out = Jumps::default();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n != node && is_loop(&n) {
            let inner = jumps(n, memo);
            out.leaves |= inner.leaves;
            out.continues |= inner.continues;
            continue;
        }
        match n.kind() {
            "break_statement" | "return_statement" | "goto_statement" => out.leaves = true,
            "continue_statement" => out.continues = true,
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    if is_loop(&node) {
        memo.insert(node.id(), out);
    }
    out
}

pub(super) fn induction_value(v: &Value, u: &Update, k: &Expr) -> Value {
    let closed = |x0: &Expr| -> Expr {
        match u {
            Update::Add(c) => stepped(x0, c, k),
            Update::Pow2Up(m) => Expr::mul(
                x0.clone(),
                Expr::Pow2(Arc::new(Expr::mul(Expr::Const(*m), k.clone()))),
            ),
            Update::Pow2Down(m) => Expr::bin(
                BinOp::Shr,
                x0.clone(),
                Expr::mul(Expr::Const(*m), k.clone()),
            ),
            _ => x0.clone(),
        }
    };
    match v {
        Value::Int(e) => Value::Int(closed(e)),
        Value::Ptr(p) => {
            let delta = Expr::bin(BinOp::Sub, closed(&p.offset), p.offset.clone());
            Value::Ptr(Ptr {
                array: p.array,
                others: p.others.clone(),
                offset: closed(&p.offset),
                inner: Expr::add(p.inner.clone(), delta),
                level: p.level,
                view: p.view.clone(),
            })
        }
        other => other.clone(),
    }
}

/// Names of locals a piece of code may assign (syntactically).
///
/// The walk stops `MAX_DEPTH` levels below `node`: nothing deeper is ever
/// lowered (the lowering refuses it as "nested too deeply", so the kernel is
/// not verified anyway), and walking it from every enclosing loop made deep
/// loop nests quadratic (10,000 nested `for` loops took 12 s).
///
/// `memo` holds the answer for each loop statement already walked (by node
/// id): a loop nest `n` deep asks once per loop, and each loop's answer is
/// made from its inner loops' answers, so the nest is walked once, not `n`
/// times (which made the benchmark's 50-deep loop nests quadratic). A loop
/// met below `node` is walked from itself, so its answer may reach deeper
/// than `MAX_DEPTH` below `node`: more names, never fewer.
pub(super) fn assigned_names(
    node: Node,
    src: &str,
    file: &FileContext,
    memo: &mut HashMap<usize, HashSet<String>>,
) -> HashSet<String> {
    let is_loop = |n: &Node| {
        matches!(
            n.kind(),
            "for_statement" | "while_statement" | "do_statement"
        )
    };
    if is_loop(&node) {
        if let Some(known) = memo.get(&node.id()) {
            return known.clone();
        }
    }
    let mut out = HashSet::new();
    let mut stack = vec![(node, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if depth > 0 && is_loop(&n) {
            let inner = assigned_names(n, src, file, memo);
            out.extend(inner);
            continue;
        }
        match n.kind() {
            "assignment_expression" => {
                if let Some(l) = n.field("left") {
                    if let Some(path) = local_path(l, src) {
                        out.insert(path);
                    }
                }
            }
            "update_expression" => {
                if let Some(a) = n.field("argument") {
                    if let Some(path) = local_path(a, src) {
                        out.insert(path);
                    }
                }
            }
            "pointer_expression" if n.field("operator").map(|o| node_text(src, o)) == Some("&") => {
                if let Some(a) = n.field("argument") {
                    if a.kind() == "identifier" {
                        out.insert(node_text(src, a).to_string());
                    }
                }
            }
            "call_expression" => {
                // A method may change any member of its object; any call
                // inside a method may be one of `this`'s.
                match n.field("function") {
                    Some(f) if f.kind() == "field_expression" => {
                        if let Some(path) = f.field("argument").and_then(|a| local_path(a, src)) {
                            out.insert(path);
                        }
                        out.insert("this".to_string());
                    }
                    Some(_) => {
                        out.insert("this".to_string());
                    }
                    None => {}
                }
                // Arguments of a method (it may take them by reference), and
                // members passed to any call (objects by reference).
                let is_method = n.field("function").is_some_and(|f| {
                    f.kind() == "field_expression"
                        || file
                            .structs
                            .values()
                            .any(|s| s.declared.iter().any(|m| m == node_text(src, f)))
                });
                if let Some(args) = n.field("arguments") {
                    let mut c = args.walk();
                    for a in args.named_children(&mut c) {
                        if let Some(path) =
                            local_path(a, src).filter(|p| is_method || p.contains('.'))
                        {
                            out.insert(path);
                        }
                    }
                }
                // Arguments bound to reference parameters of known functions.
                let fname = n.field("function").map(|f| node_text(src, f).to_string());
                if let Some(def) = fname.and_then(|f| file.functions.get(&f)) {
                    let params: Vec<bool> = function_params(def.node)
                        .iter()
                        .map(|pd| {
                            pd.field("declarator")
                                .map(|d| contains_kind(d, "reference_declarator"))
                                .unwrap_or(false)
                        })
                        .collect();
                    if let Some(args) = n.field("arguments") {
                        let mut c = args.walk();
                        let args = args
                            .named_children(&mut c)
                            .filter(|a| a.kind() != "comment");
                        for (i, a) in args.enumerate() {
                            if params.get(i).copied().unwrap_or(false) && a.kind() == "identifier" {
                                out.insert(node_text(src, a).to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        if depth < MAX_DEPTH {
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c).map(|ch| (ch, depth + 1)));
        }
    }
    if is_loop(&node) {
        memo.insert(node.id(), out.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loop statements of `src`, outermost first.
    fn loops_of(tree: &tree_sitter::Tree) -> Vec<Node<'_>> {
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if matches!(n.kind(), "for_statement" | "while_statement") {
                out.push(n);
            }
            let mut c = n.walk();
            let children: Vec<Node> = n.named_children(&mut c).collect();
            stack.extend(children.into_iter().rev());
        }
        out
    }

    /// The strided trip count against the loop run by hand, for bounds on
    /// both sides of the start, both directions and the four comparisons.
    #[test]
    fn strided_trip_counts_match_the_loops_they_count() {
        let k = Var::new("k@0", VarKind::Counter { pow2: false });
        let b = Var::new(
            "b",
            VarKind::Param {
                lo: i64::from(i32::MIN),
                hi: i64::from(i32::MAX),
            },
        );
        let e = Var::new(
            "e",
            VarKind::Param {
                lo: i64::from(i32::MIN),
                hi: i64::from(i32::MAX),
            },
        );
        let kv = Expr::Var(k.clone());
        for step in [2i64, 3, 16, -2, -5] {
            // `p = b + step * k`.
            let p = Expr::add(
                Expr::Var(b.clone()),
                Expr::mul(Expr::Const(step), kv.clone()),
            );
            for op in [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge] {
                let guard = Expr::bin(op, p.clone(), Expr::Var(e.clone()));
                let n = strided_trip_count(&guard, &k);
                let runs_while = |pv: i64, ev: i64| match op {
                    BinOp::Lt => pv < ev,
                    BinOp::Le => pv <= ev,
                    BinOp::Gt => pv > ev,
                    _ => pv >= ev,
                };
                // Only loops that stop: `<`/`<=` growing, `>`/`>=` shrinking.
                let stops = matches!(op, BinOp::Lt | BinOp::Le) == (step > 0);
                let Some(n) = n else {
                    assert!(!stops, "step {step} {op:?} not counted");
                    continue;
                };
                assert!(stops, "step {step} {op:?} counted but never stops");
                for bv in -40i64..40 {
                    for ev in -40i64..40 {
                        let mut trips = 0;
                        while runs_while(bv + step * trips, ev) {
                            trips += 1;
                        }
                        let got = crate::verify::replay::eval_expr(
                            &n,
                            &|v: &Var| match &*v.name {
                                "b" => Some(bv),
                                "e" => Some(ev),
                                _ => None,
                            },
                            false,
                        );
                        assert_eq!(got, Some(trips), "step {step} {op:?} b {bv} e {ev}");
                    }
                }
            }
        }
    }

    #[test]
    fn jumps_of_nested_bodies_innermost_first_as_lowering_asks() {
        let src = "void f(int n) {\n\
                   for (int a = 0; a < n; a++) {\n\
                     for (int b = 0; b < n; b++) {\n\
                       while (n) { if (b) continue; }\n\
                       for (int c = 0; c < n; c++) { if (c) break; }\n\
                     }\n\
                   }\n\
                   for (int d = 0; d < n; d++) { n--; }\n\
                   }\n";
        let tree = crate::syntax::parse(src, None);
        let loops = loops_of(&tree);
        assert_eq!(loops.len(), 5);
        // Innermost first (each loop asks when its body is lowered), then
        // again in another order: the memo gives the same answers.
        for order in [[3, 2, 1, 0, 4], [0, 4, 1, 2, 3]] {
            let mut memo = HashMap::new();
            let got: Vec<(usize, bool, bool)> = order
                .iter()
                .map(|&i| {
                    let body = loops[i].field("body").expect("loop body");
                    let j = jumps(body, &mut memo);
                    (i, j.leaves, j.continues)
                })
                .collect();
            for (i, leaves, continues) in got {
                let want = match i {
                    0 | 1 => (true, true),
                    2 => (false, true),
                    3 => (true, false),
                    _ => (false, false),
                };
                assert_eq!((leaves, continues), want, "loop {i}, order {order:?}");
            }
        }
    }
}
