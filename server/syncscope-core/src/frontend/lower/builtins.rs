//! CUDA builtins: barriers (`__syncthreads`, `__syncwarp`), atomics, warp
//! intrinsics, bit-counting intrinsics with their ranges, cuRAND's state
//! updates, math functions known to be free of side effects; the
//! specification language (`spec`) and cooperative groups (`groups`) are
//! dispatched from here. Must not inline user functions (that is `calls`).

use super::*;
use crate::syntax::queries::{self, BarrierName};

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn named_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Value {
        // `#define block_sync __syncthreads`: an object-like macro naming a
        // function is that function (the barrier included).
        if let Some(target) = self.macro_alias(name) {
            self.macro_depth += 1;
            let v = self.named_call(&target, node, args, template_args);
            self.macro_depth -= 1;
            return v;
        }
        if let Some(v) = self.spec_call(name, node, args) {
            return v;
        }
        if let Some(v) = self.async_call(name, node, args, template_args) {
            return v;
        }
        if let Some(v) = self.wmma_call(name, node, args) {
            return v;
        }
        if let Some(v) = self.memory_range_call(name, node, args) {
            return v;
        }
        if let Some(v) = self.group_call(name, node, args, template_args) {
            return v;
        }
        let stmt_span = self.statement_span(node);
        // The barrier functions are barriers.scm's names (by kind): the name
        // here is the call's resolved one, which a query cannot see.
        let barrier = |kind| queries::is_barrier(kind, name);
        match name {
            _ if barrier(BarrierName::Block) => {
                self.barrier(BarrierKind::Block, node, stmt_span, false, false);
                return Value::Int(Expr::Const(0));
            }
            _ if barrier(BarrierName::BlockCounting) => {
                for a in args {
                    self.eval(*a);
                }
                self.barrier(BarrierKind::Block, node, stmt_span, true, false);
                return Value::Int(self.fresh_unknown(name, Scope::Block));
            }
            _ if barrier(BarrierName::Warp) => {
                let mask = match args.first() {
                    None => Some(0xffff_ffff),
                    Some(a) => match self.eval(*a) {
                        Value::Int(Expr::Const(c)) => Some(c & 0xffff_ffff),
                        _ => None,
                    },
                };
                if mask == Some(0xffff_ffff) {
                    let _ = self.warp_barrier_width(32, node);
                    self.barrier(BarrierKind::Warp, node, stmt_span, false, false);
                } else if let Some((width, group)) = mask.and_then(lane_group) {
                    // A group of `width` consecutive lanes, aligned: the
                    // barrier of a tile of that width (it orders the lanes
                    // of one group among themselves, and every lane of the
                    // group must reach it: divergence is checked), which
                    // only lanes of that group may call.
                    self.warp_mask_requirement(width, group, node);
                    if self.warp_barrier_width(width, node) {
                        self.barrier(BarrierKind::Warp, node, stmt_span, false, false);
                    }
                } else {
                    // Only the lanes in the mask are ordered, and only among
                    // themselves: lanes outside it (lanes a run-time mask
                    // leaves out, the lanes of a mask that is no aligned
                    // group) are not. The warp-level barrier below orders
                    // every pair of one warp, which may hide a race between
                    // lanes the mask does not join, so the kernel cannot be
                    // verified (and claims no redundant barrier); a race
                    // found despite that ordering is one with any weaker
                    // ordering too.
                    self.unsupported(
                        node,
                        "`__syncwarp(mask)` with a mask that is neither all 32 lanes nor one aligned group of 1, 2, 4, 8 or 16 lanes (it orders only the lanes in the mask, among themselves)",
                    );
                    let _ = self.warp_barrier_width(32, node);
                    self.barrier(BarrierKind::Warp, node, stmt_span, false, true);
                }
                return Value::Int(Expr::Const(0));
            }
            "__threadfence" | "__threadfence_system" => {
                self.fence_pending = true;
                self.fence_access = (self.next_access, self.last_full_barrier);
                self.fence_guard = self.guard();
                return Value::Int(Expr::Const(0));
            }
            "__threadfence_block" | "printf" | "__nanosleep" | "__prefetch_global_l1" => {
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
                let v = match args.first() {
                    Some(a) => self.eval(*a),
                    None => Value::Int(Expr::Const(0)),
                };
                // `reinterpret_cast<float4*>(p)`: a view of another element size.
                let ty = template_args.map(|t| {
                    let t = self.text(t);
                    t.trim_start_matches('<').trim_end_matches('>').to_string()
                });
                return match ty {
                    Some(ty) if name.ends_with("_cast") => self.cast_pointer(v, &ty, node),
                    _ => v,
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
        if let Some(base) = atomic_base(name) {
            let values: Vec<Value> = args.iter().map(|a| self.eval(*a)).collect();
            let target: String = args
                .first()
                .map(|a| self.text(*a))
                .unwrap_or_default()
                .chars()
                .filter(|c| !c.is_whitespace() && *c != '&')
                .collect();
            return self.atomic_update(base, name, node, values, target);
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
            .overload_for(name, args.len())
            .or_else(|| self.file.functions.get(name))
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
        if let Some(v) = self.texture_fetch(name, node, args, template_args) {
            return v;
        }
        if is_vector_constructor(name) && self.prototype(name).is_none() {
            if let Some(v) = self.vector_value(name, args) {
                return v;
            }
        }
        // An opaque call: its arguments are still evaluated. Where the
        // file declares it, a non-const reference parameter may be written.
        let passing = self.prototype(name);
        let mut scope = Scope::Grid;
        // The integer operands, in order (a warp shuffle's, recorded below).
        let mut operands: Vec<Value> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            match passing.as_ref().map(|p| p.get(i).copied()) {
                Some(Some(Passing::MutRef)) => {
                    self.written_by_opaque_call(name, node, *a);
                    scope = Scope::Thread;
                    continue;
                }
                None if !is_cuda_builtin(name) && self.is_memory_place(*a) => {
                    // No declaration in sight: it may take the cell by
                    // reference and write it.
                    self.eval(*a);
                    self.unsupported(
                        node,
                        format!(
                            "call to `{name}` (no declaration or body in the file) with the memory cell `{}`: it may take it by reference and write it",
                            short(&self.text(*a))
                        ),
                    );
                    scope = Scope::Thread;
                    continue;
                }
                _ => {}
            }
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
                        self.scopes.insert(s, local, new);
                        scope = Scope::Thread;
                        continue;
                    }
                }
            }
            match self.eval(*a) {
                Value::Int(e) => {
                    scope = scope.max(e.scope());
                    operands.push(Value::Int(e));
                }
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
        // Its result is fixed by code the model does not see.
        let value = self.fresh_unknown(&format!("{UNSEEN_PREFIX}{name}"), scope);
        // `__shfl*_sync(mask, v, lane[, width])`: every operand an integer.
        if name.starts_with("__shfl") && operands.len() == args.len() && args.len() >= 3 {
            let width = match operands.get(3) {
                Some(Value::Int(Expr::Const(w))) => *w,
                Some(_) => 0,
                None => 32,
            };
            if let (true, Value::Int(mask)) = ((1..=32).contains(&width), &operands[0]) {
                let mask = mask.clone();
                self.record_shuffle(name, &value, mask, &operands[1..], width);
            }
        }
        Value::Int(value)
    }

    /// A texture fetch returning its value (`tex1Dfetch<uint>(tex, i)`,
    /// `tex2D<float>(tex, x, y)`): the texel is fixed by memory the model
    /// does not see, so the value stays one of code nobody checked (a
    /// collision that needs a particular texel is no witness), but texture
    /// memory is read-only during a launch (CUDA leaves a texture read of
    /// memory the same launch writes undefined), so one fetch function of
    /// equal operands gives one value (`Function::Fetch`). `None` for a
    /// call in another form (the overloads that store through a pointer
    /// argument): the opaque call's rules apply. An operand that is no
    /// integer of the model makes the value one of no known function.
    fn texture_fetch(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Option<Value> {
        const FETCHES: [&str; 9] = [
            "tex1Dfetch",
            "tex1D",
            "tex2D",
            "tex3D",
            "tex1DLayered",
            "tex2DLayered",
            "texCubemap",
            "tex1DLod",
            "tex2DLod",
        ];
        if !FETCHES.contains(&name)
            || args.is_empty()
            || self.prototype(name).is_some()
            || args
                .iter()
                .any(|a| self.is_address_of(*a) || self.object_path(*a).is_some())
        {
            return None;
        }
        let mut operands: Vec<Expr> = Vec::new();
        let mut scope = Scope::Grid;
        for a in args {
            match self.eval(*a) {
                Value::Int(e) => {
                    scope = scope.max(e.scope());
                    operands.push(e);
                }
                // What the opaque call's rules say of such an operand.
                Value::Ptr(p) => {
                    let arr = self.arrays[p.array].name.clone();
                    self.unsupported(
                        node,
                        format!(
                            "call to `{name}` (body not available) with a pointer into `{arr}`"
                        ),
                    );
                    scope = Scope::Thread;
                }
                Value::Opaque(r) => {
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
        let types: String = template_args
            .map(|t| self.text(t))
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        // A texel of an integer type is a value of that type (`<uint>`:
        // `0..2^32`), as every read of an integer element is.
        let texel_type = template_args
            .and_then(|t| t.named_child(0))
            .map(|t| self.text(t));
        let value = match texel_type.as_deref().and_then(super::kernel::int_range) {
            Some(range) => {
                self.note_unknown_after_atomic();
                self.fresh_value_in(&format!("{UNSEEN_PREFIX}{name}"), scope, range)
            }
            None => self.fresh_unknown(&format!("{UNSEEN_PREFIX}{name}"), scope),
        };
        if let (Expr::Var(var), 0, true) = (&value, self.dry, operands.len() == args.len()) {
            self.applications.push(Application {
                value: var.clone(),
                function: Function::Fetch(format!("{name}{types}")),
                args: operands,
            });
        }
        Some(Value::Int(value))
    }

    /// An atomic update `base` (`atomicAdd`, ... as CUDA names them) of the
    /// cell `values[0]` points to, with its operands after it: the CUDA
    /// builtins and libcu++'s atomics (`libcu_atomics`) share it, so both
    /// get the same accesses, tickets, flags and last-block patterns.
    /// `target` is the counter's text (the last-block pattern's name).
    pub(super) fn atomic_update(
        &mut self,
        base: &str,
        name: &str,
        node: Node,
        values: Vec<Value>,
        target: String,
    ) -> Value {
        let mut ticket = None;
        let mut reserved_by = None;
        let mut fixed_cell = false;
        let mut recorded = false;
        let atomic_id = self.next_access;
        let atomic_guard = self.guard();
        match values.first().cloned() {
            Some(Value::Ptr(p)) => {
                // Tickets and flags are followed by their counter's array.
                let Some(p) = self.single_target(p, node, "atomic update") else {
                    return Value::Int(self.fresh_unknown("atomic", Scope::Thread));
                };
                self.note_atomic_target(p.array, node);
                let array = p.array;
                let lv = self.subscript(p, Expr::Const(0), &mut Vec::new());
                if let LValue::Mem { ptr, bounds } = lv {
                    let t = self.text(node);
                    fixed_cell = ptr.offset.as_const().is_some();
                    self.record_access(AccessKind::Atomic, &ptr, &bounds, Some(node), &t);
                    recorded = self.next_access == atomic_id + 1;
                    // An add of a non-zero constant at a fixed cell: a
                    // ticket, if every update of the array is one (the
                    // kernel's `ticket_counters` decides).
                    // A coalesced group's size is at least 1: an add of it
                    // (a warp-aggregated atomic) also only counts up.
                    let group = match (base, values.get(1)) {
                        ("atomicAdd", Some(v)) => self.coalesced_size_of(v),
                        _ => None,
                    };
                    let step = match (base, values.get(1)) {
                        ("atomicAdd", Some(Value::Int(Expr::Const(c)))) => c.signum(),
                        ("atomicSub", Some(Value::Int(Expr::Const(c)))) => -c.signum(),
                        _ if group.is_some() => 1,
                        _ => 0,
                    };
                    let cell = ptr.offset.as_const().filter(|_| step != 0);
                    if self.dry == 0 {
                        self.atomic_updates.push((array, cell.map(|c| (c, step))));
                    }
                    ticket = cell.map(|c| symbols::ticket(array, c));
                    reserved_by = group.zip(ticket.clone());
                    // A one-shot flag: `atomicCAS(&f, c, v)` (c != v) or
                    // `atomicExch(&f, v)` of constants at a fixed cell,
                    // if every update of the cell sets the one value v
                    // (the kernel's `flag_cells` decides).
                    let konst = |i: usize| match values.get(i) {
                        Some(Value::Int(Expr::Const(c))) => Some(*c),
                        _ => None,
                    };
                    let flag = match base {
                        "atomicCAS" => konst(1)
                            .zip(konst(2))
                            .filter(|(c, v)| c != v)
                            .map(|(c, v)| (v, symbols::Win::Equals(c))),
                        "atomicExch" => konst(1).map(|v| (v, symbols::Win::Differs(v))),
                        _ => None,
                    };
                    let flag = ptr.offset.as_const().zip(flag);
                    if self.dry == 0 {
                        self.flag_updates
                            .push((array, flag.map(|(cell, (v, _))| (cell, v))));
                    }
                    if let Some((cell, (_, win))) = flag {
                        ticket = Some(symbols::winner(array, cell, win));
                    }
                }
            }
            Some(Value::Opaque(r)) => self.unsupported(node, r),
            _ => {}
        }
        if self.fence_pending
            && self.fenced.is_none()
            && matches!(base, "atomicAdd" | "atomicSub" | "atomicInc")
            && implies(&atomic_guard, &self.fence_guard)
        {
            self.fence_pending = false;
            let after = self.fresh_bool(&symbols::fenced(&target), Scope::Grid);
            self.fenced = Some((target.clone(), after));
            // The last-block pattern: one increment by one, outside
            // loops, at a fixed cell, by `threadIdx.x == 0`: its result
            // is the block's ticket (the verifier checks the other
            // dimensions). Otherwise (every thread takes a slot) it
            // stays a per-thread value, a ticket as above.
            let wrap = match (base, values.get(1)) {
                ("atomicInc", Some(Value::Int(n))) => Some(Some(n.clone())),
                ("atomicAdd", Some(Value::Int(Expr::Const(1)))) => Some(None),
                _ => None,
            };
            if let Some(wrap) = wrap.filter(|_| {
                fixed_cell
                    && atomic_guard.requires_thread_zero(0)
                    && self.loops.is_empty()
                    && self.dry == 0
                    && self.next_access == atomic_id + 1
            }) {
                let Expr::Var(ticket) =
                    self.fresh_unknown(&symbols::last_ticket(&target), Scope::Block)
                else {
                    unreachable!("fresh_unknown makes a variable")
                };
                self.last_blocks.push(crate::model::LastBlock {
                    ticket: ticket.clone(),
                    wrap,
                    atomic: atomic_id,
                    atomic_guard,
                    span: self.span(node),
                    counter: target,
                    barrier_before: self.fence_access.1 .0,
                    fence: self.fence_access.0,
                    barrier_after: None,
                    barriers: self.fence_access.1 .1.into_iter().collect(),
                });
                if recorded {
                    self.note_atomic_op(node, base, atomic_id, &values, None);
                }
                return Value::Int(Expr::Var(ticket));
            }
        }
        // `atomicExch(&l, 0)` releases the lock `l`.
        if base == "atomicExch" && matches!(values.get(1), Some(Value::Int(Expr::Const(0)))) {
            if let Some(target) = lock_target(&self.text(node)) {
                self.locks.retain(|(t, _)| *t != target);
            }
        }
        let base_name = ticket.unwrap_or_else(|| name.to_string());
        let result = self.fresh_value(&base_name, Scope::Thread);
        if let (Some(reservation), Expr::Var(v)) = (reserved_by, &result) {
            self.reservations.insert(v.clone(), reservation);
        }
        if recorded {
            if let Expr::Var(v) = &result {
                self.note_atomic_op(node, base, atomic_id, &values, Some(v.clone()));
            }
        }
        Value::Int(result)
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

    /// The claim a `__syncwarp` of lane group `group` of `width` lanes
    /// rests on: every thread that calls it is a lane of that group
    /// (checked like an assertion; a lane outside the mask calling it is
    /// undefined behaviour, and the model's barrier would order it).
    fn warp_mask_requirement(&mut self, width: i64, group: i64, node: Node) {
        if self.dry > 0 {
            return;
        }
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
        let lane = Expr::bin(BinOp::Rem, linear, Expr::Const(32));
        let cond = Expr::eq(
            Expr::bin(BinOp::Div, lane, Expr::Const(width)),
            Expr::Const(group),
        );
        let low = width * group;
        self.assertions.push(Assertion {
            kind: AssertionKind::WarpMask,
            cond,
            guard: self.guard(),
            span: self.span(node),
            text: format!(
                "the calling lane is one of lanes {low}..{} of its warp",
                low + width - 1
            ),
            loops: self.loops.clone(),
            head: None,
            call_site: None,
        });
    }

    pub(super) fn barrier(
        &mut self,
        kind: BarrierKind,
        node: Node,
        stmt_span: Span,
        has_value: bool,
        partial_mask: bool,
    ) {
        if self.dry > 0 {
            return;
        }
        // A block barrier every thread passes orders the block's accesses
        // before it with the fence of a last-block pattern after it (and
        // the increment with the accesses after it); the `fenced` marker
        // is no condition of its own.
        let fenced = self.fenced.take();
        let guard = self.guard();
        self.fenced = fenced;
        let unconditional = guard.is_true();
        let id = self.next_barrier;
        if kind != BarrierKind::Warp && unconditional && !partial_mask {
            self.last_full_barrier = (self.next_access, Some(id));
        }
        // After the increment, a barrier under a condition that is one
        // value for the whole block and that the increment's own condition
        // implies (`if (gridDim.x > 1) { ...; atomicInc; ...; sync }`) is
        // passed by every thread of a block whose thread incremented (a
        // barrier only some threads reach is reported as divergent).
        for lb in &mut self.last_blocks {
            let passed_with_increment = unconditional
                || (guard.scope() != Scope::Thread && implies(&lb.atomic_guard, &guard));
            if kind != BarrierKind::Warp
                && !partial_mask
                && passed_with_increment
                && lb.barrier_after.is_none()
            {
                lb.barrier_after = Some(self.next_access);
                lb.barriers.push(id);
            }
        }
        // Inside a split `cuda::barrier` phase, a barrier after accesses of
        // the phase would order them (and the redundancy check removes
        // barriers from the model, not from the phase): outside the model.
        if let Some(phase) = &mut self.split_arrive {
            phase.barrier_after_access |= !phase.accesses.is_empty();
        }
        self.next_barrier += 1;
        let b = Barrier {
            id,
            kind,
            guard: self.guard(),
            span: self.span(node),
            stmt_span,
            has_value,
            partial_mask,
            conditions: self.cond_spans.clone(),
            loops: self.loops.clone(),
        };
        self.emit(Stmt::Barrier(b));
        self.copies_cross_barrier();
    }
}

impl Lowerer<'_, '_> {
    /// Records an atomic operation for the schedule checks
    /// (`Kernel::atomic_ops`): its operands after the address and the
    /// variable of its result.
    pub(super) fn note_atomic_op(
        &mut self,
        node: Node,
        base: &str,
        access: usize,
        values: &[Value],
        result: Option<Var>,
    ) {
        let operands = values
            .iter()
            .skip(1)
            .map(|v| match v {
                Value::Int(e) => Some(e.clone()),
                _ => None,
            })
            .collect();
        // `atomicAdd(&h[b], 1);` and `(void)atomicAdd(...)`: nobody sees
        // the value, whatever order the threads take.
        let discarded = node.parent().is_some_and(|p| {
            p.kind() == "expression_statement"
                || (p.kind() == "cast_expression"
                    && p.field("type")
                        .is_some_and(|t| self.text(t).trim() == "void"))
        });
        if !discarded && result.is_some() && !self.loops.is_empty() {
            // A loop body's variables may be summarised per iteration.
            self.atomic_results_summarised = true;
        }
        let text = self.text(node);
        let span = self.span(node);
        self.atomic_ops.push(crate::model::AtomicOp {
            access,
            op: base.to_string(),
            operands,
            result,
            discarded,
            span,
            text,
        });
    }

    /// The counters whose every update in the kernel is an atomic add of a
    /// non-zero constant of one sign at one constant cell: the values the
    /// adds return differ between threads. A plain write may only set the
    /// counter up before its first add, with a barrier between them and in
    /// no loop that also adds (`if (t == 0) n = 0; __syncthreads();`); a
    /// write racing with the adds is reported as such.
    pub(super) fn ticket_counters(&self, body: &[Stmt]) -> Vec<String> {
        let state = update_order(body);
        let mut out = Vec::new();
        for &(array, update) in &self.atomic_updates {
            let Some((cell, sign)) = update else { continue };
            let one_kind = self
                .atomic_updates
                .iter()
                .filter(|(a, _)| *a == array)
                .all(|(_, u)| *u == Some((cell, sign)));
            let ordered = state.get(&array).is_none_or(|st| st.0);
            let key = symbols::ticket(array, cell);
            if one_kind && ordered && !out.contains(&key) {
                out.push(key);
            }
        }
        out.into_iter()
            .map(|k| symbols::ticket_counter(&k).unwrap_or_default().to_string())
            .collect()
    }

    /// The one-shot flags (`array:index`): cells whose every update in the
    /// kernel sets one constant `v` by `atomicCAS(&f, c, v)` (c != v) or
    /// `atomicExch(&f, v)`, every atomic on the array at a constant cell.
    /// The flag then changes to `v` at most once, so at most one update
    /// sees a winning result (`symbols::Win`): the one that changed it. A
    /// plain write may only set a `__shared__` flag up before its first
    /// update, with a barrier between them and in no loop that also
    /// updates (as for tickets); a global flag is never written plainly (a
    /// barrier does not order other blocks).
    pub(super) fn flag_cells(&self, body: &[Stmt]) -> Vec<String> {
        let state = update_order(body);
        let mut out = Vec::new();
        for &(array, update) in &self.flag_updates {
            let Some((cell, v)) = update else { continue };
            let whole_array_fixed = self
                .flag_updates
                .iter()
                .filter(|(a, _)| *a == array)
                .all(|(_, u)| u.is_some_and(|(c, w)| c != cell || w == v));
            // (every atomic pushes to `flag_updates`: `None` unless it is a
            // flag update, so any other atomic on the array rules it out)
            let shared = self
                .arrays
                .get(array)
                .is_some_and(|a| a.space == crate::model::MemorySpace::Shared);
            // Views of other widths could update overlapping bytes.
            let whole_cells = self.arrays.get(array).is_some_and(|a| !a.byte_addressed);
            let ordered = match state.get(&array) {
                None => true,
                Some(st) => st.0 && (shared || !st.3),
            };
            let key = format!("{array}:{cell}");
            if whole_array_fixed && whole_cells && ordered && !out.contains(&key) {
                out.push(key);
            }
        }
        out
    }
}

/// Per array, how its plain writes and atomic updates are ordered:
/// (writes only before the first update with a barrier between them and
/// in no loop that also updates, an update was seen, a barrier followed
/// the last plain write, a plain write was seen).
fn update_order(body: &[Stmt]) -> HashMap<ArrayId, (bool, bool, bool, bool)> {
    let mut state: HashMap<ArrayId, (bool, bool, bool, bool)> = HashMap::new();
    let mut writes: HashMap<ArrayId, Vec<&Access>> = HashMap::new();
    crate::model::walk(body, &mut |s| match s {
        Stmt::Barrier(_) => {
            for st in state.values_mut() {
                st.2 = true;
            }
        }
        Stmt::Access(a) if a.kind == AccessKind::Write => {
            let st = state.entry(a.array).or_insert((true, false, true, false));
            if st.1 {
                st.0 = false;
            }
            st.2 = false;
            st.3 = true;
            writes.entry(a.array).or_default().push(a);
        }
        Stmt::Access(a) if a.kind == AccessKind::Atomic => {
            let st = state.entry(a.array).or_insert((true, false, true, false));
            st.1 = true;
            let in_shared_loop = writes.get(&a.array).is_some_and(|ws| {
                ws.iter()
                    .any(|w| w.loops.iter().any(|l| a.loops.contains(l)))
            });
            if !st.2 || in_shared_loop {
                st.0 = false;
            }
        }
        _ => {}
    });
    state
}

/// The lanes of a `__syncwarp` mask as one aligned group: its width (1,
/// 2, 4, 8 or 16 consecutive lanes) and which group of that width it is
/// (`0xffff0000`: the second group of 16).
fn lane_group(mask: i64) -> Option<(i64, i64)> {
    let bits = mask.count_ones() as i64;
    if !(1..=16).contains(&bits) || bits & (bits - 1) != 0 {
        return None;
    }
    let first = mask.trailing_zeros() as i64;
    let contiguous = mask >> first == (1 << bits) - 1;
    (contiguous && first % bits == 0).then_some((bits, first / bits))
}

/// Whether `guard` certainly implies `condition`: every conjunct of
/// `condition` is one of `guard`'s (the two are guards of one path, built
/// from the same conditions). Anything else is not known to imply it.
pub(super) fn implies(guard: &Expr, condition: &Expr) -> bool {
    fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::Bin(BinOp::And, a, b) => {
                conjuncts(a, out);
                conjuncts(b, out);
            }
            _ if e.is_true() => {}
            _ => out.push(e),
        }
    }
    let (mut have, mut need) = (Vec::new(), Vec::new());
    conjuncts(guard, &mut have);
    conjuncts(condition, &mut need);
    need.iter().all(|c| have.contains(c))
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

/// How a declared parameter receives its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Passing {
    Value,
    /// `T&` (not const): the callee may write the argument.
    MutRef,
    /// `const T&`: read only.
    ConstRef,
    Pointer,
}

/// CUDA's own functions and intrinsics (`__shfl_sync`, `__ldg`, ...) and
/// the math library take their arguments by value.
fn is_cuda_builtin(name: &str) -> bool {
    name.starts_with("__")
        || name.starts_with("atomic")
        || is_vector_constructor(name)
        || matches!(
            name,
            "sqrt"
                | "sqrtf"
                | "rsqrt"
                | "rsqrtf"
                | "exp"
                | "expf"
                | "exp2f"
                | "log"
                | "logf"
                | "log2f"
                | "log10f"
                | "sin"
                | "sinf"
                | "cos"
                | "cosf"
                | "tan"
                | "tanf"
                | "tanh"
                | "tanhf"
                | "pow"
                | "powf"
                | "fabs"
                | "fabsf"
                | "fmax"
                | "fmaxf"
                | "fmin"
                | "fminf"
                | "floor"
                | "floorf"
                | "ceil"
                | "ceilf"
                | "round"
                | "roundf"
                | "fma"
                | "fmaf"
                | "erf"
                | "erff"
                | "abs"
                | "min"
                | "max"
                | "sincosf"
                | "printf"
        )
}

/// `make_float4`, `make_uint2`: CUDA's vector constructors
/// (`vector_functions.h`) and the overloads the SDK's `helper_math.h` adds
/// (`make_float4(float3 v, float w)`). Every one takes its arguments by
/// value, so a memory cell passed to one is only read.
pub(super) fn is_vector_constructor(name: &str) -> bool {
    let Some(ty) = name.strip_prefix("make_") else {
        return false;
    };
    let Some(base) = ty.strip_suffix(['1', '2', '3', '4']) else {
        return false;
    };
    matches!(
        base,
        "char"
            | "uchar"
            | "short"
            | "ushort"
            | "int"
            | "uint"
            | "long"
            | "ulong"
            | "longlong"
            | "ulonglong"
            | "float"
            | "double"
            | "half"
            | "bfloat16"
    )
}

impl Lowerer<'_, '_> {
    /// The function an object-like macro names (`#define sync
    /// __syncthreads`), if its whole body is one name.
    fn macro_alias(&self, name: &str) -> Option<String> {
        if self.macro_depth >= 16 {
            return None;
        }
        let m = self.file.macros.get(name).filter(|m| m.params.is_none())?;
        let body = m.body.trim();
        let is_name = !body.is_empty()
            && body != name
            && body
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
            && !body.starts_with(|c: char| c.is_ascii_digit());
        is_name.then(|| body.rsplit("::").next().unwrap_or(body).to_string())
    }

    /// Whether `arg` names a cell of shared or global memory.
    fn is_memory_place(&mut self, arg: Node) -> bool {
        if !matches!(
            arg.kind(),
            "subscript_expression" | "pointer_expression" | "field_expression" | "identifier"
        ) || self.is_address_of(arg)
        {
            return false;
        }
        // A dry look: nothing it reads is recorded, no name is used up.
        self.dry += 1;
        self.out.push(Vec::new());
        let saved = self.unknown_counts.clone();
        let lv = self.lvalue(arg);
        self.unknown_counts = saved;
        self.out.pop();
        self.dry -= 1;
        matches!(lv, Some(LValue::Mem { .. }))
    }

    /// `f(x)` where `f` takes `T&`: it may write `x`.
    fn written_by_opaque_call(&mut self, name: &str, call: Node, arg: Node) {
        match self.lvalue(arg) {
            Some(LValue::Mem { ptr, bounds }) => {
                let t = self.text(arg);
                self.record_access(AccessKind::Read, &ptr, &bounds, Some(arg), &t);
                self.record_access(AccessKind::Write, &ptr, &bounds, Some(arg), &t);
            }
            Some(LValue::Local { scope, name: local }) => {
                let old = self
                    .scopes
                    .get(scope)
                    .and_then(|sc| sc.get(&local))
                    .cloned();
                let new =
                    match old {
                        Some(Value::Int(_)) => Value::Int(self.fresh_unknown(
                            &format!("{UNSEEN_PREFIX}{name}@{local}"),
                            Scope::Thread,
                        )),
                        Some(Value::Ptr(_) | Value::Opaque(_)) => Value::Opaque(format!(
                            "pointer `{local}` set by a call to `{name}` (body not available)"
                        )),
                        _ => return,
                    };
                self.scopes.insert(scope, local, new);
            }
            Some(LValue::Opaque(r)) => self.unsupported(call, r),
            Some(LValue::Discard) => {}
            None => {
                self.eval(arg);
            }
        }
    }

    /// The parameter passing of `name`'s declaration in the file (a
    /// prototype without a body), if there is one.
    fn prototype(&mut self, name: &str) -> Option<Vec<Passing>> {
        if let Some(p) = self.prototypes.get(name) {
            return p.clone();
        }
        let found = self
            .file
            .kernels
            .first()
            .map(|k| {
                let mut root = k.node;
                while let Some(p) = root.parent() {
                    root = p;
                }
                root
            })
            .and_then(|root| find_prototype(&self.src, root, name));
        self.prototypes.insert(name.to_string(), found.clone());
        found
    }
}

/// Finds `name`'s declaration without a body and reads its parameters.
/// Only file-level declarations are looked at (and those in namespaces,
/// `extern "C"` blocks, preprocessor branches): a scan of the top level, not
/// of every function body.
fn find_prototype(src: &str, root: Node, name: &str) -> Option<Vec<Passing>> {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let container = matches!(
            n.kind(),
            "translation_unit"
                | "namespace_definition"
                | "declaration_list"
                | "linkage_specification"
                | "template_declaration"
        ) || n.kind().starts_with("preproc_");
        let declaration = matches!(
            n.kind(),
            "declaration"
                | "init_declarator"
                | "function_declarator"
                | "pointer_declarator"
                | "reference_declarator"
                | "storage_class_specifier"
        );
        if !container && !declaration {
            continue;
        }
        if n.kind() == "function_declarator" {
            let named = n
                .field("declarator")
                .map(|d| node_text(src, d).rsplit("::").next() == Some(name))
                .unwrap_or(false);
            if named {
                let params = n.field("parameters")?;
                let mut c = params.walk();
                let out = params
                    .named_children(&mut c)
                    .filter(|p| p.kind().ends_with("parameter_declaration"))
                    .map(|p| {
                        let is_const = has_qualifier(src, p, "const");
                        let decl = p.field("declarator");
                        let is_ref = decl.is_some_and(|d| {
                            contains_kind(d, "reference_declarator")
                                || contains_kind(d, "abstract_reference_declarator")
                        });
                        let is_ptr = decl.is_some_and(|d| {
                            contains_kind(d, "pointer_declarator")
                                || contains_kind(d, "abstract_pointer_declarator")
                        });
                        match (is_ref, is_ptr, is_const) {
                            (true, _, false) => Passing::MutRef,
                            (true, _, true) => Passing::ConstRef,
                            (false, true, _) => Passing::Pointer,
                            _ => Passing::Value,
                        }
                    })
                    .collect();
                return Some(out);
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_of_one_aligned_group_of_lanes() {
        assert_eq!(lane_group(0x0000_ffff), Some((16, 0)));
        assert_eq!(lane_group(0xffff_0000), Some((16, 1)));
        assert_eq!(lane_group(0x0000_ff00), Some((8, 1)));
        assert_eq!(lane_group(0x8000_0000), Some((1, 31)));
        // Not aligned to its width, not contiguous, more than half a warp.
        assert_eq!(lane_group(0x00ff_ff00), None);
        assert_eq!(lane_group(0x5555_5555), None);
        assert_eq!(lane_group(0x0000_0ff0), None);
        assert_eq!(lane_group(0x0003_ffff), None);
        assert_eq!(lane_group(0), None);
    }

    #[test]
    fn a_guard_implies_the_conditions_it_is_built_on() {
        let tid = Expr::Var(Var::new("threadIdx.x", VarKind::ThreadIdx(0)));
        let publish = Expr::Var(Var::new("publish", VarKind::Param { lo: 0, hi: 1 }));
        let thread_zero = Expr::eq(tid, Expr::Const(0));
        let fence_if_publish = Expr::and(thread_zero.clone(), publish.clone());
        // An unconditional fence runs wherever the increment does.
        assert!(implies(&thread_zero, &Expr::tru()));
        assert!(implies(&thread_zero, &thread_zero));
        assert!(implies(&fence_if_publish, &thread_zero));
        // `if (publish) __threadfence();` then the increment under `t == 0`.
        assert!(!implies(&thread_zero, &fence_if_publish));
        assert!(!implies(&Expr::tru(), &publish));
    }
}
