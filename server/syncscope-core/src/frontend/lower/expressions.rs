//! Expressions: values of identifiers, arithmetic, comparisons,
//! assignments and updates, conditionals, snippets of macro text. Reading
//! or writing memory goes through `places`; calls through `calls`.

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn eval_cond(&mut self, node: Node) -> Expr {
        match self.eval(node) {
            Value::Int(e) => match self.float_truth(&e) {
                Some(truth) => truth,
                None => e.truthy(),
            },
            Value::Ptr(_)
            | Value::Local
            | Value::Group(_)
            | Value::Pipeline(..)
            | Value::Function(_)
            | Value::Lambda(_)
            | Value::Dim3(_)
            | Value::Alias(_) => Expr::tru(),
            Value::Opaque(_) | Value::Object(_) => self.fresh_bool("cond", Scope::Thread),
        }
    }

    pub(super) fn int_of(&mut self, v: Value, base: &str) -> Expr {
        match v {
            Value::Int(e) => e,
            Value::Alias(lv) => match self.read_lvalue(&lv, base, None) {
                Value::Int(e) => e,
                _ => self.fresh_unknown(base, Scope::Thread),
            },
            _ => self.fresh_unknown(base, Scope::Thread),
        }
    }

    pub(super) fn eval(&mut self, node: Node) -> Value {
        if !self.tick() {
            return Value::Int(Expr::Const(0));
        }
        self.depth += 1;
        let v = if self.depth > MAX_DEPTH {
            self.unsupported(node, "expression nested too deeply to model");
            Value::Int(Expr::Const(0))
        } else {
            self.eval_inner(node)
        };
        self.depth -= 1;
        // Expression growth is bounded where it happens (branch merges),
        // not here: measuring every intermediate value is quadratic.
        match v {
            Value::Alias(lv) => match *lv {
                LValue::Local { .. } | LValue::Mem { .. } => {
                    self.read_lvalue(&lv, "ref", Some(node))
                }
                other => Value::Alias(Box::new(other)),
            },
            v => v,
        }
    }

    pub(super) fn eval_inner(&mut self, node: Node) -> Value {
        // A node the parser made up (MISSING) or could not parse (ERROR) has
        // no meaning: an unknown, never a variable named by its (empty) text.
        // It makes the kernel not verified: what it meant may touch memory.
        if node.is_missing() || node.is_error() {
            self.syntax_error_in_body(node);
            return Value::Int(self.fresh_unknown("syntax-error", Scope::Thread));
        }
        match node.kind() {
            "number_literal" => {
                let t = self.text(node);
                match parse_int(&t) {
                    Some(c) => Value::Int(Expr::Const(c)),
                    None if floats::is_float_literal(&t) => Value::Int(self.float_literal(&t)),
                    None => Value::Int(self.fresh_unknown(&t, Scope::Grid)),
                }
            }
            "true" => Value::Int(Expr::tru()),
            "false" => Value::Int(Expr::fals()),
            "null" | "nullptr" => Value::Int(Expr::Const(0)),
            "char_literal" => {
                let t = self.text(node);
                Value::Int(Expr::Const(t.chars().nth(1).map(|c| c as i64).unwrap_or(0)))
            }
            "string_literal" | "concatenated_string" | "raw_string_literal" => Value::Local,
            "identifier" | "field_expression" | "subscript_expression" | "pointer_expression"
                if self.libcu_atomics && !self.is_address_of(node) =>
            {
                if let Some(v) = self.atomic_implicit_load(node) {
                    return v;
                }
                match node.kind() {
                    "identifier" => self.identifier(node),
                    "field_expression" => self.field(node),
                    _ => self.cell_value(node),
                }
            }
            "identifier" => self.identifier(node),
            // `this` of a method inlined on an object in memory: a pointer
            // to it (`memory_objects`).
            "this" => match self.lookup("this") {
                Some((_, v @ Value::Ptr(_))) => v.clone(),
                // Elsewhere as before: an unknown (a local object's
                // members are reached through `member_base`).
                _ => Value::Int(self.fresh_unknown("this", Scope::Grid)),
            },
            "field_expression" => self.field(node),
            "qualified_identifier" if self.text(node).ends_with("pipeline_role::producer") => {
                Value::Int(Expr::Const(asynccopy::PRODUCER_ROLE))
            }
            "qualified_identifier" if self.text(node).ends_with("pipeline_role::consumer") => {
                Value::Int(Expr::Const(asynccopy::CONSUMER_ROLE))
            }
            "qualified_identifier" => match node.field("name") {
                Some(n) => self.eval(n),
                None => Value::Int(self.fresh_unknown("qualified", Scope::Grid)),
            },
            "parenthesized_expression" => match node.named_child(0) {
                Some(n) => self.eval(n),
                None => Value::Int(Expr::Const(0)),
            },
            "comma_expression" => {
                if let Some(l) = node.field("left") {
                    self.eval(l);
                }
                match node.field("right") {
                    Some(r) => self.eval(r),
                    None => Value::Int(Expr::Const(0)),
                }
            }
            "subscript_expression" | "pointer_expression" if !self.is_address_of(node) => {
                self.cell_value(node)
            }
            "pointer_expression" => {
                // `&x`
                let Some(arg) = node.field("argument") else {
                    return Value::Opaque("address".into());
                };
                if let Value::Function(f) = self.named_value_if_function(arg) {
                    return Value::Function(f);
                }
                match self.lvalue(arg) {
                    Some(LValue::Mem { ptr, .. }) => Value::Ptr(ptr),
                    Some(lv @ LValue::Local { .. }) => Value::Alias(Box::new(lv)),
                    Some(LValue::Discard) => Value::Local,
                    Some(LValue::Opaque(r)) => Value::Opaque(r),
                    None => Value::Local,
                }
            }
            "assignment_expression" => self.assignment(node),
            "update_expression" => self.update(node),
            "binary_expression" => self.binary(node),
            "unary_expression" => {
                let op = node
                    .field("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                let v = match node.field("argument") {
                    Some(a) => self.eval(a),
                    None => Value::Int(Expr::Const(0)),
                };
                if let Value::Object(ty) = &v {
                    let what = format!("operator `{op}` on a `{ty}` object");
                    self.unsupported(node, what);
                }
                let e = self.int_of(v, "unary");
                Value::Int(match op.as_str() {
                    "-" => match self.float_negation(&e) {
                        Some(neg) => neg,
                        None => Expr::un(UnOp::Neg, e),
                    },
                    "!" => match self.float_truth(&e) {
                        Some(truth) => Expr::not(truth),
                        None => Expr::not(e.truthy()),
                    },
                    "~" => Expr::un(UnOp::BitNot, e),
                    _ => e,
                })
            }
            "conditional_expression" => self.conditional(node),
            "cast_expression" => match node.field("value") {
                Some(v) => {
                    let ty = node.field("type").map(|t| self.text(t)).unwrap_or_default();
                    let val = self.eval(v);
                    let val = self.cast_pointer(val, &ty, node);
                    self.convert_for_type(&ty, val)
                }
                None => Value::Int(Expr::Const(0)),
            },
            "sizeof_expression" | "alignof_expression" => {
                let t = self.text(node);
                if let Some(size) = self.sizeof_exact(node) {
                    return Value::Int(Expr::Const(size));
                }
                let inner = t
                    .trim_start_matches("sizeof")
                    .trim_start_matches("alignof")
                    .trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .trim();
                // `float4`, `int2`: a vector type of unknown name is no scalar.
                if inner.ends_with(|c: char| c.is_ascii_digit()) {
                    return Value::Int(self.fresh_unknown(&t, Scope::Grid));
                }
                let size = if t.contains("double")
                    || t.contains("long")
                    || t.contains("int64")
                    || t.contains("*")
                {
                    8
                } else if t.contains("char") || t.contains("bool") {
                    1
                } else if t.contains("short") || t.contains("half") {
                    2
                } else if t.contains("float") || t.contains("int") {
                    4
                } else {
                    return Value::Int(self.fresh_unknown(&t, Scope::Grid));
                };
                Value::Int(Expr::Const(size))
            }
            "call_expression" => self.call(node),
            "lambda_expression" => match self.lambda_value(node) {
                Ok(v) => v,
                Err(what) => {
                    self.unsupported(node, what);
                    Value::Local
                }
            },
            "new_expression" => self.new_expression(node),
            "delete_expression" => {
                let what = format!(
                    "`{}` (objects of the device heap are not modelled)",
                    short(&self.text(node))
                );
                self.unsupported(node, what);
                Value::Opaque("delete".into())
            }
            "gnu_asm_expression" => self.inline_asm(node),
            "initializer_list" => {
                let mut c = node.walk();
                let items: Vec<Node> = node.named_children(&mut c).collect();
                for it in items {
                    self.eval(it);
                }
                Value::Local
            }
            "compound_literal_expression" => Value::Local,
            "template_function" => match node.field("name") {
                Some(n) => self.eval(n),
                None => Value::Local,
            },
            _ => {
                // Anything else: evaluate the parts for their accesses; the
                // value is unknown (an over-approximation, never a guess).
                let mut c = node.walk();
                let items: Vec<Node> = node.named_children(&mut c).collect();
                let mut scope = Scope::Grid;
                for it in items {
                    if let Value::Int(e) = self.eval(it) {
                        scope = scope.max(e.scope());
                    } else {
                        scope = Scope::Thread;
                    }
                }
                Value::Int(self.fresh_unknown(node.kind(), scope))
            }
        }
    }

    pub(super) fn is_address_of(&self, node: Node) -> bool {
        node.kind() == "pointer_expression"
            && node
                .field("operator")
                .map(|o| node_text(&self.src, o) == "&")
                .unwrap_or(false)
    }

    /// `&f` of a `__device__` function `f`: the function.
    fn named_value_if_function(&mut self, node: Node) -> Value {
        let name = self.text(node);
        match node.kind() {
            "identifier" if self.lookup(&name).is_none() => {
                if self.file.functions.get(&name).is_some_and(|f| !f.is_kernel) {
                    return Value::Function(name);
                }
                Value::Local
            }
            _ => Value::Local,
        }
    }

    pub(super) fn identifier(&mut self, node: Node) -> Value {
        let name = self.text(node);
        if let Some(p) = self.scalar_memory(&name) {
            // `flag` for `__shared__ int flag;`: a read of memory.
            let lv = LValue::Mem {
                ptr: p,
                bounds: Vec::new(),
            };
            return self.read_lvalue(&lv, &name, Some(node));
        }
        self.named_value(&name, node)
    }

    pub(super) fn named_value(&mut self, name: &str, node: Node) -> Value {
        if let Some((_, v)) = self.lookup(name) {
            return v.clone();
        }
        match name {
            "threadIdx" => return Value::Dim3(0),
            "blockIdx" => return Value::Dim3(1),
            "blockDim" => return Value::Dim3(2),
            "gridDim" => return Value::Dim3(3),
            "warpSize" => return Value::Int(Expr::Const(32)),
            "__same_group" if !self.file.macros.contains_key(name) => return self.same_group(),
            _ => {}
        }
        if let Some(&id) = self.array_names.get(name) {
            return self.base_ptr(id);
        }
        if let Some(v) = self.file.enumerators.get(name) {
            return Value::Int(Expr::Const(*v));
        }
        if let Some(m) = self.file.macros.get(name) {
            if m.params.is_none() && self.macro_depth < 16 {
                let known = self
                    .file
                    .macro_constants
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(name)
                    .copied();
                if let Some(v) = known {
                    return Value::Int(Expr::Const(v));
                }
                let body = m.body.clone();
                let span = self.span(node);
                if body.is_empty() {
                    return Value::Int(Expr::Const(1));
                }
                if let Some(v) = self.eval_snippet(&body, Some(span)) {
                    if let Value::Int(Expr::Const(c)) = v {
                        self.file
                            .macro_constants
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(name.to_string(), c);
                    }
                    return v;
                }
            }
        }
        if let Some(&cnode) = self.file.constants.get(name) {
            if self.macro_depth < 16 {
                self.macro_depth += 1;
                let saved = self.span_override;
                self.span_override = Some(self.span(node));
                let v = self.eval(cnode);
                self.span_override = saved;
                self.macro_depth -= 1;
                return v;
            }
        }
        if self.file.functions.get(name).is_some_and(|f| !f.is_kernel) {
            return Value::Function(name.to_string());
        }
        if let Some(g) = self.file.global_arrays.iter().find(|g| g.name == name) {
            // A file-scope `__shared__` array is one per block.
            let space = if g.shared {
                MemorySpace::Shared
            } else {
                MemorySpace::Global
            };
            if g.dynamic {
                return self.extern_shared_buffer(name, &g.elem_type, node, None);
            }
            let id = if g.declarator.kind() == "array_declarator" {
                self.add_declared_array(name, space, g.declarator)
            } else {
                self.add_array(name, space, Vec::new())
            };
            self.elem_types.insert(id, g.elem_type.clone());
            return self.base_ptr(id);
        }
        // An identifier we cannot resolve (a constant from an unseen header,
        // say): a grid-uniform unknown, marked as unseen code.
        Value::Int(Expr::Var(Var::new(
            format!("{UNSEEN_PREFIX}{name}"),
            VarKind::Unknown {
                scope: Scope::Grid,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        )))
    }

    /// Evaluates source text (a macro body) as an expression, or as
    /// statements if it is not one. Spans inside map to `span`.
    pub(super) fn eval_snippet(&mut self, body: &str, span: Option<Span>) -> Option<Value> {
        if self.macro_depth >= 16 {
            return None;
        }
        self.macro_depth += 1;
        // The memos by node id hold answers for nodes of live trees only:
        // the snippet's trees are dropped at the end of this call, and a
        // later snippet's nodes may reuse their ids (addresses). Answers
        // made for the snippet are forgotten with it.
        let saved_memos = (
            std::mem::take(&mut self.assigned_memo),
            std::mem::take(&mut self.jumps_memo),
        );
        let expr_src = format!("int __syncscope_v = ({body});");
        let tree = crate::syntax::parse(&expr_src, None);
        let saved_src = std::mem::replace(&mut self.src, std::sync::Arc::from(expr_src.as_str()));
        let saved_span = self.span_override;
        if span.is_some() {
            self.span_override = span;
        }
        let mut result = None;
        if !tree.root_node().has_error() {
            let value = tree
                .root_node()
                .named_child(0)
                .and_then(|d| d.field("declarator"))
                .and_then(|d| d.field("value"));
            if let Some(v) = value {
                result = Some(self.eval(v));
            }
        } else {
            let stmt_src = format!("void __syncscope_f() {{ {body}; }}");
            let tree2 = crate::syntax::parse(&stmt_src, None);
            self.src = std::sync::Arc::from(stmt_src.as_str());
            if let Some(b) = tree2
                .root_node()
                .named_child(0)
                .and_then(|f| f.field("body"))
            {
                self.statement(b);
                result = Some(Value::Int(Expr::Const(0)));
            }
        }
        self.src = saved_src;
        self.span_override = saved_span;
        (self.assigned_memo, self.jumps_memo) = saved_memos;
        self.macro_depth -= 1;
        result
    }

    /// `a[i]`, `*p`: the value of a memory cell (or a row pointer).
    fn cell_value(&mut self, node: Node) -> Value {
        if let Some(row) = self.row_pointer(node) {
            return row;
        }
        match self.lvalue(node) {
            Some(lv) => {
                let text = self.text(node);
                self.read_lvalue(&lv, &text, Some(node))
            }
            None => Value::Int(self.fresh_unknown("deref", Scope::Thread)),
        }
    }

    pub(super) fn assignment(&mut self, node: Node) -> Value {
        let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
            return Value::Int(Expr::Const(0));
        };
        if let Some(v) = self.atomic_assignment(node, left, right) {
            return v;
        }
        let op = node
            .field("operator")
            .map(|o| self.text(o))
            .unwrap_or_else(|| "=".into());
        if let Some(dst) = self.object_path(left) {
            let user_op = self
                .file
                .structs
                .get(&dst.2)
                .is_some_and(|s| s.methods.contains_key(&format!("operator{op}")));
            if op != "=" || user_op {
                self.eval(right);
                self.unsupported(node, format!("operator `{op}` on a `{}` object", dst.2));
                self.copy_object(&dst, None);
                return Value::Object(dst.2);
            }
            match self.object_path(right).filter(|s| s.2 == dst.2) {
                Some(src) => self.copy_object(&dst, Some(&src)),
                None => {
                    self.eval(right);
                    self.copy_object(&dst, None);
                }
            }
            return Value::Object(dst.2);
        }
        let rhs = self.eval(right);
        let Some(lv) = self.lvalue(left) else {
            return rhs;
        };
        let new = if op == "=" {
            rhs
        } else {
            let lt = self.text(left);
            let old = self.read_lvalue(&lv, &lt, Some(left));
            let bop = binop(op.trim_end_matches('=')).unwrap_or(BinOp::Add);
            self.arith(bop, old, rhs)
        };
        self.write_lvalue(&lv, new.clone(), left, AccessKind::Write);
        new
    }

    pub(super) fn update(&mut self, node: Node) -> Value {
        let Some(arg) = node.field("argument") else {
            return Value::Int(Expr::Const(0));
        };
        if let Some(v) = self.atomic_increment(node, arg) {
            return v;
        }
        let op = node
            .field("operator")
            .map(|o| self.text(o))
            .unwrap_or_default();
        if let Some(obj) = self.object_path(arg) {
            self.unsupported(node, format!("operator `{op}` on a `{}` object", obj.2));
            self.copy_object(&obj, None);
            return Value::Int(self.fresh_unknown(&op, Scope::Thread));
        }
        let Some(lv) = self.lvalue(arg) else {
            return Value::Int(Expr::Const(0));
        };
        let t = self.text(arg);
        let old = self.read_lvalue(&lv, &t, Some(arg));
        let delta = Value::Int(Expr::Const(1));
        let new = self.arith(
            if op == "--" { BinOp::Sub } else { BinOp::Add },
            old.clone(),
            delta,
        );
        self.write_lvalue(&lv, new.clone(), arg, AccessKind::Write);
        let prefix = node.child(0).map(|c| !c.is_named()).unwrap_or(false);
        if prefix {
            new
        } else {
            old
        }
    }

    pub(super) fn arith(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        match (a, b) {
            (Value::Ptr(p), Value::Int(i)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                let i = if op == BinOp::Sub {
                    Expr::un(UnOp::Neg, i)
                } else {
                    i
                };
                let step = if p.level + 1 < self.arrays[p.array].dims.len()
                    || self.arrays[p.array].dims.len() <= 1
                {
                    self.stride(p.array, p.level)
                } else {
                    Expr::Const(1)
                };
                let step = Self::view_step(&p).unwrap_or(step);
                Value::Ptr(Ptr {
                    array: p.array,
                    others: p.others.clone(),
                    offset: Expr::add(p.offset, Expr::mul(i.clone(), step.clone())),
                    inner: Expr::add(p.inner, Expr::mul(i, step)),
                    level: p.level,
                    view: p.view,
                })
            }
            (Value::Int(i), Value::Ptr(p)) if op == BinOp::Add => {
                self.arith(op, Value::Ptr(p), Value::Int(i))
            }
            (Value::Ptr(a), Value::Ptr(b))
                if op == BinOp::Sub
                    && a.array == b.array
                    && a.others == b.others
                    && a.view == b.view =>
            {
                Value::Int(Expr::bin(BinOp::Sub, a.offset, b.offset))
            }
            (Value::Ptr(_), _) | (_, Value::Ptr(_)) if op.is_comparison() => {
                Value::Int(self.fresh_bool("ptrcmp", Scope::Thread))
            }
            (Value::Opaque(r), _) | (_, Value::Opaque(r)) => Value::Opaque(r),
            (a, b) => {
                let a = self.int_of(a, "lhs");
                let b = self.int_of(b, "rhs");
                if let Some(v) = self.float_binary(op, &a, &b) {
                    return Value::Int(v);
                }
                let logical = matches!(op, BinOp::And | BinOp::Or);
                let truth = |lw: &mut Self, e: Expr| match lw.float_truth(&e) {
                    Some(t) => t,
                    None => e.truthy(),
                };
                let a = if logical { truth(self, a) } else { a };
                let b = if logical { truth(self, b) } else { b };
                Value::Int(Expr::bin(op, a, b))
            }
        }
    }

    pub(super) fn binary(&mut self, node: Node) -> Value {
        let op = node
            .field("operator")
            .map(|o| self.text(o))
            .unwrap_or_default();
        let (Some(l), Some(r)) = (node.field("left"), node.field("right")) else {
            return Value::Int(Expr::Const(0));
        };
        if op == "&&" || op == "||" {
            // Short circuit: the right operand runs only when it must.
            let a = self.eval_cond(l);
            let guard_r = if op == "&&" {
                a.clone()
            } else {
                Expr::not(a.clone())
            };
            self.path.push(guard_r);
            let b = self.eval_cond(r);
            self.path.pop();
            return Value::Int(if op == "&&" {
                Expr::and(a, b)
            } else {
                Expr::or(a, b)
            });
        }
        let a = self.eval(l);
        let b = self.eval(r);
        if let Value::Object(ty) = match (&a, &b) {
            (Value::Object(_), _) => &a,
            _ => &b,
        } {
            let what = format!("operator `{op}` on a `{ty}` object");
            self.unsupported(node, what);
            return Value::Int(self.fresh_unknown(&op, Scope::Thread));
        }
        match binop(&op) {
            Some(bop) if bop.is_comparison() => match self.arith(bop, a, b) {
                // Comparisons of integers follow C's conversions
                // (`conversions`), not mathematical order.
                Value::Int(Expr::Bin(o, x, y)) if o == bop => {
                    let (x, y) = ((*x).clone(), (*y).clone());
                    Value::Int(self.c_comparison(bop, l, r, x, y))
                }
                v => v,
            },
            Some(bop) => self.arith(bop, a, b),
            None => Value::Int(self.fresh_unknown(&op, Scope::Thread)),
        }
    }

    pub(super) fn conditional(&mut self, node: Node) -> Value {
        let Some(c) = node.field("condition") else {
            return Value::Int(Expr::Const(0));
        };
        let cond = self.eval_cond(c);
        let branch = |lw: &mut Self, n: Option<Node>, g: Expr| {
            lw.path.push(g);
            let v = n.map(|n| lw.eval(n)).unwrap_or(Value::Int(Expr::Const(0)));
            lw.path.pop();
            v
        };
        let a = branch(self, node.field("consequence"), cond.clone());
        let b = branch(self, node.field("alternative"), Expr::not(cond.clone()));
        self.merge_value(&cond, a, b)
    }

    // ----- calls -----------------------------------------------------------
}
