//! Struct objects: members kept as locals named `object.member`,
//! construction, copies, aggregate initialisation and inlined methods
//! with `this` bound. Must not record memory accesses except through
//! `places`.

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn object_at(&self, scope: usize, path: &str) -> Option<ObjRef> {
        match self.scopes.get(scope)?.get(path)? {
            Value::Object(ty) => Some((scope, path.to_string(), ty.clone())),
            _ => None,
        }
    }

    /// The modelled object an expression designates: `acc`, a reference to
    /// it, `this`, `*this`, `acc.inner`.
    pub(super) fn object_path(&self, node: Node) -> Option<ObjRef> {
        match node.kind() {
            "identifier" | "this" => {
                let name = self.text(node);
                match self.lookup(&name)? {
                    (s, Value::Object(ty)) => Some((s, name, ty.clone())),
                    (_, Value::Alias(lv)) => match &**lv {
                        LValue::Local { scope, name } => self.object_at(*scope, name),
                        _ => None,
                    },
                    _ => None,
                }
            }
            "parenthesized_expression" => self.object_path(node.named_child(0)?),
            "pointer_expression" if !self.is_address_of(node) => {
                let arg = node.field("argument")?;
                if arg.kind() == "this" {
                    self.object_path(arg)
                } else {
                    None
                }
            }
            "field_expression" => {
                let (scope, path, _) = self.member_base(node)?;
                let field = self.text(node.field("field")?);
                self.object_at(scope, &format!("{path}.{field}"))
            }
            _ => None,
        }
    }

    /// The modelled object whose member a field expression names:
    /// `acc.p`, `this->p`.
    pub(super) fn member_base(&self, node: Node) -> Option<ObjRef> {
        let arg = node.field("argument")?;
        let op = node
            .field("operator")
            .map(|o| self.text(o))
            .unwrap_or_default();
        if op == "->" && arg.kind() != "this" {
            return None;
        }
        self.object_path(arg)
    }

    /// The data members of struct `ty` (none for a type the file does not
    /// define).
    pub(super) fn struct_fields(&self, ty: &str) -> Vec<StructField> {
        self.file
            .structs
            .get(ty)
            .map(|s| s.fields.clone())
            .unwrap_or_default()
    }

    /// Declares the members of a new object `path` of struct `ty` in
    /// `scope`, uninitialised.
    pub(super) fn init_object(&mut self, scope: usize, path: &str, ty: &str, depth: usize) {
        let fields = self.struct_fields(ty);
        self.scopes
            .insert(scope, path.to_string(), Value::Object(ty.to_string()));
        for f in fields {
            let key = format!("{path}.{}", f.name);
            match &f.struct_type {
                // An array of pointers: where its elements point is not
                // tracked (as for a local array of pointers), so a write
                // through one is named, never dropped.
                _ if f.array && f.pointer => {
                    let what = format!("pointer stored in the array member `{key}`");
                    self.scopes.insert(scope, key, Value::Opaque(what));
                }
                _ if f.array => {
                    self.scopes.insert(scope, key, Value::Local);
                }
                // A union member of a thread's own object: memory of that
                // thread, like a local union (`unions.rs`).
                _ if !f.pointer && self.union_member_layout(&f).is_some() => {
                    if let Some(layout) = self.union_member_layout(&f) {
                        self.scopes.insert(scope, key.clone(), Value::Local);
                        self.local_unions.insert((scope, key), layout);
                    }
                }
                Some(sub) if depth < 8 => self.init_object(scope, &key, sub, depth + 1),
                _ => {
                    let u = self.fresh_unknown(&format!("uninit_{key}"), Scope::Thread);
                    self.scopes.insert(scope, key, Value::Int(u));
                }
            }
        }
    }

    /// The member keys of an object (nested members included), sorted.
    pub(super) fn object_keys(&self, obj: &ObjRef) -> Vec<String> {
        let prefix = format!("{}.", obj.1);
        let mut keys: Vec<String> = self
            .scopes
            .get(obj.0)
            .map(|s| {
                s.keys()
                    .filter(|k| k.starts_with(&prefix))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        keys.sort();
        keys
    }

    /// Copies the members of `src` into `dst`; without `src` (a value the
    /// model does not track, e.g. returned by a function) every member
    /// becomes unknown, and a pointer member a pointer of unknown origin.
    pub(super) fn copy_object(&mut self, dst: &ObjRef, src: Option<&ObjRef>) {
        for key in self.object_keys(dst) {
            let suffix = key[dst.1.len()..].to_string();
            let old = self.scopes[dst.0].get(&key).cloned();
            let v = match src {
                Some(s) => self
                    .scopes
                    .get(s.0)
                    .and_then(|sc| sc.get(&format!("{}{suffix}", s.1)))
                    .cloned(),
                None => None,
            };
            let v = match (v, old) {
                (Some(v), _) => v,
                (None, Some(o @ (Value::Object(_) | Value::Local))) => o,
                (None, _) if self.member_is_pointer(dst, &suffix) => Value::Opaque(format!(
                    "pointer member `{}{suffix}` of a `{}` value the model does not track",
                    dst.1, dst.2
                )),
                (None, _) => Value::Int(self.fresh_unknown(&key, Scope::Thread)),
            };
            self.scopes.insert(dst.0, key, v);
        }
    }

    /// Whether `.a.b` names a pointer member of `obj`'s struct.
    pub(super) fn member_is_pointer(&self, obj: &ObjRef, suffix: &str) -> bool {
        let mut ty = obj.2.clone();
        let parts: Vec<&str> = suffix.trim_start_matches('.').split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let Some(f) = self
                .file
                .structs
                .get(&ty)
                .and_then(|s| s.fields.iter().find(|f| f.name == *part))
            else {
                return false;
            };
            if i + 1 == parts.len() {
                return f.pointer;
            }
            match &f.struct_type {
                Some(t) => ty = t.clone(),
                None => return false,
            }
        }
        false
    }

    /// Whether an object (or an object nested in it) holds a pointer.
    pub(super) fn object_holds_pointer(&self, obj: &ObjRef) -> bool {
        self.object_keys(obj).iter().any(|k| {
            matches!(
                self.scopes[obj.0].get(k),
                Some(Value::Ptr(_) | Value::Opaque(_))
            ) || self.member_is_pointer(obj, &k[obj.1.len()..])
        })
    }

    /// Initialises the new object `obj` declared by `decl` from `init`:
    /// a constructor (inlined), an aggregate initialiser, or a copy.
    pub(super) fn construct(&mut self, decl: Node, obj: &ObjRef, init: Option<Node>) {
        let ty = obj.2.clone();
        let (has_ctor, has_dtor) = self
            .file
            .structs
            .get(&ty)
            .map(|s| (s.has_constructor, s.has_destructor))
            .unwrap_or((false, false));
        if has_dtor {
            self.unsupported(
                decl,
                format!("destructor of `{ty}` (it runs at the end of the scope)"),
            );
        }
        let items: Option<Vec<Node>> = init
            .filter(|v| matches!(v.kind(), "initializer_list" | "argument_list"))
            .map(crate::syntax::items);
        match (init, items) {
            (_, Some(items)) => {
                // `Acc b{a}` / `Acc b(a)` with `a` an `Acc`: a copy.
                if items.len() == 1 {
                    if let Some(src) = self.object_path(items[0]).filter(|o| o.2 == ty) {
                        if !has_ctor || self.copy_constructor(&ty).is_none() {
                            self.copy_object(obj, Some(&src));
                            return;
                        }
                    }
                }
                if has_ctor {
                    self.method_call(obj.clone(), &ty.clone(), decl, &items);
                } else {
                    self.aggregate_init(obj, &items);
                }
            }
            (Some(v), None) => {
                if let Some(src) = self.object_path(v).filter(|o| o.2 == ty) {
                    self.copy_object(obj, Some(&src));
                } else if has_ctor {
                    // `Acc a = s;`: a converting constructor.
                    self.method_call(obj.clone(), &ty.clone(), decl, &[v]);
                } else {
                    self.eval(v);
                    self.copy_object(obj, None);
                }
            }
            (None, None) => {
                if has_ctor {
                    self.method_call(obj.clone(), &ty.clone(), decl, &[]);
                }
            }
        }
    }

    pub(super) fn copy_constructor(&self, ty: &str) -> Option<FunctionDef<'t>> {
        let defs = self.file.structs.get(ty)?.methods.get(ty)?;
        defs.iter()
            .find(|d| {
                let params = function_params(d.node);
                params.len() == 1
                    && params[0]
                        .field("type")
                        .and_then(|t| struct_type_name(&self.src, t))
                        .as_deref()
                        == Some(ty)
            })
            .cloned()
    }

    /// `Acc a{p, 3}` / `Acc a = {.p = p}` without a constructor: members in
    /// declaration order.
    pub(super) fn aggregate_init(&mut self, obj: &ObjRef, items: &[Node]) {
        let fields = self.struct_fields(&obj.2);
        let mut next = 0;
        for it in items {
            let (field, value) = if it.kind() == "initializer_pair" {
                let name = it
                    .field("designator")
                    .map(|d| self.text(d).trim_start_matches('.').trim().to_string());
                let idx = name.and_then(|n| fields.iter().position(|f| f.name == n));
                (idx, it.field("value"))
            } else {
                (Some(next), Some(*it))
            };
            let Some(value) = value else { continue };
            match field.and_then(|i| fields.get(i).map(|f| (i, f.clone()))) {
                Some((i, f)) => {
                    next = i + 1;
                    let key = format!("{}.{}", obj.1, f.name);
                    if let Some(sub) = self.object_at(obj.0, &key) {
                        let init = (value.kind() == "initializer_list").then_some(value);
                        match init {
                            Some(list) => self.construct(list, &sub, Some(list)),
                            None => self.construct(value, &sub, Some(value)),
                        }
                    } else if f.array {
                        self.eval(value);
                    } else {
                        let v = self.eval(value);
                        self.write_lvalue(
                            &LValue::Local {
                                scope: obj.0,
                                name: key,
                            },
                            v,
                            value,
                            AccessKind::Write,
                        );
                    }
                }
                None => {
                    self.eval(value);
                }
            }
        }
    }

    /// A member function called on a modelled object: inlined with the
    /// object's members bound. `name` is the struct's own name for a
    /// constructor.
    pub(super) fn method_call(
        &mut self,
        obj: ObjRef,
        name: &str,
        node: Node,
        args: &[Node],
    ) -> Value {
        let ty = obj.2.clone();
        let defs = self
            .file
            .structs
            .get(&ty)
            .and_then(|s| s.methods.get(name))
            .cloned()
            .unwrap_or_default();
        let fits: Vec<&FunctionDef<'t>> = defs
            .iter()
            .filter(|d| {
                let params = function_params(d.node);
                let required = params
                    .iter()
                    .filter(|p| p.kind() != "optional_parameter_declaration")
                    .count();
                let variadic = params.iter().any(|p| p.kind() == "variadic_parameter");
                required <= args.len() && (args.len() <= params.len() || variadic)
            })
            .collect();
        let what = if name == ty {
            format!("constructor of `{ty}`")
        } else {
            format!("method call `{ty}::{name}`")
        };
        let def = match fits.as_slice() {
            [one] => (*one).clone(),
            [] => {
                for a in args {
                    self.eval(*a);
                }
                self.unsupported(node, format!("{what} (body not available)"));
                self.copy_object(&obj, None);
                return Value::Int(self.fresh_unknown(name, Scope::Thread));
            }
            _ => {
                for a in args {
                    self.eval(*a);
                }
                self.unsupported(node, format!("{what} (overloaded)"));
                self.copy_object(&obj, None);
                return Value::Int(self.fresh_unknown(name, Scope::Thread));
            }
        };
        self.inline(&def, node, args, None, Some(obj))
    }

    // ----- kernel ----------------------------------------------------------

    /// A constructor's member initialisers: `Acc(float *q) : p(q), n(0) {}`.
    pub(super) fn member_initializers(&mut self, fnode: Node, obj: &ObjRef) {
        let mut c = fnode.walk();
        let Some(list) = fnode
            .named_children(&mut c)
            .find(|n| n.kind() == "field_initializer_list")
        else {
            return;
        };
        let mut c = list.walk();
        let inits: Vec<Node> = list
            .named_children(&mut c)
            .filter(|n| n.kind() == "field_initializer")
            .collect();
        for fi in inits {
            let mut c2 = fi.walk();
            let parts: Vec<Node> = fi.named_children(&mut c2).collect();
            let (Some(field), Some(value)) = (parts.first(), parts.last()) else {
                continue;
            };
            let key = format!("{}.{}", obj.1, self.text(*field));
            if let Some(sub) = self.object_at(obj.0, &key) {
                self.construct(fi, &sub, Some(*value));
                continue;
            }
            let items = crate::syntax::items(*value);
            let mut v = Value::Int(Expr::Const(0));
            for it in items {
                v = self.eval(it);
            }
            match self.scopes.get(obj.0).and_then(|s| s.get(&key)) {
                Some(Value::Local) | None => {}
                Some(_) => self.write_lvalue(
                    &LValue::Local {
                        scope: obj.0,
                        name: key,
                    },
                    v,
                    fi,
                    AccessKind::Write,
                ),
            }
        }
    }

    /// The object `this` designates inside a method being inlined.
    pub(super) fn this_object(&self) -> Option<ObjRef> {
        match self.lookup("this")? {
            (_, Value::Alias(lv)) => match &**lv {
                LValue::Local { scope, name } => self.object_at(*scope, name),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The local an lvalue names: `x`, `acc.p` (a member), `p` for `this->p`;
/// not `s` in `s[i]` (memory).
pub(super) fn local_path(node: Node, src: &str) -> Option<String> {
    match node.kind() {
        "identifier" => Some(node_text(src, node).to_string()),
        "this" => Some("this".to_string()),
        "parenthesized_expression" => node.named_child(0).and_then(|n| local_path(n, src)),
        "field_expression" => {
            let arg = node.field("argument")?;
            let field = node_text(src, node.field("field")?);
            let op = node
                .field("operator")
                .map(|o| node_text(src, o))
                .unwrap_or("");
            match op {
                "->" if arg.kind() == "this" => Some(field.to_string()),
                "." => Some(format!("{}.{field}", local_path(arg, src)?)),
                _ => None,
            }
        }
        _ => None,
    }
}
