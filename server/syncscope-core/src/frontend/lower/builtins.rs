//! CUDA builtins: barriers (`__syncthreads`, `__syncwarp`), atomics, warp
//! intrinsics, bit-counting intrinsics with their ranges, cuRAND's state
//! updates, math functions known to be free of side effects; the
//! specification language (`spec`) and cooperative groups (`groups`) are
//! dispatched from here. Must not inline user functions (that is `calls`).

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn named_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Value {
        if let Some(v) = self.spec_call(name, node, args) {
            return v;
        }
        if let Some(v) = self.group_call(name, node, args, template_args) {
            return v;
        }
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
                let _ = self.warp_barrier_width(32, node);
                self.barrier(BarrierKind::Warp, node, stmt_node, false, partial);
                return Value::Int(Expr::Const(0));
            }
            "__threadfence"
            | "__threadfence_block"
            | "__threadfence_system"
            | "printf"
            | "__nanosleep"
            | "__prefetch_global_l1" => {
                for a in args {
                    self.eval(*a);
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
        if let Some(v) = self.bit_builtin(name, args) {
            return v;
        }
        if let Some(v) = self.curand_call(name, node, args) {
            return v;
        }
        if args.is_empty() && varies_per_thread(name) {
            return Value::Int(self.fresh_unknown(name, Scope::Thread));
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
                    self.note_atomic_target(p.array, node);
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

    /// Bit-counting intrinsics: side-effect free, per thread, with the
    /// range of their result (a count of bits of a 32- or 64-bit word).
    fn bit_builtin(&mut self, name: &str, args: &[Node]) -> Option<Value> {
        let hi = match name {
            "__popc" | "__clz" | "__ffs" => 32,
            "__popcll" | "__clzll" | "__ffsll" => 64,
            "__brev" => u32::MAX as i64,
            "__brevll" => i64::MAX,
            _ => return None,
        };
        let mut scope = Scope::Grid;
        for a in args {
            let v = self.eval(*a);
            scope = scope.max(match v {
                Value::Int(e) => e.scope(),
                _ => Scope::Thread,
            });
        }
        let Expr::Var(v) = self.fresh_unknown(name, scope) else {
            return None;
        };
        Some(Value::Int(Expr::Var(Var::new(
            v.name,
            VarKind::Unknown { scope, lo: 0, hi },
        ))))
    }

    /// cuRAND's device API: a generator call reads and updates the state it
    /// is given (`curand(&states[id])`), `curand_init` writes it; the number
    /// drawn is unknown. A state that is a local of the thread is handled
    /// like any local passed by address (the generic path havocs it).
    fn curand_call(&mut self, name: &str, node: Node, args: &[Node]) -> Option<Value> {
        let state_at = match name {
            "curand_init" => 3,
            "curand"
            | "curand_uniform"
            | "curand_uniform_double"
            | "curand_normal"
            | "curand_normal_double"
            | "curand_normal2"
            | "curand_normal4"
            | "curand_uniform4"
            | "curand_log_normal"
            | "curand_log_normal_double"
            | "curand_poisson"
            | "skipahead"
            | "skipahead_sequence" => {
                if name.starts_with("skipahead") {
                    1
                } else {
                    0
                }
            }
            _ => return None,
        };
        let state = *args.get(state_at)?;
        if self.is_address_of(state) {
            let target = state.field("argument")?;
            if matches!(self.lvalue(target), Some(LValue::Local { .. })) {
                return None;
            }
        }
        for (i, a) in args.iter().enumerate() {
            if i != state_at {
                self.eval(*a);
            }
        }
        match self.eval(state) {
            Value::Ptr(p) => {
                if let LValue::Mem { ptr, bounds } =
                    self.subscript(p, Expr::Const(0), &mut Vec::new())
                {
                    let t = self.text(node);
                    if name != "curand_init" {
                        self.record_access(AccessKind::Read, &ptr, &bounds, Some(node), &t);
                    }
                    self.record_access(AccessKind::Write, &ptr, &bounds, Some(node), &t);
                }
            }
            Value::Opaque(r) => self.unsupported(node, format!("cuRAND state: {r}")),
            _ => {}
        }
        Some(Value::Int(self.fresh_unknown(name, Scope::Thread)))
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
        if let Some((copy, _)) = self.async_pending.first() {
            let line = copy.start.line + 1;
            self.unsupported(
                node,
                format!("barrier while an asynchronous copy (line {line}) is in flight"),
            );
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

/// Builtins without arguments whose value differs between threads (an
/// opaque call without arguments would otherwise count as grid-uniform).
fn varies_per_thread(name: &str) -> bool {
    matches!(
        name,
        "__activemask"
            | "clock"
            | "clock64"
            | "__globaltimer"
            | "__lanemask_lt"
            | "__lanemask_le"
            | "__lanemask_eq"
            | "__lanemask_gt"
            | "__lanemask_ge"
            | "__laneid"
            | "__smid"
            | "__warpid"
    )
}
