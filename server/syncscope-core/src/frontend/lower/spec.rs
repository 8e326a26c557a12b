//! GPUVerify's in-kernel specification language: what the user assumes
//! (`__requires`, `__assume`), what must be checked (`__assert`, loop
//! invariants, preconditions of inlined device functions) and the
//! predicates they are written with (`__implies`, `__enabled`, the
//! two-thread `__other_*`/`__uniform_*`/`__distinct_*`/`__same_group`).
//! Access predicates (`__write_implies`, `__no_read`...) are invariants that
//! help GPUVerify's loop abstraction; Syncscope's loop model needs none, so
//! they are neither assumed nor checked, and the report says so. Launch
//! header lines are not parsed here (`directives` owns in-file directives).

use super::*;

/// GPUVerify's access predicates: they speak of the accesses made so far,
/// which a value-level condition cannot express.
const ACCESS_PREDICATES: [&str; 10] = [
    "__write_implies",
    "__read_implies",
    "__atomic_implies",
    "__no_read",
    "__no_write",
    "__read_offset_bytes",
    "__write_offset_bytes",
    "__read",
    "__write",
    "__atomic",
];

impl<'a, 't> Lowerer<'a, 't> {
    /// Lowers a call of the specification language; `None` when `name` is
    /// not part of it.
    pub(super) fn spec_call(&mut self, name: &str, node: Node, args: &[Node]) -> Option<Value> {
        if ACCESS_PREDICATES.contains(&name) {
            for a in args {
                self.eval(*a);
            }
            if self.spec_depth == 0 {
                self.unsupported(node, format!("`{name}` outside a specification"));
            }
            // The outermost predicate names the construct (its arguments are
            // evaluated, and may set it, first).
            self.spec_access_predicate = Some(name.to_string());
            return Some(Value::Int(self.fresh_bool(name, Scope::Thread)));
        }
        let value = match name {
            // annotations.scm's names; `spec_claim` gives each its meaning.
            _ if crate::syntax::queries::is_specification(name) => {
                self.spec_claim(name, node, args);
                Value::Int(Expr::Const(0))
            }
            "__implies" if args.len() == 2 => {
                let a = self.eval_cond(args[0]);
                let b = self.eval_cond(args[1]);
                Value::Int(Expr::or(Expr::not(a), b))
            }
            "__enabled" if self.loop_head > 0 && self.spec_depth > 0 => {
                // At a loop head the thread is enabled when it is still in
                // the loop, which only the loop's condition tells: a marker
                // that `close_loop_head_claims` replaces.
                Value::Int(Expr::and(self.guard(), Expr::Var(head_marker())))
            }
            "__enabled" => Value::Int(self.guard()),
            "__other_int" | "__other_bool" | "__other_unsigned" if args.len() == 1 => {
                let e = self.spec_operand(name, node, args[0]);
                Value::Int(other_thread(&e))
            }
            "__uniform_int" | "__uniform_bool" | "__uniform_unsigned" if args.len() == 1 => {
                let e = self.spec_operand(name, node, args[0]);
                Value::Int(Expr::eq(e.clone(), other_thread(&e)))
            }
            "__distinct_int" | "__distinct_bool" | "__distinct_unsigned" if args.len() == 1 => {
                let e = self.spec_operand(name, node, args[0]);
                Value::Int(Expr::bin(BinOp::Ne, e.clone(), other_thread(&e)))
            }
            "__add_noovfl" | "__add_noovfl_int" | "__add_noovfl_unsigned" if args.len() == 2 => {
                // The model's integers are mathematical: the sum never wraps,
                // which is what the predicate promises.
                let a = self.eval(args[0]);
                let b = self.eval(args[1]);
                self.arith(BinOp::Add, a, b)
            }
            "__distinct" | "__sorted" => {
                // Only the whole condition of an assumption (`spec_claim`):
                // negated or in a disjunction it is no fact to assume.
                for a in args {
                    self.eval(*a);
                }
                self.unsupported(
                    node,
                    format!("`{name}` other than as the whole condition of a `__requires`"),
                );
                Value::Int(self.fresh_bool(name, Scope::Thread))
            }
            "__is_pow2" if args.len() == 1 => {
                let v = self.eval(args[0]);
                let x = self.int_of(v, name);
                let minus_one = Expr::bin(BinOp::Sub, x.clone(), Expr::Const(1));
                Value::Int(Expr::and(
                    Expr::bin(BinOp::Gt, x.clone(), Expr::Const(0)),
                    Expr::eq(Expr::bin(BinOp::BitAnd, x, minus_one), Expr::Const(0)),
                ))
            }
            _ => return None,
        };
        Some(value)
    }

    /// Claims written in a loop's condition (`while (__invariant(p), c)`,
    /// GPUVerify's loop-head position) are invariants of the loop head: at
    /// iteration k they are reached when the condition held at k - 1.
    pub(super) fn close_loop_head_claims(&mut self, from: usize, counter: &Var, cond: &Expr) {
        let k = Expr::Var(counter.clone());
        let before = cond.subst(&mut |v: &Var| {
            (v == counter).then(|| Expr::bin(BinOp::Sub, k.clone(), Expr::Const(1)))
        });
        let reached = Expr::or(Expr::eq(k.clone(), Expr::Const(0)), before);
        let marker = head_marker();
        let other_marker = Var::new(format!("{}{OTHER_THREAD}", marker.name), marker.kind);
        let other_reached = other_thread(&reached);
        for a in self.assertions.iter_mut().skip(from) {
            // GPUVerify: an assertion at the loop head is an invariant.
            a.kind = AssertionKind::Invariant;
            a.cond = a.cond.subst(&mut |v: &Var| {
                if *v == marker {
                    Some(reached.clone())
                } else if *v == other_marker {
                    Some(other_reached.clone())
                } else {
                    None
                }
            });
            a.guard = Expr::and(a.guard.clone(), reached.clone());
            a.head = Some((counter.clone(), cond.clone()));
        }
    }

    /// `__same_group`: the other thread of the query is in this block.
    pub(super) fn same_group(&mut self) -> Value {
        let mut same = Expr::tru();
        for d in 0..3u8 {
            let b = Expr::Var(Var::new(
                format!("blockIdx.{}", DIMS[d as usize]),
                VarKind::BlockIdx(d),
            ));
            same = Expr::and(same, Expr::eq(b.clone(), other_thread(&b)));
        }
        Value::Int(same)
    }

    /// The operand of a two-thread predicate, which only a specification
    /// may use: as a value it would need the other thread's state.
    fn spec_operand(&mut self, name: &str, node: Node, arg: Node) -> Expr {
        let v = self.eval(arg);
        if self.spec_depth == 0 {
            self.unsupported(
                node,
                format!("`{name}` outside a specification (a value of another thread)"),
            );
        }
        self.int_of(v, name)
    }

    /// One specification statement: evaluated, then assumed, checked or
    /// set aside with a note.
    fn spec_claim(&mut self, name: &str, node: Node, args: &[Node]) {
        let Some(arg) = args.first() else {
            return;
        };
        if let Some((predicate, operands)) = self.input_order_call(*arg) {
            self.input_order_claim(name, node, predicate, &operands);
            return;
        }
        let text = self.text(node);
        self.spec_depth += 1;
        let outer_predicate = self.spec_access_predicate.take();
        let cond = self.eval_cond(*arg);
        let access_predicate = std::mem::replace(&mut self.spec_access_predicate, outer_predicate);
        self.spec_depth -= 1;
        for a in &args[1..] {
            self.eval(*a);
        }
        if self.dry > 0 {
            return;
        }
        let span = self.span(node);
        let in_device_function = !self.call_stack.is_empty();
        let guard = self.guard();
        let check = |lw: &mut Self, kind: AssertionKind| {
            lw.assertions.push(Assertion {
                kind,
                cond: cond.clone(),
                guard: guard.clone(),
                span,
                text: text.clone(),
                loops: lw.loops.clone(),
                head: None,
                call_site: match kind {
                    AssertionKind::Precondition => lw.call_sites.last().copied(),
                    _ => None,
                },
            });
        };
        // A C `assert` about what an atomic returned is a claim about the
        // schedule, not about the kernel's inputs: assuming it would assume
        // a lucky order, so it is checked under every order (issue 15).
        let on_atomic_result = name == "assert"
            && access_predicate.is_none()
            && cond.mentions(&mut |v| self.atomic_ops.iter().any(|o| o.result.as_ref() == Some(v)));
        if on_atomic_result {
            check(self, AssertionKind::Assert);
            return;
        }
        match name {
            "__requires" | "__global_requires" if in_device_function => {
                if let Some(p) = &access_predicate {
                    self.unsupported(
                        node,
                        format!(
                            "precondition with the access predicate `{p}` of an inlined function"
                        ),
                    );
                } else {
                    check(self, AssertionKind::Precondition);
                }
            }
            "__requires" | "__global_requires" | "__assume" | "__builtin_assume" | "assert" => {
                if let Some(p) = &access_predicate {
                    // Assuming less than the user wrote is sound.
                    self.unused_specs.push((
                        span,
                        format!("{text} (the access predicate `{p}` is not modelled)"),
                    ));
                    return;
                }
                let has_counter = cond.mentions(&mut |v| matches!(v.kind, VarKind::Counter { .. }));
                if has_counter {
                    self.unused_specs.push((
                        span,
                        format!("{text} (an assumption inside a loop is not used)"),
                    ));
                    return;
                }
                self.assumptions
                    .push(Expr::or(Expr::not(guard.clone()), cond.clone()));
                let stated = match &self.assumption_origin {
                    // A launch fact reads as the condition the host code
                    // makes true, not as an annotation nobody wrote.
                    Some(origin) => StatedAssumption {
                        span,
                        text: text
                            .strip_prefix("__requires(")
                            .and_then(|t| t.strip_suffix(')'))
                            .unwrap_or(&text)
                            .to_string(),
                        origin: origin.clone(),
                    },
                    None => StatedAssumption {
                        span,
                        text: text.clone(),
                        origin: AssumptionOrigin::Annotation,
                    },
                };
                self.assumption_texts.push(stated);
            }
            "__assert" => match &access_predicate {
                Some(p) => {
                    self.unsupported(node, format!("assertion with the access predicate `{p}`"))
                }
                None => check(self, AssertionKind::Assert),
            },
            "__invariant" | "__global_invariant" if access_predicate.is_none() => {
                check(self, AssertionKind::Invariant)
            }
            _ => {
                // Access invariants, function-wide invariants and
                // postconditions: never assumed, so no verdict rests on them.
                let why = match (&access_predicate, name) {
                    (Some(p), _) => format!("the access predicate `{p}` is not modelled; the loop model needs no access invariant"),
                    (None, "__function_wide_invariant") => "function-wide invariants are not checked".into(),
                    _ => "postconditions are not checked".into(),
                };
                self.unused_specs.push((span, format!("{text} ({why})")));
            }
        }
    }
}

impl<'t> Lowerer<'_, 't> {
    /// `__distinct(a)` / `__sorted(a)` / `__exclusive_scan(a, src)` /
    /// `__inclusive_scan(a, src)`, each with an optional last operand, the
    /// extent the fact covers (`__sorted(keys, n)`), as the whole condition of a claim
    /// (parentheses aside): the predicate's name and its operands. Anywhere
    /// else (negated, in a disjunction) the predicate is no fact to assume,
    /// and `spec_call` makes it a construct the model does not represent.
    fn input_order_call(&self, arg: Node<'t>) -> Option<(&'static str, Vec<Node<'t>>)> {
        let mut e = arg;
        while e.kind() == "parenthesized_expression" {
            e = e.named_child(0)?;
        }
        if e.kind() != "call_expression" {
            return None;
        }
        // The arrays it names, then an optional extent (`__sorted(keys, n)`).
        let (predicate, arrays) = match self.text(e.field("function")?).trim() {
            "__distinct" => ("__distinct", 1),
            "__sorted" => ("__sorted", 1),
            "__exclusive_scan" => ("__exclusive_scan", 2),
            "__inclusive_scan" => ("__inclusive_scan", 2),
            _ => return None,
        };
        let args = e.field("arguments")?;
        (args.named_child_count() == arrays || args.named_child_count() == arrays + 1)
            .then_some(())?;
        let mut c = args.walk();
        Some((predicate, args.named_children(&mut c).collect()))
    }

    /// A claim `__requires(__distinct(a))`: a fact about the contents of
    /// the input array `a`, assumed by the race queries. Only as an
    /// assumption at the kernel's top level (not in a branch or loop, not
    /// a device function's precondition, which would have to be checked
    /// at its call) and of a whole global array; otherwise it is set aside
    /// with why (assuming less than written is sound).
    fn input_order_claim(&mut self, name: &str, node: Node, predicate: &str, operands: &[Node]) {
        let arity = if predicate.ends_with("_scan") { 2 } else { 1 };
        let values: Vec<Value> = operands[..arity].iter().map(|o| self.eval(*o)).collect();
        let extent = operands.get(arity).map(|n| {
            let v = self.eval(*n);
            self.int_of(v, predicate)
        });
        if self.dry > 0 {
            return;
        }
        let span = self.span(node);
        let text = self.text(node);
        let assumed = matches!(
            name,
            "__requires" | "__global_requires" | "__assume" | "__builtin_assume" | "assert"
        );
        let arrays: Vec<ArrayId> = values
            .iter()
            .filter_map(|value| match value {
                Value::Ptr(p)
                    if p.offset == Expr::Const(0)
                        && p.others.is_empty()
                        && p.view.is_none()
                        && self.arrays[p.array].space == MemorySpace::Global =>
                {
                    Some(p.array)
                }
                _ => None,
            })
            .collect();
        let why = if !assumed {
            Some(format!(
                "`{predicate}` is a fact to assume, not a claim to check"
            ))
        } else if !self.call_stack.is_empty() {
            Some("a fact about an input in a device function is not used".to_string())
        } else if self.guard() != Expr::tru() || !self.loops.is_empty() {
            Some("a fact about an input under a condition or in a loop is not used".to_string())
        } else if arrays.len() != values.len() {
            Some(format!(
                "the operand of `{predicate}` is not a global array the kernel is given"
            ))
        } else if extent.as_ref().is_some_and(|e| e.scope() != Scope::Grid) {
            Some(format!(
                "the extent of `{predicate}` is not the same for every thread"
            ))
        } else {
            let kind = match (predicate, arrays.get(1)) {
                ("__distinct", _) => Some(OrderKind::Distinct),
                ("__sorted", _) => Some(OrderKind::Sorted),
                // A scan of itself would be no prefix sum of an input.
                (_, Some(&source)) if source != arrays[0] => Some(OrderKind::Scan {
                    source,
                    inclusive: predicate == "__inclusive_scan",
                }),
                _ => None,
            };
            match kind {
                Some(kind) => {
                    // A launch fact reads as what the host code made true.
                    let (shown, origin) = match &self.assumption_origin {
                        Some(origin) => (
                            text.strip_prefix("__requires(")
                                .and_then(|t| t.strip_suffix(')'))
                                .unwrap_or(&text)
                                .to_string(),
                            origin.clone(),
                        ),
                        None => (text.clone(), AssumptionOrigin::Annotation),
                    };
                    self.input_orders.push((
                        InputOrder {
                            array: arrays[0],
                            kind,
                            extent,
                        },
                        span,
                        shown,
                        origin,
                    ));
                    None
                }
                None => Some(format!("`{predicate}` of an array over itself")),
            }
        };
        if let Some(why) = why {
            self.unused_specs.push((span, format!("{text} ({why})")));
        }
    }
}

/// Stands for "still in the loop" in `__enabled()` at a loop head.
fn head_marker() -> Var {
    Var::new("⟦loop head⟧", VarKind::Shared)
}

/// The same expression for the other thread of the query: every variable
/// is marked, and the verifier renames marked variables of thread 1 to
/// thread 2's and back (variables shared by both threads stay themselves).
pub(super) fn other_thread(e: &Expr) -> Expr {
    e.subst(&mut |v: &Var| {
        if v.name.ends_with(OTHER_THREAD) {
            // The other thread's other thread is this one.
            let base = v.name.trim_end_matches(OTHER_THREAD);
            return Some(Expr::Var(Var::new(base, v.kind)));
        }
        Some(Expr::Var(Var::new(
            format!("{}{OTHER_THREAD}", v.name),
            v.kind,
        )))
    })
}
