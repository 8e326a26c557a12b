//! Places in memory: arrays and their dimensions, subscripts and fields,
//! pointers, and the one place where reads and writes become `Access`
//! records of the model (`record_access`).

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn array_total(&self, id: ArrayId) -> Option<i64> {
        let a = &self.arrays[id];
        if a.dims.is_empty() {
            return Some(1);
        }
        a.dims
            .iter()
            .try_fold(1i64, |acc, d| d.and_then(|d| acc.checked_mul(d)))
    }

    pub(super) fn stride(&self, id: ArrayId, level: usize) -> Expr {
        let a = &self.arrays[id];
        let symbolic = self.symbolic_dims.get(&id);
        let mut s = 1i64;
        let mut factors = Vec::new();
        for (i, d) in a.dims.iter().enumerate().skip(level + 1) {
            match (d, symbolic.and_then(|v| v.get(i)).cloned().flatten()) {
                (Some(d), _) => s = s.saturating_mul(*d),
                (None, Some(e)) => factors.push(e),
                (None, None) => return Expr::Const(1),
            }
        }
        factors.into_iter().fold(Expr::Const(s), Expr::mul)
    }

    /// `0 <= idx < size` of dimension `level` of an array, when its size is
    /// known (a constant or a symbolic expression).
    pub(super) fn dim_bound(&self, id: ArrayId, level: usize, idx: &Expr) -> Option<Expr> {
        match self.arrays[id].dims.get(level) {
            Some(Some(d)) => Some(in_range(idx, *d)),
            _ => {
                let size = self.symbolic_dims.get(&id)?.get(level)?.clone()?;
                Some(Expr::and(
                    Expr::bin(BinOp::Ge, idx.clone(), Expr::Const(0)),
                    Expr::bin(BinOp::Lt, idx.clone(), size),
                ))
            }
        }
    }

    pub(super) fn add_array(
        &mut self,
        name: &str,
        space: MemorySpace,
        dims: Vec<Option<i64>>,
    ) -> ArrayId {
        let id = self.arrays.len();
        self.arrays.push(Array {
            name: name.to_string(),
            space,
            dims,
            byte_addressed: false,
        });
        self.array_names.insert(name.to_string(), id);
        id
    }

    pub(super) fn base_ptr(&self, id: ArrayId) -> Value {
        Value::Ptr(Ptr {
            array: id,
            others: Vec::new(),
            offset: Expr::Const(0),
            inner: Expr::Const(0),
            level: 0,
            view: None,
        })
    }

    // ----- objects -------------------------------------------------------

    /// The memory of a shared or global scalar named `name`, if it is one.
    /// Whether `v`, bound to `name`, is the cell of a `__shared__` (or
    /// global) scalar rather than a pointer local.
    pub(super) fn is_scalar_cell(&self, name: &str, v: &Value) -> bool {
        matches!(v, Value::Ptr(p) if p.level == 0
            && p.offset == Expr::Const(0)
            && self.arrays[p.array].dims.is_empty()
            && self.arrays[p.array].name == name)
    }

    pub(super) fn scalar_memory(&mut self, name: &str) -> Option<Ptr> {
        let is_scalar =
            |lw: &Self, id: ArrayId| lw.arrays[id].dims.is_empty() && lw.arrays[id].name == name;
        match self.lookup(name) {
            Some((_, Value::Ptr(p)))
                if p.level == 0 && p.offset == Expr::Const(0) && is_scalar(self, p.array) =>
            {
                Some(p.clone())
            }
            Some(_) => None,
            None => {
                if let Some(&id) = self.array_names.get(name) {
                    return is_scalar(self, id).then_some(Ptr {
                        array: id,
                        others: Vec::new(),
                        offset: Expr::Const(0),
                        inner: Expr::Const(0),
                        level: 0,
                        view: None,
                    });
                }
                if let Some(g) = self
                    .file
                    .global_arrays
                    .iter()
                    .find(|g| g.name == name && g.declarator.kind() == "identifier")
                {
                    let space = if g.shared {
                        MemorySpace::Shared
                    } else {
                        MemorySpace::Global
                    };
                    let ty = g.elem_type.clone();
                    let id = self.add_array(name, space, Vec::new());
                    self.elem_types.insert(id, ty);
                    return Some(Ptr {
                        array: id,
                        others: Vec::new(),
                        offset: Expr::Const(0),
                        inner: Expr::Const(0),
                        level: 0,
                        view: None,
                    });
                }
                None
            }
        }
    }

    pub(super) fn field(&mut self, node: Node) -> Value {
        let Some(arg) = node.field("argument") else {
            return Value::Local;
        };
        let field = node
            .field("field")
            .map(|f| self.text(f))
            .unwrap_or_default();
        let op = node
            .field("operator")
            .map(|o| self.text(o))
            .unwrap_or_default();
        if let Some(v) = self.fragment_member(node) {
            return v;
        }
        if let Some(member) = self.shared_member_array(node) {
            // `t.v` of a `__shared__` object: its array member (decays).
            return self.base_ptr(member);
        }
        if let Some((view, array)) = self.shared_union_member(node) {
            // `u.f` of a `__shared__` union: an array member decays to its
            // view; a scalar member is read through it.
            return match (view, array) {
                (Value::Ptr(p), false) => {
                    let lv = self.subscript(p, Expr::Const(0), &mut Vec::new());
                    let t = self.text(node);
                    self.read_lvalue(&lv, &t, Some(node))
                }
                (v, _) => v,
            };
        }
        if let Some((scope, path, _)) = self.member_base(node) {
            // `acc.p`, `this->p`: the member's local.
            let key = format!("{path}.{field}");
            return match self.scopes.get(scope).and_then(|s| s.get(&key)) {
                Some(v) => v.clone(),
                None => Value::Int(self.fresh_unknown(&key, Scope::Thread)),
            };
        }
        if op == "->" && self.arrow_to_object(arg) {
            let base = self.eval(arg);
            if let Some(obj) = self.pointed_object(&base) {
                return self.member_value(obj, &field, node);
            }
            return Value::Int(self.fresh_unknown("field", Scope::Thread));
        }
        if op == "->" {
            return match self.lvalue(node) {
                Some(lv) => {
                    let t = self.text(node);
                    self.read_lvalue(&lv, &t, Some(node))
                }
                None => Value::Int(self.fresh_unknown("field", Scope::Thread)),
            };
        }
        let base = self.eval(arg);
        match base {
            Value::Dim3(which) => {
                let d = match field.as_str() {
                    "x" => 0,
                    "y" => 1,
                    "z" => 2,
                    _ => return Value::Int(self.fresh_unknown(&field, Scope::Thread)),
                };
                let (name, kind) = match which {
                    0 => ("threadIdx", VarKind::ThreadIdx(d)),
                    1 => ("blockIdx", VarKind::BlockIdx(d)),
                    2 => ("blockDim", VarKind::BlockDim(d)),
                    _ => ("gridDim", VarKind::GridDim(d)),
                };
                Value::Int(Expr::Var(Var::new(
                    format!("{name}.{}", DIMS[d as usize]),
                    kind,
                )))
            }
            Value::Ptr(_) => {
                // `s[i].x` on a shared array of structs: a read of element i.
                match self.lvalue(node) {
                    Some(lv) => {
                        let t = self.text(node);
                        self.read_lvalue(&lv, &t, Some(node))
                    }
                    None => Value::Int(self.fresh_unknown("field", Scope::Thread)),
                }
            }
            Value::Int(e) => {
                let s = e.scope();
                Value::Int(self.fresh_unknown(&format!("field_{field}"), s))
            }
            _ => Value::Int(self.fresh_unknown(&format!("field_{field}"), Scope::Thread)),
        }
    }

    /// The memory or variable an expression designates.
    pub(super) fn lvalue(&mut self, node: Node) -> Option<LValue> {
        match node.kind() {
            "identifier" => {
                let name = self.text(node);
                if let Some(p) = self.scalar_memory(&name) {
                    return Some(LValue::Mem {
                        ptr: p,
                        bounds: Vec::new(),
                    });
                }
                match self.lookup(&name) {
                    Some((_, Value::Alias(lv))) => Some((**lv).clone()),
                    Some((_, Value::Local)) => Some(LValue::Discard),
                    Some((scope, _)) => Some(LValue::Local { scope, name }),
                    None => match self.named_value(&name, node) {
                        // `__shared__ int flag;` and `__device__ int g;`: arrays of one.
                        Value::Ptr(p) => Some(LValue::Mem {
                            ptr: p,
                            bounds: Vec::new(),
                        }),
                        _ => Some(LValue::Discard),
                    },
                }
            }
            "parenthesized_expression" => node.named_child(0).and_then(|n| self.lvalue(n)),
            "subscript_expression" => {
                let arg = node.field("argument")?;
                let idx_node = node
                    .field("indices")
                    .and_then(|l| l.named_child(0))
                    .or_else(|| node.field("index"))?;
                if let Some(slot) = self.pointer_array_slot(arg, idx_node) {
                    return Some(slot);
                }
                let (base, mut bounds) = match self.lvalue_base(arg) {
                    Some(b) => b,
                    None => return Some(LValue::Discard),
                };
                let idx_v = self.eval(idx_node);
                let idx = self.int_of(idx_v, "index");
                match base {
                    Value::Ptr(p) => Some(self.subscript(p, idx, &mut bounds)),
                    Value::Local => Some(LValue::Discard),
                    // An array member of a union inside a struct in memory
                    // the model does not lay out (`in[i].payload.f[j]`):
                    // named.
                    Value::Int(_) if self.union_in_path(arg).is_some() => {
                        let (union, member) = self.union_in_path(arg).unwrap_or_default();
                        Some(LValue::Opaque(format!(
                            "member `{member}` of the union `{union}` (a union inside a struct the model does not lay out in this memory)"
                        )))
                    }
                    // An integer used as a pointer: loaded from memory or
                    // computed; we cannot know what it points to.
                    Value::Int(_) => Some(LValue::Opaque("pointer of unknown origin".into())),
                    Value::Opaque(r) => Some(LValue::Opaque(r)),
                    Value::Object(ty) => Some(LValue::Opaque(format!(
                        "subscript of a `{ty}` object (operator[])"
                    ))),
                    _ => Some(LValue::Discard),
                }
            }
            "pointer_expression" if !self.is_address_of(node) => {
                let arg = node.field("argument")?;
                match self.eval(arg) {
                    Value::Ptr(p) => {
                        let mut bounds = Vec::new();
                        Some(self.subscript(p, Expr::Const(0), &mut bounds))
                    }
                    Value::Alias(lv) => Some(*lv),
                    Value::Opaque(r) => Some(LValue::Opaque(r)),
                    Value::Int(e) if e.scope() != Scope::Grid || !matches!(e, Expr::Const(_)) => {
                        Some(LValue::Opaque("pointer of unknown origin".into()))
                    }
                    _ => Some(LValue::Discard),
                }
            }
            "field_expression" => {
                let arg = node.field("argument")?;
                let op = node
                    .field("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                if let Some((view, _)) = self.shared_union_member(node) {
                    return Some(match view {
                        Value::Ptr(p) => self.subscript(p, Expr::Const(0), &mut Vec::new()),
                        Value::Opaque(r) => LValue::Opaque(r),
                        _ => LValue::Discard,
                    });
                }
                if let Some((scope, path, _)) = self.member_base(node) {
                    let field = self.text(node.field("field")?);
                    let key = format!("{path}.{field}");
                    return Some(match self.scopes.get(scope).and_then(|s| s.get(&key)) {
                        Some(Value::Local) | None => LValue::Discard,
                        Some(_) => LValue::Local { scope, name: key },
                    });
                }
                if op == "->" {
                    let base = self.eval(arg);
                    if let Some(obj) = self.pointed_object(&base) {
                        let field = self.text(node.field("field")?);
                        return Some(self.member_lvalue(obj, &field));
                    }
                    match base {
                        Value::Ptr(p) => {
                            let mut b = Vec::new();
                            Some(self.subscript(p, Expr::Const(0), &mut b))
                        }
                        Value::Opaque(r) => Some(LValue::Opaque(r)),
                        // An integer used as a pointer: we cannot know
                        // what it points to.
                        Value::Int(e) if !matches!(e, Expr::Const(_)) => {
                            Some(LValue::Opaque("pointer of unknown origin".into()))
                        }
                        Value::Object(ty) => {
                            Some(LValue::Opaque(format!("pointer to a `{ty}` object")))
                        }
                        _ => Some(LValue::Discard),
                    }
                } else {
                    match self.lvalue(arg)? {
                        LValue::Local { .. } => Some(LValue::Discard),
                        other => Some(other),
                    }
                }
            }
            "cast_expression" => node.field("value").and_then(|v| self.lvalue(v)),
            "qualified_identifier" => node.field("name").and_then(|n| self.lvalue(n)),
            _ => {
                self.eval(node);
                None
            }
        }
    }

    /// `X.u.m` where `u` is a struct member of union type (a union of the
    /// file): the union's text and the member's name.
    fn union_in_path(&self, node: Node) -> Option<(String, String)> {
        let mut n = node;
        let mut member = None;
        while n.kind() == "field_expression" {
            let field = self.text(n.field("field")?);
            let is_union = self.file.structs.values().any(|sd| {
                sd.fields.iter().any(|f| {
                    let key = f.elem_type.trim();
                    f.name == field
                        && !f.pointer
                        && (self.file.unions.contains_key(key)
                            || key
                                .strip_prefix("union")
                                .is_some_and(|k| self.file.unions.contains_key(k.trim())))
                })
            });
            if is_union {
                if let Some(m) = member {
                    return Some((self.text(n), m));
                }
            }
            member = Some(field);
            n = n.field("argument")?;
        }
        None
    }

    /// A row of a multi-dimensional array used as a value (`buf[i & 1]` of
    /// `buf[2][N]`, which decays to a pointer to its first element): the
    /// row's pointer, not a read of an element.
    pub(super) fn row_pointer(&mut self, node: Node) -> Option<Value> {
        if node.kind() != "subscript_expression" {
            return None;
        }
        let mut depth = 0;
        let mut base = node;
        while base.kind() == "subscript_expression" {
            depth += 1;
            base = base.field("argument")?;
        }
        if base.kind() != "identifier" {
            return None;
        }
        let Value::Ptr(p) = self.eval(base) else {
            return None;
        };
        if p.view.is_some() || p.level + depth >= self.arrays[p.array].dims.len() {
            return None;
        }
        match self.lvalue_base(node)? {
            (v @ Value::Ptr(_), _) => Some(v),
            _ => None,
        }
    }

    /// Evaluates the base of a subscript: a pointer value plus the bounds
    /// collected from outer subscripts of a multi-dimensional array.
    pub(super) fn lvalue_base(&mut self, arg: Node) -> Option<(Value, Vec<Expr>)> {
        if arg.kind() == "subscript_expression" {
            let inner_arg = arg.field("argument")?;
            let idx_node = arg.field("indices").and_then(|l| l.named_child(0))?;
            // `planes[1][i]`: the pointer element `planes[1]` holds.
            if let Some(LValue::Local { scope, name }) =
                self.pointer_array_slot(inner_arg, idx_node)
            {
                let held = self.scopes.get(scope).and_then(|m| m.get(&name)).cloned()?;
                return Some((held, Vec::new()));
            }
            let (base, mut bounds) = self.lvalue_base(inner_arg)?;
            let idx_v = self.eval(idx_node);
            let idx = self.int_of(idx_v, "index");
            return match base {
                Value::Ptr(p) => {
                    let ndims = self.arrays[p.array].dims.len();
                    if p.view.is_none() && p.level + 1 < ndims {
                        if let Some(b) = self.dim_bound(p.array, p.level, &idx) {
                            bounds.push(b);
                        }
                        let stride = self.stride(p.array, p.level);
                        Some((
                            Value::Ptr(Ptr {
                                array: p.array,
                                others: p.others.clone(),
                                offset: Expr::add(p.offset, Expr::mul(idx, stride)),
                                inner: Expr::Const(0),
                                level: p.level + 1,
                                view: None,
                            }),
                            bounds,
                        ))
                    } else {
                        // Element of a 1-D array used as a pointer base: a
                        // pointer read from memory.
                        let lv = self.subscript(p, idx, &mut bounds);
                        let t = self.text(arg);
                        let _ = self.read_lvalue(&lv, &t, Some(arg));
                        Some((
                            Value::Opaque("pointer of unknown origin (loaded from memory)".into()),
                            bounds,
                        ))
                    }
                }
                Value::Local => Some((Value::Local, bounds)),
                other => Some((other, bounds)),
            };
        }
        if let Some(member) = self.shared_member_array(arg) {
            return Some((self.base_ptr(member), Vec::new()));
        }
        if let Some((view, _)) = self.shared_union_member(arg) {
            return Some((view, Vec::new()));
        }
        let v = self.eval(arg);
        Some((v, Vec::new()))
    }

    /// `t.v` of a `__shared__` object `t` of a struct with an array member
    /// `v`: an array of its own (members of a struct do not overlap), one
    /// per block like `t`.
    pub(super) fn shared_member_array(&mut self, node: Node) -> Option<ArrayId> {
        if node.kind() != "field_expression" || self.shared_objects.is_empty() {
            return None;
        }
        let op = self.text(node.field("operator")?);
        let base = node.field("argument")?;
        if op != "." || base.kind() != "identifier" {
            return None;
        }
        let obj = self.scalar_memory(&self.text(base))?.array;
        let ty = self.shared_objects.get(&obj)?.clone();
        let field = self.text(node.field("field")?);
        if let Some(&id) = self.member_arrays.get(&(obj, field.clone())) {
            return Some(id);
        }
        let f = self
            .struct_fields(&ty)
            .into_iter()
            .find(|f| f.name == field && f.array && !f.pointer)?;
        let dims = f
            .dims
            .iter()
            .map(|d| self.eval_snippet_const(d).filter(|n| *n > 0))
            .collect();
        let name = format!("{}.{field}", self.arrays[obj].name);
        let id = self.add_array(&name, MemorySpace::Shared, dims);
        self.elem_types.insert(id, f.elem_type.clone());
        self.member_arrays.insert((obj, field), id);
        Some(id)
    }

    pub(super) fn subscript(&mut self, p: Ptr, idx: Expr, bounds: &mut Vec<Expr>) -> LValue {
        if p.view.is_some() {
            return self.view_subscript(p, idx, bounds);
        }
        let ndims = self.arrays[p.array].dims.len();
        let space = self.arrays[p.array].space;
        let offset = Expr::add(
            p.offset.clone(),
            Expr::mul(idx.clone(), self.stride(p.array, p.level)),
        );
        let mut bounds = std::mem::take(bounds);
        if p.level + 1 >= ndims {
            if ndims > 1 {
                let inner = Expr::add(p.inner.clone(), idx.clone());
                if let Some(b) = self.dim_bound(p.array, p.level, &inner) {
                    bounds.push(b);
                }
            }
        } else if let Some(b) = self.dim_bound(p.array, p.level, &idx) {
            bounds.push(b);
        }
        if space == MemorySpace::Shared {
            match self.array_total(p.array) {
                Some(total) => bounds.push(in_range(&offset, total)),
                None => bounds.push(Expr::bin(BinOp::Ge, offset.clone(), Expr::Const(0))),
            }
        }
        let level = if p.level + 1 < ndims {
            p.level + 1
        } else {
            p.level
        };
        LValue::Mem {
            ptr: Ptr {
                array: p.array,
                others: p.others.clone(),
                offset,
                inner: Expr::add(p.inner, idx),
                level,
                view: None,
            },
            bounds,
        }
    }

    pub(super) fn record_access(
        &mut self,
        kind: AccessKind,
        ptr: &Ptr,
        bounds: &[Expr],
        node: Option<Node>,
        text: &str,
    ) {
        if self.dry > 0 {
            return;
        }
        if !ptr.others.is_empty() {
            // A pointer chosen among arrays: an access of each, under the
            // condition that the pointer points into it.
            for (cond, array) in Self::targets_of(ptr) {
                let one = Ptr {
                    array,
                    others: Vec::new(),
                    ..ptr.clone()
                };
                let bounds: Vec<Expr> = bounds.iter().cloned().chain([cond]).collect();
                self.record_access(kind, &one, &bounds, node, text);
            }
            return;
        }
        let guard = Expr::all(
            std::iter::once(self.guard())
                .chain(bounds.iter().cloned())
                .chain(self.pipeline_windows()),
        );
        if guard.is_false() {
            return;
        }
        let span = match node {
            Some(n) => self.span(n),
            None => self.span_override.unwrap_or_default(),
        };
        // Any later write of a broadcast flag (`note_broadcast`), however
        // made, ends its known value.
        if kind.writes() {
            for entry in &mut self.broadcasts {
                if entry.0 == ptr.array {
                    entry.2 = None;
                }
            }
        }
        self.note_memory_access(kind, ptr.array);
        let id = self.next_access;
        self.next_access += 1;
        self.note_view_access(ptr, id);
        let access = Access {
            id,
            array: ptr.array,
            kind,
            index: ptr.offset.clone(),
            width: 1,
            guard,
            span,
            text: text.to_string(),
            loops: self.loops.clone(),
            value: match kind {
                AccessKind::Write => self.written_value.clone(),
                AccessKind::Read => self.read_value.clone(),
                _ => None,
            },
        };
        self.emit(Stmt::Access(access));
    }

    pub(super) fn read_lvalue(&mut self, lv: &LValue, text: &str, node: Option<Node>) -> Value {
        match lv {
            LValue::Local { scope, name } => {
                match self.scopes.get(*scope).and_then(|s| s.get(name)).cloned() {
                    Some(v) => v,
                    // A member the object does not have: unknown (a pointer
                    // made of it is of unknown origin).
                    None if name.contains('.') => {
                        Value::Int(self.fresh_unknown(name, Scope::Thread))
                    }
                    None => Value::Local,
                }
            }
            LValue::Mem { ptr, bounds } => {
                // A pointer cell whose stores the model follows
                // (`memory_objects`): the pointer it holds.
                if let Some(v) = self.pointer_cell_read(ptr, node, text) {
                    self.record_access(AccessKind::Read, ptr, bounds, node, text);
                    return v;
                }
                let id = self.next_access;
                if !self.track_values {
                    self.record_access(AccessKind::Read, ptr, bounds, node, text);
                }
                let broadcast = self.broadcast_value(ptr);
                let fresh = broadcast.is_none();
                let value = match broadcast {
                    Some(v) => v,
                    None => {
                        let min_scope = if self.arrays[ptr.array].space == MemorySpace::Shared {
                            Scope::Block
                        } else {
                            Scope::Grid
                        };
                        let scope = self.scope_within_iteration(&ptr.offset).max(min_scope);
                        // A value read through the array's own element type
                        // lies in that type's range (not through a view of
                        // other bytes).
                        let range = match self.elem_ranges.get(&ptr.array) {
                            Some(&r)
                                if ptr.view.is_none() && !self.arrays[ptr.array].byte_addressed =>
                            {
                                r
                            }
                            _ => (i64::MIN, i64::MAX),
                        };
                        let v = self.fresh_value_in(text, scope, range);
                        if ptr.view.is_none() && self.float_elements(ptr.array) {
                            self.mark_float(v)
                        } else {
                            v
                        }
                    }
                };
                if self.track_values {
                    // The read records what it yields (`syncscope equiv`).
                    self.read_value = Some(value.clone());
                    self.record_access(AccessKind::Read, ptr, bounds, node, text);
                    self.read_value = None;
                }
                // The schedule checks follow a fresh value read from memory
                // back to its access.
                let recorded = self.next_access == id + 1;
                if let (true, true, Expr::Var(v)) = (fresh, recorded, &value) {
                    self.read_values.push((v.clone(), id));
                }
                Value::Int(value)
            }
            LValue::Discard => Value::Int(self.fresh_unknown(text, Scope::Thread)),
            LValue::Opaque(reason) => {
                if let Some(n) = node {
                    let r = reason.clone();
                    self.unsupported(n, r);
                }
                Value::Int(self.fresh_unknown(text, Scope::Thread))
            }
        }
    }

    /// The scope of `e` for a value read in the current iteration of the
    /// enclosing loops: their counters count as shared, because the value
    /// read is tagged with the iteration (one unknown per iteration), so two
    /// threads share it only when they are in the same iteration. This is
    /// what makes `s_len[seg]` (a `__shared__` array at a loop counter, or
    /// a `__shared__` scalar) one value for the whole block in iteration
    /// `seg`: a write between two such reads that are not ordered by a
    /// barrier is a race, reported on its own.
    fn scope_within_iteration(&self, e: &Expr) -> Scope {
        let mut s = Scope::Grid;
        e.for_each_var(&mut |v| {
            let enclosing_counter = matches!(v.kind, VarKind::Counter { .. })
                && self.loop_counters.iter().any(|c| *c == *v.name);
            if !enclosing_counter {
                s = s.max(v.scope());
            }
        });
        s
    }

    pub(super) fn write_lvalue(&mut self, lv: &LValue, value: Value, node: Node, kind: AccessKind) {
        match lv {
            LValue::Local { scope, name } => {
                // Straight-line code like `x = x + x;` repeated grows a
                // value exponentially: past a bound it becomes unknown.
                let value = match value {
                    Value::Int(e) => {
                        let e = if self.float_locals.contains(&(*scope, name.clone())) {
                            self.convert_scalar("float", e)
                        } else {
                            e
                        };
                        Value::Int(self.bound(e, Scope::Thread))
                    }
                    v => v,
                };
                if *scope < self.scopes.len() {
                    self.scopes.insert(*scope, name.clone(), value);
                }
            }
            LValue::Mem { ptr, bounds } => {
                let text = self.text(node);
                let followed = self.mem.pointer_cells.contains(&ptr.array);
                let stored = followed.then(|| value.clone());
                // The value written, unless it depends on code nobody
                // checked (a result of such code may differ per thread).
                self.written_value = match value {
                    Value::Int(e) if e.unseen_origins().is_empty() => Some(e),
                    _ => None,
                };
                self.mem.storing = followed.then_some(ptr.array);
                self.record_access(kind, ptr, bounds, Some(node), &text);
                self.mem.storing = None;
                if let Some(v) = stored {
                    let v = if kind == AccessKind::Write && ptr.others.is_empty() {
                        v
                    } else {
                        Value::Local
                    };
                    self.note_pointer_store(ptr.array, &v);
                }
                self.note_broadcast(ptr, bounds);
                self.written_value = None;
            }
            LValue::Discard => {}
            LValue::Opaque(reason) => {
                let r = reason.clone();
                self.unsupported(node, r);
            }
        }
    }
}

pub(super) fn in_range(e: &Expr, size: i64) -> Expr {
    Expr::and(
        Expr::bin(BinOp::Ge, e.clone(), Expr::Const(0)),
        Expr::bin(BinOp::Lt, e.clone(), Expr::Const(size)),
    )
}

impl Lowerer<'_, '_> {
    /// After a write: a `__shared__` cell at a fixed index that thread 0 of
    /// every block writes, outside loops, with a value made of a block's
    /// last-block ticket (`s_last = ticket == gridDim.x - 1`) holds that
    /// value for the block's later reads (`broadcasts`). Any other write of
    /// the array ends that.
    fn note_broadcast(&mut self, ptr: &Ptr, bounds: &[Expr]) {
        if self.dry > 0 {
            return;
        }
        if !ptr.others.is_empty() {
            // Not one cell: no value is known of it (`record_access` ended
            // what each of its arrays held).
            return;
        }
        let array = ptr.array;
        // A write after the first one that set a flag (`record_access`
        // already took its value away).
        if self.broadcasts.iter().any(|(a, _, _)| *a == array) {
            return;
        }
        let Some(value) = self.written_value.clone() else {
            return;
        };
        let Some(cell) = ptr.offset.as_const() else {
            return;
        };
        let ticket_made = {
            let mut found = false;
            value.for_each_var(&mut |v| {
                found |= self.last_blocks.iter().any(|lb| lb.ticket == *v);
            });
            found
        };
        if !ticket_made {
            return;
        }
        if !self.loops.is_empty() || self.arrays[array].space != MemorySpace::Shared {
            // Known to no one: an entry with no value.
            self.broadcasts.push((array, cell, None));
            return;
        }
        let guard = Expr::all(std::iter::once(self.guard()).chain(bounds.iter().cloned()));
        let thread0 = guard.subst(&mut |v| match v.kind {
            VarKind::ThreadIdx(_) => Some(Expr::Const(0)),
            VarKind::Unknown { .. } if symbols::fenced_target(&v.name).is_some() => {
                Some(Expr::tru())
            }
            _ => None,
        });
        // Under a condition that is one value for the whole block
        // (`if (gridDim.x > 1) { ... if (t == 0) s_last = ...; }`), thread 0
        // wrote it in every block whose reader's condition implies it.
        let entry = (thread0.scope() != Scope::Thread).then_some((value, thread0));
        self.broadcasts.push((array, cell, entry));
    }

    /// The value a read of `ptr` gets from a broadcast (`note_broadcast`).
    fn broadcast_value(&self, ptr: &Ptr) -> Option<Expr> {
        if !self.loops.is_empty() || self.dry > 0 {
            return None;
        }
        if !ptr.others.is_empty() {
            return None;
        }
        let cell = ptr.offset.as_const()?;
        let (value, written_if) = self
            .broadcasts
            .iter()
            .find(|(a, c, _)| *a == ptr.array && *c == cell)
            .and_then(|(_, _, v)| v.clone())?;
        super::builtins::implies(&self.guard(), &written_if).then_some(value)
    }
}
