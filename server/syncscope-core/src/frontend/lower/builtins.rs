//! CUDA builtins: barriers (`__syncthreads`, `__syncwarp`, cooperative
//! groups), atomics, warp intrinsics, math functions known to be free of
//! side effects. Must not inline user functions (that is `calls`).

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn named_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Value {
        let stmt_node = node
            .parent()
            .filter(|p| p.kind() == "expression_statement")
            .unwrap_or(node);
        match name {
            "__syncthreads" => {
                self.barrier(BarrierKind::Block, node, stmt_node, false, false);
                return Value::Int(Expr::Const(0));
            }
            "__syncthreads_count" | "__syncthreads_and" | "__syncthreads_or" => {
                for a in args {
                    self.eval(*a);
                }
                self.barrier(BarrierKind::Block, node, stmt_node, true, false);
                return Value::Int(self.fresh_unknown(name, Scope::Block));
            }
            "__syncwarp" => {
                let partial = match args.first() {
                    None => false,
                    Some(a) => {
                        !matches!(self.eval(*a), Value::Int(Expr::Const(c)) if c == 0xffff_ffff || c == -1)
                    }
                };
                self.barrier(BarrierKind::Warp, node, stmt_node, false, partial);
                return Value::Int(Expr::Const(0));
            }
            "__threadfence"
            | "__threadfence_block"
            | "__threadfence_system"
            | "printf"
            | "__nanosleep"
            | "__ensures"
            | "__invariant"
            | "__global_invariant"
            | "__prefetch_global_l1" => {
                for a in args {
                    self.eval(*a);
                }
                return Value::Int(Expr::Const(0));
            }
            "__requires" | "__assume" | "__builtin_assume" | "assert" | "__assert" => {
                if let Some(a) = args.first() {
                    let c = self.eval_cond(*a);
                    let has_counter =
                        c.mentions(&mut |v| matches!(v.kind, VarKind::Counter { .. }));
                    if !has_counter && self.dry == 0 {
                        let g = self.guard();
                        self.assumptions.push(Expr::or(Expr::not(g), c));
                    }
                }
                return Value::Int(Expr::Const(0));
            }
            "this_thread_block" => return Value::Group(GroupKind::Block),
            "this_grid" => return Value::Group(GroupKind::Grid),
            "tiled_partition" | "coalesced_threads" | "this_thread" => {
                for a in args {
                    self.eval(*a);
                }
                return Value::Group(GroupKind::Warp);
            }
            "sync" if !args.is_empty() => {
                if let Value::Group(g) = self.eval(args[0]) {
                    return self.group_method(g, "sync", node);
                }
                return Value::Int(Expr::Const(0));
            }
            "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast" | "__ldg"
            | "__ldcg" | "__ldca" | "__ldcs" | "__ldlu" | "__ldcv" => {
                if name.starts_with("__ld") {
                    if let Some(a) = args.first() {
                        if let Value::Ptr(p) = self.eval(*a) {
                            let t = self.text(node);
                            let lv = self.subscript(p, Expr::Const(0), &mut Vec::new());
                            return self.read_lvalue(&lv, &t, Some(node));
                        }
                    }
                    return Value::Int(self.fresh_unknown(name, Scope::Thread));
                }
                return match args.first() {
                    Some(a) => self.eval(*a),
                    None => Value::Int(Expr::Const(0)),
                };
            }
            "min" | "max" | "umin" | "umax" | "llmin" | "llmax" | "ullmin" | "ullmax"
                if args.len() == 2 =>
            {
                let a = self.eval(args[0]);
                let b = self.eval(args[1]);
                let op = if name.ends_with("min") {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                return self.arith(op, a, b);
            }
            "abs" | "llabs" if args.len() == 1 => {
                let v = self.eval(args[0]);
                let e = self.int_of(v, "abs");
                let neg = Expr::bin(BinOp::Lt, e.clone(), Expr::Const(0));
                return Value::Int(Expr::ite(neg, Expr::un(UnOp::Neg, e.clone()), e));
            }
            "__mul24" | "__umul24" if args.len() == 2 => {
                let a = self.eval(args[0]);
                let b = self.eval(args[1]);
                return self.arith(BinOp::Mul, a, b);
            }
            _ => {}
        }
        if atomic_base(name).is_some() {
            let mut ptr_value = None;
            for (i, a) in args.iter().enumerate() {
                let v = self.eval(*a);
                if i == 0 {
                    ptr_value = Some(v);
                }
            }
            match ptr_value {
                Some(Value::Ptr(p)) => {
                    let lv = self.subscript(p, Expr::Const(0), &mut Vec::new());
                    if let LValue::Mem { ptr, bounds } = lv {
                        let t = self.text(node);
                        self.record_access(AccessKind::Atomic, &ptr, &bounds, Some(node), &t);
                    }
                }
                Some(Value::Opaque(r)) => self.unsupported(node, r),
                _ => {}
            }
            return Value::Int(self.fresh_unknown(name, Scope::Thread));
        }
        if let Some(m) = self
            .file
            .macros
            .get(name)
            .filter(|m| m.params.is_some())
            .cloned()
        {
            let params = m.params.clone().unwrap_or_default();
            let mut body = m.body.clone();
            let arg_texts: Vec<String> = args.iter().map(|a| self.text(*a)).collect();
            body = substitute_params(&body, &params, &arg_texts);
            let span = self.span(node);
            if let Some(v) = self.eval_snippet(&body, Some(span)) {
                return v;
            }
            return Value::Int(self.fresh_unknown(name, Scope::Thread));
        }
        if let Some(def) = self
            .file
            .functions
            .get(name)
            .filter(|f| !f.is_kernel)
            .cloned()
        {
            let targs = template_args.map(|t| {
                let mut c = t.walk();
                t.named_children(&mut c)
                    .map(|n| self.text(n))
                    .collect::<Vec<_>>()
            });
            return self.inline(&def, node, args, targs, None);
        }
        // An opaque call: its arguments are still evaluated.
        let mut scope = Scope::Grid;
        for a in args {
            // An object holding a pointer: the callee may write through it.
            if let Some(obj) = self.object_path(*a) {
                if self.object_holds_pointer(&obj) {
                    self.unsupported(
                        node,
                        format!(
                            "call to `{name}` (body not available) with a `{}` object holding a pointer",
                            obj.2
                        ),
                    );
                }
                scope = Scope::Thread;
                continue;
            }
            // `&x` of a local: the callee may write `x`.
            if self.is_address_of(*a) {
                if let Some(target) = a.field("argument").filter(|t| t.kind() == "identifier") {
                    if let Some(obj) = self.object_path(target) {
                        self.unsupported(
                            node,
                            format!(
                                "call to `{name}` (body not available) with the address of a `{}` object",
                                obj.2
                            ),
                        );
                        scope = Scope::Thread;
                        continue;
                    }
                    if let Some(LValue::Local {
                        scope: s,
                        name: local,
                    }) = self.lvalue(target)
                    {
                        let old = self.scopes.get(s).and_then(|sc| sc.get(&local)).cloned();
                        let new = match old {
                            Some(Value::Ptr(_) | Value::Opaque(_)) => Value::Opaque(format!(
                                "pointer `{local}` set by a call to `{name}` (body not available)"
                            )),
                            Some(Value::Int(_)) => Value::Int(
                                self.fresh_unknown(&format!("{local}@{name}"), Scope::Thread),
                            ),
                            _ => continue,
                        };
                        self.scopes[s].insert(local, new);
                        scope = Scope::Thread;
                        continue;
                    }
                }
            }
            match self.eval(*a) {
                Value::Int(e) => scope = scope.max(e.scope()),
                Value::Ptr(p) => {
                    let arr = self.arrays[p.array].name.clone();
                    if is_side_effect_free_math(name) {
                        continue;
                    }
                    self.unsupported(
                        node,
                        format!(
                            "call to `{name}` (body not available) with a pointer into `{arr}`"
                        ),
                    );
                    scope = Scope::Thread;
                }
                Value::Opaque(r) if !is_side_effect_free_math(name) => {
                    self.unsupported(
                        node,
                        format!(
                            "call to `{name}` (body not available) with a pointer argument: {r}"
                        ),
                    );
                    scope = Scope::Thread;
                }
                _ => scope = Scope::Thread,
            }
        }
        Value::Int(self.fresh_unknown(name, scope))
    }

    pub(super) fn group_method(&mut self, g: GroupKind, method: &str, node: Node) -> Value {
        let stmt_node = node
            .parent()
            .filter(|p| p.kind() == "expression_statement")
            .unwrap_or(node);
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
        match method {
            "sync" | "barrier_wait" => {
                let kind = match g {
                    GroupKind::Warp => BarrierKind::Warp,
                    GroupKind::Block => BarrierKind::Block,
                    GroupKind::Grid => BarrierKind::Grid,
                };
                self.barrier(kind, node, stmt_node, false, false);
                Value::Int(Expr::Const(0))
            }
            "thread_rank" => match g {
                GroupKind::Block => Value::Int(linear),
                GroupKind::Warp => Value::Int(Expr::bin(BinOp::Rem, linear, Expr::Const(32))),
                GroupKind::Grid => {
                    let bid = Expr::Var(Var::new("blockIdx.x", VarKind::BlockIdx(0)));
                    let size = Expr::mul(bdim(0), Expr::mul(bdim(1), bdim(2)));
                    Value::Int(Expr::add(Expr::mul(bid, size), linear))
                }
            },
            "size" | "num_threads" => match g {
                GroupKind::Block => Value::Int(Expr::mul(bdim(0), Expr::mul(bdim(1), bdim(2)))),
                GroupKind::Warp => Value::Int(Expr::Const(32)),
                GroupKind::Grid => Value::Int(self.fresh_unknown("grid_size", Scope::Grid)),
            },
            "thread_index" => Value::Dim3(0),
            "group_index" => Value::Dim3(1),
            "group_dim" | "dim_threads" => Value::Dim3(2),
            "is_valid" => Value::Int(Expr::tru()),
            _ => Value::Int(self.fresh_unknown(method, Scope::Thread)),
        }
    }

    pub(super) fn barrier(
        &mut self,
        kind: BarrierKind,
        node: Node,
        stmt: Node,
        has_value: bool,
        partial_mask: bool,
    ) {
        if self.dry > 0 {
            return;
        }
        let id = self.next_barrier;
        self.next_barrier += 1;
        let b = Barrier {
            id,
            kind,
            guard: self.guard(),
            span: self.span(node),
            stmt_span: self.span(stmt),
            has_value,
            partial_mask,
            conditions: self.cond_spans.clone(),
            loops: self.loops.clone(),
        };
        self.emit(Stmt::Barrier(b));
    }
}

pub(super) fn atomic_base(name: &str) -> Option<&str> {
    let base = name
        .strip_suffix("_block")
        .or_else(|| name.strip_suffix("_system"))
        .unwrap_or(name);
    matches!(
        base,
        "atomicAdd"
            | "atomicSub"
            | "atomicExch"
            | "atomicMin"
            | "atomicMax"
            | "atomicInc"
            | "atomicDec"
            | "atomicAnd"
            | "atomicOr"
            | "atomicXor"
            | "atomicCAS"
    )
    .then_some(base)
}

pub(super) fn is_side_effect_free_math(name: &str) -> bool {
    matches!(name, "__popc" | "__clz" | "__ffs" | "sizeof")
}
