//! Symbolic execution of a kernel body into the model.
//!
//! Locals live in an environment of symbolic values (SSA by substitution:
//! `x = ...; x = ...;` simply rebinds `x`). Conditionals merge environments
//! with `ite`; loops are summarised without unrolling: a dry run of the body
//! finds each variable's per-iteration update, induction variables become
//! closed forms of an iteration counter (`i0 + c*k`, `x0 * 2^k`, `x0 >> k`),
//! and anything else becomes an unknown. Values read from memory are
//! unknowns. A construct the model cannot represent is recorded as
//! `Unsupported` and makes the kernel `not-verified`.

use super::{
    binop, const_eval, declarator_name, has_qualifier, node_text, parse_int, preproc_branch,
    struct_type_name, FileContext, FunctionDef,
};
use crate::model::*;
use crate::options::Options;
use crate::report::Span;
use crate::syntax::FieldExt;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;
use tree_sitter::Node;

const MAX_DEPTH: usize = 300;
const MAX_STEPS: usize = 3_000_000;
const MAX_EXPR: usize = 4000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupKind {
    Warp,
    Block,
    Grid,
}

#[derive(Clone, Debug, PartialEq)]
struct Ptr {
    array: ArrayId,
    /// Flattened element offset.
    offset: Expr,
    /// Offset within the current row (for bounds of the last dimension).
    inner: Expr,
    /// The dimension the next subscript indexes.
    level: usize,
}

#[derive(Clone, Debug, PartialEq)]
enum LValue {
    Local {
        scope: usize,
        name: String,
    },
    Mem {
        ptr: Ptr,
        bounds: Vec<Expr>,
    },
    /// A thread-private aggregate element: never shared, value unknown.
    Discard,
    Opaque(String),
}

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(Expr),
    Ptr(Ptr),
    /// A thread-private aggregate (local array or struct).
    Local,
    Group(GroupKind),
    /// `threadIdx`, `blockIdx`, `blockDim`, `gridDim` as a whole (0..4).
    Dim3(u8),
    /// A reference (or address of a local) aliasing another lvalue.
    Alias(Box<LValue>),
    /// A pointer of unknown origin.
    Opaque(String),
    /// An object of a struct the file defines (its type). Its members are
    /// locals of the same scope named `object.member` (nested objects:
    /// `object.inner.member`), so branches merge and loops summarise them
    /// like any other local.
    Object(String),
}

/// A modelled object: the scope its members live in, its path, its type.
type ObjRef = (usize, String, String);

/// How an argument binds to a parameter of an inlined function.
enum Bound {
    Value(Value),
    /// A by-value object: a copy of this one (`None`: of an untracked value).
    Copy(String, Option<ObjRef>),
}

struct Frame {
    is_loop: bool,
    broke: Expr,
    continued: Expr,
    thread_exit: bool,
}

#[derive(Clone, Debug)]
enum Update {
    Unchanged,
    Add(Expr),
    Pow2Up(i64),
    Pow2Down(i64),
    Havoc(Scope),
}

pub fn lower_kernel(
    text: &str,
    file: &FileContext,
    def: &FunctionDef,
    options: &Options,
) -> Kernel {
    let mut lw = Lowerer::new(text, file, options);
    lw.kernel(def)
}

struct Lowerer<'a, 't> {
    src: Rc<str>,
    file: &'a FileContext<'t>,
    arrays: Vec<Array>,
    array_names: HashMap<String, ArrayId>,
    extern_shared: Option<ArrayId>,
    scopes: Vec<HashMap<String, Value>>,
    frame_base: usize,
    path: Vec<Expr>,
    cond_spans: Vec<(Span, Expr)>,
    returned: Expr,
    frames: Vec<Frame>,
    ret_values: Vec<Option<Value>>,
    out: Vec<Vec<Stmt>>,
    next_access: usize,
    next_barrier: usize,
    next_loop: usize,
    loops: Vec<usize>,
    loop_counters: Vec<String>,
    unknown_counts: HashMap<String, usize>,
    counter_counts: HashMap<String, usize>,
    unsupported: Vec<Unsupported>,
    assumptions: Vec<Expr>,
    call_stack: Vec<String>,
    dry: usize,
    span_override: Option<Span>,
    depth: usize,
    steps: usize,
    exhausted: bool,
    macro_depth: usize,
    kernel_name: String,
}

impl<'a, 't> Lowerer<'a, 't> {
    fn new(text: &str, file: &'a FileContext<'t>, _options: &Options) -> Self {
        Lowerer {
            src: Rc::from(text),
            file,
            arrays: Vec::new(),
            array_names: HashMap::new(),
            extern_shared: None,
            scopes: vec![HashMap::new()],
            frame_base: 0,
            path: Vec::new(),
            cond_spans: Vec::new(),
            returned: Expr::fals(),
            frames: Vec::new(),
            ret_values: Vec::new(),
            out: vec![Vec::new()],
            next_access: 0,
            next_barrier: 0,
            next_loop: 0,
            loops: Vec::new(),
            loop_counters: Vec::new(),
            unknown_counts: HashMap::new(),
            counter_counts: HashMap::new(),
            unsupported: Vec::new(),
            assumptions: Vec::new(),
            call_stack: Vec::new(),
            dry: 0,
            span_override: None,
            depth: 0,
            steps: 0,
            exhausted: false,
            macro_depth: 0,
            kernel_name: String::new(),
        }
    }

    // ----- helpers -------------------------------------------------------

    fn text(&self, node: Node) -> String {
        node_text(&self.src, node).to_string()
    }

    fn span(&self, node: Node) -> Span {
        self.span_override.unwrap_or_else(|| Span::from_node(&node))
    }

    fn unsupported(&mut self, node: Node, what: impl Into<String>) {
        if self.dry > 0 {
            return;
        }
        let span = self.span(node);
        let what = what.into();
        if !self
            .unsupported
            .iter()
            .any(|u| u.span == span && u.what == what)
        {
            self.unsupported.push(Unsupported { span, what });
        }
    }

    fn guard(&self) -> Expr {
        let mut g = Expr::all(self.path.iter().cloned());
        g = Expr::and(g, Expr::not(self.returned.clone()));
        for f in &self.frames {
            g = Expr::and(g, Expr::not(Expr::or(f.broke.clone(), f.continued.clone())));
        }
        g
    }

    /// `⟨counters⟩` of the enclosing loops: a value made inside a loop may
    /// differ from one iteration to the next (the verifier instantiates it
    /// per iteration).
    fn iteration_tag(&self) -> String {
        if self.loop_counters.is_empty() {
            String::new()
        } else {
            format!("⟨{}⟩", self.loop_counters.join(","))
        }
    }

    fn fresh_unknown(&mut self, base: &str, scope: Scope) -> Expr {
        let base: String = base
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '⟨' && *c != '⟩')
            .take(40)
            .collect();
        let tag = self.iteration_tag();
        let n = self.unknown_counts.entry(base.clone()).or_insert(0);
        let name = format!("{base}#{n}{tag}");
        *n += 1;
        Expr::Var(Var::new(
            name,
            VarKind::Unknown {
                scope,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        ))
    }

    fn fresh_bool(&mut self, base: &str, scope: Scope) -> Expr {
        let tag = self.iteration_tag();
        let n = self.unknown_counts.entry(base.to_string()).or_insert(0);
        let name = format!("{base}#{n}{tag}");
        *n += 1;
        Expr::Var(Var::new(
            name,
            VarKind::Unknown {
                scope,
                lo: 0,
                hi: 1,
            },
        ))
    }

    fn emit(&mut self, s: Stmt) {
        self.out.last_mut().expect("output stack").push(s);
    }

    fn bound(&mut self, e: Expr, scope_hint: Scope) -> Expr {
        if e.size_up_to(MAX_EXPR) > MAX_EXPR {
            let s = e.scope().max(scope_hint);
            self.fresh_unknown("big", s)
        } else {
            e
        }
    }

    fn tick(&mut self) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.exhausted = true;
        }
        !self.exhausted
    }

    fn lookup(&self, name: &str) -> Option<(usize, &Value)> {
        for i in (self.frame_base..self.scopes.len()).rev() {
            if let Some(v) = self.scopes[i].get(name) {
                return Some((i, v));
            }
        }
        None
    }

    fn declare(&mut self, name: &str, v: Value) {
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(name.to_string(), v);
    }

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        if self.scopes.len() > self.frame_base + 1 {
            self.scopes.pop();
        }
    }

    fn array_total(&self, id: ArrayId) -> Option<i64> {
        let a = &self.arrays[id];
        if a.dims.is_empty() {
            return Some(1);
        }
        a.dims
            .iter()
            .try_fold(1i64, |acc, d| d.and_then(|d| acc.checked_mul(d)))
    }

    fn stride(&self, id: ArrayId, level: usize) -> Expr {
        let a = &self.arrays[id];
        let mut s = 1i64;
        for d in a.dims.iter().skip(level + 1) {
            match d {
                Some(d) => s = s.saturating_mul(*d),
                None => return Expr::Const(1),
            }
        }
        Expr::Const(s)
    }

    fn add_array(&mut self, name: &str, space: MemorySpace, dims: Vec<Option<i64>>) -> ArrayId {
        let id = self.arrays.len();
        self.arrays.push(Array {
            name: name.to_string(),
            space,
            dims,
        });
        self.array_names.insert(name.to_string(), id);
        id
    }

    fn base_ptr(&self, id: ArrayId) -> Value {
        Value::Ptr(Ptr {
            array: id,
            offset: Expr::Const(0),
            inner: Expr::Const(0),
            level: 0,
        })
    }

    // ----- objects -------------------------------------------------------

    fn object_at(&self, scope: usize, path: &str) -> Option<ObjRef> {
        match self.scopes.get(scope)?.get(path)? {
            Value::Object(ty) => Some((scope, path.to_string(), ty.clone())),
            _ => None,
        }
    }

    /// The modelled object an expression designates: `acc`, a reference to
    /// it, `this`, `*this`, `acc.inner`.
    fn object_path(&self, node: Node) -> Option<ObjRef> {
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
    fn member_base(&self, node: Node) -> Option<ObjRef> {
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

    /// Declares the members of a new object `path` of struct `ty` in
    /// `scope`, uninitialised.
    fn init_object(&mut self, scope: usize, path: &str, ty: &str, depth: usize) {
        let fields = self
            .file
            .structs
            .get(ty)
            .map(|s| s.fields.clone())
            .unwrap_or_default();
        self.scopes[scope].insert(path.to_string(), Value::Object(ty.to_string()));
        for f in fields {
            let key = format!("{path}.{}", f.name);
            match &f.struct_type {
                _ if f.array => {
                    self.scopes[scope].insert(key, Value::Local);
                }
                Some(sub) if depth < 8 => self.init_object(scope, &key, sub, depth + 1),
                _ => {
                    let u = self.fresh_unknown(&format!("uninit_{key}"), Scope::Thread);
                    self.scopes[scope].insert(key, Value::Int(u));
                }
            }
        }
    }

    /// The member keys of an object (nested members included), sorted.
    fn object_keys(&self, obj: &ObjRef) -> Vec<String> {
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
    fn copy_object(&mut self, dst: &ObjRef, src: Option<&ObjRef>) {
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
            self.scopes[dst.0].insert(key, v);
        }
    }

    /// Whether `.a.b` names a pointer member of `obj`'s struct.
    fn member_is_pointer(&self, obj: &ObjRef, suffix: &str) -> bool {
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
    fn object_holds_pointer(&self, obj: &ObjRef) -> bool {
        self.object_keys(obj).iter().any(|k| {
            matches!(
                self.scopes[obj.0].get(k),
                Some(Value::Ptr(_) | Value::Opaque(_))
            ) || self.member_is_pointer(obj, &k[obj.1.len()..])
        })
    }

    /// Initialises the new object `obj` declared by `decl` from `init`:
    /// a constructor (inlined), an aggregate initialiser, or a copy.
    fn construct(&mut self, decl: Node, obj: &ObjRef, init: Option<Node>) {
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
            .map(|v| {
                let mut c = v.walk();
                v.named_children(&mut c)
                    .filter(|n| n.kind() != "comment")
                    .collect()
            });
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

    fn copy_constructor(&self, ty: &str) -> Option<FunctionDef<'t>> {
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
    fn aggregate_init(&mut self, obj: &ObjRef, items: &[Node]) {
        let fields = self
            .file
            .structs
            .get(&obj.2)
            .map(|s| s.fields.clone())
            .unwrap_or_default();
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
    fn method_call(&mut self, obj: ObjRef, name: &str, node: Node, args: &[Node]) -> Value {
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

    fn kernel(&mut self, def: &FunctionDef<'t>) -> Kernel {
        let node = def.node;
        self.kernel_name = def.name.clone();
        let name_node = node
            .field("declarator")
            .and_then(|d| find_identifier(d, &self.src, &def.name));
        let span = name_node
            .map(|n| Span::from_node(&n))
            .unwrap_or_else(|| Span::from_node(&node));
        let mut max_threads = None;
        let mut c = node.walk();
        for ch in node.children(&mut c) {
            if ch.kind() == "launch_bounds" {
                if let Some(n) = ch.named_child(0) {
                    max_threads =
                        const_eval(&self.src, n, &self.file.macros, &self.file.enumerators);
                }
            }
        }
        self.bind_template_params(def, None);
        if let Some(params) = node
            .field("declarator")
            .and_then(find_function_declarator)
            .and_then(|f| f.field("parameters"))
        {
            let mut c = params.walk();
            for p in params.named_children(&mut c) {
                self.kernel_param(p);
            }
        }
        if let Some(body) = node.field("body") {
            self.statement(body);
        }
        if self.exhausted {
            self.unsupported(node, "kernel too large to model within the step budget");
        }
        let body = std::mem::take(self.out.last_mut().expect("output"));
        let mut block_used = [true, false, false];
        let mut grid_used = [false, false, false];
        let text = self.src.clone();
        dims_used(node_text(&text, node), &mut block_used, &mut grid_used);
        // Device functions and macros: scanned once per file.
        let shared = *self.file.helper_dims.get_or_init(|| {
            let (mut b, mut g) = ([false; 3], [false; 3]);
            for f in self.file.functions.values() {
                if !f.is_kernel {
                    dims_used(node_text(&text, f.node), &mut b, &mut g);
                }
            }
            for s in self.file.structs.values() {
                for f in s.methods.values().flatten() {
                    dims_used(node_text(&text, f.node), &mut b, &mut g);
                }
            }
            for m in self.file.macros.values() {
                dims_used(&m.body, &mut b, &mut g);
            }
            (b, g)
        });
        for d in 0..3 {
            block_used[d] |= shared.0[d];
            grid_used[d] |= shared.1[d];
        }
        Kernel {
            name: def.name.clone(),
            span,
            def_span: Span::from_node(&node),
            arrays: std::mem::take(&mut self.arrays),
            body,
            assumptions: std::mem::take(&mut self.assumptions),
            unsupported: std::mem::take(&mut self.unsupported),
            block_dims_used: block_used,
            grid_dims_used: grid_used,
            max_threads,
        }
    }

    fn bind_template_params(&mut self, def: &FunctionDef<'t>, explicit: Option<Vec<String>>) {
        let insts = self.file.instantiations.get(&def.name);
        for (i, tp) in def.template_params.iter().enumerate() {
            let given = explicit
                .as_ref()
                .and_then(|a| a.get(i).cloned())
                .or_else(|| match insts {
                    Some(list) if list.len() == 1 => list[0].get(i).cloned(),
                    Some(_) => None,
                    None => tp.default.clone(),
                });
            let value = given
                .as_deref()
                .and_then(|g| self.eval_snippet_const(g))
                .map(Expr::Const)
                .unwrap_or_else(|| {
                    Expr::Var(Var::new(
                        tp.name.clone(),
                        VarKind::Param {
                            lo: i32::MIN as i64,
                            hi: i32::MAX as i64,
                        },
                    ))
                });
            self.declare(&tp.name, Value::Int(value));
        }
    }

    fn eval_snippet_const(&mut self, text: &str) -> Option<i64> {
        if let Some(v) = parse_int(text) {
            return Some(v);
        }
        match self.eval_snippet(text, None)? {
            Value::Int(Expr::Const(c)) => Some(c),
            _ => None,
        }
    }

    fn kernel_param(&mut self, p: Node) {
        let Some(decl) = p.field("declarator") else {
            return;
        };
        let Some(name) = declarator_name(&self.src, decl) else {
            return;
        };
        let is_pointer =
            contains_kind(decl, "pointer_declarator") || contains_kind(decl, "array_declarator");
        let ty = p.field("type").map(|t| self.text(t)).unwrap_or_default();
        if is_pointer {
            let id = self.add_array(&name, MemorySpace::Global, vec![None]);
            let v = self.base_ptr(id);
            self.declare(&name, v);
        } else if let Some((lo, hi)) = int_range(&ty) {
            let v = Expr::Var(Var::new(name.clone(), VarKind::Param { lo, hi }));
            self.declare(&name, Value::Int(v));
        } else if let Some(sty) = p
            .field("type")
            .and_then(|t| struct_type_name(&self.src, t))
            .filter(|t| self.file.structs.contains_key(t) && decl.kind() == "identifier")
        {
            // A struct passed by value: its members are grid-uniform unknowns;
            // a pointer member points we do not know where.
            let scope = self.scopes.len() - 1;
            self.init_object(scope, &name, &sty, 0);
            let obj = (scope, name.clone(), sty);
            for key in self.object_keys(&obj) {
                let suffix = key[name.len()..].to_string();
                let v = match self.scopes[scope].get(&key) {
                    Some(Value::Object(_) | Value::Local) => continue,
                    _ if self.member_is_pointer(&obj, &suffix) => {
                        Value::Opaque(format!("pointer member `{key}` of a struct parameter"))
                    }
                    _ => Value::Int(self.fresh_unknown(&key, Scope::Grid)),
                };
                self.scopes[scope].insert(key, v);
            }
        } else if is_scalar_type(&ty) {
            // Floating-point parameters: grid-uniform values of no integer range.
            let v = Expr::Var(Var::new(
                name.clone(),
                VarKind::Unknown {
                    scope: Scope::Grid,
                    lo: i64::MIN,
                    hi: i64::MAX,
                },
            ));
            self.declare(&name, Value::Int(v));
        } else {
            self.declare(&name, Value::Local);
        }
    }

    // ----- statements --------------------------------------------------------

    fn statement(&mut self, node: Node) {
        if !self.tick() {
            return;
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.unsupported(node, "nesting too deep to model");
            self.depth -= 1;
            return;
        }
        self.statement_inner(node);
        self.depth -= 1;
    }

    fn statement_inner(&mut self, node: Node) {
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
                    self.eval(e);
                }
            }
            "if_statement" => self.if_statement(node),
            "for_statement" | "while_statement" | "do_statement" => self.loop_statement(node),
            "switch_statement" => self.switch_statement(node),
            "break_statement" => {
                let g = self.guard();
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
                // The `goto` itself is reported; the label is harmless alone.
                let mut c = node.walk();
                let children: Vec<Node> = node.named_children(&mut c).collect();
                for ch in children {
                    if ch.kind() != "statement_identifier" {
                        self.statement(ch);
                    }
                }
            }
            "goto_statement" => self.unsupported(node, "goto"),
            "preproc_def" | "preproc_function_def" => {
                // Function-local macros: rare, and file-level collection
                // already saw every #define in order; nothing to do.
            }
            k if k.starts_with("preproc_if") || k == "preproc_else" || k == "preproc_elif" => {
                let items = preproc_branch(&self.src, node, &self.file.macros);
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
            "type_definition"
            | "comment"
            | "empty_statement"
            | "preproc_include"
            | "preproc_call"
            | "static_assert_declaration"
            | "using_declaration"
            | "alias_declaration"
            | "namespace_alias_definition" => {}
            "ERROR" => {}
            _ => {
                if node.kind().ends_with("expression") {
                    self.eval(node);
                }
            }
        }
    }

    fn declaration(&mut self, node: Node) {
        let shared = has_qualifier(&self.src, node, "__shared__");
        let is_extern = has_qualifier(&self.src, node, "extern");
        let ty = node.field("type").map(|t| self.text(t)).unwrap_or_default();
        let struct_ty = node
            .field("type")
            .and_then(|t| struct_type_name(&self.src, t))
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
                    if let Some(&id) = self.array_names.get(&name) {
                        let v = self.base_ptr(id);
                        self.declare(&name, v);
                    }
                    continue;
                }
                let id = if is_extern {
                    match self.extern_shared {
                        Some(id) => id,
                        None => {
                            let id = self.add_array(&name, MemorySpace::Shared, vec![None]);
                            self.extern_shared = Some(id);
                            id
                        }
                    }
                } else if let Some(&id) = self.array_names.get(&name) {
                    id
                } else {
                    let dims = self.array_dims(inner);
                    self.add_array(&name, MemorySpace::Shared, dims)
                };
                let v = self.base_ptr(id);
                self.declare(&name, v);
                continue;
            }
            let is_array = inner.kind() == "array_declarator";
            let is_ref = contains_kind(inner, "reference_declarator");
            if inner.kind() == "identifier" {
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
                        Value::Int(e)
                    } else {
                        Value::Local
                    }
                }
            };
            let value = if is_array { Value::Local } else { value };
            self.declare(&name, value);
        }
    }

    /// Integer conversions that matter for indices: `bool` normalises.
    fn convert_for_type(&self, ty: &str, v: Value) -> Value {
        match v {
            Value::Int(e) if ty.trim() == "bool" => Value::Int(e.truthy()),
            other => other,
        }
    }

    fn array_dims(&mut self, mut d: Node) -> Vec<Option<i64>> {
        let mut dims = Vec::new();
        while d.kind() == "array_declarator" {
            let size = d.field("size").and_then(|s| match self.eval(s) {
                Value::Int(Expr::Const(c)) if c > 0 => Some(c),
                _ => None,
            });
            dims.push(size);
            match d.field("declarator") {
                Some(inner) => d = inner,
                None => break,
            }
        }
        dims.reverse();
        dims
    }

    fn if_statement(&mut self, node: Node) {
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
        self.branch(cond, cond_span, then_node, else_node);
    }

    fn branch(
        &mut self,
        cond: Expr,
        cond_span: Span,
        then_node: Option<Node>,
        else_node: Option<Node>,
    ) {
        let before = self.scopes.clone();
        self.out.push(Vec::new());
        self.path.push(cond.clone());
        self.cond_spans.push((cond_span, cond.clone()));
        if let Some(t) = then_node {
            self.statement(t);
        }
        self.path.pop();
        self.cond_spans.pop();
        let then_stmts = self.out.pop().unwrap_or_default();
        let then_env = std::mem::replace(&mut self.scopes, before);
        self.out.push(Vec::new());
        let neg = Expr::not(cond.clone());
        self.path.push(neg.clone());
        self.cond_spans.push((cond_span, neg));
        if let Some(e) = else_node {
            self.statement(e);
        }
        self.path.pop();
        self.cond_spans.pop();
        let else_stmts = self.out.pop().unwrap_or_default();
        self.merge_env(&cond, then_env);
        self.emit_branch(then_stmts, else_stmts);
    }

    fn emit_branch(&mut self, then_stmts: Vec<Stmt>, else_stmts: Vec<Stmt>) {
        if has_barrier(&then_stmts) || has_barrier(&else_stmts) {
            self.emit(Stmt::If(then_stmts, else_stmts));
        } else {
            for s in then_stmts.into_iter().chain(else_stmts) {
                self.emit(s);
            }
        }
    }

    /// Merges the then-branch environment into the current (else) one.
    fn merge_env(&mut self, cond: &Expr, then_env: Vec<HashMap<String, Value>>) {
        let n = self.scopes.len().min(then_env.len());
        for (i, then_scope) in then_env.into_iter().enumerate().take(n) {
            let keys: Vec<String> = then_scope.keys().cloned().collect();
            for k in keys {
                let t = then_scope.get(&k).cloned();
                let e = self.scopes[i].get(&k).cloned();
                if t == e {
                    continue;
                }
                let merged = match (t, e) {
                    (Some(t), Some(e)) => self.merge_value(cond, t, e),
                    (Some(t), None) => t,
                    _ => continue,
                };
                self.scopes[i].insert(k, merged);
            }
        }
    }

    fn merge_value(&mut self, cond: &Expr, t: Value, e: Value) -> Value {
        match (t, e) {
            (Value::Int(a), Value::Int(b)) => {
                let m = Expr::ite(cond.clone(), a, b);
                Value::Int(self.bound(m, Scope::Thread))
            }
            (Value::Ptr(a), Value::Ptr(b)) if a.array == b.array && a.level == b.level => {
                let offset = Expr::ite(cond.clone(), a.offset, b.offset);
                let inner = Expr::ite(cond.clone(), a.inner, b.inner);
                Value::Ptr(Ptr {
                    array: a.array,
                    offset: self.bound(offset, Scope::Thread),
                    inner: self.bound(inner, Scope::Thread),
                    level: a.level,
                })
            }
            (Value::Ptr(_), _) | (_, Value::Ptr(_)) => {
                Value::Opaque("pointer that may point into different arrays".into())
            }
            (a, b) if a == b => a,
            (Value::Local, _) | (_, Value::Local) => Value::Local,
            _ => {
                let u = self.fresh_unknown("merge", Scope::Thread);
                Value::Int(u)
            }
        }
    }

    fn switch_statement(&mut self, node: Node) {
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
        let assigned = assigned_names(body, &self.src, self.file);
        let before = self.scopes.clone();
        let mut fallthrough = Expr::fals();
        let mut bodies = Vec::new();
        for (case, val) in cases.iter().zip(values) {
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
            });
            self.path.push(enter.clone());
            self.cond_spans.push((cond_span, enter.clone()));
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
        }
        self.scopes = before;
        let mut assigned: Vec<String> = assigned.into_iter().collect();
        assigned.sort();
        for name in assigned {
            for (scope, target) in self.resolve_assigned(&name) {
                if let Some(Value::Int(_)) = self.scopes.get(scope).and_then(|s| s.get(&target)) {
                    let u = self.fresh_unknown(&format!("{target}@switch"), Scope::Thread);
                    self.scopes[scope].insert(target, Value::Int(u));
                }
            }
        }
        for b in bodies {
            self.emit_branch(b, Vec::new());
        }
    }

    // ----- loops ---------------------------------------------------------

    fn loop_statement(&mut self, node: Node) {
        let kind = node.kind();
        self.push_scope();
        if kind == "for_statement" {
            if let Some(init) = node.field("initializer") {
                if init.kind() == "declaration" {
                    self.declaration(init);
                } else {
                    self.eval(init);
                }
            }
        }
        let cond_node = node.field("condition").map(|c| {
            if c.kind() == "condition_clause" {
                c.field("value").or_else(|| c.named_child(0)).unwrap_or(c)
            } else {
                c
            }
        });
        let update_node = node.field("update");
        let body_node = node.field("body");

        // Candidates: locals the loop may assign.
        let mut names = HashSet::new();
        for n in [body_node, update_node, cond_node].into_iter().flatten() {
            names.extend(assigned_names(n, &self.src, self.file));
        }
        let mut cands: Vec<(usize, String, Value)> = Vec::new();
        let mut seen = HashSet::new();
        for name in names {
            for (scope, target) in self.resolve_assigned(&name) {
                if !seen.insert((scope, target.clone())) {
                    continue;
                }
                if let Some(v) = self.scopes.get(scope).and_then(|s| s.get(&target)) {
                    if matches!(v, Value::Int(_) | Value::Ptr(_)) {
                        cands.push((scope, target, v.clone()));
                    }
                }
            }
        }
        cands.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));

        if self.dry > 0 {
            // Inside another loop's dry run: summarise without descending.
            for (scope, name, v) in cands {
                let nv = self.havoc_value(&name, &v, Scope::Thread);
                self.scopes[scope].insert(name, nv);
            }
            self.pop_scope();
            return;
        }

        // Pass 1: a dry run of one iteration from symbolic entry values. A
        // candidate the iteration leaves unchanged keeps its value: when
        // some are, and another's update could not be classified, the dry
        // run is repeated with those at their actual values (`i += step`
        // with `step` a member of an object a method call may change).
        let saved_scopes = self.scopes.clone();
        let saved_counts = self.unknown_counts.clone();
        let saved_returned = self.returned.clone();
        let mut fixed = vec![false; cands.len()];
        let mut round = 0;
        let (updates, thread_exit) = loop {
            for ((scope, name, v), keep) in cands.iter().zip(&fixed) {
                if !keep {
                    let (ev, _) = entry_value(name, v);
                    self.scopes[*scope].insert(name.clone(), ev);
                }
            }
            self.dry += 1;
            self.out.push(Vec::new());
            self.frames.push(Frame {
                is_loop: true,
                broke: Expr::fals(),
                continued: Expr::fals(),
                thread_exit: false,
            });
            if let Some(c) = cond_node {
                self.eval(c);
            }
            if let Some(b) = body_node {
                self.statement(b);
            }
            if let Some(u) = update_node {
                self.eval(u);
            }
            let frame = self.frames.pop().expect("loop frame");
            let thread_exit = frame.thread_exit
                || self.returned.scope() == Scope::Thread && self.returned != saved_returned;
            let mut updates = Vec::new();
            for ((scope, name, v), keep) in cands.iter().zip(&fixed) {
                if *keep {
                    updates.push(Update::Unchanged);
                    continue;
                }
                let end = self.scopes[*scope]
                    .get(name)
                    .cloned()
                    .unwrap_or(Value::Local);
                updates.push(classify(name, v, &end));
            }
            self.out.pop();
            self.dry -= 1;
            self.scopes = saved_scopes.clone();
            self.unknown_counts = saved_counts.clone();
            self.returned = saved_returned.clone();
            round += 1;
            let unchanged: Vec<usize> = (0..cands.len())
                .filter(|i| !fixed[*i] && matches!(updates[*i], Update::Unchanged))
                .collect();
            let havoc = updates.iter().any(|u| matches!(u, Update::Havoc(_)));
            if round == 1 && havoc && !unchanged.is_empty() {
                for i in unchanged {
                    fixed[i] = true;
                }
                continue;
            }
            break (updates, thread_exit);
        };

        // Pass 2: the loop over a symbolic iteration counter.
        let pow2 = updates
            .iter()
            .any(|u| matches!(u, Update::Pow2Up(_) | Update::Pow2Down(_)));
        let base_name = cands
            .iter()
            .zip(&updates)
            .find(|(_, u)| !matches!(u, Update::Unchanged | Update::Havoc(_)))
            .map(|((_, n, _), _)| n.clone())
            .unwrap_or_else(|| "loop".to_string());
        let n = self.counter_counts.entry(base_name.clone()).or_insert(0);
        let counter = Var::new(format!("{base_name}@{n}"), VarKind::Counter { pow2 });
        *n += 1;
        let k = Expr::Var(counter.clone());
        self.loop_counters.push(counter.name.to_string());
        let mut display = Vec::new();
        for ((scope, name, v), u) in cands.iter().zip(&updates) {
            let nv = match u {
                Update::Unchanged => continue,
                Update::Havoc(s) => self.havoc_value(name, v, *s),
                _ => induction_value(v, u, &k),
            };
            if let Value::Int(e) = &nv {
                if !matches!(u, Update::Havoc(_)) {
                    display.push((name.clone(), e.clone()));
                }
            }
            self.scopes[*scope].insert(name.clone(), nv);
        }
        let id = self.next_loop;
        self.next_loop += 1;
        self.loops.push(id);
        let mut range = Expr::bin(BinOp::Ge, k.clone(), Expr::Const(0));
        if pow2 {
            range = Expr::and(range, Expr::bin(BinOp::Lt, k.clone(), Expr::Const(64)));
        }
        self.path.push(range);
        self.out.push(Vec::new());
        let cond = match cond_node {
            Some(c) if kind != "do_statement" => self.eval_cond(c),
            _ => Expr::tru(),
        };
        // Reads in the condition happen on every check, the failing one too.
        let cond_len = self.out.last().map(|v| v.len()).unwrap_or(0);
        let guard = if kind == "do_statement" {
            // The condition is checked after each iteration: iteration k runs
            // if k == 0 or the condition held on the values at its start.
            let c = match cond_node {
                Some(c) => {
                    // Evaluate without recording reads twice: a dry evaluation.
                    self.dry += 1;
                    let saved = self.unknown_counts.clone();
                    let e = self.eval_cond(c);
                    self.unknown_counts = saved;
                    self.dry -= 1;
                    e
                }
                None => Expr::tru(),
            };
            Expr::or(Expr::eq(k.clone(), Expr::Const(0)), c)
        } else {
            cond
        };
        let cond_span = cond_node
            .map(|c| self.span(c))
            .unwrap_or_else(|| self.span(node));
        self.path.push(guard.clone());
        self.cond_spans.push((cond_span, guard.clone()));
        if thread_exit {
            let u = self.fresh_bool(&format!("exited@{}", counter.name), Scope::Thread);
            let earlier = Expr::and(u, Expr::bin(BinOp::Gt, k.clone(), Expr::Const(0)));
            self.path.push(Expr::not(earlier));
        }
        self.frames.push(Frame {
            is_loop: true,
            broke: Expr::fals(),
            continued: Expr::fals(),
            thread_exit: false,
        });
        let returned_before = self.returned.clone();
        if let Some(b) = body_node {
            self.statement(b);
        }
        if let Some(f) = self.frames.last_mut() {
            f.continued = Expr::fals();
        }
        if let Some(u) = update_node {
            self.eval(u);
        }
        self.frames.pop();
        if kind == "do_statement" {
            if let Some(c) = cond_node {
                self.eval(c);
            }
        }
        if thread_exit {
            self.path.pop();
        }
        self.path.pop();
        self.cond_spans.pop();
        self.path.pop();
        let body = self.out.pop().unwrap_or_default();
        self.loops.pop();
        self.loop_counters.pop();
        self.emit(Stmt::Loop(Loop {
            id,
            counter: counter.clone(),
            guard,
            cond_len,
            body,
            span: self.span(node),
            display,
        }));
        // Returns inside the loop: after it, whether a thread left is unknown.
        if self.returned != returned_before {
            let scope = self.returned.scope();
            let u = self.fresh_bool(&format!("returned@{}", counter.name), scope);
            self.returned = Expr::or(returned_before, u);
        }
        // After the loop, assigned variables hold unknown exit values.
        for ((scope, name, v), u) in cands.iter().zip(&updates) {
            if matches!(u, Update::Unchanged) || *scope >= self.scopes.len() {
                continue;
            }
            let s = match u {
                Update::Havoc(s) => *s,
                _ => value_scope(v),
            };
            let nv = self.havoc_value(&format!("{name}@exit"), v, s);
            self.scopes[*scope].insert(name.clone(), nv);
        }
        self.pop_scope();
    }

    /// The locals a name that code assigns stands for: itself; the variable
    /// a reference (or a member inside a method) aliases; every member of an
    /// object (`acc`, `acc.inner`; a method call may change any of them).
    fn resolve_assigned(&self, name: &str) -> Vec<(usize, String)> {
        let (root, rest) = match name.find('.') {
            Some(i) => (&name[..i], &name[i..]),
            None => (name, ""),
        };
        let (scope, mut target) = match self.lookup(root) {
            Some((_, Value::Alias(lv))) => match &**lv {
                LValue::Local { scope, name } => (*scope, name.clone()),
                _ => return Vec::new(),
            },
            Some((scope, _)) => (scope, root.to_string()),
            None => return Vec::new(),
        };
        target.push_str(rest);
        match self.object_at(scope, &target) {
            Some(obj) => self
                .object_keys(&obj)
                .into_iter()
                .map(|k| (scope, k))
                .collect(),
            None => vec![(scope, target)],
        }
    }

    fn havoc_value(&mut self, name: &str, v: &Value, scope: Scope) -> Value {
        match v {
            Value::Ptr(p) => {
                let off = self.fresh_unknown(&format!("{name}@off"), scope);
                Value::Ptr(Ptr {
                    array: p.array,
                    offset: off.clone(),
                    inner: off,
                    level: p.level,
                })
            }
            _ => Value::Int(self.fresh_unknown(name, scope)),
        }
    }

    // ----- expressions ---------------------------------------------------

    fn eval_cond(&mut self, node: Node) -> Expr {
        match self.eval(node) {
            Value::Int(e) => e.truthy(),
            Value::Ptr(_) | Value::Local | Value::Group(_) | Value::Dim3(_) | Value::Alias(_) => {
                Expr::tru()
            }
            Value::Opaque(_) | Value::Object(_) => self.fresh_bool("cond", Scope::Thread),
        }
    }

    fn int_of(&mut self, v: Value, base: &str) -> Expr {
        match v {
            Value::Int(e) => e,
            Value::Alias(lv) => match self.read_lvalue(&lv, base, None) {
                Value::Int(e) => e,
                _ => self.fresh_unknown(base, Scope::Thread),
            },
            _ => self.fresh_unknown(base, Scope::Thread),
        }
    }

    fn eval(&mut self, node: Node) -> Value {
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

    fn eval_inner(&mut self, node: Node) -> Value {
        // A node the parser made up (MISSING) or could not parse (ERROR) has
        // no meaning: an unknown, never a variable named by its (empty) text.
        if node.is_missing() || node.is_error() {
            return Value::Int(self.fresh_unknown("syntax-error", Scope::Thread));
        }
        match node.kind() {
            "number_literal" => {
                let t = self.text(node);
                match parse_int(&t) {
                    Some(c) => Value::Int(Expr::Const(c)),
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
            "identifier" => self.identifier(node),
            "field_expression" => self.field(node),
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
                match self.lvalue(node) {
                    Some(lv) => {
                        let text = self.text(node);
                        self.read_lvalue(&lv, &text, Some(node))
                    }
                    None => Value::Int(self.fresh_unknown("deref", Scope::Thread)),
                }
            }
            "pointer_expression" => {
                // `&x`
                let Some(arg) = node.field("argument") else {
                    return Value::Opaque("address".into());
                };
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
                    "-" => Expr::un(UnOp::Neg, e),
                    "!" => Expr::not(e.truthy()),
                    "~" => Expr::un(UnOp::BitNot, e),
                    _ => e,
                })
            }
            "conditional_expression" => self.conditional(node),
            "cast_expression" => match node.field("value") {
                Some(v) => {
                    let ty = node.field("type").map(|t| self.text(t)).unwrap_or_default();
                    let val = self.eval(v);
                    self.convert_for_type(&ty, val)
                }
                None => Value::Int(Expr::Const(0)),
            },
            "sizeof_expression" | "alignof_expression" => {
                let t = self.text(node);
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
            "lambda_expression" => {
                self.unsupported(node, "lambda expression");
                Value::Local
            }
            "new_expression" | "delete_expression" => {
                self.unsupported(node, "dynamic allocation (new/delete)");
                Value::Opaque("new".into())
            }
            "gnu_asm_expression" => {
                self.unsupported(node, "inline asm");
                Value::Int(self.fresh_unknown("asm", Scope::Thread))
            }
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

    fn is_address_of(&self, node: Node) -> bool {
        node.kind() == "pointer_expression"
            && node
                .field("operator")
                .map(|o| node_text(&self.src, o) == "&")
                .unwrap_or(false)
    }

    fn identifier(&mut self, node: Node) -> Value {
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

    /// The memory of a shared or global scalar named `name`, if it is one.
    fn scalar_memory(&mut self, name: &str) -> Option<Ptr> {
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
                        offset: Expr::Const(0),
                        inner: Expr::Const(0),
                        level: 0,
                    });
                }
                if self
                    .file
                    .global_arrays
                    .iter()
                    .any(|g| g.name == name && g.declarator.kind() == "identifier")
                {
                    let id = self.add_array(name, MemorySpace::Global, Vec::new());
                    return Some(Ptr {
                        array: id,
                        offset: Expr::Const(0),
                        inner: Expr::Const(0),
                        level: 0,
                    });
                }
                None
            }
        }
    }

    fn named_value(&mut self, name: &str, node: Node) -> Value {
        if let Some((_, v)) = self.lookup(name) {
            return v.clone();
        }
        match name {
            "threadIdx" => return Value::Dim3(0),
            "blockIdx" => return Value::Dim3(1),
            "blockDim" => return Value::Dim3(2),
            "gridDim" => return Value::Dim3(3),
            "warpSize" => return Value::Int(Expr::Const(32)),
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
        if let Some(g) = self.file.global_arrays.iter().find(|g| g.name == name) {
            let dims = if g.declarator.kind() == "array_declarator" {
                self.array_dims(g.declarator)
            } else {
                Vec::new()
            };
            let id = self.add_array(name, MemorySpace::Global, dims);
            return self.base_ptr(id);
        }
        // An identifier we cannot resolve (a constant from an unseen header,
        // say): a grid-uniform unknown.
        Value::Int(Expr::Var(Var::new(
            name.to_string(),
            VarKind::Unknown {
                scope: Scope::Grid,
                lo: i64::MIN,
                hi: i64::MAX,
            },
        )))
    }

    /// Evaluates source text (a macro body) as an expression, or as
    /// statements if it is not one. Spans inside map to `span`.
    fn eval_snippet(&mut self, body: &str, span: Option<Span>) -> Option<Value> {
        if self.macro_depth >= 16 {
            return None;
        }
        self.macro_depth += 1;
        let expr_src = format!("int __syncscope_v = ({body});");
        let tree = crate::syntax::parse(&expr_src, None);
        let saved_src = std::mem::replace(&mut self.src, Rc::from(expr_src.as_str()));
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
            self.src = Rc::from(stmt_src.as_str());
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
        self.macro_depth -= 1;
        result
    }

    fn field(&mut self, node: Node) -> Value {
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
        if let Some((scope, path, _)) = self.member_base(node) {
            // `acc.p`, `this->p`: the member's local.
            let key = format!("{path}.{field}");
            return match self.scopes.get(scope).and_then(|s| s.get(&key)) {
                Some(v) => v.clone(),
                None => Value::Int(self.fresh_unknown(&key, Scope::Thread)),
            };
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
    fn lvalue(&mut self, node: Node) -> Option<LValue> {
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
                let (base, mut bounds) = match self.lvalue_base(arg) {
                    Some(b) => b,
                    None => return Some(LValue::Discard),
                };
                let idx_v = self.eval(idx_node);
                let idx = self.int_of(idx_v, "index");
                match base {
                    Value::Ptr(p) => Some(self.subscript(p, idx, &mut bounds)),
                    Value::Local => Some(LValue::Discard),
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
                if let Some((scope, path, _)) = self.member_base(node) {
                    let field = self.text(node.field("field")?);
                    let key = format!("{path}.{field}");
                    return Some(match self.scopes.get(scope).and_then(|s| s.get(&key)) {
                        Some(Value::Local) | None => LValue::Discard,
                        Some(_) => LValue::Local { scope, name: key },
                    });
                }
                if op == "->" {
                    match self.eval(arg) {
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

    /// Evaluates the base of a subscript: a pointer value plus the bounds
    /// collected from outer subscripts of a multi-dimensional array.
    fn lvalue_base(&mut self, arg: Node) -> Option<(Value, Vec<Expr>)> {
        if arg.kind() == "subscript_expression" {
            let inner_arg = arg.field("argument")?;
            let idx_node = arg.field("indices").and_then(|l| l.named_child(0))?;
            let (base, mut bounds) = self.lvalue_base(inner_arg)?;
            let idx_v = self.eval(idx_node);
            let idx = self.int_of(idx_v, "index");
            return match base {
                Value::Ptr(p) => {
                    let ndims = self.arrays[p.array].dims.len();
                    if p.level + 1 < ndims {
                        if let Some(Some(d)) = self.arrays[p.array].dims.get(p.level) {
                            bounds.push(in_range(&idx, *d));
                        }
                        let stride = self.stride(p.array, p.level);
                        Some((
                            Value::Ptr(Ptr {
                                array: p.array,
                                offset: Expr::add(p.offset, Expr::mul(idx, stride)),
                                inner: Expr::Const(0),
                                level: p.level + 1,
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
        let v = self.eval(arg);
        Some((v, Vec::new()))
    }

    fn subscript(&mut self, p: Ptr, idx: Expr, bounds: &mut Vec<Expr>) -> LValue {
        let ndims = self.arrays[p.array].dims.len();
        let space = self.arrays[p.array].space;
        let offset = Expr::add(
            p.offset.clone(),
            Expr::mul(idx.clone(), self.stride(p.array, p.level)),
        );
        let mut bounds = std::mem::take(bounds);
        if p.level + 1 >= ndims {
            if let Some(Some(d)) = self.arrays[p.array].dims.get(p.level) {
                if ndims > 1 {
                    bounds.push(in_range(&Expr::add(p.inner.clone(), idx.clone()), *d));
                }
            }
        } else if let Some(Some(d)) = self.arrays[p.array].dims.get(p.level) {
            bounds.push(in_range(&idx, *d));
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
                offset,
                inner: Expr::add(p.inner, idx),
                level,
            },
            bounds,
        }
    }

    fn record_access(
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
        let guard = Expr::all(std::iter::once(self.guard()).chain(bounds.iter().cloned()));
        if guard.is_false() {
            return;
        }
        let span = match node {
            Some(n) => self.span(n),
            None => self.span_override.unwrap_or_default(),
        };
        let id = self.next_access;
        self.next_access += 1;
        let access = Access {
            id,
            array: ptr.array,
            kind,
            index: ptr.offset.clone(),
            guard,
            span,
            text: text.to_string(),
            loops: self.loops.clone(),
        };
        self.emit(Stmt::Access(access));
    }

    fn read_lvalue(&mut self, lv: &LValue, text: &str, node: Option<Node>) -> Value {
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
                self.record_access(AccessKind::Read, ptr, bounds, node, text);
                let min_scope = if self.arrays[ptr.array].space == MemorySpace::Shared {
                    Scope::Block
                } else {
                    Scope::Grid
                };
                let scope = ptr.offset.scope().max(min_scope);
                Value::Int(self.fresh_unknown(text, scope))
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

    fn write_lvalue(&mut self, lv: &LValue, value: Value, node: Node, kind: AccessKind) {
        match lv {
            LValue::Local { scope, name } => {
                // Straight-line code like `x = x + x;` repeated grows a
                // value exponentially: past a bound it becomes unknown.
                let value = match value {
                    Value::Int(e) => Value::Int(self.bound(e, Scope::Thread)),
                    v => v,
                };
                if let Some(s) = self.scopes.get_mut(*scope) {
                    s.insert(name.clone(), value);
                }
            }
            LValue::Mem { ptr, bounds } => {
                let text = self.text(node);
                self.record_access(kind, ptr, bounds, Some(node), &text);
            }
            LValue::Discard => {}
            LValue::Opaque(reason) => {
                let r = reason.clone();
                self.unsupported(node, r);
            }
        }
    }

    fn assignment(&mut self, node: Node) -> Value {
        let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else {
            return Value::Int(Expr::Const(0));
        };
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

    fn update(&mut self, node: Node) -> Value {
        let Some(arg) = node.field("argument") else {
            return Value::Int(Expr::Const(0));
        };
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

    fn arith(&mut self, op: BinOp, a: Value, b: Value) -> Value {
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
                Value::Ptr(Ptr {
                    array: p.array,
                    offset: Expr::add(p.offset, Expr::mul(i.clone(), step.clone())),
                    inner: Expr::add(p.inner, Expr::mul(i, step)),
                    level: p.level,
                })
            }
            (Value::Int(i), Value::Ptr(p)) if op == BinOp::Add => {
                self.arith(op, Value::Ptr(p), Value::Int(i))
            }
            (Value::Ptr(a), Value::Ptr(b)) if op == BinOp::Sub && a.array == b.array => {
                Value::Int(Expr::bin(BinOp::Sub, a.offset, b.offset))
            }
            (Value::Ptr(_), _) | (_, Value::Ptr(_)) if op.is_comparison() => {
                Value::Int(self.fresh_bool("ptrcmp", Scope::Thread))
            }
            (Value::Opaque(r), _) | (_, Value::Opaque(r)) => Value::Opaque(r),
            (a, b) => {
                let a = self.int_of(a, "lhs");
                let b = self.int_of(b, "rhs");
                let a = if op.is_boolean() && matches!(op, BinOp::And | BinOp::Or) {
                    a.truthy()
                } else {
                    a
                };
                let b = if op.is_boolean() && matches!(op, BinOp::And | BinOp::Or) {
                    b.truthy()
                } else {
                    b
                };
                Value::Int(Expr::bin(op, a, b))
            }
        }
    }

    fn binary(&mut self, node: Node) -> Value {
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
            Some(bop) => self.arith(bop, a, b),
            None => Value::Int(self.fresh_unknown(&op, Scope::Thread)),
        }
    }

    fn conditional(&mut self, node: Node) -> Value {
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

    fn call(&mut self, node: Node) -> Value {
        let Some(func) = node.field("function") else {
            return Value::Int(Expr::Const(0));
        };
        let args: Vec<Node> = node
            .field("arguments")
            .map(|a| {
                let mut c = a.walk();
                a.named_children(&mut c)
                    .filter(|n| n.kind() != "comment")
                    .collect()
            })
            .unwrap_or_default();
        if func.kind() == "field_expression" {
            let field = func
                .field("field")
                .map(|f| self.text(f))
                .unwrap_or_default();
            // A method of a modelled object: inlined with its members bound.
            if let Some(obj) = self.member_base(func) {
                return self.method_call(obj, &field, node, &args);
            }
            // Methods of cooperative groups: `block.sync()`, `g.thread_rank()`.
            let base = func
                .field("argument")
                .map(|a| self.eval(a))
                .unwrap_or(Value::Local);
            if let Value::Group(g) = base {
                return self.group_method(g, &field, node);
            }
            for a in &args {
                self.eval(*a);
            }
            // Any other method may write memory through the object's
            // members or through `this`: never silently ignored.
            let op = func
                .field("operator")
                .map(|o| self.text(o))
                .unwrap_or_default();
            let target = match base {
                Value::Object(ty) => format!("a `{ty}` object the model does not track"),
                _ if op == "->" => "an object through a pointer".to_string(),
                _ => "a value the model does not track".to_string(),
            };
            self.unsupported(
                node,
                format!("method call `{}` on {target}", short(&self.text(func))),
            );
            return Value::Int(self.fresh_unknown(&field, Scope::Thread));
        }
        let (name, template_args) = match func.kind() {
            "identifier" => {
                let name = self.text(func);
                if let Some((_, v)) = self.lookup(&name) {
                    // A local, a parameter or a member called like a function:
                    // a function pointer or an object with `operator()`.
                    let what = match v {
                        Value::Object(ty) => format!("call of a `{ty}` object (`operator()`)"),
                        _ => format!("call through the function pointer `{name}`"),
                    };
                    for a in &args {
                        self.eval(*a);
                    }
                    self.unsupported(node, what);
                    return Value::Int(self.fresh_unknown("fnptr", Scope::Thread));
                }
                // Inside a method: another method of the same object.
                if let Some(this) = self.this_object() {
                    let is_method = self
                        .file
                        .structs
                        .get(&this.2)
                        .is_some_and(|s| s.declared.contains(&name));
                    if is_method {
                        return self.method_call(this, &name, node, &args);
                    }
                }
                (name, None)
            }
            "qualified_identifier" => {
                let mut n = func;
                let mut targs = None;
                while let Some(inner) = n.field("name") {
                    n = inner;
                    if n.kind() == "template_function" {
                        targs = n.field("arguments");
                        n = n.field("name").unwrap_or(n);
                        break;
                    }
                }
                (self.text(n), targs)
            }
            "template_function" => (
                func.field("name").map(|n| self.text(n)).unwrap_or_default(),
                func.field("arguments"),
            ),
            "parenthesized_expression" => {
                for a in &args {
                    self.eval(*a);
                }
                self.unsupported(node, "call through a function pointer");
                return Value::Int(self.fresh_unknown("fnptr", Scope::Thread));
            }
            // `float(x)`, `unsigned(x)`: a functional cast.
            "primitive_type" | "sized_type_specifier" => {
                let ty = self.text(func);
                let mut last = Value::Int(Expr::Const(0));
                for a in &args {
                    last = self.eval(*a);
                }
                return self.convert_for_type(&ty, last);
            }
            "type_identifier" if !self.file.structs.contains_key(&self.text(func)) => {
                for a in &args {
                    self.eval(*a);
                }
                return Value::Int(self.fresh_unknown("cast", Scope::Thread));
            }
            _ => {
                for a in &args {
                    self.eval(*a);
                }
                let what = if func.kind() == "type_identifier" {
                    format!("temporary `{}` object", self.text(func))
                } else {
                    format!(
                        "call through the function pointer `{}`",
                        short(&self.text(func))
                    )
                };
                self.unsupported(node, what);
                return Value::Int(self.fresh_unknown("call", Scope::Thread));
            }
        };
        self.named_call(&name, node, &args, template_args)
    }

    fn named_call(
        &mut self,
        name: &str,
        node: Node,
        args: &[Node],
        template_args: Option<Node>,
    ) -> Value {
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
                self.barrier(BarrierKind::Warp, node, stmt_node, false, partial);
                return Value::Int(Expr::Const(0));
            }
            "__threadfence"
            | "__threadfence_block"
            | "__threadfence_system"
            | "printf"
            | "__nanosleep"
            | "__ensures"
            | "__invariant"
            | "__global_invariant"
            | "__prefetch_global_l1" => {
                for a in args {
                    self.eval(*a);
                }
                return Value::Int(Expr::Const(0));
            }
            "__requires" | "__assume" | "__builtin_assume" | "assert" | "__assert" => {
                if let Some(a) = args.first() {
                    let c = self.eval_cond(*a);
                    let has_counter =
                        c.mentions(&mut |v| matches!(v.kind, VarKind::Counter { .. }));
                    if !has_counter && self.dry == 0 {
                        let g = self.guard();
                        self.assumptions.push(Expr::or(Expr::not(g), c));
                    }
                }
                return Value::Int(Expr::Const(0));
            }
            "this_thread_block" => return Value::Group(GroupKind::Block),
            "this_grid" => return Value::Group(GroupKind::Grid),
            "tiled_partition" | "coalesced_threads" | "this_thread" => {
                for a in args {
                    self.eval(*a);
                }
                return Value::Group(GroupKind::Warp);
            }
            "sync" if !args.is_empty() => {
                if let Value::Group(g) = self.eval(args[0]) {
                    return self.group_method(g, "sync", node);
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

    fn group_method(&mut self, g: GroupKind, method: &str, node: Node) -> Value {
        let stmt_node = node
            .parent()
            .filter(|p| p.kind() == "expression_statement")
            .unwrap_or(node);
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
        match method {
            "sync" | "barrier_wait" => {
                let kind = match g {
                    GroupKind::Warp => BarrierKind::Warp,
                    GroupKind::Block => BarrierKind::Block,
                    GroupKind::Grid => BarrierKind::Grid,
                };
                self.barrier(kind, node, stmt_node, false, false);
                Value::Int(Expr::Const(0))
            }
            "thread_rank" => match g {
                GroupKind::Block => Value::Int(linear),
                GroupKind::Warp => Value::Int(Expr::bin(BinOp::Rem, linear, Expr::Const(32))),
                GroupKind::Grid => {
                    let bid = Expr::Var(Var::new("blockIdx.x", VarKind::BlockIdx(0)));
                    let size = Expr::mul(bdim(0), Expr::mul(bdim(1), bdim(2)));
                    Value::Int(Expr::add(Expr::mul(bid, size), linear))
                }
            },
            "size" | "num_threads" => match g {
                GroupKind::Block => Value::Int(Expr::mul(bdim(0), Expr::mul(bdim(1), bdim(2)))),
                GroupKind::Warp => Value::Int(Expr::Const(32)),
                GroupKind::Grid => Value::Int(self.fresh_unknown("grid_size", Scope::Grid)),
            },
            "thread_index" => Value::Dim3(0),
            "group_index" => Value::Dim3(1),
            "group_dim" | "dim_threads" => Value::Dim3(2),
            "is_valid" => Value::Int(Expr::tru()),
            _ => Value::Int(self.fresh_unknown(method, Scope::Thread)),
        }
    }

    fn barrier(
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

    /// A constructor's member initialisers: `Acc(float *q) : p(q), n(0) {}`.
    fn member_initializers(&mut self, fnode: Node, obj: &ObjRef) {
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
            let mut c3 = value.walk();
            let items: Vec<Node> = value
                .named_children(&mut c3)
                .filter(|n| n.kind() != "comment")
                .collect();
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
    fn this_object(&self) -> Option<ObjRef> {
        match self.lookup("this")? {
            (_, Value::Alias(lv)) => match &**lv {
                LValue::Local { scope, name } => self.object_at(*scope, name),
                _ => None,
            },
            _ => None,
        }
    }

    fn inline(
        &mut self,
        def: &FunctionDef<'t>,
        call: Node,
        args: &[Node],
        targs: Option<Vec<String>>,
        this: Option<ObjRef>,
    ) -> Value {
        if self.call_stack.contains(&def.name) || self.call_stack.len() > 24 {
            self.unsupported(call, format!("recursive call to `{}`", def.name));
            for a in args {
                self.eval(*a);
            }
            if let Some(obj) = &this {
                self.copy_object(obj, None);
            }
            return Value::Int(self.fresh_unknown(&def.name, Scope::Thread));
        }
        let fnode = def.node;
        let params: Vec<Node> = fnode
            .field("declarator")
            .and_then(find_function_declarator)
            .and_then(|f| f.field("parameters"))
            .map(|p| {
                let mut c = p.walk();
                p.named_children(&mut c).collect()
            })
            .unwrap_or_default();
        // Arguments are evaluated in the caller's frame.
        let mut bound = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let Some(decl) = p.field("declarator") else {
                continue;
            };
            let Some(pname) = declarator_name(&self.src, decl) else {
                continue;
            };
            let Some(arg) = args.get(i) else {
                bound.push((
                    pname,
                    Bound::Value(Value::Int(self.fresh_unknown("default_arg", Scope::Thread))),
                ));
                continue;
            };
            let is_ref = contains_kind(decl, "reference_declarator");
            let is_ptr = contains_kind(decl, "pointer_declarator");
            if !is_ref && !is_ptr {
                // An object passed by value: a copy.
                if let Some(src) = self.object_path(*arg) {
                    bound.push((pname, Bound::Copy(src.2.clone(), Some(src))));
                    continue;
                }
                let param_ty = p
                    .field("type")
                    .and_then(|t| struct_type_name(&self.src, t))
                    .filter(|t| self.file.structs.contains_key(t));
                if let Some(ty) = param_ty {
                    self.eval(*arg);
                    bound.push((pname, Bound::Copy(ty, None)));
                    continue;
                }
            }
            let v = if is_ref {
                match self.lvalue(*arg) {
                    Some(lv) => Value::Alias(Box::new(lv)),
                    None => Value::Local,
                }
            } else {
                let v = self.eval(*arg);
                match v {
                    Value::Alias(lv) if !contains_kind(decl, "pointer_declarator") => {
                        self.read_lvalue(&lv, "arg", None)
                    }
                    Value::Object(ty) => {
                        bound.push((pname, Bound::Copy(ty, None)));
                        continue;
                    }
                    v => v,
                }
            };
            bound.push((pname, Bound::Value(v)));
        }
        for a in args.iter().skip(params.len()) {
            self.eval(*a);
        }
        // The callee's frame.
        let saved_base = self.frame_base;
        let saved_returned = std::mem::replace(&mut self.returned, Expr::fals());
        let saved_frames = std::mem::take(&mut self.frames);
        self.scopes.push(HashMap::new());
        self.frame_base = self.scopes.len() - 1;
        self.bind_template_params(def, targs);
        if let Some((scope, path, ty)) = &this {
            // `this` and the members, as references to the object's locals.
            let alias = |name: String| {
                Value::Alias(Box::new(LValue::Local {
                    scope: *scope,
                    name,
                }))
            };
            self.declare("this", alias(path.clone()));
            let fields = self
                .file
                .structs
                .get(ty)
                .map(|s| s.fields.clone())
                .unwrap_or_default();
            for f in fields {
                self.declare(&f.name, alias(format!("{path}.{}", f.name)));
            }
        }
        let frame = self.scopes.len() - 1;
        for (n, b) in bound {
            match b {
                Bound::Value(v) => self.declare(&n, v),
                Bound::Copy(ty, src) => {
                    self.init_object(frame, &n, &ty, 0);
                    self.copy_object(&(frame, n.clone(), ty), src.as_ref());
                }
            }
        }
        if let Some(obj) = &this {
            self.member_initializers(fnode, obj);
        }
        self.call_stack.push(def.name.clone());
        self.ret_values.push(None);
        let saved_override = self.span_override;
        if self.span_override.is_none() {
            // Accesses inside the callee point at their own lines; a race
            // message names the callee's statement, which is what to fix.
        }
        if let Some(body) = fnode.field("body") {
            self.statement(body);
        }
        self.span_override = saved_override;
        let ret = self.ret_values.pop().flatten();
        self.call_stack.pop();
        self.scopes.truncate(self.frame_base);
        self.frame_base = saved_base;
        self.returned = saved_returned;
        self.frames = saved_frames;
        match ret {
            Some(v) => v,
            None => Value::Int(self.fresh_unknown(&format!("{}()", def.name), Scope::Thread)),
        }
    }
}

// ----- free helpers ------------------------------------------------------

fn in_range(e: &Expr, size: i64) -> Expr {
    Expr::and(
        Expr::bin(BinOp::Ge, e.clone(), Expr::Const(0)),
        Expr::bin(BinOp::Lt, e.clone(), Expr::Const(size)),
    )
}

fn value_scope(v: &Value) -> Scope {
    match v {
        Value::Int(e) => e.scope(),
        Value::Ptr(p) => p.offset.scope(),
        _ => Scope::Thread,
    }
}

fn entry_marker(name: &str) -> String {
    format!("@entry:{name}")
}

fn entry_value(name: &str, v: &Value) -> (Value, String) {
    let marker = entry_marker(name);
    let scope = value_scope(v);
    let var = Expr::Var(Var::new(
        marker.clone(),
        VarKind::Unknown {
            scope,
            lo: i64::MIN,
            hi: i64::MAX,
        },
    ));
    match v {
        Value::Ptr(p) => (
            Value::Ptr(Ptr {
                array: p.array,
                offset: var.clone(),
                inner: var,
                level: p.level,
            }),
            marker,
        ),
        _ => (Value::Int(var), marker),
    }
}

fn is_entry(v: &Var) -> bool {
    v.name.starts_with("@entry:")
}

/// Classifies a variable's update over one iteration.
fn classify(name: &str, before: &Value, end: &Value) -> Update {
    let marker = entry_marker(name);
    let x = |e: &Expr| matches!(e, Expr::Var(v) if *v.name == *marker);
    let end_e = match (before, end) {
        (Value::Int(_), Value::Int(e)) => e.clone(),
        (Value::Ptr(b), Value::Ptr(p)) if b.array == p.array => p.offset.clone(),
        _ => return Update::Havoc(Scope::Thread),
    };
    if x(&end_e) {
        return Update::Unchanged;
    }
    let invariant = |e: &Expr| {
        !e.mentions(&mut |v| {
            is_entry(v) || (matches!(v.kind, VarKind::Unknown { .. }) && v.name.contains('#'))
        })
    };
    let havoc_scope = || {
        let mut s = value_scope(before);
        end_e.for_each_var(&mut |v| {
            if !is_entry(v) {
                s = s.max(v.scope());
            }
        });
        Update::Havoc(s)
    };
    match &end_e {
        Expr::Bin(BinOp::Add, a, b) if x(a) && invariant(b) => Update::Add((**b).clone()),
        Expr::Bin(BinOp::Add, a, b) if x(b) && invariant(a) => Update::Add((**a).clone()),
        Expr::Bin(BinOp::Sub, a, b) if x(a) && invariant(b) => {
            Update::Add(Expr::un(UnOp::Neg, (**b).clone()))
        }
        Expr::Bin(BinOp::Mul, a, b) | Expr::Bin(BinOp::Mul, b, a) if x(a) => match b.as_const() {
            Some(c) if c > 1 && (c & (c - 1)) == 0 => Update::Pow2Up(c.trailing_zeros() as i64),
            _ => havoc_scope(),
        },
        Expr::Bin(BinOp::Shl, a, b) if x(a) => match b.as_const() {
            Some(c) if (1..32).contains(&c) => Update::Pow2Up(c),
            _ => havoc_scope(),
        },
        Expr::Bin(BinOp::Shr, a, b) if x(a) => match b.as_const() {
            Some(c) if (1..32).contains(&c) => Update::Pow2Down(c),
            _ => havoc_scope(),
        },
        Expr::Bin(BinOp::Div, a, b) if x(a) => match b.as_const() {
            Some(c) if c > 1 && (c & (c - 1)) == 0 => Update::Pow2Down(c.trailing_zeros() as i64),
            _ => havoc_scope(),
        },
        _ => havoc_scope(),
    }
}

fn induction_value(v: &Value, u: &Update, k: &Expr) -> Value {
    let closed = |x0: &Expr| -> Expr {
        match u {
            Update::Add(c) => Expr::add(x0.clone(), Expr::mul(c.clone(), k.clone())),
            Update::Pow2Up(m) => Expr::mul(
                x0.clone(),
                Expr::Pow2(Arc::new(Expr::mul(Expr::Const(*m), k.clone()))),
            ),
            Update::Pow2Down(m) => Expr::bin(
                BinOp::Shr,
                x0.clone(),
                Expr::mul(Expr::Const(*m), k.clone()),
            ),
            _ => x0.clone(),
        }
    };
    match v {
        Value::Int(e) => Value::Int(closed(e)),
        Value::Ptr(p) => {
            let delta = Expr::bin(BinOp::Sub, closed(&p.offset), p.offset.clone());
            Value::Ptr(Ptr {
                array: p.array,
                offset: closed(&p.offset),
                inner: Expr::add(p.inner.clone(), delta),
                level: p.level,
            })
        }
        other => other.clone(),
    }
}

fn has_barrier(stmts: &[Stmt]) -> bool {
    let mut found = false;
    walk(stmts, &mut |s| found |= matches!(s, Stmt::Barrier(_)));
    found
}

fn contains_kind(node: Node, kind: &str) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == kind {
            return true;
        }
        if n.kind() == "init_declarator" {
            if let Some(d) = n.field("declarator") {
                stack.push(d);
            }
            continue;
        }
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            if ch.kind().contains("declarator") {
                stack.push(ch);
            }
        }
    }
    false
}

/// The parameter declarations of a function definition.
fn function_params(fnode: Node) -> Vec<Node> {
    fnode
        .field("declarator")
        .and_then(find_function_declarator)
        .and_then(|f| f.field("parameters"))
        .map(|p| {
            let mut c = p.walk();
            p.named_children(&mut c)
                .filter(|n| n.kind() != "comment")
                .collect()
        })
        .unwrap_or_default()
}

/// Source text for a message: one line, at most 60 characters.
fn short(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        let cut: String = one_line.chars().take(57).collect();
        format!("{cut}...")
    } else {
        one_line
    }
}

fn find_function_declarator(node: Node) -> Option<Node> {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_declarator" {
            return Some(n);
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    None
}

fn find_identifier<'t>(node: Node<'t>, src: &str, name: &str) -> Option<Node<'t>> {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && node_text(src, n) == name {
            return Some(n);
        }
        if n.kind() == "parameter_list" {
            continue;
        }
        let mut c = n.walk();
        let mut kids: Vec<Node> = n.named_children(&mut c).collect();
        kids.reverse();
        stack.extend(kids);
    }
    None
}

/// Integer range of a C type, or None for non-integers.
fn int_range(ty: &str) -> Option<(i64, i64)> {
    let t = ty.trim();
    let t = t.trim_start_matches("const ").trim();
    Some(match t {
        "bool" => (0, 1),
        "char" | "signed char" | "int8_t" => (-128, 127),
        "unsigned char" | "uint8_t" | "uchar" => (0, 255),
        "short" | "short int" | "int16_t" => (-32768, 32767),
        "unsigned short" | "uint16_t" | "ushort" => (0, 65535),
        "int" | "signed" | "signed int" | "int32_t" => (i32::MIN as i64, i32::MAX as i64),
        "unsigned" | "unsigned int" | "uint32_t" | "uint" => (0, u32::MAX as i64),
        "long" | "long int" | "long long" | "long long int" | "int64_t" | "ptrdiff_t"
        | "ssize_t" => (i64::MIN, i64::MAX),
        "unsigned long" | "unsigned long long" | "uint64_t" | "size_t" => (0, i64::MAX),
        _ => return None,
    })
}

fn is_scalar_type(ty: &str) -> bool {
    let t = ty.trim().trim_start_matches("const ").trim();
    int_range(t).is_some()
        || matches!(
            t,
            "float" | "double" | "half" | "__half" | "auto" | "float2" | "float4"
        )
        || t.starts_with("unsigned")
        || t.ends_with("_t")
}

fn atomic_base(name: &str) -> Option<&str> {
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

fn is_side_effect_free_math(name: &str) -> bool {
    matches!(name, "__popc" | "__clz" | "__ffs" | "sizeof")
}

/// Which launch dimensions a piece of source mentions.
fn dims_used(src: &str, block: &mut [bool; 3], grid: &mut [bool; 3]) {
    let compact: String = src.chars().filter(|c| !c.is_whitespace()).collect();
    for (d, name) in ["x", "y", "z"].iter().enumerate() {
        if compact.contains(&format!("threadIdx.{name}"))
            || compact.contains(&format!("blockDim.{name}"))
        {
            block[d] = true;
        }
        if compact.contains(&format!("blockIdx.{name}"))
            || compact.contains(&format!("gridDim.{name}"))
        {
            grid[d] = true;
        }
    }
    // Whole-dim3 uses and linear ranks involve every dimension.
    for whole in [
        "=threadIdx;",
        "(threadIdx)",
        "=blockDim;",
        "thread_rank",
        "thread_index",
        "dim_threads",
        "size()",
    ] {
        if compact.contains(whole) {
            *block = [true; 3];
        }
    }
    for whole in ["=blockIdx;", "=gridDim;", "group_index"] {
        if compact.contains(whole) {
            *grid = [true; 3];
        }
    }
}

/// Names of locals a piece of code may assign (syntactically).
///
/// The walk stops `MAX_DEPTH` levels below `node`: nothing deeper is ever
/// lowered (the lowering refuses it as "nested too deeply", so the kernel is
/// not verified anyway), and walking it from every enclosing loop made deep
/// loop nests quadratic (10,000 nested `for` loops took 12 s).
fn assigned_names(node: Node, src: &str, file: &FileContext) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![(node, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        match n.kind() {
            "assignment_expression" => {
                if let Some(l) = n.field("left") {
                    if let Some(path) = local_path(l, src) {
                        out.insert(path);
                    }
                }
            }
            "update_expression" => {
                if let Some(a) = n.field("argument") {
                    if let Some(path) = local_path(a, src) {
                        out.insert(path);
                    }
                }
            }
            "pointer_expression" if n.field("operator").map(|o| node_text(src, o)) == Some("&") => {
                if let Some(a) = n.field("argument") {
                    if a.kind() == "identifier" {
                        out.insert(node_text(src, a).to_string());
                    }
                }
            }
            "call_expression" => {
                // A method may change any member of its object; any call
                // inside a method may be one of `this`'s.
                match n.field("function") {
                    Some(f) if f.kind() == "field_expression" => {
                        if let Some(path) = f.field("argument").and_then(|a| local_path(a, src)) {
                            out.insert(path);
                        }
                        out.insert("this".to_string());
                    }
                    Some(_) => {
                        out.insert("this".to_string());
                    }
                    None => {}
                }
                // Arguments of a method (it may take them by reference), and
                // members passed to any call (objects by reference).
                let is_method = n.field("function").is_some_and(|f| {
                    f.kind() == "field_expression"
                        || file
                            .structs
                            .values()
                            .any(|s| s.declared.iter().any(|m| m == node_text(src, f)))
                });
                if let Some(args) = n.field("arguments") {
                    let mut c = args.walk();
                    for a in args.named_children(&mut c) {
                        if let Some(path) =
                            local_path(a, src).filter(|p| is_method || p.contains('.'))
                        {
                            out.insert(path);
                        }
                    }
                }
                // Arguments bound to reference parameters of known functions.
                let fname = n.field("function").map(|f| node_text(src, f).to_string());
                if let Some(def) = fname.and_then(|f| file.functions.get(&f)) {
                    let params: Vec<bool> = def
                        .node
                        .field("declarator")
                        .and_then(find_function_declarator)
                        .and_then(|f| f.field("parameters"))
                        .map(|p| {
                            let mut c = p.walk();
                            p.named_children(&mut c)
                                .map(|pd| {
                                    pd.field("declarator")
                                        .map(|d| contains_kind(d, "reference_declarator"))
                                        .unwrap_or(false)
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    if let Some(args) = n.field("arguments") {
                        let mut c = args.walk();
                        for (i, a) in args.named_children(&mut c).enumerate() {
                            if params.get(i).copied().unwrap_or(false) && a.kind() == "identifier" {
                                out.insert(node_text(src, a).to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        if depth < MAX_DEPTH {
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c).map(|ch| (ch, depth + 1)));
        }
    }
    out
}

/// The local an lvalue names: `x`, `acc.p` (a member), `p` for `this->p`;
/// not `s` in `s[i]` (memory).
fn local_path(node: Node, src: &str) -> Option<String> {
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

fn substitute_params(body: &str, params: &[String], args: &[String]) -> String {
    let mut out = String::new();
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            match params.iter().position(|p| *p == word) {
                Some(pi) => {
                    out.push('(');
                    out.push_str(args.get(pi).map(String::as_str).unwrap_or("0"));
                    out.push(')');
                }
                None => out.push_str(&word),
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}
