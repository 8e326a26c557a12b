//! `__shared__` unions: the members of a union share its bytes, so the
//! union is one byte-addressed array and each member a view of it at byte
//! offset 0 with its own element size (see `views`): a write through one
//! member and a read through another collide exactly when their bytes do.
//! A member the model cannot lay out (a struct, a pointer, an array of more
//! than one dimension, a type of unknown size) is reported naming the
//! union when it is used, never guessed.

use super::views::type_bytes;
use super::*;

/// One member of a union as the model lays it out.
#[derive(Clone, Debug)]
pub(super) struct UnionMember {
    pub name: String,
    pub elem_type: String,
    /// Its size in bytes (all elements), when known.
    pub bytes: Option<i64>,
    /// An array member (its name decays to a pointer), not a scalar.
    pub array: bool,
    /// Why the model cannot lay it out, if it cannot.
    pub unmodelled: Option<String>,
}

/// The members of a union, each at byte offset 0.
#[derive(Clone, Debug)]
pub(super) struct UnionLayout {
    pub members: Vec<UnionMember>,
}

impl UnionLayout {
    /// The union's size: its largest member (unknown if any size is).
    fn bytes(&self) -> Option<i64> {
        self.members
            .iter()
            .map(|m| m.bytes)
            .try_fold(0, |acc, b| Some(acc.max(b?)))
    }
}

impl<'a, 't> Lowerer<'a, 't> {
    /// The layout of the union a declaration's type names: written in place
    /// (`union { float f[256]; int i[256]; }`) or defined in the file.
    pub(super) fn union_layout(&mut self, ty: Node) -> Option<UnionLayout> {
        let spec = match ty.kind() {
            "union_specifier" if ty.field("body").is_some() => ty,
            "union_specifier" | "type_identifier" => {
                let name = match ty.kind() {
                    "type_identifier" => self.text(ty),
                    _ => self.text(ty.field("name")?),
                };
                *self.file.unions.get(&name)?
            }
            _ => return None,
        };
        let body = spec.field("body")?;
        let mut members = Vec::new();
        let mut c = body.walk();
        let fields: Vec<Node> = body
            .named_children(&mut c)
            .filter(|n| n.kind() == "field_declaration")
            .collect();
        for f in fields {
            let Some(fty) = f.field("type") else { continue };
            let elem_type = self.text(fty);
            let elem_bytes = match fty.kind() {
                "struct_specifier" | "class_specifier" | "union_specifier" => None,
                _ => type_bytes(&elem_type),
            };
            let mut c2 = f.walk();
            let decls: Vec<Node> = f.children_by_field_name("declarator", &mut c2).collect();
            for d in decls {
                let Some(name) = declarator_name(&self.src, d) else {
                    continue;
                };
                let mut unmodelled = None;
                let mut array = false;
                let mut count = Some(1i64);
                match d.kind() {
                    "field_identifier" => {}
                    "array_declarator" => {
                        array = true;
                        let inner_is_array = d
                            .field("declarator")
                            .is_some_and(|i| i.kind() == "array_declarator");
                        if inner_is_array {
                            unmodelled = Some("an array of more than one dimension".to_string());
                        }
                        count = d
                            .field("size")
                            .map(|s| self.text(s))
                            .and_then(|s| self.eval_snippet_const(&s))
                            .filter(|n| *n > 0);
                    }
                    "pointer_declarator" => unmodelled = Some("a pointer".to_string()),
                    _ => unmodelled = Some("a declarator the model does not lay out".to_string()),
                }
                if elem_bytes.is_none() && unmodelled.is_none() {
                    unmodelled = Some(format!(
                        "of type `{}`, whose size the model does not know",
                        short(&elem_type)
                    ));
                }
                let bytes = match (elem_bytes, count) {
                    (Some(b), Some(n)) => b.checked_mul(n),
                    _ => None,
                };
                members.push(UnionMember {
                    name,
                    elem_type: elem_type.clone(),
                    bytes,
                    array,
                    unmodelled,
                });
            }
        }
        Some(UnionLayout { members })
    }

    /// `__shared__ union U u;`: one array of the union's bytes, per block.
    pub(super) fn declare_shared_union(&mut self, name: &str, layout: UnionLayout) -> ArrayId {
        let id = self.add_array(name, MemorySpace::Shared, vec![layout.bytes()]);
        self.elem_types.insert(id, "unsigned char".to_string());
        self.shared_unions.insert(id, layout);
        id
    }

    /// A file-scope `__shared__` union (one per block, like a file-scope
    /// `__shared__` array): its array, made on first use.
    fn file_scope_union(&mut self, name: &str) -> Option<ArrayId> {
        if let Some(&id) = self.array_names.get(name) {
            return self.shared_unions.contains_key(&id).then_some(id);
        }
        let g = self
            .file
            .global_arrays
            .iter()
            .find(|g| g.name == name && g.shared && g.declarator.kind() == "identifier")?;
        let mut decl = g.declarator.parent()?;
        while decl.kind() != "declaration" {
            decl = decl.parent()?;
        }
        let layout = self.union_layout(decl.field("type")?)?;
        Some(self.declare_shared_union(name, layout))
    }

    /// `union { float f[4]; int i[4]; } u;` in a kernel or device function:
    /// memory of one thread, which no other thread reaches, so its members
    /// are thread-private aggregates and values like a local struct's.
    pub(super) fn declare_local_union(
        &mut self,
        name: &str,
        layout: UnionLayout,
        init: Option<Node>,
    ) {
        if let Some(v) = init {
            // The initialiser's reads are accesses of their own.
            self.eval(v);
        }
        let scope = self.scopes.len() - 1;
        self.declare(name, Value::Local);
        self.local_unions.insert((scope, name.to_string()), layout);
    }

    /// `u.f` of a thread-local union: an array member is a private aggregate,
    /// a scalar member an unknown value (what another member wrote is not
    /// tracked); a pointer member is reported naming the union.
    fn local_union_member(&mut self, key: (usize, String), node: Node) -> Option<(Value, bool)> {
        let layout = self.local_unions.get(&key)?;
        let field = self.text(node.field("field")?);
        let member = layout.members.iter().find(|m| m.name == field)?.clone();
        let is_pointer = member.unmodelled.as_deref() == Some("a pointer");
        if is_pointer {
            let what = format!(
                "pointer member `{field}` of the union `{}`: where it points is not tracked",
                key.1
            );
            self.unsupported(node, what.clone());
            return Some((Value::Opaque(what), true));
        }
        if member.array {
            return Some((Value::Local, true));
        }
        let v = self.fresh_unknown(&format!("{}.{field}", key.1), Scope::Thread);
        Some((Value::Int(v), false))
    }

    /// The layout of a struct member's union type (named, or written in the
    /// member's declaration), if it is a union of the file.
    pub(super) fn union_member_layout(
        &mut self,
        f: &crate::frontend::StructField,
    ) -> Option<UnionLayout> {
        let key = f.elem_type.trim();
        let spec = match self.file.unions.get(key) {
            Some(s) => *s,
            None => *self.file.unions.get(key.strip_prefix("union")?.trim())?,
        };
        self.union_layout(spec)
    }

    /// `s.u` of a `__shared__` object `s` of a struct with a union member
    /// `u`: an array of the union's bytes of its own (members of a struct do
    /// not overlap), one per block like `s`.
    fn struct_union_member(&mut self, node: Node) -> Option<ArrayId> {
        let op = self.text(node.field("operator")?);
        let base = node.field("argument")?;
        if op != "." || base.kind() != "identifier" || self.shared_objects.is_empty() {
            return None;
        }
        let obj = self.scalar_memory(&self.text(base))?.array;
        let ty = self.shared_objects.get(&obj)?.clone();
        let field = self.text(node.field("field")?);
        if let Some(&id) = self.member_arrays.get(&(obj, field.clone())) {
            return self.shared_unions.contains_key(&id).then_some(id);
        }
        let f = self
            .struct_fields(&ty)
            .into_iter()
            .find(|f| f.name == field && !f.array && !f.pointer)?;
        let key = f.elem_type.trim();
        let spec = match self.file.unions.get(key) {
            Some(s) => *s,
            None => *self.file.unions.get(key.strip_prefix("union")?.trim())?,
        };
        let layout = self.union_layout(spec)?;
        let name = format!("{}.{field}", self.arrays[obj].name);
        let id = self.declare_shared_union(&name, layout);
        self.member_arrays.insert((obj, field), id);
        Some(id)
    }

    /// `u.f` of a `__shared__` union `u`: a view of the union's bytes as the
    /// member's element type from byte 0 (and whether the member is an
    /// array, whose name decays to that pointer). A member the model cannot
    /// lay out is reported naming the union.
    pub(super) fn shared_union_member(&mut self, node: Node) -> Option<(Value, bool)> {
        if node.kind() != "field_expression" {
            return None;
        }
        let op = self.text(node.field("operator")?);
        let base = node.field("argument")?;
        if op != "." {
            return None;
        }
        let union_name = self.text(base);
        let id = match base.kind() {
            "identifier" => match self.lookup(&union_name) {
                Some((_, Value::Ptr(p)))
                    if p.offset == Expr::Const(0) && p.others.is_empty() && p.view.is_none() =>
                {
                    p.array
                }
                Some((scope, Value::Local)) => {
                    let key = (scope, union_name.clone());
                    return self.local_union_member(key, node);
                }
                Some(_) => return None,
                None => self.file_scope_union(&union_name)?,
            },
            "field_expression" => {
                // A union member of a thread's own object (`p.payload.f`).
                if let Some((scope, path, _)) = self.member_base(base) {
                    let key = (scope, format!("{path}.{}", self.text(base.field("field")?)));
                    if self.local_unions.contains_key(&key) {
                        return self.local_union_member(key, node);
                    }
                }
                self.struct_union_member(base)?
            }
            _ => return None,
        };
        let layout = self.shared_unions.get(&id)?;
        let field = self.text(node.field("field")?);
        let member = layout.members.iter().find(|m| m.name == field)?.clone();
        if let Some(why) = &member.unmodelled {
            let what = format!(
                "member `{field}` of the `__shared__` union `{union_name}` ({why}): its bytes overlap the other members'"
            );
            self.unsupported(node, what.clone());
            return Some((Value::Opaque(what), member.array));
        }
        let whole = self.base_ptr(id);
        let view = self.cast_pointer(whole, &format!("{}*", member.elem_type), node);
        Some((view, member.array))
    }
}
