//! Pointers that view memory as another element type: `reinterpret_cast<
//! float4*>(p)`, `(char*)p + off`, `extern __shared__` arrays of different
//! types over the one dynamic buffer. Such a pointer counts its offset in
//! bytes and each access through it covers its element's bytes; an array
//! reached through more than one element size becomes byte-addressed, so a
//! `float4` write and a `float` read collide exactly when their bytes do.
//! A view whose element size is unknown (a template parameter `T`) is exact
//! only when every access of the array goes through that one type; anything
//! else is reported `not-verified`, never guessed.

use super::*;

/// The element type a pointer sees memory as, when it is not the array's
/// declared element type.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct View {
    /// The element type as written (`float4`, `T`).
    pub ty: String,
    /// Its size in bytes when known: the pointer's offset then counts bytes.
    /// Unknown: the offset counts elements of `ty` from the array's start.
    pub bytes: Option<i64>,
}

/// How an access was recorded, for the byte-addressing pass.
#[derive(Clone, Debug)]
pub(super) enum Recorded {
    /// Byte offset, this many bytes.
    Bytes(i64),
    /// Elements of a type of unknown size, from the array's start.
    Typed(String),
}

/// The size in bytes of a CUDA scalar or vector type, `None` when the model
/// cannot know it (template parameters, structs).
pub(crate) fn type_bytes(ty: &str) -> Option<i64> {
    // `cuda::atomic<int>` holds one `int`.
    if let Some(value) = super::libcu_atomics::atomic_value_type(ty) {
        return type_bytes(value);
    }
    let t = plain_type(ty);
    if t.ends_with('*') {
        return Some(8);
    }
    let (base, lanes) = match t.trim_end_matches(|c: char| c.is_ascii_digit()) {
        b if b.len() < t.len() && vector_base(b).is_some() => (b, t[b.len()..].parse().ok()?),
        b => (b, 1),
    };
    let scalar = vector_base(base).or(match base {
        "int" | "unsigned" | "unsigned int" | "signed int" | "uint" | "int32_t" | "uint32_t"
        | "float" | "__half2" | "half2" | "__nv_bfloat162" => Some(4),
        "short" | "unsigned short" | "int16_t" | "uint16_t" | "__half" | "half"
        | "__nv_bfloat16" => Some(2),
        "char" | "signed char" | "unsigned char" | "bool" | "int8_t" | "uint8_t" => Some(1),
        "double" | "long long" | "unsigned long long" | "long" | "unsigned long" | "size_t"
        | "int64_t" | "uint64_t" | "long long int" => Some(8),
        _ => None,
    })?;
    // `float3` is three floats; its alignment does not pad an array of them.
    Some(scalar * lanes)
}

/// The scalar size of the base name of a CUDA vector type (`float` of
/// `float4`, `uchar` of `uchar4`).
fn vector_base(b: &str) -> Option<i64> {
    match b {
        "char" | "uchar" => Some(1),
        "short" | "ushort" => Some(2),
        "int" | "uint" | "float" => Some(4),
        "long" | "ulong" | "longlong" | "ulonglong" | "double" => Some(8),
        _ => None,
    }
}

/// A type without qualifiers and without one trailing `*` removed: `const
/// float4 *__restrict__` is `float4 *`.
fn plain_type(ty: &str) -> String {
    let spaced = ty.replace('*', " * ");
    let words: Vec<&str> = spaced
        .split(|c: char| c.is_whitespace())
        .filter(|w| {
            !matches!(
                *w,
                "" | "const" | "volatile" | "__restrict__" | "__restrict" | "struct" | "typename"
            )
        })
        .collect();
    words.join(" ").replace(" *", "*")
}

/// The pointee of a pointer type (`const float4 *` → `float4`), `None` for a
/// type that is not a pointer.
pub(super) fn pointee(ty: &str) -> Option<String> {
    let t = plain_type(ty);
    let t = t.strip_suffix('*')?;
    Some(t.trim().to_string())
}

impl<'a, 't> Lowerer<'a, 't> {
    /// The element type a pointer sees: its view's, or its array's.
    pub(super) fn elem_of(&self, p: &Ptr) -> (Option<String>, Option<i64>) {
        match &p.view {
            Some(v) => (Some(v.ty.clone()), v.bytes),
            None => {
                let ty = self.elem_types.get(&p.array).cloned();
                let bytes = ty.as_deref().and_then(|t| self.alias_bytes(t));
                (ty, bytes)
            }
        }
    }

    /// The size of a type, seen through the file's typedefs (`cData` of
    /// `typedef float2 cData;` is 8 bytes).
    pub(super) fn alias_bytes(&self, ty: &str) -> Option<i64> {
        type_bytes(ty).or_else(|| {
            let t = plain_type(ty);
            let base = t.trim_end_matches('*').trim();
            let stars = &t[base.len()..];
            let resolved = match self.local_aliases.get(base) {
                Some(local) => local.as_ref()?,
                None => self.file.type_aliases.get(base)?,
            };
            type_bytes(&format!("{resolved}{stars}"))
        })
    }

    /// `typedef int4 copy_t;` inside a kernel or device function: the alias
    /// of a scalar or vector type, for the sizes of pointer casts. Aliases
    /// are not scoped here, so a name given two different types in one
    /// kernel has no known size.
    pub(super) fn local_typedef(&mut self, node: Node) {
        let Some(ty) = node.field("type") else { return };
        if !matches!(
            ty.kind(),
            "primitive_type" | "sized_type_specifier" | "type_identifier"
        ) {
            return;
        }
        let named = self.text(ty);
        let resolved = match self.local_aliases.get(named.trim()) {
            Some(Some(earlier)) => earlier.clone(),
            Some(None) => return,
            None => self
                .file
                .type_aliases
                .get(named.trim())
                .cloned()
                .unwrap_or_else(|| named.trim().to_string()),
        };
        let mut c = node.walk();
        let aliases: Vec<String> = node
            .children_by_field_name("declarator", &mut c)
            .filter(|d| d.kind() == "type_identifier")
            .map(|d| self.text(d))
            .collect();
        for alias in aliases {
            let entry = self
                .local_aliases
                .entry(alias)
                .or_insert_with(|| Some(resolved.clone()));
            if entry.as_deref() != Some(resolved.as_str()) {
                *entry = None;
            }
        }
    }

    /// `(T*)v`, `reinterpret_cast<T*>(v)`: `v` seen as a pointer to `T`
    /// (`ty` is the pointer type as written).
    pub(super) fn cast_pointer(&mut self, v: Value, ty: &str, node: Node) -> Value {
        let Value::Ptr(p) = v else { return v };
        let Some(target) = pointee(ty) else {
            return Value::Ptr(p);
        };
        if target == "void" || target.is_empty() {
            return Value::Ptr(p);
        }
        let target_bytes = self.alias_bytes(&target);
        let (cur_ty, cur_bytes) = self.elem_of(&p);
        // `(int*)a` of a `cuda::atomic<int>* a` (or back) keeps the size but
        // not the kind of access: a view, so accesses through it are plain
        // (or atomic) as their type says.
        let atomic = super::libcu_atomics::is_atomic_type;
        let same_kind = cur_ty.as_deref().is_none_or(atomic) == atomic(&target) || cur_ty.is_none();
        let same = cur_ty.as_deref().map(plain_type) == Some(plain_type(&target))
            || (target_bytes.is_some() && target_bytes == cur_bytes && same_kind);
        if same {
            return Value::Ptr(p);
        }
        let at_start = p.offset == Expr::Const(0);
        // The pointer's offset in bytes, when it can be known.
        let byte_offset = match (&p.view, cur_bytes) {
            (Some(View { bytes: Some(_), .. }), _) => Some(p.offset.clone()),
            (_, _) if at_start => Some(Expr::Const(0)),
            (None, Some(b)) => Some(Expr::mul(p.offset.clone(), Expr::Const(b))),
            _ => None,
        };
        match (target_bytes, byte_offset) {
            (Some(b), Some(off)) => Value::Ptr(Ptr {
                array: p.array,
                others: p.others.clone(),
                offset: off.clone(),
                inner: off,
                level: 0,
                view: Some(View {
                    ty: target,
                    bytes: Some(b),
                }),
            }),
            (None, Some(_)) if at_start => Value::Ptr(Ptr {
                array: p.array,
                others: p.others.clone(),
                offset: Expr::Const(0),
                inner: Expr::Const(0),
                level: 0,
                view: Some(View {
                    ty: target,
                    bytes: None,
                }),
            }),
            _ => {
                let from = cur_ty.unwrap_or_else(|| "an element of unknown type".into());
                let what = format!(
                    "pointer into `{}` cast from `{from}` to `{target}*` at an offset the model cannot express in bytes",
                    self.arrays[p.array].name
                );
                self.unsupported(node, what.clone());
                Value::Opaque(what)
            }
        }
    }

    /// The step of `p + 1` through a view: its element size in bytes, or one
    /// element of its unknown type.
    pub(super) fn view_step(p: &Ptr) -> Option<Expr> {
        p.view.as_ref().map(|v| Expr::Const(v.bytes.unwrap_or(1)))
    }

    /// `p[idx]` through a view: no dimension bounds (the view flattens the
    /// array); a shared array's accesses stay inside it.
    pub(super) fn view_subscript(&mut self, p: Ptr, idx: Expr, bounds: &mut Vec<Expr>) -> LValue {
        let view = p.view.clone().expect("a view");
        let step = Expr::Const(view.bytes.unwrap_or(1));
        let offset = Expr::add(p.offset.clone(), Expr::mul(idx, step));
        let mut bounds = std::mem::take(bounds);
        if self.arrays[p.array].space == MemorySpace::Shared {
            bounds.push(Expr::bin(BinOp::Ge, offset.clone(), Expr::Const(0)));
            let total = self.array_total(p.array).and_then(|n| {
                let (_, b) = self.elem_of(&Ptr {
                    view: None,
                    ..p.clone()
                });
                n.checked_mul(b?)
            });
            if let (Some(total), Some(w)) = (total, view.bytes) {
                bounds.push(Expr::bin(
                    BinOp::Le,
                    Expr::add(offset.clone(), Expr::Const(w)),
                    Expr::Const(total),
                ));
            }
        }
        LValue::Mem {
            ptr: Ptr {
                array: p.array,
                others: p.others.clone(),
                offset: offset.clone(),
                inner: offset,
                level: 0,
                view: Some(view),
            },
            bounds,
        }
    }

    /// `memset(dst, v, bytes)`, `memcpy(dst, src, bytes)`, `memmove`: a
    /// write of every element of `dst`'s range (and a read of `src`'s) by
    /// this thread. A size the model cannot evaluate is every element from
    /// the pointer on. `&obj` of a thread's own struct object and a local
    /// array are private memory: a written object's members become
    /// unknown (a local array's elements always are).
    pub(super) fn memory_range_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
    ) -> Option<Value> {
        let (dst_at, src_at) = match name {
            "memset" if args.len() == 3 => (0, None),
            "memcpy" | "memmove" if args.len() == 3 => (0, Some(1)),
            _ => return None,
        };
        let vals: Vec<Value> = args.iter().map(|a| self.eval(*a)).collect();
        let text = self.text(node);
        let mut ranges = vec![(dst_at, AccessKind::Write)];
        if let Some(s) = src_at {
            ranges.push((s, AccessKind::Read));
        }
        for (at, kind) in ranges {
            // `&obj` of a thread's own struct object: its bytes are that
            // thread's. Written: every member becomes unknown (a pointer
            // member of unknown origin); read: no shared memory is read.
            let own_object = Some(args[at])
                .filter(|a| self.is_address_of(*a))
                .and_then(|a| a.field("argument"))
                .and_then(|a| self.object_path(a));
            if let Some(obj) = own_object {
                if kind == AccessKind::Write {
                    self.copy_object(&obj, None);
                }
                continue;
            }
            // A thread's own local array: its elements are unknown values
            // of that thread whatever is copied in or out.
            if vals[at] == Value::Local {
                continue;
            }
            let Value::Ptr(p) = &vals[at] else {
                let what = format!("`{name}` of a pointer the model does not track");
                self.unsupported(node, what);
                continue;
            };
            let elems = match (&vals[2], self.elem_of(p).1) {
                (Value::Int(Expr::Const(b)), Some(e)) if *b >= 0 && e > 0 && b % e == 0 => {
                    Some(b / e)
                }
                _ => None,
            };
            if elems == Some(0) {
                continue;
            }
            self.record_range(p, elems, kind, node, &text, "range_element");
        }
        Some(Value::Int(Expr::Const(0)))
    }

    /// `sizeof(float4)`, `sizeof(s)` of an array of known size: exact.
    pub(super) fn sizeof_exact(&mut self, node: Node) -> Option<i64> {
        if node.kind() != "sizeof_expression" {
            return None;
        }
        let arg = node.field("type").or_else(|| node.field("value"))?;
        let inner = match arg.kind() {
            "parenthesized_expression" => arg.named_child(0)?,
            _ => arg,
        };
        let text = self.text(inner);
        if let Some(b) = type_bytes(&text) {
            return Some(b);
        }
        // `sizeof(s)`, and `sizeof(s[0])` of a row: the dimensions the
        // subscripts leave.
        let mut base = inner;
        let mut subscripts = 0;
        while base.kind() == "subscript_expression" {
            base = base.field("argument")?;
            subscripts += 1;
        }
        if base.kind() != "identifier" {
            return None;
        }
        let id = *self.array_names.get(&self.text(base))?;
        let elem = type_bytes(self.elem_types.get(&id)?)?;
        let dims = self.arrays[id].dims.get(subscripts..)?;
        dims.iter()
            .try_fold(elem, |acc, d| d.and_then(|d| acc.checked_mul(d)))
    }

    /// The block's one dynamic shared buffer, seen by an `extern __shared__`
    /// array declared with element type `ty`: every such declaration of a
    /// kernel names the same bytes, so one of another element type is a
    /// view of the first.
    pub(super) fn extern_shared_buffer(
        &mut self,
        name: &str,
        ty: &str,
        node: Node,
        declarator: Option<Node>,
    ) -> Value {
        match self.extern_shared {
            Some(id) => {
                let base = self.base_ptr(id);
                self.cast_pointer(base, &format!("{ty}*"), node)
            }
            None => {
                // `extern __shared__ half rows[][W];`: rows of a constant
                // width (the first declaration shapes the buffer; a later
                // one is a view of its elements).
                let dims = match declarator {
                    Some(d) if d.kind() == "array_declarator" => {
                        let (dims, _) = self.array_dims(d);
                        if dims.len() > 1 && dims[1..].iter().all(Option::is_some) {
                            dims
                        } else {
                            vec![None]
                        }
                    }
                    _ => vec![None],
                };
                let id = self.add_array(name, MemorySpace::Shared, dims);
                self.elem_types.insert(id, ty.to_string());
                self.extern_shared = Some(id);
                self.base_ptr(id)
            }
        }
    }

    /// Notes how an access through `ptr` counts (for `byte_addressing`).
    pub(super) fn note_view_access(&mut self, ptr: &Ptr, access: usize) {
        if let Some(v) = &ptr.view {
            let how = match v.bytes {
                Some(b) => Recorded::Bytes(b),
                None => Recorded::Typed(v.ty.clone()),
            };
            self.viewed.insert(access, how);
        }
    }

    /// After lowering: every array some access reached through a view of a
    /// known size becomes byte-addressed (its other accesses are scaled to
    /// bytes); an array reached through a view of unknown size stays in that
    /// type's elements when every access uses it, else it is reported.
    pub(super) fn byte_addressing(&mut self, body: &mut Vec<Stmt>) {
        if self.viewed.is_empty() {
            return;
        }
        let mut per_array: HashMap<ArrayId, Vec<(usize, Option<Recorded>, Span)>> = HashMap::new();
        visit_accesses(body, &mut |a| {
            per_array.entry(a.array).or_default().push((
                a.id,
                self.viewed.get(&a.id).cloned(),
                a.span,
            ))
        });
        let mut scale: HashMap<usize, (i64, i64)> = HashMap::new();
        // Arrays whose accesses count in units the model cannot relate:
        // reported, and their accesses left out so that no race is claimed
        // on a wrong model (the kernel is `not-verified`, never `verified`).
        let mut unrelatable: HashSet<ArrayId> = HashSet::new();
        for (array, list) in per_array {
            if list.iter().all(|(_, r, _)| r.is_none()) {
                continue;
            }
            let name = self.arrays[array].name.clone();
            let declared = self.elem_types.get(&array).cloned();
            let declared_bytes = declared.as_deref().and_then(type_bytes);
            let typed: Vec<&String> = list
                .iter()
                .filter_map(|(_, r, _)| match r {
                    Some(Recorded::Typed(t)) => Some(t),
                    _ => None,
                })
                .collect();
            if let Some(first) = typed.first() {
                let one_type = list.iter().all(|(_, r, _)| match r {
                    Some(Recorded::Typed(t)) => t == *first,
                    Some(Recorded::Bytes(_)) => false,
                    None => declared.as_deref().map(plain_type) == Some(plain_type(first)),
                });
                if !one_type {
                    unrelatable.insert(array);
                    let span = list[0].2;
                    self.unsupported.push(Unsupported {
                        span,
                        what: format!(
                            "`{name}` accessed as `{first}` (a type of unknown size) and as other types"
                        ),
                    });
                }
                continue;
            }
            for (id, r, span) in &list {
                match (r, declared_bytes) {
                    (Some(Recorded::Bytes(b)), _) => {
                        scale.insert(*id, (1, *b));
                    }
                    (_, Some(e)) => {
                        scale.insert(*id, (e, e));
                    }
                    _ => {
                        unrelatable.insert(array);
                        self.unsupported.push(Unsupported {
                            span: *span,
                            what: format!(
                                "`{name}` accessed through pointers of different element sizes, one of them of unknown size"
                            ),
                        });
                    }
                }
            }
            self.arrays[array].byte_addressed = true;
        }
        if !unrelatable.is_empty() {
            drop_accesses(body, &|a| unrelatable.contains(&a.array));
        }
        visit_accesses_mut(body, &mut |a| {
            if let Some(&(factor, width)) = scale.get(&a.id) {
                if factor != 1 {
                    a.index = Expr::mul(a.index.clone(), Expr::Const(factor));
                }
                a.width = width;
            }
        });
    }

    /// One `kind` access at an unknown element of `0 .. elems` from `p` on
    /// (every element from there when `elems` is not known), named `label`:
    /// how a range operation (`memcpy`, `memset`, an asynchronous copy)
    /// touches memory.
    pub(super) fn record_range(
        &mut self,
        p: &Ptr,
        elems: Option<i64>,
        kind: AccessKind,
        node: Node,
        text: &str,
        label: &str,
    ) {
        let idx = match elems {
            Some(1) => Expr::Const(0),
            _ => {
                let Expr::Var(v) = self.fresh_unknown(label, Scope::Thread) else {
                    return;
                };
                Expr::Var(Var::new(
                    v.name,
                    VarKind::Unknown {
                        scope: Scope::Thread,
                        lo: 0,
                        hi: elems.map(|n| n - 1).unwrap_or(i32::MAX as i64),
                    },
                ))
            }
        };
        self.record_at(p, idx, kind, node, text);
    }

    /// An access of the element `idx` elements of memory from `p` on (which
    /// may run past the row `p` points into, as a range or a tile does).
    pub(super) fn record_at(
        &mut self,
        p: &Ptr,
        idx: Expr,
        kind: AccessKind,
        node: Node,
        text: &str,
    ) {
        if p.view.is_none() && self.arrays[p.array].dims.len() > 1 {
            // A range counts elements of memory from the pointer on, not
            // indices of the dimension it points into: `sizeof(buf)` bytes
            // from the row `buf[0]` run on into the following rows. Only
            // the whole array bounds it (a shared array's size).
            let offset = Expr::add(p.offset.clone(), idx.clone());
            let bounds = match (self.arrays[p.array].space, self.array_total(p.array)) {
                (MemorySpace::Shared, Some(total)) => vec![super::places::in_range(&offset, total)],
                (MemorySpace::Shared, None) => {
                    vec![Expr::bin(BinOp::Ge, offset.clone(), Expr::Const(0))]
                }
                _ => Vec::new(),
            };
            let ptr = Ptr {
                array: p.array,
                others: p.others.clone(),
                offset,
                inner: Expr::add(p.inner.clone(), idx),
                level: self.arrays[p.array].dims.len() - 1,
                view: None,
            };
            self.record_access(kind, &ptr, &bounds, Some(node), text);
            return;
        }
        let mut bounds = Vec::new();
        if let LValue::Mem { ptr, bounds: b } = self.subscript(p.clone(), idx, &mut bounds) {
            self.record_access(kind, &ptr, &b, Some(node), text);
        }
    }
}

fn visit_accesses(body: &[Stmt], f: &mut dyn FnMut(&Access)) {
    for s in body {
        match s {
            Stmt::Access(a) => f(a),
            Stmt::If(t, e) => {
                visit_accesses(t, f);
                visit_accesses(e, f);
            }
            Stmt::Loop(l) => visit_accesses(&l.body, f),
            Stmt::Barrier(_) | Stmt::LoopExit(_) => {}
        }
    }
}

fn drop_accesses(body: &mut Vec<Stmt>, gone: &dyn Fn(&Access) -> bool) {
    body.retain(|s| !matches!(s, Stmt::Access(a) if gone(a)));
    for s in body {
        match s {
            Stmt::If(t, e) => {
                drop_accesses(t, gone);
                drop_accesses(e, gone);
            }
            Stmt::Loop(l) => drop_accesses(&mut l.body, gone),
            _ => {}
        }
    }
}

fn visit_accesses_mut(body: &mut [Stmt], f: &mut dyn FnMut(&mut Access)) {
    for s in body {
        match s {
            Stmt::Access(a) => f(a),
            Stmt::If(t, e) => {
                visit_accesses_mut(t, f);
                visit_accesses_mut(e, f);
            }
            Stmt::Loop(l) => visit_accesses_mut(&mut l.body, f),
            Stmt::Barrier(_) | Stmt::LoopExit(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_of_scalar_and_vector_types() {
        assert_eq!(type_bytes("float"), Some(4));
        assert_eq!(type_bytes("const float4"), Some(16));
        assert_eq!(type_bytes("double2"), Some(16));
        assert_eq!(type_bytes("unsigned char"), Some(1));
        assert_eq!(type_bytes("uchar4"), Some(4));
        assert_eq!(type_bytes("float3"), Some(12));
        assert_eq!(type_bytes("T"), None);
        assert_eq!(type_bytes("float *"), Some(8));
    }

    #[test]
    fn pointees_of_pointer_types() {
        assert_eq!(pointee("const float4 *").as_deref(), Some("float4"));
        assert_eq!(pointee("char*").as_deref(), Some("char"));
        assert_eq!(pointee("float *__restrict__").as_deref(), Some("float"));
        assert_eq!(pointee("int"), None);
    }
}
