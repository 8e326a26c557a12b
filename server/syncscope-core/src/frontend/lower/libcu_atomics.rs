//! libcu++'s atomics: `cuda::atomic<T, scope>`, `cuda::std::atomic<T>` and
//! `cuda::atomic_ref<T, scope>` over a memory cell. Their members and
//! operators are lowered to the CUDA atomics of `builtins`
//! (`atomic_update`), so an atomic against an atomic is no race and a
//! plain access against an atomic is one, tickets included. Memory orders
//! and scopes are evaluated and ignored: no ordering between threads is
//! claimed from them. Members the model does not represent (`wait`,
//! `notify_one`, ...) are reported, never dropped.

use super::*;

/// Whether a source names an atomic type of libcu++ at all.
pub(crate) fn mentions_atomic_types(src: &str) -> bool {
    src.contains("atomic<") || src.contains("atomic_ref<")
}

/// Whether `ty` (as written) is one of libcu++'s (or the standard's)
/// atomic types: `cuda::atomic<int>`, `cuda::std::atomic_ref<T>`, ...
pub(super) fn is_atomic_type(ty: &str) -> bool {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t
        .trim_start_matches("const")
        .trim_start_matches("volatile")
        .trim_start_matches("::");
    let t = t
        .strip_prefix("cuda::std::")
        .or_else(|| t.strip_prefix("cuda::"))
        .or_else(|| t.strip_prefix("std::"))
        .unwrap_or(t);
    t.starts_with("atomic<") || t.starts_with("atomic_ref<")
}

/// The value type `T` of `cuda::atomic<T, scope>` (its first template
/// argument), for the size of its cells.
pub(super) fn atomic_value_type(ty: &str) -> Option<&str> {
    if !is_atomic_type(ty) {
        return None;
    }
    let inner = &ty[ty.find('<')? + 1..ty.rfind('>')?];
    let mut depth = 0;
    let end = inner
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            c == ',' && depth == 0
        })
        .map(|(i, _)| i)
        .unwrap_or(inner.len());
    Some(inner[..end].trim())
}

/// The CUDA atomic a read-modify-write member stands for.
fn rmw_builtin(member: &str) -> Option<&'static str> {
    Some(match member {
        "fetch_add" => "atomicAdd",
        "fetch_sub" => "atomicSub",
        "fetch_and" => "atomicAnd",
        "fetch_or" => "atomicOr",
        "fetch_xor" => "atomicXor",
        "fetch_min" => "atomicMin",
        "fetch_max" => "atomicMax",
        "exchange" => "atomicExch",
        _ => return None,
    })
}

/// Members of the atomic types the model leaves out.
fn unmodelled_member(member: &str) -> bool {
    matches!(
        member,
        "wait" | "notify_one" | "notify_all" | "test_and_set" | "clear" | "test" | "is_lock_free"
    )
}

impl<'a, 't> Lowerer<'a, 't> {
    /// `cuda::atomic_ref<int, scope> r(x[i]);`: `r` names the cell `x[i]`,
    /// every use of it atomic. Returns false when `ty` is no atomic_ref.
    pub(super) fn declare_atomic_ref(
        &mut self,
        ty: &str,
        name: &str,
        decl: Node,
        value: Option<Node>,
    ) -> bool {
        if !self.libcu_atomics || !is_atomic_type(ty) || !ty.contains("atomic_ref") {
            return false;
        }
        let lv = match decl.kind() {
            "identifier" => {
                let cell = value.and_then(|v| match v.kind() {
                    "argument_list" | "initializer_list" => v.named_child(0),
                    _ => Some(v),
                });
                cell.and_then(|c| self.lvalue(c))
            }
            // `atomic_ref<int> r(x[i]);` parses as a function's declaration
            // (its "parameters" are the cell): the cell is read back from
            // its text, as an address.
            "function_declarator" => {
                let cell = decl
                    .field("parameters")
                    .map(|p| self.text(p))
                    .unwrap_or_default();
                let span = self.span(decl);
                match self.eval_snippet(&format!("&{cell}"), Some(span)) {
                    Some(Value::Ptr(p)) => Some(self.subscript(p, Expr::Const(0), &mut Vec::new())),
                    Some(Value::Opaque(r)) => Some(LValue::Opaque(r)),
                    _ => None,
                }
            }
            _ => return false,
        };
        match lv {
            Some(lv @ LValue::Mem { .. }) => {
                let scope = self.scopes.len() - 1;
                self.atomic_refs.insert((scope, name.to_string()));
                self.declare(name, Value::Alias(Box::new(lv)));
            }
            _ => {
                self.unsupported(
                    decl,
                    format!(
                        "`{}` over a cell that is not in shared or global memory",
                        short(ty)
                    ),
                );
                let v = self.fresh_unknown(name, Scope::Thread);
                self.declare(name, Value::Int(v));
            }
        }
        true
    }

    /// The memory cell `node` names when it is an atomic object: a
    /// `cuda::atomic` in shared or global memory, or an `atomic_ref` local.
    /// A dry look: nothing is recorded.
    fn atomic_object(&mut self, node: Node) -> bool {
        if !self.libcu_atomics {
            return false;
        }
        if node.kind() == "parenthesized_expression" {
            return node.named_child(0).is_some_and(|n| self.atomic_object(n));
        }
        if node.kind() == "identifier" {
            let name = self.text(node);
            if let Some((scope, _)) = self.lookup(&name) {
                if self.atomic_refs.contains(&(scope, name)) {
                    return true;
                }
            }
        }
        if !matches!(
            node.kind(),
            "identifier" | "subscript_expression" | "pointer_expression" | "field_expression"
        ) || self.is_address_of(node)
        {
            return false;
        }
        self.dry += 1;
        self.out.push(Vec::new());
        let saved = self.unknown_counts.clone();
        let lv = self.lvalue(node);
        self.unknown_counts = saved;
        self.out.pop();
        self.dry -= 1;
        match lv {
            Some(LValue::Mem { ptr, .. }) => {
                self.elem_of(&ptr).0.is_some_and(|t| is_atomic_type(&t))
            }
            _ => false,
        }
    }

    /// The cell of an atomic object as a pointer (for `atomic_update`).
    fn atomic_cell(&mut self, node: Node) -> Option<Value> {
        if node.kind() == "parenthesized_expression" {
            return self.atomic_cell(node.named_child(0)?);
        }
        match self.lvalue(node)? {
            LValue::Mem { ptr, .. } => Some(Value::Ptr(ptr)),
            LValue::Opaque(r) => Some(Value::Opaque(r)),
            _ => None,
        }
    }

    /// Using an atomic object as a value: an atomic load.
    pub(super) fn atomic_implicit_load(&mut self, node: Node) -> Option<Value> {
        if !self.atomic_object(node) {
            return None;
        }
        let cell = self.atomic_cell(node)?;
        Some(self.atomic_load(node, cell))
    }

    fn atomic_load(&mut self, node: Node, cell: Value) -> Value {
        let id = self.next_access;
        let mut recorded = false;
        match cell {
            Value::Ptr(p) => {
                let Some(p) = self.single_target(p, node, "atomic load") else {
                    return Value::Int(self.fresh_unknown("atomic", Scope::Thread));
                };
                self.note_atomic_target(p.array, node);
                if let LValue::Mem { ptr, bounds } =
                    self.subscript(p, Expr::Const(0), &mut Vec::new())
                {
                    let t = self.text(node);
                    // An atomic access: it never races with another atomic,
                    // always with a plain write. It updates nothing, so
                    // tickets and flags are unaffected.
                    self.record_access(AccessKind::Atomic, &ptr, &bounds, Some(node), &t);
                    recorded = self.next_access == id + 1;
                }
            }
            Value::Opaque(r) => self.unsupported(node, r),
            _ => {}
        }
        let result = self.fresh_value("atomic-load", Scope::Thread);
        // For the schedule checks (`--deterministic`): what it returns
        // depends on the order of the updates before it.
        if let (true, Expr::Var(v)) = (recorded, &result) {
            self.note_atomic_op(node, "atomicLoad", id, &[], Some(v.clone()));
        }
        Value::Int(result)
    }

    /// `a = v`, `a += v`, ... on an atomic object: a store or an atomic
    /// read-modify-write. None when `left` is no atomic object.
    pub(super) fn atomic_assignment(
        &mut self,
        node: Node,
        left: Node,
        right: Node,
    ) -> Option<Value> {
        if !self.atomic_object(left) {
            return None;
        }
        let op = node
            .field("operator")
            .map(|o| self.text(o))
            .unwrap_or_else(|| "=".into());
        let rhs = self.eval(right);
        let cell = self.atomic_cell(left)?;
        let target = self.text(left);
        let base = match op.as_str() {
            "=" => "atomicExch",
            "+=" => "atomicAdd",
            "-=" => "atomicSub",
            "&=" => "atomicAnd",
            "|=" => "atomicOr",
            "^=" => "atomicXor",
            _ => {
                self.unsupported(node, format!("operator `{op}` on an atomic object"));
                return Some(Value::Int(self.fresh_unknown("atomic", Scope::Thread)));
            }
        };
        let old = self.atomic_update(base, base, node, vec![cell, rhs.clone()], target);
        // The operators return the new value, `=` its right-hand side.
        Some(match op.as_str() {
            "=" => rhs,
            "+=" => self.arith(BinOp::Add, old, rhs),
            "-=" => self.arith(BinOp::Sub, old, rhs),
            _ => Value::Int(self.fresh_unknown("atomic", Scope::Thread)),
        })
    }

    /// `++a`, `a--`, ... on an atomic object: an atomic add or sub of 1
    /// (the postfix forms return the old value: a ticket).
    pub(super) fn atomic_increment(&mut self, node: Node, arg: Node) -> Option<Value> {
        if !self.atomic_object(arg) {
            return None;
        }
        let op = node
            .field("operator")
            .map(|o| self.text(o))
            .unwrap_or_default();
        let cell = self.atomic_cell(arg)?;
        let target = self.text(arg);
        let base = if op == "--" { "atomicSub" } else { "atomicAdd" };
        let one = Value::Int(Expr::Const(1));
        let old = self.atomic_update(base, base, node, vec![cell, one.clone()], target);
        let prefix = node.child(0).map(|c| !c.is_named()).unwrap_or(false);
        Some(if prefix {
            let bop = if op == "--" { BinOp::Sub } else { BinOp::Add };
            self.arith(bop, old, one)
        } else {
            old
        })
    }

    /// `a.fetch_add(1)`, `p->load()`, `reinterpret_cast<cuda::atomic<int>*>(q)->store(v)`,
    /// `cuda::atomic_ref<int>(x).exchange(v)`: a member of an atomic object.
    /// None when the receiver is no atomic object.
    pub(super) fn atomic_method(
        &mut self,
        func: Node,
        member: &str,
        node: Node,
        args: &[Node],
    ) -> Option<Value> {
        if !self.libcu_atomics {
            return None;
        }
        let receiver = func.field("argument")?;
        let arrow = func.field("operator").is_some_and(|o| self.text(o) == "->");
        let cell = if arrow {
            // Through a pointer: to an atomic type, or to a scalar cast to
            // one (a scalar has no members of its own).
            let receiver_text = self.text(receiver);
            let cast_to_atomic =
                receiver_text.contains("atomic<") || receiver_text.contains("atomic_ref<");
            self.dry += 1;
            self.out.push(Vec::new());
            let saved = self.unknown_counts.clone();
            let v = self.eval(receiver);
            self.unknown_counts = saved;
            self.out.pop();
            self.dry -= 1;
            let atomic = match &v {
                Value::Ptr(p) => {
                    let elem = self.elem_of(p).0;
                    cast_to_atomic
                        || elem
                            .as_deref()
                            .is_some_and(|t| is_atomic_type(t) || views::type_bytes(t).is_some())
                }
                Value::Opaque(_) => cast_to_atomic,
                _ => false,
            };
            if !atomic {
                return None;
            }
            self.eval(receiver)
        } else if self.atomic_object(receiver) {
            self.atomic_cell(receiver)?
        } else {
            self.atomic_ref_temporary(receiver)?
        };
        Some(self.atomic_member(cell, member, node, args, receiver))
    }

    /// `cuda::atomic_ref<int>(x[i])`: a temporary reference to `x[i]`.
    fn atomic_ref_temporary(&mut self, receiver: Node) -> Option<Value> {
        let r = match receiver.kind() {
            "parenthesized_expression" => receiver.named_child(0)?,
            _ => receiver,
        };
        if !matches!(r.kind(), "call_expression" | "compound_literal_expression") {
            return None;
        }
        let ty = r.field("function").or_else(|| r.field("type"))?;
        let ty_text = self.text(ty);
        if !is_atomic_type(&ty_text) || !ty_text.contains("atomic_ref") {
            return None;
        }
        let args = r.field("arguments").or_else(|| r.field("value"))?;
        let cell = args.named_child(0)?;
        self.atomic_cell(cell)
    }

    fn atomic_member(
        &mut self,
        cell: Value,
        member: &str,
        node: Node,
        args: &[Node],
        receiver: Node,
    ) -> Value {
        let target = self.text(receiver);
        // Memory orders and scopes are evaluated (they may have effects)
        // but order nothing in this model.
        let operands = |this: &mut Self, n: usize| -> Vec<Value> {
            let mut vals = Vec::new();
            for (i, a) in args.iter().enumerate() {
                let v = this.eval(*a);
                if i < n {
                    vals.push(v);
                }
            }
            vals
        };
        match member {
            "load" | "operator T" => {
                operands(self, 0);
                self.atomic_load(node, cell)
            }
            "store" => {
                let vals = operands(self, 1);
                let mut values = vec![cell];
                values.extend(vals);
                self.atomic_update("atomicExch", "atomicExch", node, values, target);
                Value::Int(Expr::Const(0))
            }
            "compare_exchange_weak" | "compare_exchange_strong" => {
                // `expected` is written with the value seen on failure.
                let desired: Vec<Value> = args
                    .iter()
                    .skip(1)
                    .enumerate()
                    .map(|(i, a)| (i, self.eval(*a)))
                    .filter(|(i, _)| *i == 0)
                    .map(|(_, v)| v)
                    .collect();
                if let Some(expected) = args.first() {
                    self.written_by_atomic(member, node, *expected);
                }
                // Its result is success, not the old value: no flag nor
                // ticket is read from it (an unknown operand rules them out).
                let unknown = Value::Int(self.fresh_unknown("expected", Scope::Thread));
                let mut values = vec![cell, unknown];
                values.extend(desired);
                self.atomic_update("atomicCAS", "atomicCAS", node, values, target);
                Value::Int(self.fresh_unknown(member, Scope::Thread))
            }
            m => match rmw_builtin(m) {
                Some(base) => {
                    let vals = operands(self, 1);
                    let mut values = vec![cell];
                    values.extend(vals);
                    self.atomic_update(base, base, node, values, target)
                }
                None => {
                    operands(self, 0);
                    let what = if unmodelled_member(m) {
                        format!("libcu++ atomic member `{m}` (waiting and notification are not modelled)")
                    } else {
                        format!("libcu++ atomic member `{m}`")
                    };
                    self.unsupported(node, what);
                    Value::Int(self.fresh_unknown(m, Scope::Thread))
                }
            },
        }
    }

    /// `compare_exchange(expected, ...)` writes `expected` on failure.
    fn written_by_atomic(&mut self, member: &str, node: Node, expected: Node) {
        match self.lvalue(expected) {
            Some(LValue::Mem { ptr, bounds }) => {
                let t = self.text(expected);
                self.record_access(AccessKind::Write, &ptr, &bounds, Some(expected), &t);
            }
            Some(LValue::Local { scope, name }) => {
                let v = self.fresh_unknown(&format!("{name}@{member}"), Scope::Thread);
                self.scopes.insert(scope, name, Value::Int(v));
            }
            Some(LValue::Opaque(r)) => self.unsupported(node, r),
            _ => {
                self.eval(expected);
            }
        }
    }
}
