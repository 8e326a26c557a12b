//! Objects of the file's classes that live in memory (`__shared__` or
//! global), reached through pointers: `p->push(x)` of an object a placement
//! `new` constructed in a `__shared__` buffer, or of one another kernel made
//! and left behind a pointer in global memory.
//!
//! Such an object is a memory cell of its own (an array of one), and each of
//! its data members a cell of its own beside it (`obj.m_top`): members of an
//! object do not overlap, and an access to a member is an access to that
//! cell, so two threads updating a counter member race or not as they would
//! on a `__shared__` scalar. A method called on the object is inlined with
//! `this` bound to it (class templates' methods with the class's arguments
//! bound); a virtual method called on an object whose dynamic type the
//! kernel did not make is one of the overriders the translation unit
//! defines (a choice the model does not make when there are several: named).
//!
//! A pointer to such an object, or a pointer member of one, is known where
//! the kernel stored it exactly once with one value every thread agrees on
//! (`stored_pointers`); a pointer to an object read from global memory the
//! kernel never writes is the same object for every thread; a pointer
//! member of such an object (never written in the kernel) points into a
//! buffer of its own, as a pointer member of a struct kernel parameter.
//! Anything else about them stays named (`finish_memory_objects`).

use super::*;
use crate::frontend::ClassDef;

/// An object of a class in memory: the cell of its own array.
#[derive(Clone, Debug)]
pub(super) struct MemObject {
    /// Its class, with template arguments as written (`Vector<int>`).
    pub class: String,
    /// Whether `class` is its dynamic type (the kernel constructed it), or
    /// only its static type (made elsewhere: it may be of any class of the
    /// translation unit deriving from `class`).
    pub exact: bool,
    /// Constructed in the kernel: its members hold nothing before the
    /// constructor stores them.
    pub constructed: bool,
    pub space: MemorySpace,
    /// What the source calls it (`*objs`, `buf`).
    pub name: String,
    /// Where the kernel first met it.
    pub span: Span,
}

/// What the memory-object model keeps while a kernel is lowered.
#[derive(Default)]
pub(super) struct MemoryObjects {
    pub objects: HashMap<ArrayId, MemObject>,
    /// The cell of each member of each object, by (object, member).
    pub fields: HashMap<(ArrayId, String), ArrayId>,
    /// Cells holding pointers to objects of a class (a `Container<int> **`
    /// parameter's elements, a `__shared__ Vector<int> *` scalar): the class.
    pub class_cells: HashMap<ArrayId, String>,
    /// Cells holding pointers whose stores are followed: pointer members
    /// of objects, and `class_cells`.
    pub pointer_cells: HashSet<ArrayId>,
    /// The one value stored so far into a pointer cell (`None`: values the
    /// model does not follow, or several).
    pub stored: HashMap<ArrayId, Option<Value>>,
    /// The object a pointer cell of global memory held when the kernel
    /// began, by (cell array, index).
    pub loaded: HashMap<(ArrayId, i64), ArrayId>,
    /// The buffer a pointer member of such an object points into.
    pub member_buffers: HashMap<ArrayId, ArrayId>,
    /// Cells whose contents the model took as fixed for the whole kernel
    /// (the pointer to an object made elsewhere, its pointer members), with
    /// where and what: a write of one makes that not so.
    pub assumed_fixed: Vec<(ArrayId, Span, String)>,
    /// Arrays whose bytes a placement `new` made an object of, with where:
    /// any other access to them is outside the model.
    pub storage: Vec<(ArrayId, Span, String)>,
    /// The object each such array holds: every placement `new` of that
    /// class there constructs it again (the same bytes, the same cells).
    pub placed: HashMap<ArrayId, ArrayId>,
    /// Arrays written, and arrays accessed at all, in the kernel.
    pub written: HashSet<ArrayId>,
    pub touched: HashSet<ArrayId>,
    /// The cell whose store `write_lvalue` is recording (followed by
    /// `note_pointer_store`, not ended by `record_access`).
    pub storing: Option<ArrayId>,
    /// The object and class a method about to be inlined is called on.
    pub pending_this: Option<(ArrayId, String)>,
    /// The objects methods are being inlined on, innermost last, each with
    /// the class that defines the method: an object made elsewhere whose
    /// call was dispatched to a derived class has that class's members.
    pub this_classes: Vec<(ArrayId, String)>,
}

/// `Vector<int, 4>` as `("Vector", ["int", "4"])`; `Acc` as `("Acc", [])`.
pub(super) fn split_template(ty: &str) -> (String, Vec<String>) {
    let ty = type_text(ty.trim());
    let Some(open) = ty.find('<') else {
        return (ty, Vec::new());
    };
    let name = ty[..open].trim().to_string();
    let inner = ty[open + 1..].trim_end().trim_end_matches('>');
    let mut args = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in inner.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        args.push(cur.trim().to_string());
    }
    (name, args)
}

/// `text` with each whole word that `bindings` names replaced.
fn substitute_words(text: &str, bindings: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match bindings.iter().find(|(p, _)| p == word) {
            Some((_, a)) => out.push_str(a),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    type_text(&out)
}

impl<'a, 't> Lowerer<'a, 't> {
    /// The class a type names (`Vector<int>`: the template `Vector`, or an
    /// explicit specialisation by that name) and its template parameters
    /// bound to the type's arguments.
    pub(super) fn class_def(&self, ty: &str) -> Option<(&'a ClassDef<'t>, Vec<(String, String)>)> {
        let file: &'a FileContext<'t> = self.file;
        let ty = type_text(ty.trim());
        if let Some(c) = file.classes.get(&ty) {
            return Some((c, Vec::new()));
        }
        let (name, args) = split_template(&ty);
        let c = file.classes.get(&name)?;
        if c.template_params.len() != args.len() {
            return None;
        }
        let bindings = c.template_params.iter().cloned().zip(args).collect();
        Some((c, bindings))
    }

    /// The base classes of a class type, with its template arguments
    /// substituted (`Container<int>` for `Vector<int>`).
    fn class_bases(&self, ty: &str) -> Vec<String> {
        match self.class_def(ty) {
            Some((c, b)) => c.bases.iter().map(|x| substitute_words(x, &b)).collect(),
            None => Vec::new(),
        }
    }

    /// The data members of a class type: its bases' first, then its own.
    pub(super) fn class_fields(&self, ty: &str) -> Vec<StructField> {
        self.class_fields_at(ty, 0)
    }

    fn class_fields_at(&self, ty: &str, depth: usize) -> Vec<StructField> {
        if depth > 8 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for b in self.class_bases(ty) {
            out.extend(self.class_fields_at(&b, depth + 1));
        }
        if let Some((c, _)) = self.class_def(ty) {
            out.extend(c.members.fields.iter().cloned());
        }
        out
    }

    /// Whether a class (or a base of it) declares `name` virtual.
    fn is_virtual(&self, ty: &str, name: &str, depth: usize) -> bool {
        depth <= 8
            && (self
                .class_def(ty)
                .is_some_and(|(c, _)| c.virtuals.iter().any(|v| v == name))
                || self
                    .class_bases(ty)
                    .iter()
                    .any(|b| self.is_virtual(b, name, depth + 1)))
    }

    /// The definitions of method `name` a call on an object of class type
    /// `ty` with `arity` arguments runs: the class's own, else the first
    /// base's that has one (with the class type that defines it).
    fn find_method(
        &self,
        ty: &str,
        name: &str,
        arity: usize,
        depth: usize,
    ) -> Option<(String, Vec<FunctionDef<'t>>)> {
        if depth > 8 {
            return None;
        }
        let (c, _) = self.class_def(ty)?;
        let own: Vec<FunctionDef<'t>> = c
            .members
            .methods
            .get(name)
            .into_iter()
            .flatten()
            .filter(|d| {
                let params = function_params(d.node);
                let required = params
                    .iter()
                    .filter(|p| p.kind() != "optional_parameter_declaration")
                    .count();
                let variadic = params.iter().any(|p| p.kind() == "variadic_parameter");
                required <= arity && (arity <= params.len() || variadic)
            })
            .cloned()
            .collect();
        if !own.is_empty() {
            return Some((type_text(ty), own));
        }
        // A constructor is never inherited.
        if split_template(ty).0 == name {
            return None;
        }
        self.class_bases(ty)
            .iter()
            .find_map(|b| self.find_method(b, name, arity, depth + 1))
    }

    /// Every class type of the translation unit that derives from `ty`
    /// (directly or not), `ty` first. `Err` names a class template deriving
    /// from it whose arguments the model cannot work out.
    fn derived_classes(&self, ty: &str) -> Result<Vec<String>, String> {
        let mut found = vec![type_text(ty)];
        let mut i = 0;
        while i < found.len() && found.len() < 64 {
            let target = found[i].clone();
            let (target_name, target_args) = split_template(&target);
            let mut names: Vec<&String> = self.file.classes.keys().collect();
            names.sort();
            for name in names {
                let c = &self.file.classes[name];
                for base in &c.bases {
                    let (base_name, base_args) = split_template(base);
                    if base_name != target_name {
                        continue;
                    }
                    let instance = if c.template_params.is_empty() {
                        (type_text(base) == target).then(|| name.clone())
                    } else if base_args == c.template_params {
                        // `template <class T> class V : public C<T>`: the
                        // `V` deriving from `C<int>` is `V<int>`.
                        Some(type_text(&format!("{name}<{}>", target_args.join(","))))
                    } else {
                        return Err(format!(
                            "the class template `{name}` derives from `{base}`, and which of its instances derive from `{target}` is not modelled"
                        ));
                    };
                    if let Some(inst) = instance {
                        if !found.contains(&inst) {
                            found.push(inst);
                        }
                    }
                }
            }
            i += 1;
        }
        Ok(found)
    }

    /// A pointer cell holds pointers to objects of class `class`.
    pub(super) fn note_class_cell(&mut self, id: ArrayId, class: String) {
        self.mem.pointer_cells.insert(id);
        self.mem.class_cells.insert(id, class);
    }

    /// The class a declaration's pointer cells point to: `C` for a type
    /// `C` of the file and `levels` pointer declarators.
    pub(super) fn pointee_class(&self, ty: &str, decl: Node, levels: usize) -> Option<String> {
        let mut count = 0;
        let mut d = Some(decl);
        while let Some(n) = d {
            if n.kind() == "pointer_declarator" {
                count += 1;
            }
            if n.kind() == "reference_declarator" || n.kind() == "array_declarator" {
                return None;
            }
            d = n.field("declarator");
        }
        if count != levels {
            return None;
        }
        let ty = ty
            .trim()
            .trim_start_matches("const ")
            .trim_start_matches("class ")
            .trim_start_matches("struct ");
        let ty = self.bound_struct_type(&type_text(ty));
        self.class_def(&ty).map(|_| ty)
    }

    /// The object a pointer value points at, if it is one.
    pub(super) fn pointed_object(&self, v: &Value) -> Option<ArrayId> {
        match v {
            Value::Ptr(p)
                if p.others.is_empty()
                    && p.view.is_none()
                    && p.offset == Expr::Const(0)
                    && self.mem.objects.contains_key(&p.array) =>
            {
                Some(p.array)
            }
            _ => None,
        }
    }

    /// A new object of `class` in memory, named `name`.
    fn new_object(&mut self, name: &str, object: MemObject) -> ArrayId {
        let id = self.add_array(name, object.space, Vec::new());
        self.mem.objects.insert(id, object);
        id
    }

    /// The cell of member `field` of object `obj` (an array member: its
    /// array), or why the model has none.
    fn member_cell(&mut self, obj: ArrayId, field: &str) -> Result<ArrayId, String> {
        if let Some(&id) = self.mem.fields.get(&(obj, field.to_string())) {
            return Ok(id);
        }
        let object = self.mem.objects[&obj].clone();
        let classes = std::iter::once(object.class.clone()).chain(
            self.mem
                .this_classes
                .iter()
                .rev()
                .filter(|(o, _)| *o == obj)
                .map(|(_, c)| c.clone()),
        );
        let found = classes
            .flat_map(|c| self.class_fields(&c).into_iter().rev())
            .find(|f| f.name == field);
        let Some(f) = found else {
            return Err(format!(
                "member `{field}` of a `{}` object in memory (not a data member the model knows)",
                object.class
            ));
        };
        if f.struct_type.is_some() {
            return Err(format!(
                "member object `{field}` of a `{}` object in memory",
                object.class
            ));
        }
        let dims = if f.array {
            if f.pointer {
                return Err(format!(
                    "array of pointers `{field}` of a `{}` object in memory",
                    object.class
                ));
            }
            f.dims
                .iter()
                .map(|d| self.eval_snippet_const(d).filter(|n| *n > 0))
                .collect()
        } else {
            Vec::new()
        };
        let name = format!("{}.{field}", object.name);
        let id = self.add_array(&name, object.space, dims);
        self.elem_types.insert(id, f.elem_type.clone());
        if f.pointer {
            self.mem.pointer_cells.insert(id);
        } else if !f.array {
            if let Some(r) = kernel::int_range(&f.elem_type) {
                self.elem_ranges.insert(id, r);
            }
        }
        self.mem.fields.insert((obj, field.to_string()), id);
        Ok(id)
    }

    /// `obj->field` as a place: the member's cell (an array member's first
    /// element; `member_value` gives the array).
    pub(super) fn member_lvalue(&mut self, obj: ArrayId, field: &str) -> LValue {
        match self.member_cell(obj, field) {
            Ok(id) => LValue::Mem {
                ptr: match self.base_ptr(id) {
                    Value::Ptr(p) => p,
                    _ => unreachable!("base_ptr gives a pointer"),
                },
                bounds: Vec::new(),
            },
            Err(why) => LValue::Opaque(why),
        }
    }

    /// `obj->field` as a value: an array member decays to its array; any
    /// other member is read.
    pub(super) fn member_value(&mut self, obj: ArrayId, field: &str, node: Node) -> Value {
        match self.member_cell(obj, field) {
            Ok(id) if !self.arrays[id].dims.is_empty() => self.base_ptr(id),
            _ => {
                let lv = self.member_lvalue(obj, field);
                let t = self.text(node);
                self.read_lvalue(&lv, &t, Some(node))
            }
        }
    }

    /// Binds `this` and the members of a memory object in the frame of a
    /// method being inlined on it (the class's template parameters are
    /// bound by the caller).
    pub(super) fn bind_memory_this(&mut self, obj: ArrayId, class: &str) {
        let this = self.base_ptr(obj);
        self.declare("this", this);
        let mut names: Vec<String> = self
            .class_fields(class)
            .into_iter()
            .map(|f| f.name)
            .collect();
        names.dedup();
        for name in names {
            let v = match self.member_cell(obj, &name) {
                Ok(id) if !self.arrays[id].dims.is_empty() => self.base_ptr(id),
                _ => Value::Alias(Box::new(self.member_lvalue(obj, &name))),
            };
            self.declare(&name, v);
        }
    }

    /// A constructor's member initialisers on an object in memory:
    /// `Vec(int n) : m_top(-1) {}` stores into the member's cell.
    pub(super) fn memory_member_initializers(&mut self, fnode: Node, obj: ArrayId) {
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
            let mut v = Value::Int(Expr::Const(0));
            for it in crate::syntax::items(*value) {
                v = self.eval(it);
            }
            let field = self.text(*field);
            let lv = self.member_lvalue(obj, &field);
            self.write_lvalue(&lv, v, fi, AccessKind::Write);
        }
    }

    /// A method called on an object in memory: inlined on it. A virtual
    /// method of an object whose dynamic type the kernel did not make runs
    /// the one overrider the translation unit's classes deriving from its
    /// class define; several, or none, are named.
    pub(super) fn memory_method_call(
        &mut self,
        obj: ArrayId,
        name: &str,
        node: Node,
        args: &[Node],
    ) -> Value {
        let object = self.mem.objects[&obj].clone();
        let class = object.class.clone();
        let target = if object.exact || !self.is_virtual(&class, name, 0) {
            match self.find_method(&class, name, args.len(), 0) {
                Some((owner, defs)) if defs.len() == 1 => Ok((owner, defs[0].clone())),
                Some(_) => Err(format!("method call `{class}::{name}` (overloaded)")),
                None => Err(format!(
                    "method call `{class}::{name}` (body not available)"
                )),
            }
        } else {
            self.virtual_target(&class, name, args.len())
        };
        let (owner, def) = match target {
            Ok(t) => t,
            Err(why) => {
                for a in args {
                    self.eval(*a);
                }
                self.unsupported(node, why);
                return self.unseen_result(name);
            }
        };
        if self.is_virtual(&class, name, 0) {
            // The call reads the object's dispatch pointer, which its
            // constructor wrote.
            if let Ok(id) = self.member_cell_named(obj, "<vtable>") {
                let lv = LValue::Mem {
                    ptr: match self.base_ptr(id) {
                        Value::Ptr(p) => p,
                        _ => unreachable!("base_ptr gives a pointer"),
                    },
                    bounds: Vec::new(),
                };
                let t = self.text(node);
                self.read_lvalue(&lv, &t, Some(node));
            }
        }
        self.inline_on_object(obj, &owner, &def, node, args)
    }

    /// The one implementation of virtual method `name` an object of static
    /// class `class` (made elsewhere) may run.
    fn virtual_target(
        &self,
        class: &str,
        name: &str,
        arity: usize,
    ) -> Result<(String, FunctionDef<'t>), String> {
        let types = self.derived_classes(class).map_err(|why| {
            format!("virtual call `{name}` on a `{class}` object in memory: {why}")
        })?;
        let mut targets: Vec<(String, FunctionDef<'t>)> = Vec::new();
        for ty in &types {
            match self.find_method(ty, name, arity, 0) {
                Some((owner, defs)) if defs.len() == 1 => {
                    let def = defs[0].clone();
                    if !targets.iter().any(|(_, d)| d.node.id() == def.node.id()) {
                        targets.push((owner, def));
                    }
                }
                Some(_) => {
                    return Err(format!(
                    "virtual call `{name}` on a `{class}` object in memory (overloaded in `{ty}`)"
                ))
                }
                None => {}
            }
        }
        match targets.len() {
            1 => Ok(targets.remove(0)),
            0 => Err(format!(
                "virtual call `{name}` on a `{class}` object in memory (no class of this translation unit defines it)"
            )),
            _ => Err(format!(
                "virtual call `{name}` on a `{class}` object in memory: its dynamic type may be any of {} (one overrider each; the choice is not modelled)",
                targets
                    .iter()
                    .map(|(o, _)| format!("`{o}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// A hidden cell of an object (its dispatch pointer), made on first use.
    fn member_cell_named(&mut self, obj: ArrayId, cell: &str) -> Result<ArrayId, String> {
        if let Some(&id) = self.mem.fields.get(&(obj, cell.to_string())) {
            return Ok(id);
        }
        let object = self.mem.objects[&obj].clone();
        let id = self.add_array(&format!("{}.{cell}", object.name), object.space, Vec::new());
        self.mem.fields.insert((obj, cell.to_string()), id);
        Ok(id)
    }

    /// Inlines method `def` of class type `owner` on object `obj`, with the
    /// class template's parameters bound to `owner`'s arguments.
    fn inline_on_object(
        &mut self,
        obj: ArrayId,
        owner: &str,
        def: &FunctionDef<'t>,
        node: Node,
        args: &[Node],
    ) -> Value {
        let bindings = self.class_def(owner).map(|(_, b)| b).unwrap_or_default();
        let saved: Vec<(String, Option<String>)> = bindings
            .iter()
            .map(|(p, a)| {
                let a = self.bound_struct_type(a);
                (p.clone(), self.type_bindings.insert(p.clone(), a))
            })
            .collect();
        self.mem.pending_this = Some((obj, owner.to_string()));
        self.mem.this_classes.push((obj, owner.to_string()));
        let v = self.inline(def, node, args, None, None);
        self.mem.this_classes.pop();
        self.mem.pending_this = None;
        for (p, old) in saved {
            match old {
                Some(o) => self.type_bindings.insert(p, o),
                None => self.type_bindings.remove(&p),
            };
        }
        v
    }

    /// `new (place) T(args)`: the object constructed in the memory `place`
    /// points to (its constructor inlined on it); `new (place) T[n]` of a
    /// type without a constructor: `place` itself. A `new` of the device
    /// heap is named.
    pub(super) fn new_expression(&mut self, node: Node) -> Value {
        let Some(placement) = node.field("placement") else {
            let what = format!(
                "device heap allocation `{}` (objects of the heap are not modelled)",
                short(&self.text(node))
            );
            self.unsupported(node, what);
            return Value::Opaque("new".into());
        };
        let places = crate::syntax::items(placement);
        let [place] = places.as_slice() else {
            self.unsupported(node, "placement `new` with several placement arguments");
            return Value::Opaque("new".into());
        };
        let ty = node.field("type").map(|t| self.text(t)).unwrap_or_default();
        let ty = self.bound_struct_type(&type_text(&ty));
        let args: Vec<Node> = node
            .field("arguments")
            .map(crate::syntax::items)
            .unwrap_or_default();
        let target = self.eval(*place);
        let is_array = node.field("declarator").is_some();
        let class = self.class_def(&ty).map(|_| ty.clone());
        match (is_array, class, &target) {
            // Elements of a type without a constructor: nothing is written.
            (true, None, Value::Ptr(_)) if args.is_empty() => {
                if let Some(len) = node.field("declarator").and_then(|d| d.field("length")) {
                    self.eval(len);
                }
                target
            }
            (false, Some(class), Value::Ptr(p))
                if p.others.is_empty() && p.view.is_none() && p.offset == Expr::Const(0) =>
            {
                let storage = p.array;
                let span = self.span(node);
                let name = self.arrays[storage].name.clone();
                let obj = match self.mem.placed.get(&storage) {
                    Some(&obj) if self.mem.objects[&obj].class == class => obj,
                    Some(&obj) => {
                        let other = self.mem.objects[&obj].class.clone();
                        for a in &args {
                            self.eval(*a);
                        }
                        self.unsupported(
                            node,
                            format!("a `{class}` constructed in `{name}`, which also holds a `{other}` (objects of different classes in one buffer)"),
                        );
                        return Value::Opaque("new".into());
                    }
                    None => {
                        self.mem.storage.push((
                            storage,
                            span,
                            format!("the `{class}` constructed in `{name}`"),
                        ));
                        let obj = self.new_object(
                            &format!("({class}){name}"),
                            MemObject {
                                class: class.clone(),
                                exact: true,
                                constructed: true,
                                space: self.arrays[storage].space,
                                name: format!("({class}){name}"),
                                span,
                            },
                        );
                        self.mem.placed.insert(storage, obj);
                        obj
                    }
                };
                if self.is_polymorphic(&class, 0) {
                    if let Ok(id) = self.member_cell_named(obj, "<vtable>") {
                        let lv = LValue::Mem {
                            ptr: match self.base_ptr(id) {
                                Value::Ptr(p) => p,
                                _ => unreachable!("base_ptr gives a pointer"),
                            },
                            bounds: Vec::new(),
                        };
                        self.write_lvalue(&lv, Value::Int(Expr::Const(0)), node, AccessKind::Write);
                    }
                }
                match self.find_method(&class, &split_template(&class).0, args.len(), 0) {
                    Some((owner, defs)) if defs.len() == 1 => {
                        let def = defs[0].clone();
                        self.inline_on_object(obj, &owner, &def, node, &args);
                    }
                    None if args.is_empty() => {}
                    _ => {
                        for a in &args {
                            self.eval(*a);
                        }
                        self.unsupported(
                            node,
                            format!("constructor of `{class}` (body not available or overloaded)"),
                        );
                    }
                }
                self.base_ptr(obj)
            }
            _ => {
                for a in &args {
                    self.eval(*a);
                }
                let what = format!("placement `new` `{}`", short(&self.text(node)));
                self.unsupported(node, what);
                Value::Opaque("new".into())
            }
        }
    }

    /// Whether a class (or a base of it) has a virtual method.
    fn is_polymorphic(&self, ty: &str, depth: usize) -> bool {
        depth <= 8
            && (self
                .class_def(ty)
                .is_some_and(|(c, _)| !c.virtuals.is_empty())
                || self
                    .class_bases(ty)
                    .iter()
                    .any(|b| self.is_polymorphic(b, depth + 1)))
    }

    /// A read of a pointer cell the model follows: the value stored into it
    /// once, or what it held when the kernel began (an object made
    /// elsewhere; a pointer member's own buffer), or `None` for the usual
    /// unknown.
    pub(super) fn pointer_cell_read(
        &mut self,
        ptr: &Ptr,
        node: Option<Node>,
        text: &str,
    ) -> Option<Value> {
        if !self.mem.pointer_cells.contains(&ptr.array)
            || !ptr.others.is_empty()
            || ptr.view.is_some()
        {
            return None;
        }
        if let Some(stored) = self.mem.stored.get(&ptr.array) {
            return Some(stored.clone().unwrap_or_else(|| {
                Value::Opaque(format!(
                    "pointer read from `{}`, into which the kernel stores pointers the model does not follow",
                    self.arrays[ptr.array].name
                ))
            }));
        }
        let index = ptr.offset.as_const()?;
        if self.arrays[ptr.array].space != MemorySpace::Global {
            return None;
        }
        let span = node
            .map(|n| self.span(n))
            .or(self.span_override)
            .unwrap_or_default();
        if let Some(class) = self.mem.class_cells.get(&ptr.array).cloned() {
            // An object made before the kernel: the same one for every
            // thread while the kernel does not write the cell.
            if let Some(&obj) = self.mem.loaded.get(&(ptr.array, index)) {
                return Some(self.base_ptr(obj));
            }
            let name = if self.arrays[ptr.array].dims.is_empty() || index != 0 {
                format!("{}[{index}]", self.arrays[ptr.array].name)
            } else {
                format!("*{}", self.arrays[ptr.array].name)
            };
            self.mem.assumed_fixed.push((
                ptr.array,
                span,
                format!("the pointer `{text}` to a `{class}`"),
            ));
            let obj = self.new_object(
                &name,
                MemObject {
                    class,
                    exact: false,
                    constructed: false,
                    space: MemorySpace::Global,
                    name: name.clone(),
                    span,
                },
            );
            self.mem.loaded.insert((ptr.array, index), obj);
            return Some(self.base_ptr(obj));
        }
        // A pointer member of an object made elsewhere: a buffer of its own.
        let owner = self
            .mem
            .fields
            .iter()
            .find(|(_, &cell)| cell == ptr.array)
            .map(|((o, _), _)| *o)?;
        if self.mem.objects[&owner].constructed {
            return None;
        }
        if let Some(&buf) = self.mem.member_buffers.get(&ptr.array) {
            return Some(self.base_ptr(buf));
        }
        let name = format!("{}[]", self.arrays[ptr.array].name);
        self.mem
            .assumed_fixed
            .push((ptr.array, span, format!("the pointer member `{text}`")));
        let buf = self.add_array(&name, MemorySpace::Global, vec![None]);
        if let Some(t) = self.elem_types.get(&ptr.array).cloned() {
            self.elem_types.insert(buf, t);
        }
        self.mem.member_buffers.insert(ptr.array, buf);
        Some(self.base_ptr(buf))
    }

    /// After a store into a followed pointer cell: its one value, while
    /// every store agrees on one pointer that is the same for every thread
    /// (a fixed place, stored outside loops); otherwise none.
    pub(super) fn note_pointer_store(&mut self, cell: ArrayId, value: &Value) {
        if self.dry > 0 {
            return;
        }
        // A store into one element of an array of pointers: which element
        // a later read meets is not followed. Nor is a store into a cell
        // that held a pointer when the kernel began (a global cell, a
        // member of an object made elsewhere): a thread that no store
        // reached reads that pointer, not the stored one. A cell whose
        // content is indeterminate until stored (`__shared__`, a member of
        // an object the kernel constructs) holds the stored pointer for
        // every thread that may use it: using it before any store is
        // undefined behaviour, and a read not ordered after the store
        // races with it.
        let owner_constructed = self
            .mem
            .fields
            .iter()
            .find(|(_, &c)| c == cell)
            .map(|((o, _), _)| self.mem.objects[o].constructed);
        let indeterminate = match owner_constructed {
            Some(constructed) => constructed,
            None => self.arrays[cell].space == MemorySpace::Shared,
        };
        if !self.arrays[cell].dims.is_empty() || !indeterminate {
            self.mem.stored.insert(cell, None);
            return;
        }
        let uniform = matches!(value, Value::Ptr(p)
            if p.others.is_empty() && p.view.is_none() && p.offset.as_const().is_some());
        let next = if uniform && self.loops.is_empty() {
            match self.mem.stored.get(&cell) {
                None => Some(value.clone()),
                Some(Some(v)) if v == value => Some(value.clone()),
                Some(_) => None,
            }
        } else {
            None
        };
        self.mem.stored.insert(cell, next);
    }

    /// Every access recorded: what was written and touched, and a write of
    /// a followed pointer cell other than the store being followed ends
    /// what is known of it.
    pub(super) fn note_memory_access(&mut self, kind: AccessKind, array: ArrayId) {
        self.mem.touched.insert(array);
        if kind.writes() {
            self.mem.written.insert(array);
            if self.mem.pointer_cells.contains(&array) && self.mem.storing != Some(array) {
                self.mem.stored.insert(array, None);
            }
        }
    }

    /// At the end of the kernel: what the model took as fixed and the
    /// kernel writes after all, and buffers holding a constructed object
    /// that are also used as plain memory, are named.
    pub(super) fn finish_memory_objects(&mut self) {
        let fixed = std::mem::take(&mut self.mem.assumed_fixed);
        for (array, span, what) in fixed {
            if self.mem.written.contains(&array) {
                self.unsupported.push(Unsupported {
                    span,
                    what: format!(
                        "{what}, read from memory that the kernel also writes (which object it designates is not followed)"
                    ),
                });
            }
        }
        // Two objects of global memory the kernel did not both construct
        // in buffers of its own may be one object: a pointer read from
        // memory may point anywhere in global memory.
        let mut global: Vec<&MemObject> = self
            .mem
            .objects
            .values()
            .filter(|o| o.space == MemorySpace::Global)
            .collect();
        global.sort_by_key(|o| (o.span.start.offset, o.name.clone()));
        if global.iter().any(|o| !o.constructed) {
            let first = global.first().map(|o| o.name.clone()).unwrap_or_default();
            let others: Vec<(Span, String)> = global
                .iter()
                .skip(1)
                .map(|o| (o.span, o.name.clone()))
                .collect();
            for (span, name) in others {
                self.unsupported.push(Unsupported {
                    span,
                    what: format!(
                        "the object `{name}` in global memory, which may be the object `{first}` (which object a pointer read from memory designates is not followed)"
                    ),
                });
            }
        }
        let storage = std::mem::take(&mut self.mem.storage);
        for (array, span, what) in storage {
            if self.mem.touched.contains(&array) {
                self.unsupported.push(Unsupported {
                    span,
                    what: format!(
                        "{what}, whose bytes the kernel also accesses as `{}` (the object's layout is not modelled)",
                        self.arrays[array].name
                    ),
                });
            }
        }
    }
}

impl Lowerer<'_, '_> {
    /// Inside a method inlined on an object in memory, the object, when
    /// `name` is a method of its class (a call of another method by name).
    pub(super) fn memory_this(&self, name: &str) -> Option<ArrayId> {
        let (_, this) = self.lookup("this")?;
        let obj = self.pointed_object(this)?;
        let class = self.mem.objects.get(&obj)?.class.clone();
        let has = |c: &str| {
            self.class_def(c)
                .is_some_and(|(d, _)| d.members.declared.iter().any(|m| m == name))
        };
        (has(&class) || self.class_bases(&class).iter().any(|b| has(b))).then_some(obj)
    }

    /// Whether `p` in `p->m` is `this` of a method inlined on an object in
    /// memory, or a name bound to a pointer to such an object.
    pub(super) fn arrow_to_object(&self, arg: Node) -> bool {
        let mut arg = arg;
        while arg.kind() == "parenthesized_expression" {
            match arg.named_child(0) {
                Some(a) => arg = a,
                None => return false,
            }
        }
        if !matches!(arg.kind(), "this" | "identifier") {
            return false;
        }
        let name = self.text(arg);
        match self.lookup(&name) {
            Some((_, v)) => self.pointed_object(v).is_some(),
            None => false,
        }
    }
}
