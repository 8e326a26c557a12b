//! Statements: declarations, blocks, `if`/`switch` with environment
//! merging, `return`/`break`/`continue` as guards. Loops are `loops`'
//! and expressions `expressions`' business.

use super::*;
use std::rc::Rc;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn statement(&mut self, node: Node) {
        if !self.tick() {
            return;
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.unsupported(node, "nesting too deep to model");
            self.depth -= 1;
            return;
        }
        // Only the kernel's own statements (not inlined callees or macro
        // bodies, whose offsets are elsewhere) are places for a barrier.
        let own = self.dry == 0 && self.span_override.is_none() && self.call_stack.is_empty();
        if own {
            self.stmt_guards
                .push((node.start_byte() as u32, self.guard()));
        }
        self.statement_inner(node);
        if own {
            self.stmt_guards
                .push((node.end_byte() as u32, self.guard()));
        }
        self.depth -= 1;
    }

    pub(super) fn statement_inner(&mut self, node: Node) {
        match node.kind() {
            "compound_statement" => {
                self.push_scope();
                let mut c = node.walk();
                let children: Vec<Node> = node.named_children(&mut c).collect();
                for ch in children {
                    self.statement(ch);
                }
                self.pop_scope();
            }
            "declaration" => self.declaration(node),
            "expression_statement" => {
                if let Some(e) = node.named_child(0) {
                    if !self.group_declaration_read_as_comparison(e) {
                        let outer = self.expr_stmt.replace((e.id(), Span::from_node(&node)));
                        self.eval(e);
                        self.expr_stmt = outer;
                    }
                }
            }
            "if_statement" => self.if_statement(node),
            "while_statement" | "do_statement" if self.mbarrier_spin(node) => {}
            "for_statement" | "while_statement" | "do_statement" => {
                self.loop_statement(node);
                self.after_spin_loop(node);
            }
            "switch_statement" => self.switch_statement(node),
            "break_statement" => {
                let g = self.guard();
                if self.frames.last().is_some_and(|f| f.is_loop) {
                    self.emit(Stmt::LoopExit(g.clone()));
                }
                if let Some(f) = self.frames.last_mut() {
                    f.broke = Expr::or(f.broke.clone(), g.clone());
                    if g.scope() == Scope::Thread {
                        f.thread_exit = true;
                    }
                }
            }
            "continue_statement" => {
                let g = self.guard();
                if let Some(f) = self.frames.iter_mut().rev().find(|f| f.is_loop) {
                    f.continued = Expr::or(f.continued.clone(), g);
                }
            }
            "return_statement" => {
                let value = node.named_child(0).map(|e| self.eval(e));
                let g = self.guard();
                if let (Some(v), Some(slot)) = (value, self.ret_values.last_mut()) {
                    let merged = match (slot.take(), v) {
                        (Some(Value::Int(prev)), Value::Int(new)) => {
                            Value::Int(Expr::ite(g.clone(), new, prev))
                        }
                        (None, v) => v,
                        (Some(_), v) => v,
                    };
                    *slot = Some(merged);
                }
                if g.scope() == Scope::Thread {
                    for f in self.frames.iter_mut() {
                        f.thread_exit = true;
                    }
                }
                self.returned = Expr::or(self.returned.clone(), g);
            }
            "labeled_statement" => {
                // Threads that jumped here run on from the label.
                if let Some(label) = node.named_child(0).map(|l| self.text(l)) {
                    self.jumped.retain(|(l, _)| *l != label);
                }
                let mut c = node.walk();
                let children: Vec<Node> = node.named_children(&mut c).collect();
                for ch in children {
                    if ch.kind() != "statement_identifier" {
                        self.statement(ch);
                    }
                }
            }
            "goto_statement" => self.goto_statement(node),
            "preproc_def" | "preproc_function_def" => {
                // Function-local macros: rare, and file-level collection
                // already saw every #define in order; nothing to do.
            }
            k if k.starts_with("preproc_if") || k == "preproc_else" || k == "preproc_elif" => {
                let items = preproc_branch(&self.src, node, &self.file.macros);
                if items.iter().all(|n| n.kind() == "comment") && self.dry == 0 {
                    let first_line = self.text(node).lines().next().unwrap_or("").to_string();
                    let first_line = first_line
                        .split("//")
                        .next()
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    let span = self.span(node);
                    self.preproc_dropped.push((span, first_line));
                }
                for it in items {
                    self.statement(it);
                }
            }
            "attributed_statement" => {
                let mut c = node.walk();
                let children: Vec<Node> = node.named_children(&mut c).collect();
                for ch in children {
                    if ch.kind() != "attribute_declaration" {
                        self.statement(ch);
                    }
                }
            }
            "try_statement" | "throw_statement" => self.unsupported(node, "C++ exceptions"),
            "for_range_loop" => {
                self.unsupported(node, "range-based for loop");
            }
            "type_definition" => self.local_typedef(node),
            "comment"
            | "empty_statement"
            | "preproc_include"
            | "preproc_call"
            | "static_assert_declaration"
            | "using_declaration"
            | "alias_declaration"
            | "namespace_alias_definition" => {}
            "ERROR" => self.syntax_error_in_body(node),
            // Type definitions inside a body declare no memory and run no code.
            "struct_specifier"
            | "class_specifier"
            | "union_specifier"
            | "enum_specifier"
            | "template_declaration"
            | "preproc_error"
            | "preproc_warning" => {}
            kind if kind.ends_with("expression") || kind.ends_with("literal") => {
                self.eval(node);
            }
            // Anything else is a statement the model does not represent:
            // named, never dropped.
            kind => {
                let what = format!("statement the model does not represent ({kind})");
                self.unsupported(node, what);
            }
        }
    }

    /// A forward `goto` to a label of an enclosing block, leaving at most
    /// one loop: the threads that take it skip the code until the label (a
    /// `break` of the loop it leaves, and a guard until the label). Any
    /// other `goto` (backward, into a block, out of nested loops) is not
    /// represented.
    fn goto_statement(&mut self, node: Node) {
        let Some(label) = node.named_child(0).map(|l| self.text(l)) else {
            return self.unsupported(node, "goto");
        };
        let Some(loops_left) = forward_goto_loops(&self.src, node, &label) else {
            return self.unsupported(node, "goto");
        };
        let g = self.guard();
        if loops_left == 0 {
            self.jumped.push((label, g));
            return;
        }
        if loops_left > 1 {
            return self.unsupported(node, "goto out of nested loops");
        }
        self.emit(Stmt::LoopExit(g.clone()));
        if let Some(f) = self.frames.iter_mut().rev().find(|f| f.is_loop) {
            f.broke = Expr::or(f.broke.clone(), g.clone());
            if g.scope() == Scope::Thread {
                f.thread_exit = true;
            }
            f.gotos.push(label);
        }
    }

    pub(super) fn declaration(&mut self, node: Node) {
        let shared = has_qualifier(&self.src, node, "__shared__");
        let is_extern = has_qualifier(&self.src, node, "extern");
        let ty = node.field("type").map(|t| self.text(t)).unwrap_or_default();
        let struct_ty = node
            .field("type")
            .and_then(|t| struct_type_name(&self.src, t))
            .map(|t| self.bound_struct_type(&t))
            .filter(|t| self.file.structs.contains_key(t));
        let mut c = node.walk();
        let decls: Vec<Node> = node.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let (inner, value) = if d.kind() == "init_declarator" {
                (d.field("declarator"), d.field("value"))
            } else {
                (Some(d), None)
            };
            let Some(inner) = inner else { continue };
            let Some(name) = declarator_name(&self.src, inner) else {
                continue;
            };
            if shared {
                if self.dry > 0 {
                    if is_extern && self.extern_shared.is_some() {
                        let v = self.extern_shared_buffer(&name, &ty, node, Some(inner));
                        self.declare(&name, v);
                    } else if let Some(&id) = self.array_names.get(&name) {
                        let v = self.base_ptr(id);
                        self.declare(&name, v);
                    }
                    continue;
                }
                if is_extern {
                    let v = self.extern_shared_buffer(&name, &ty, node, Some(inner));
                    self.declare(&name, v);
                    continue;
                }
                let layout = node.field("type").and_then(|t| self.union_layout(t));
                let id = if let Some(&id) = self.array_names.get(&name) {
                    id
                } else if let Some(layout) = layout.filter(|_| inner.kind() == "identifier") {
                    self.declare_shared_union(&name, layout)
                } else {
                    if node.field("type").is_some_and(|t| {
                        t.kind() == "union_specifier"
                            || self.file.unions.contains_key(&self.text(t))
                    }) {
                        self.unsupported(
                            node,
                            format!("`__shared__` array of unions `{name}` (its members' bytes overlap)"),
                        );
                    }
                    let id = self.add_declared_array(&name, MemorySpace::Shared, inner);
                    self.elem_types.insert(id, ty.clone());
                    if !contains_kind(inner, "pointer_declarator")
                        && !contains_kind(inner, "reference_declarator")
                    {
                        if let Some(r) = kernel::int_range(&ty) {
                            self.elem_ranges.insert(id, r);
                        }
                    }
                    id
                };
                if let Some(sty) = struct_ty.clone().filter(|_| inner.kind() == "identifier") {
                    self.shared_objects.insert(id, sty);
                }
                // `__shared__ Vector<int> *v;`: a cell holding a pointer to
                // an object, followed from its one store.
                if let Some(class) = self.pointee_class(&ty, inner, 1) {
                    self.note_class_cell(id, class);
                }
                // `__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, N> state;`
                if ty.contains("pipeline_shared_state") && inner.kind() == "identifier" {
                    let n = node.field("type").and_then(|t| self.last_template_arg(t));
                    self.pipeline_states.insert(name.clone(), n);
                }
                // `__shared__ cuda::barrier<cuda::thread_scope_block> bar;`
                if ty.contains("barrier") && inner.kind() == "identifier" {
                    self.barrier_objects.entry(id).or_insert(None);
                }
                let v = self.base_ptr(id);
                self.declare(&name, v);
                continue;
            }
            if self.declare_atomic_ref(&ty, &name, inner, value) {
                continue;
            }
            if self.declare_fragment(&name, &ty) {
                continue;
            }
            let is_array = inner.kind() == "array_declarator";
            let is_ref = contains_kind(inner, "reference_declarator");
            if inner.kind() == "identifier" {
                if let Some(layout) = node.field("type").and_then(|t| self.union_layout(t)) {
                    self.declare_local_union(&name, layout, value);
                    continue;
                }
                // An object: of a struct type of the file, or a copy of one
                // (`auto b = a;`).
                let copied = value
                    .filter(|v| !matches!(v.kind(), "initializer_list" | "argument_list"))
                    .and_then(|v| self.object_path(v));
                let obj_ty = struct_ty.clone().or_else(|| copied.map(|o| o.2));
                if let Some(oty) = obj_ty {
                    let scope = self.scopes.len() - 1;
                    self.init_object(scope, &name, &oty, 0);
                    self.construct(d, &(scope, name.clone(), oty), value);
                    continue;
                }
            }
            if let Some(len) = self.pointer_array_length(inner) {
                self.declare_pointer_array(&name, len, value);
                continue;
            }
            let value = match value {
                Some(v) if v.kind() == "initializer_list" || v.kind() == "argument_list" => {
                    // Aggregate initialisers: evaluate for reads.
                    let mut c2 = v.walk();
                    let items: Vec<Node> = v.named_children(&mut c2).collect();
                    let mut last = None;
                    for it in items {
                        last = Some(self.eval(it));
                    }
                    if is_array {
                        Value::Local
                    } else if v.kind() == "argument_list" {
                        last.unwrap_or(Value::Local)
                    } else {
                        Value::Local
                    }
                }
                Some(v) if is_ref => match self.lvalue(v) {
                    Some(lv) => Value::Alias(Box::new(lv)),
                    None => self.eval(v),
                },
                Some(v) => {
                    let val = self.eval(v);
                    match val {
                        // `float *p = rows[i];`: a pointer loaded from memory.
                        Value::Int(_) if contains_kind(inner, "pointer_declarator") => {
                            Value::Opaque("pointer of unknown origin (loaded from memory)".into())
                        }
                        // `auto b = make();`: an object the model does not track.
                        Value::Object(oty) if inner.kind() == "identifier" => {
                            let scope = self.scopes.len() - 1;
                            let obj = (scope, name.clone(), oty.clone());
                            self.init_object(scope, &name, &oty, 0);
                            self.copy_object(&obj, None);
                            continue;
                        }
                        // A pointer to an object: not modelled.
                        Value::Object(oty) => Value::Opaque(format!("pointer to a `{oty}` object")),
                        val => self.convert_for_type(&ty, val),
                    }
                }
                None if is_array => Value::Local,
                None => {
                    if is_scalar_type(&ty) || contains_kind(inner, "pointer_declarator") {
                        let e = self.fresh_unknown(&format!("uninit_{name}"), Scope::Thread);
                        let scalar = !contains_kind(inner, "pointer_declarator");
                        if scalar && floats::is_float_type(&ty) {
                            self.mark_float(e.clone());
                        }
                        Value::Int(e)
                    } else {
                        Value::Local
                    }
                }
            };
            // A local array of pointers: which element a thread picks, and so
            // which buffer it reaches, is not tracked; never a dropped access.
            let value = if contains_kind(inner, "array_declarator")
                && contains_kind(inner, "pointer_declarator")
            {
                Value::Opaque(format!(
                    "pointer loaded from the local array of pointers `{name}`"
                ))
            } else if is_array {
                Value::Local
            } else {
                value
            };
            // A floating-point local converts what is assigned to it later.
            let top = (self.scopes.len() - 1, name.clone());
            if floats::is_float_type(&ty) && inner.kind() == "identifier" {
                self.float_locals.insert(top);
            } else {
                self.float_locals.remove(&top);
            }
            self.declare(&name, value);
        }
    }

    /// Conversions that matter: `bool` normalises, and values change
    /// between floating point and integers (see `floats`).
    pub(super) fn convert_for_type(&mut self, ty: &str, v: Value) -> Value {
        let resolved = self.resolve_scalar_typedef(ty);
        let ty = resolved.as_deref().unwrap_or(ty);
        match v {
            Value::Int(e) if ty.trim() == "bool" => Value::Int(match self.float_truth(&e) {
                Some(t) => t,
                None => e.truthy(),
            }),
            Value::Int(e) => Value::Int(self.convert_scalar(ty, e)),
            other => other,
        }
    }

    /// `T *v[N]` with a constant `N` (at most `MAX_POINTER_SLOTS`): a local
    /// array of pointers whose elements the model keeps one by one.
    fn pointer_array_length(&mut self, inner: Node) -> Option<usize> {
        if inner.kind() != "pointer_declarator" {
            return None;
        }
        let array = inner.field("declarator")?;
        if array.kind() != "array_declarator" || array.field("declarator")?.kind() != "identifier" {
            return None;
        }
        let size = array.field("size")?;
        // The lowering's own value (a name it does not know is no constant;
        // the preprocessor's evaluation would read it as 0).
        let Value::Int(Expr::Const(n)) = self.eval(size) else {
            return None;
        };
        (1..=MAX_POINTER_SLOTS as i64)
            .contains(&n)
            .then_some(n as usize)
    }

    /// Declares the local array of pointers `name` of `len` elements: the
    /// array itself stays a pointer the model does not follow (a use it does
    /// not know, such as `v[i]` with `i` not a constant, is named), and each
    /// element is a local `name[k]` (what `v[0] = &tile[t]` stores and
    /// `*v[0]` reads), started from the initialiser's `k`-th item.
    fn declare_pointer_array(&mut self, name: &str, len: usize, init: Option<Node>) {
        let unknown = format!("pointer loaded from the local array of pointers `{name}`");
        let mut items: Vec<Value> = Vec::new();
        if let Some(list) = init {
            if list.kind() == "initializer_list" {
                let mut c = list.walk();
                let nodes: Vec<Node> = list.named_children(&mut c).collect();
                items = nodes.into_iter().map(|n| self.eval(n)).collect();
            } else {
                self.eval(list);
            }
        }
        self.declare(name, Value::Opaque(unknown.clone()));
        for k in 0..len {
            let v = match items.get(k) {
                Some(v @ (Value::Ptr(_) | Value::Opaque(_) | Value::Alias(_))) => v.clone(),
                // `{0}` or no item: null, never dereferenced by a correct kernel.
                _ => Value::Opaque(unknown.clone()),
            };
            self.declare(&pointer_slot(name, k), v);
        }
    }

    /// `v[k]` of a local array of pointers with a constant `k` in range:
    /// its element's local.
    pub(super) fn pointer_array_slot(&mut self, arg: Node, index: Node) -> Option<LValue> {
        if arg.kind() != "identifier" {
            return None;
        }
        let name = self.text(arg);
        let (scope, v) = self.lookup(&name)?;
        let is_slotted = matches!(v, Value::Opaque(m) if m.starts_with("pointer loaded from the local array of pointers"));
        if !is_slotted {
            return None;
        }
        // A loop counter or any other value that is not a constant of the
        // lowering picks no element (the preprocessor's evaluation would
        // read an unknown name as 0).
        let Value::Int(Expr::Const(k)) = self.eval(index) else {
            return None;
        };
        let key = pointer_slot(&name, usize::try_from(k).ok()?);
        self.scopes
            .get(scope)
            .is_some_and(|m| m.contains_key(&key))
            .then_some(LValue::Local { scope, name: key })
    }

    /// The type a typedef of the file names (`unsigned char` for `u8` after
    /// `typedef unsigned char u8;`), `const` kept off; `None` for a type
    /// that is no alias.
    pub(super) fn resolve_scalar_typedef(&self, ty: &str) -> Option<String> {
        let bare = ty.trim().trim_start_matches("const ").trim();
        self.file.type_aliases.get(bare).cloned()
    }

    /// The dimensions of an array declarator: constant sizes, and the
    /// symbolic ones (an expression that is not a constant).
    pub(super) fn array_dims(&mut self, mut d: Node) -> (Vec<Option<i64>>, Vec<Option<Expr>>) {
        let mut dims = Vec::new();
        let mut symbolic = Vec::new();
        while d.kind() == "array_declarator" {
            let size = d.field("size").map(|s| self.eval(s));
            match size {
                Some(Value::Int(Expr::Const(c))) if c > 0 => {
                    dims.push(Some(c));
                    symbolic.push(None);
                }
                Some(Value::Int(e)) if !matches!(e, Expr::Const(_)) => {
                    dims.push(None);
                    symbolic.push(Some(e));
                }
                _ => {
                    dims.push(None);
                    symbolic.push(None);
                }
            }
            match d.field("declarator") {
                Some(inner) => d = inner,
                None => break,
            }
        }
        dims.reverse();
        symbolic.reverse();
        (dims, symbolic)
    }

    /// Adds the array a declarator declares, with its dimensions.
    pub(super) fn add_declared_array(
        &mut self,
        name: &str,
        space: MemorySpace,
        declarator: Node,
    ) -> ArrayId {
        let (dims, symbolic) = self.array_dims(declarator);
        let id = self.add_array(name, space, dims);
        if symbolic.iter().any(Option::is_some) {
            self.symbolic_dims.insert(id, symbolic);
        }
        id
    }

    pub(super) fn if_statement(&mut self, node: Node) {
        let cond_node = node
            .field("condition")
            .map(|c| c.field("value").or_else(|| c.named_child(0)).unwrap_or(c));
        let cond = match cond_node {
            Some(c) => self.eval_cond(c),
            None => Expr::tru(),
        };
        let cond_span = cond_node
            .map(|c| self.span(c))
            .unwrap_or_else(|| self.span(node));
        let then_node = node.field("consequence");
        let else_node = node.field("alternative").map(|e| {
            if e.kind() == "else_clause" {
                e.named_child(0).unwrap_or(e)
            } else {
                e
            }
        });
        // `if (atomicCAS(&l, 0, 1) == 0) { ...; atomicExch(&l, 0); }`: a
        // try-lock, held in the branch until its release.
        let try_lock = cond_node
            .and_then(|c| lock_target(&self.text(c)))
            .filter(|target| {
                then_node.is_some_and(|t| {
                    let body = self.text(t);
                    body.contains("atomicExch")
                        && body
                            .chars()
                            .filter(|c| !c.is_whitespace() && *c != '&')
                            .collect::<String>()
                            .contains(target.as_str())
                })
            });
        if let Some(target) = &try_lock {
            self.acquire_lock(target.clone());
        }
        self.branch(cond, cond_span, then_node, else_node);
        if let Some(target) = try_lock {
            self.locks.retain(|(t, _)| *t != target);
        }
    }

    pub(super) fn branch(
        &mut self,
        cond: Expr,
        cond_span: Span,
        then_node: Option<Node>,
        else_node: Option<Node>,
    ) {
        let before = self.scopes.clone();
        let async_before = self.async_branch_start();
        self.out.push(Vec::new());
        self.path.push(cond.clone());
        self.cond_spans.push((cond_span, Arc::new(cond.clone())));
        if let Some(t) = then_node {
            self.statement(t);
        }
        self.path.pop();
        self.cond_spans.pop();
        let then_stmts = self.out.pop().unwrap_or_default();
        let then_env = std::mem::replace(&mut self.scopes, before);
        let then_async = self.async_branch_switch(async_before);
        self.out.push(Vec::new());
        let neg = Expr::not(cond.clone());
        self.path.push(neg.clone());
        self.cond_spans.push((cond_span, Arc::new(neg)));
        if let Some(e) = else_node {
            self.statement(e);
        }
        self.path.pop();
        self.cond_spans.pop();
        let else_stmts = self.out.pop().unwrap_or_default();
        self.async_branch_merge(then_async);
        self.merge_env(&cond, then_env);
        self.emit_branch(then_stmts, else_stmts);
    }

    pub(super) fn emit_branch(&mut self, then_stmts: Vec<Stmt>, else_stmts: Vec<Stmt>) {
        if has_barrier(&then_stmts) || has_barrier(&else_stmts) {
            self.emit(Stmt::If(then_stmts, else_stmts));
        } else {
            // (An open split phase collected these accesses in the branches.)
            let out = self.out.last_mut().expect("output stack");
            out.extend(then_stmts.into_iter().chain(else_stmts));
        }
    }

    /// Merges the then-branch environment into the current (else) one.
    pub(super) fn merge_env(&mut self, cond: &Expr, then_env: Scopes) {
        let n = self.scopes.len().min(then_env.len());
        for (i, then_scope) in then_env.into_maps().into_iter().enumerate().take(n) {
            // A scope neither branch changed is still the one shared map.
            if Rc::ptr_eq(&then_scope, &self.scopes.maps[i]) {
                continue;
            }
            for (k, t) in then_scope.iter() {
                let e = self.scopes[i].get(k);
                if e == Some(t) {
                    continue;
                }
                let merged = match e.cloned() {
                    Some(e) => self.merge_value(cond, t.clone(), e),
                    None => t.clone(),
                };
                self.scopes.insert(i, k.clone(), merged);
            }
        }
    }

    pub(super) fn merge_value(&mut self, cond: &Expr, t: Value, e: Value) -> Value {
        match (t, e) {
            (Value::Int(a), Value::Int(b)) => {
                let m = Expr::ite(cond.clone(), a, b);
                Value::Int(self.bound(m, Scope::Thread))
            }
            (Value::Ptr(a), Value::Ptr(b))
                if a.level == b.level && a.view == b.view && self.alike_pointers(&a, &b) =>
            {
                // The pointer into `a`'s arrays where `cond` holds, into
                // `b`'s elsewhere, at the offset of the one it is.
                let others = self.merged_targets(cond, &a, &b);
                let offset = Expr::ite(cond.clone(), a.offset, b.offset);
                let inner = Expr::ite(cond.clone(), a.inner, b.inner);
                Value::Ptr(Ptr {
                    array: b.array,
                    others,
                    offset: self.bound(offset, Scope::Thread),
                    inner: self.bound(inner, Scope::Thread),
                    level: a.level,
                    view: a.view,
                })
            }
            (Value::Ptr(a), Value::Ptr(b)) => Value::Opaque(self.unlike_pointers(&a, &b)),
            (Value::Ptr(_), _) | (_, Value::Ptr(_)) => Value::Opaque(
                "pointer that may point into an array or elsewhere (a pointer on one branch, another value on the other)".into(),
            ),
            (a, b) if a == b => a,
            (Value::Local, _) | (_, Value::Local) => Value::Local,
            _ => {
                let u = self.fresh_unknown("merge", Scope::Thread);
                Value::Int(u)
            }
        }
    }

    pub(super) fn switch_statement(&mut self, node: Node) {
        let Some(cond_node) = node
            .field("condition")
            .map(|c| c.field("value").or_else(|| c.named_child(0)).unwrap_or(c))
        else {
            return;
        };
        let v = match self.eval(cond_node) {
            Value::Int(e) => e,
            _ => self.fresh_unknown("switch", Scope::Thread),
        };
        let cond_span = self.span(cond_node);
        let Some(body) = node.field("body") else {
            return;
        };
        let mut c = body.walk();
        let cases: Vec<Node> = body
            .named_children(&mut c)
            .filter(|n| n.kind() == "case_statement")
            .collect();
        let mut values = Vec::new();
        for case in &cases {
            if let Some(val) = case.field("value") {
                let e = match self.eval(val) {
                    Value::Int(e) => e,
                    _ => self.fresh_unknown("case", Scope::Grid),
                };
                values.push(Some(e));
            } else {
                values.push(None);
            }
        }
        let any_match = Expr::all(
            values
                .iter()
                .flatten()
                .map(|e| Expr::not(Expr::eq(v.clone(), e.clone()))),
        );
        let assigned = assigned_names(body, &self.src, self.file, &mut self.assigned_memo);
        let before = self.scopes.clone();
        // Asynchronous copies: a case starts from the state before the
        // switch or, falling through, after the previous case; after the
        // switch a copy is in flight if it is after any case (or none).
        let async_before = self.async_branch_start();
        let mut async_ends: Vec<_> = Vec::new();
        let mut fallthrough = Expr::fals();
        let mut bodies = Vec::new();
        for (case, val) in cases.iter().zip(values) {
            self.async_branch_switch(async_before.clone());
            if let Some(prev) = async_ends.last().cloned() {
                self.async_branch_merge(prev);
            }
            let matches = match val {
                Some(e) => Expr::eq(v.clone(), e),
                None => any_match.clone(),
            };
            let enter = Expr::or(fallthrough.clone(), matches);
            self.scopes = before.clone();
            self.frames.push(Frame {
                is_loop: false,
                broke: Expr::fals(),
                continued: Expr::fals(),
                thread_exit: false,
                gotos: Vec::new(),
            });
            self.path.push(enter.clone());
            self.cond_spans.push((cond_span, Arc::new(enter.clone())));
            self.out.push(Vec::new());
            let mut c2 = case.walk();
            let value_node = case.field("value");
            let stmts: Vec<Node> = case
                .named_children(&mut c2)
                .filter(|n| value_node != Some(*n))
                .collect();
            for s in stmts {
                self.statement(s);
            }
            let stmts = self.out.pop().unwrap_or_default();
            self.path.pop();
            self.cond_spans.pop();
            let frame = self.frames.pop().expect("switch frame");
            fallthrough = Expr::and(enter, Expr::not(frame.broke));
            bodies.push(stmts);
            async_ends.push(self.async_branch_start());
        }
        self.async_branch_switch(async_before);
        for end in async_ends {
            self.async_branch_merge(end);
        }
        self.scopes = before;
        let mut assigned: Vec<String> = assigned.into_iter().collect();
        assigned.sort();
        for name in assigned {
            for (scope, target) in self.resolve_assigned(&name) {
                if let Some(Value::Int(_)) = self.scopes.get(scope).and_then(|s| s.get(&target)) {
                    let u = self.fresh_unknown(&format!("{target}@switch"), Scope::Thread);
                    self.scopes.insert(scope, target, Value::Int(u));
                }
            }
        }
        for b in bodies {
            self.emit_branch(b, Vec::new());
        }
    }

    // ----- loops ---------------------------------------------------------
}

impl Lowerer<'_, '_> {
    /// Code of a kernel (or of a function it calls) that does not parse:
    /// whatever it meant is not in the model, so the kernel is not verified.
    pub(super) fn syntax_error_in_body(&mut self, node: Node) {
        let what = if node.is_missing() {
            format!("code that does not parse (missing `{}`)", node.kind())
        } else {
            format!("code that does not parse (`{}`)", short(&self.text(node)))
        };
        self.unsupported(node, what);
    }
}

/// The first node of `node`'s subtree that does not parse (an ERROR or a
/// MISSING node), if any.
pub(super) fn first_syntax_error(node: Node) -> Option<Node> {
    if !node.has_error() {
        return None;
    }
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            return Some(n);
        }
        let mut c = n.walk();
        let children: Vec<Node> = n.children(&mut c).collect();
        stack.extend(children.into_iter().rev().filter(|ch| ch.has_error()));
    }
    None
}

pub(super) fn has_barrier(stmts: &[Stmt]) -> bool {
    let mut found = false;
    walk(stmts, &mut |s| found |= matches!(s, Stmt::Barrier(_)));
    found
}

/// For `goto label` at `goto`: when the label is later in a block that
/// encloses the `goto`, how many loops the jump leaves; `None` otherwise.
fn forward_goto_loops(src: &str, goto: Node, label: &str) -> Option<usize> {
    let mut function = goto.parent()?;
    while function.kind() != "function_definition" {
        function = function.parent()?;
    }
    let mut target = None;
    let mut stack = vec![function];
    while let Some(n) = stack.pop() {
        if n.kind() == "labeled_statement"
            && n.named_child(0).map(|l| node_text(src, l)) == Some(label)
        {
            target = Some(n);
            break;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    let target = target?;
    if target.start_byte() < goto.end_byte() {
        return None;
    }
    let block = target.parent()?;
    let mut loops = 0;
    let mut at = goto.parent()?;
    while at.id() != block.id() {
        if matches!(
            at.kind(),
            "for_statement" | "while_statement" | "do_statement"
        ) {
            loops += 1;
        }
        at = at.parent()?;
    }
    Some(loops)
}

/// At most this many elements of a local array of pointers are kept one
/// by one (`float3 *v[3]`); a longer array stays one unknown pointer.
const MAX_POINTER_SLOTS: usize = 16;

/// The local that holds element `k` of the local array of pointers `name`.
fn pointer_slot(name: &str, k: usize) -> String {
    format!("{name}[{k}]")
}
