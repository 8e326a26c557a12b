//! The kernel's syntax, read from tree-sitter's tree into a form of our own
//! with names resolved: locals to frame slots, file-scope and `__shared__`
//! variables to indices, calls to function indices.
//!
//! What cannot be read becomes an `Unsupported` node, reported only if a
//! thread executes it: a construct in code the launch never runs does not
//! change what the launch does.

use std::collections::HashMap;
use tree_sitter::{Node, Parser};

use crate::preprocess::Text;
use crate::value::{BinOp, Scal, Ty, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim3 {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
    Plus,
}

#[derive(Clone, Debug)]
pub enum E {
    Lit(Value),
    Local(usize),
    /// A file-scope or `__shared__` variable (index into `Program::vars`).
    Var(usize),
    Dim(Dim3, u8),
    Unary(UnOp, Box<Ex>),
    Bin(BinOp, Box<Ex>, Box<Ex>),
    Assign(Option<BinOp>, Box<Ex>, Box<Ex>),
    IncDec {
        pre: bool,
        inc: bool,
        e: Box<Ex>,
    },
    Cond(Box<Ex>, Box<Ex>, Box<Ex>),
    Call(usize, Vec<Ex>),
    Builtin(String, Vec<Ex>),
    /// A struct member: the struct's address (`.`) or a pointer to it
    /// (`->`), the member's offset in cells and its type.
    Field(Box<Ex>, usize, Ty),
    /// `a = b` of a struct: copies its cells.
    CopyAssign(Box<Ex>, Box<Ex>, usize),
    /// `make_float4(...)` and friends.
    MakeStruct(Ty, Vec<Ex>),
    /// `g.method(args)` on a cooperative group (or `cg::sync(g)`).
    GroupCall(Box<Ex>, String, Vec<Ex>),
    Index(Box<Ex>, Box<Ex>),
    Deref(Box<Ex>),
    AddrOf(Box<Ex>),
    Cast(Ty, Box<Ex>),
    Comma(Box<Ex>, Box<Ex>),
    Unsupported(String),
}

#[derive(Clone, Debug)]
pub struct Ex {
    pub e: E,
    pub line: usize,
}

#[derive(Clone, Debug)]
pub enum Init {
    None,
    Expr(Ex),
    List(Vec<Init>),
}

#[derive(Clone, Debug)]
pub enum S {
    Expr(Ex),
    /// A local: its slot, its type, its initialiser. An array local gets a
    /// buffer of its own per thread (`decl` numbers it).
    Decl {
        slot: usize,
        ty: Ty,
        init: Init,
        decl: usize,
    },
    If(Ex, Box<St>, Option<Box<St>>),
    While(Ex, Box<St>),
    DoWhile(Box<St>, Ex),
    For(Vec<St>, Option<Ex>, Option<Ex>, Box<St>),
    Block(Vec<St>),
    Switch(Ex, Vec<St>, Vec<(Option<Value>, usize)>),
    Break,
    Continue,
    Return(Option<Ex>),
    Empty,
    /// `name: statement`.
    Label(String, Box<St>),
    Goto(String),
    Unsupported(String),
}

#[derive(Clone, Debug)]
pub struct St {
    pub s: S,
    pub line: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
}

#[derive(Clone, Debug)]
pub struct VarDef {
    pub name: String,
    pub ty: Ty,
    pub space: Space,
    /// `extern __shared__ T s[]`: sized by the launch.
    pub dynamic: bool,
    /// The constant initial contents of a file-scope variable, cell by cell
    /// (the rest are zero).
    pub init: Option<Vec<Value>>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub global: bool,
    pub params: Vec<Param>,
    pub ret: Ty,
    pub slots: usize,
    pub body: Option<St>,
    /// Why this function cannot be run, if it cannot (a template, ...).
    pub unsupported: Option<String>,
}

#[derive(Clone, Debug)]
pub struct StructDef {
    /// Name, offset in cells, type.
    pub fields: Vec<(String, usize, Ty)>,
}

/// The scalar (or pointer) type of each cell of a value of type `t`.
pub fn cell_types(t: &Ty, structs: &[StructDef], out: &mut Vec<Ty>) {
    match t {
        Ty::Array(e, n) => {
            for _ in 0..*n {
                cell_types(e, structs, out);
            }
        }
        Ty::Struct(id, _) => {
            if let Some(d) = structs.get(*id) {
                for (_, _, ft) in &d.fields {
                    cell_types(ft, structs, out);
                }
            }
        }
        other => out.push(other.clone()),
    }
}

pub struct Program {
    pub funcs: Vec<Func>,
    pub structs: Vec<StructDef>,
    /// The kernel asked for with template arguments (`k<64>`), instantiated.
    pub requested: Option<usize>,
    pub vars: Vec<VarDef>,
    /// The first `__global__` function of each name, and under a template
    /// kernel's name the first of its instantiations (`k<64>` under `k`):
    /// a run finds its kernel without a walk over every function (a file
    /// of 10,000 kernels made every replay walk them all).
    pub kernel_names: HashMap<String, KernelNames>,
}

/// The `__global__` functions one name finds (see [`Program::kernel_names`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct KernelNames {
    /// The first kernel of exactly this name.
    pub exact: Option<usize>,
    /// The first instantiation of a template kernel of this name.
    pub instance: Option<usize>,
}

/// [`Program::kernel_names`] of `funcs`.
fn index_kernel_names(funcs: &[Func]) -> HashMap<String, KernelNames> {
    let mut names: HashMap<String, KernelNames> = HashMap::new();
    for (i, f) in funcs.iter().enumerate().filter(|(_, f)| f.global) {
        let (name, slot) = match f.name.split_once('<') {
            Some((base, _)) => (base, 1),
            None => (f.name.as_str(), 0),
        };
        let entry = names.entry(name.to_string()).or_default();
        let first = if slot == 0 {
            &mut entry.exact
        } else {
            &mut entry.instance
        };
        first.get_or_insert(i);
    }
    names
}

pub fn language() -> tree_sitter::Language {
    tree_sitter_cuda::LANGUAGE.into()
}

fn parse(text: &str) -> Option<tree_sitter::Tree> {
    let mut parser = Parser::new();
    parser.set_language(&language()).ok()?;
    parser.parse(text, None)
}

fn is_kernel(n: Node, src: &[u8]) -> bool {
    let mut c = n.walk();
    let found = n.children(&mut c).any(|ch| {
        Some(ch) != n.child_by_field_name("body")
            && Some(ch) != n.child_by_field_name("declarator")
            && ch.utf8_text(src).unwrap_or("").contains("__global__")
    });
    found
}

fn function_name(n: Node, src: &[u8]) -> Option<String> {
    let mut d = n.child_by_field_name("declarator")?;
    loop {
        match d.kind() {
            "function_declarator" => {
                let name = d.child_by_field_name("declarator")?;
                return Some(name.utf8_text(src).ok()?.to_string());
            }
            _ => d = d.child_by_field_name("declarator")?,
        }
    }
}

/// Function definitions at file scope, in namespaces and in `extern "C"`
/// blocks, with whether they are inside a template.
fn function_nodes<'t>(
    root: Node<'t>,
    out: &mut Vec<(Node<'t>, Option<Node<'t>>)>,
    templ: Option<Node<'t>>,
) {
    let mut c = root.walk();
    for ch in root.named_children(&mut c) {
        match ch.kind() {
            "function_definition" => out.push((ch, templ)),
            "template_declaration" => function_nodes(ch, out, Some(ch)),
            "namespace_definition" | "linkage_specification" | "declaration_list" => {
                function_nodes(ch, out, templ)
            }
            k if k.starts_with("preproc_") => function_nodes(ch, out, templ),
            _ => {}
        }
        if let Some(body) = ch.child_by_field_name("body") {
            if ch.kind() != "function_definition" && ch.kind() != "template_declaration" {
                function_nodes(body, out, templ);
            }
        }
    }
}

pub fn kernel_names(source: &str) -> Vec<String> {
    let Some(tree) = parse(source) else {
        return Vec::new();
    };
    let src = source.as_bytes();
    let mut fns = Vec::new();
    function_nodes(tree.root_node(), &mut fns, None);
    let mut out: Vec<String> = Vec::new();
    for (f, _) in fns {
        if is_kernel(f, src) {
            if let Some(name) = function_name(f, src) {
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
    }
    out
}

#[derive(Clone)]
enum Binding {
    Local(usize),
    Const(Value),
    Var(usize),
}

/// A template argument.
#[derive(Clone, Debug, PartialEq)]
enum TArg {
    Ty(Ty),
    Val(Value),
}

/// An instantiation still to read: its function index, its definition,
/// its parameters' bindings, its name with arguments.
type Pending<'t> = (usize, Node<'t>, Vec<(String, TArg)>, String);

struct Reader<'a> {
    src: &'a [u8],
    structs: Vec<StructDef>,
    lines: &'a [usize],
    /// Template functions by name: the declaration and the definition.
    templates: HashMap<String, Vec<(Node<'a>, Node<'a>)>>,
    instances: std::cell::RefCell<HashMap<String, usize>>,
    pending: std::cell::RefCell<Vec<Pending<'a>>>,
    next_func: std::cell::Cell<usize>,
    typedefs: HashMap<String, Ty>,
    globals: HashMap<String, Binding>,
    vars: Vec<VarDef>,
    fn_index: HashMap<String, Vec<usize>>,
    fn_params: Vec<usize>,
    scopes: Vec<HashMap<String, Binding>>,
    /// Each local slot's declared type (to deduce template arguments).
    slot_types: HashMap<usize, Ty>,
    slots: usize,
    decls: usize,
}

impl Program {
    /// Reads the program; `kernel` may name a template kernel with its
    /// arguments (`k<64>`), instantiated here.
    pub fn read(text: &Text, kernel: &str) -> Result<Program, String> {
        let tree = parse(&text.text).ok_or("the parser failed")?;
        let root = tree.root_node();
        // Reading, compiling and folding recurse along the tree: a bound on
        // its depth keeps hostile input from exhausting the stack.
        if depth(root) > MAX_DEPTH {
            return Err(format!("nesting deeper than {MAX_DEPTH}"));
        }
        let src = text.text.as_bytes();
        let mut r = Reader {
            src,
            structs: Vec::new(),
            lines: &text.lines,
            templates: HashMap::new(),
            instances: Default::default(),
            pending: Default::default(),
            next_func: Default::default(),
            typedefs: HashMap::new(),
            globals: HashMap::new(),
            vars: Vec::new(),
            fn_index: HashMap::new(),
            fn_params: Vec::new(),
            scopes: Vec::new(),
            slot_types: HashMap::new(),
            slots: 0,
            decls: 0,
        };
        r.vector_types();
        r.struct_definitions(root);
        r.file_scope(root);
        let mut fnodes = Vec::new();
        function_nodes(root, &mut fnodes, None);
        for (i, (f, templ)) in fnodes.iter().enumerate() {
            let name = function_name(*f, src).unwrap_or_default();
            if let Some(t) = templ {
                r.templates.entry(name.clone()).or_default().push((*t, *f));
            }
            r.fn_index.entry(name).or_default().push(i);
            let params = f
                .child_by_field_name("declarator")
                .and_then(|d| find_kind(d, "parameter_list"))
                .map(|pl| {
                    let mut c = pl.walk();
                    let n = pl
                        .named_children(&mut c)
                        .filter(|p| p.kind() == "parameter_declaration")
                        .count();
                    n
                })
                .unwrap_or(0);
            r.fn_params.push(params);
        }
        r.next_func.set(fnodes.len());
        // Explicit instantiations (`template __global__ void k<64>(...);`)
        // and the kernel asked for by name with its arguments.
        r.explicit_instantiations(root);
        let mut requested = None;
        if let Some((name, args)) = kernel.split_once('<') {
            let args = args.strip_suffix('>').unwrap_or(args);
            let targs: Vec<TArg> = split_top_level(args)
                .iter()
                .map(|a| r.targ_text(a))
                .collect::<Result<_, _>>()?;
            requested = Some(r.instantiate(name.trim(), targs)?);
        }
        let mut funcs = Vec::new();
        for (f, templ) in fnodes {
            funcs.push(r.function(f, templ.is_some(), &[]));
        }
        // Instantiations, including those the instantiations ask for.
        loop {
            let next = r.pending.borrow_mut().pop();
            let Some((idx, def, bindings, name)) = next else {
                break;
            };
            let mut f = r.function(def, false, &bindings);
            f.name = name;
            if funcs.len() <= idx {
                funcs.resize_with(idx + 1, || Func {
                    name: String::new(),
                    global: false,
                    params: Vec::new(),
                    ret: Ty::Void,
                    slots: 0,
                    body: None,
                    unsupported: Some("internal: an instantiation not read".into()),
                });
            }
            funcs[idx] = f;
        }
        Ok(Program {
            kernel_names: index_kernel_names(&funcs),
            funcs,
            structs: r.structs,
            requested,
            vars: r.vars,
        })
    }
}

const MAX_DEPTH: usize = 400;

/// The depth of the tree under `root`, walked without recursion.
fn depth(root: Node) -> usize {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    let mut deepest = 0usize;
    loop {
        deepest = deepest.max(depth);
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return deepest;
            }
            depth -= 1;
        }
    }
}

fn flatten_init<'a>(i: &'a Init, out: &mut Vec<&'a Ex>) {
    match i {
        Init::Expr(e) => out.push(e),
        Init::List(l) => {
            for x in l {
                flatten_init(x, out);
            }
        }
        Init::None => {}
    }
}

/// A type's text with single spaces and without qualifiers.
fn norm_type(text: &str) -> String {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "__restrict__" | "static" | "inline" | "__align__"
            )
        })
        .collect();
    words.join(" ")
}

/// Splits template arguments at top-level commas.
fn split_top_level(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn find_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    if n.kind() == kind {
        return Some(n);
    }
    let mut c = n.walk();
    let found = n.named_children(&mut c).find_map(|ch| find_kind(ch, kind));
    found
}

fn unsupported(what: impl Into<String>, line: usize) -> Ex {
    Ex {
        e: E::Unsupported(what.into()),
        line,
    }
}

impl<'a> Reader<'a> {
    fn text(&self, n: Node) -> &'a str {
        n.utf8_text(self.src).unwrap_or("")
    }

    fn line(&self, n: Node) -> usize {
        let row = n.start_position().row;
        self.lines.get(row).copied().unwrap_or(row + 1)
    }

    fn file_scope(&mut self, root: Node) {
        let mut c = root.walk();
        for ch in root.named_children(&mut c) {
            match ch.kind() {
                "declaration" => self.global_declaration(ch),
                "type_definition" => self.typedef(ch),
                "alias_declaration" => {
                    if let (Some(n), Some(t)) = (
                        ch.child_by_field_name("name"),
                        ch.child_by_field_name("type"),
                    ) {
                        if let Ok(ty) = self.base_type(t) {
                            self.typedefs.insert(self.text(n).to_string(), ty);
                        }
                    }
                }
                "enum_specifier" => self.enumeration(ch),
                "namespace_definition" | "linkage_specification" => {
                    if let Some(b) = ch.child_by_field_name("body") {
                        self.file_scope(b);
                    }
                }
                k if k.starts_with("preproc_") => self.file_scope(ch),
                _ => {}
            }
        }
    }

    fn typedef(&mut self, n: Node) {
        let Some(t) = n.child_by_field_name("type") else {
            return;
        };
        if t.kind() == "enum_specifier" {
            self.enumeration(t);
        }
        let Ok(base) = self.base_type(t) else { return };
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            // `typedef unsigned char byte_t;`: the alias is a type's name.
            if d.kind() == "type_identifier" {
                self.typedefs.insert(self.text(d).to_string(), base.clone());
                continue;
            }
            if let Ok((name, ty)) = self.declarator(d, base.clone()) {
                self.typedefs.insert(name, ty);
            }
        }
    }

    fn enumeration(&mut self, n: Node) {
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let mut next: i128 = 0;
        let mut c = body.walk();
        for e in body.named_children(&mut c) {
            if e.kind() != "enumerator" {
                continue;
            }
            let Some(name) = e.child_by_field_name("name") else {
                continue;
            };
            if let Some(v) = e.child_by_field_name("value") {
                let ex = self.expr(v);
                if let Some(Value::Int(i, _)) = fold(&ex) {
                    next = i;
                }
            }
            self.globals.insert(
                self.text(name).to_string(),
                Binding::Const(Value::int(next)),
            );
            next += 1;
        }
    }

    /// CUDA's vector types as structs of `x`, `y`, `z`, `w`.
    fn vector_types(&mut self) {
        let bases = [
            ("char", Scal::I8),
            ("uchar", Scal::U8),
            ("short", Scal::I16),
            ("ushort", Scal::U16),
            ("int", Scal::I32),
            ("uint", Scal::U32),
            ("longlong", Scal::I64),
            ("ulonglong", Scal::U64),
            ("float", Scal::F32),
            ("double", Scal::F64),
        ];
        for (base, s) in bases {
            for n in 1..=4usize {
                let fields = ["x", "y", "z", "w"][..n]
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.to_string(), i, Ty::S(s)))
                    .collect();
                self.add_struct(format!("{base}{n}"), fields);
            }
        }
    }

    fn add_struct(&mut self, name: String, fields: Vec<(String, usize, Ty)>) -> Ty {
        let cells = fields.iter().map(|(_, _, t)| t.cells()).sum();
        self.structs.push(StructDef { fields });
        let ty = Ty::Struct(self.structs.len() - 1, cells);
        self.typedefs.insert(name, ty.clone());
        ty
    }

    /// Every `struct`/`class` with a body outside functions, in order, so
    /// that a struct's fields may be earlier structs.
    fn struct_definitions(&mut self, n: Node) {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for ch in kids {
            match ch.kind() {
                "function_definition" | "template_declaration" => continue,
                "struct_specifier" | "class_specifier" => {
                    self.struct_definitions(ch);
                    self.struct_definition(ch);
                    continue;
                }
                _ => {}
            }
            self.struct_definitions(ch);
        }
        // `typedef struct { ... } P;`
        if n.kind() == "type_definition" {
            if let Some(t) = n.child_by_field_name("type") {
                if let Ok(ty @ Ty::Struct(..)) = self.base_type(t) {
                    let mut c = n.walk();
                    let names: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
                    for d in names {
                        if d.kind() == "type_identifier" {
                            self.typedefs.insert(self.text(d).to_string(), ty.clone());
                        }
                    }
                }
            }
        }
    }

    fn struct_definition(&mut self, n: Node) {
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x).to_string())
            .unwrap_or_else(|| format!("<anonymous struct at {}>", self.text(n).len()));
        let mut fields = Vec::new();
        let mut off = 0;
        let mut c = body.walk();
        let kids: Vec<Node> = body.named_children(&mut c).collect();
        for f in kids {
            match f.kind() {
                "field_declaration" => {}
                "comment" | "access_specifier" => continue,
                // Methods, constructors, nested types: not modelled, so the
                // struct is not either.
                _ => return,
            }
            let Some(t) = f.child_by_field_name("type") else {
                return;
            };
            let Ok(base) = self.base_type(t) else { return };
            let mut dc = f.walk();
            let decls: Vec<Node> = f.children_by_field_name("declarator", &mut dc).collect();
            for d in decls {
                let Ok((fname, ty)) = self.declarator(d, base.clone()) else {
                    return;
                };
                let cells = ty.cells();
                fields.push((fname, off, ty));
                off += cells;
            }
        }
        if fields.is_empty() {
            return;
        }
        let ty = self.add_struct(name.clone(), fields);
        // An anonymous struct is named by its text (`typedef struct {..} P`).
        self.typedefs.insert(norm_type(self.text(n)), ty.clone());
        self.typedefs.insert(format!("struct {name}"), ty.clone());
        self.typedefs.insert(format!("class {name}"), ty);
    }

    fn explicit_instantiations(&self, root: Node) {
        let mut c = root.walk();
        for ch in root.named_children(&mut c) {
            match ch.kind() {
                "template_instantiation" => {
                    let Some(tf) = ch
                        .child_by_field_name("declarator")
                        .and_then(|d| find_kind(d, "template_function"))
                    else {
                        continue;
                    };
                    let name = tf.child_by_field_name("name").map(|n| self.text(n));
                    let args = tf.child_by_field_name("arguments").map(|a| self.targs(a));
                    if let (Some(name), Some(Ok(args))) = (name, args) {
                        // An instantiation that cannot be read is reported
                        // when its kernel is asked for.
                        let _ = self.instantiate(name, args);
                    }
                }
                "namespace_definition" | "linkage_specification" => {
                    if let Some(b) = ch.child_by_field_name("body") {
                        self.explicit_instantiations(b);
                    }
                }
                k if k.starts_with("preproc_") => self.explicit_instantiations(ch),
                _ => {}
            }
        }
    }

    /// The arguments of a `template_argument_list`.
    fn targs(&self, list: Node) -> Result<Vec<TArg>, String> {
        let mut c = list.walk();
        let kids: Vec<Node> = list.named_children(&mut c).collect();
        kids.into_iter()
            .filter(|k| k.kind() != "comment")
            .map(|k| match k.kind() {
                "type_descriptor" => self.type_descriptor(k).map(TArg::Ty),
                _ => self.targ_text(self.text(k)),
            })
            .collect()
    }

    /// A template argument written as text: a type, or a constant.
    fn targ_text(&self, text: &str) -> Result<TArg, String> {
        if let Ok(t) = self.base_type_text(text) {
            return Ok(TArg::Ty(t));
        }
        if let Some(Binding::Const(v)) = self.lookup(text.trim()) {
            return Ok(TArg::Val(v));
        }
        match text.trim() {
            "true" => return Ok(TArg::Val(Value::of_bool(true))),
            "false" => return Ok(TArg::Val(Value::of_bool(false))),
            _ => {}
        }
        number(text.trim())
            .map(TArg::Val)
            .ok_or_else(|| format!("the template argument `{}`", short(text)))
    }

    /// The type an expression has, where it is plain to see (to deduce
    /// template arguments from a call's arguments).
    fn static_type(&self, e: &Ex) -> Option<Ty> {
        let decay = |t: Ty| match t {
            Ty::Array(e, _) => Ty::Ptr(e),
            t => t,
        };
        Some(match &e.e {
            E::Lit(Value::Int(_, s) | Value::Float(_, s)) => Ty::S(*s),
            E::Local(s) => decay(self.slot_types.get(s)?.clone()),
            E::Var(i) => decay(self.vars.get(*i)?.ty.clone()),
            E::Dim(..) => Ty::S(Scal::U32),
            E::Index(a, _) | E::Deref(a) => match self.static_type(a)? {
                Ty::Ptr(t) | Ty::Array(t, _) => decay(*t),
                _ => return None,
            },
            E::AddrOf(a) => Ty::Ptr(Box::new(self.static_type(a)?)),
            E::Cast(t, _) => t.clone(),
            E::Unary(UnOp::Not, _) => Ty::S(Scal::Bool),
            E::Unary(_, a) => match self.static_type(a)? {
                Ty::S(s) => Ty::S(crate::value::promote(s)),
                _ => return None,
            },
            E::Bin(op, a, b) => match op {
                BinOp::Lt
                | BinOp::Gt
                | BinOp::Le
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::LAnd
                | BinOp::LOr => Ty::S(Scal::Bool),
                BinOp::Shl | BinOp::Shr => match self.static_type(a)? {
                    Ty::S(s) => Ty::S(crate::value::promote(s)),
                    _ => return None,
                },
                _ => match (self.static_type(a)?, self.static_type(b)?) {
                    (Ty::S(x), Ty::S(y)) => Ty::S(crate::value::common(x, y)),
                    (p @ Ty::Ptr(_), Ty::S(_)) | (Ty::S(_), p @ Ty::Ptr(_)) => p,
                    _ => return None,
                },
            },
            E::Field(_, _, t) => decay(t.clone()),
            E::MakeStruct(t, _) => t.clone(),
            E::Call(..) => return None,
            E::Cond(_, a, _) | E::Assign(_, a, _) => self.static_type(a)?,
            E::IncDec { e, .. } => self.static_type(e)?,
            E::Comma(_, b) => self.static_type(b)?,
            _ => return None,
        })
    }

    /// The instance of template `name` a call with these arguments runs:
    /// each type parameter bound from a parameter declared `T` or `T*`.
    fn deduce(&self, name: &str, args: &[Ex]) -> Result<usize, String> {
        let fail = || format!("the template function `{name}` (its arguments not deduced)");
        for (decl, def) in self.templates.get(name).into_iter().flatten() {
            let Some(tparams) = decl.child_by_field_name("parameters") else {
                continue;
            };
            let mut c = tparams.walk();
            let tnames: Vec<Option<String>> = tparams
                .named_children(&mut c)
                .filter(|p| p.kind() != "comment")
                .map(|p| match p.kind() {
                    "type_parameter_declaration" => {
                        p.named_child(0).map(|n| self.text(n).to_string())
                    }
                    _ => None,
                })
                .collect();
            if tnames.iter().any(|t| t.is_none()) {
                // Value parameters and defaults: only explicit arguments.
                continue;
            }
            let Some(plist) = def
                .child_by_field_name("declarator")
                .and_then(|d| find_kind(d, "parameter_list"))
            else {
                continue;
            };
            let mut c = plist.walk();
            let params: Vec<Node> = plist
                .named_children(&mut c)
                .filter(|p| p.kind() == "parameter_declaration")
                .collect();
            if params.len() != args.len() {
                continue;
            }
            let mut bound: HashMap<String, Ty> = HashMap::new();
            for (p, a) in params.iter().zip(args) {
                let Some(t) = p.child_by_field_name("type") else {
                    continue;
                };
                let tname: String = self
                    .text(t)
                    .split_whitespace()
                    .filter(|w| !matches!(*w, "const" | "volatile"))
                    .collect();
                if !tnames.iter().flatten().any(|n| *n == tname) {
                    continue;
                }
                let Some(at) = self.static_type(a) else {
                    return Err(fail());
                };
                let pointer = p
                    .child_by_field_name("declarator")
                    .is_some_and(|d| d.kind() == "pointer_declarator");
                let t = match (pointer, at) {
                    (false, t @ Ty::S(_)) => t,
                    (true, Ty::Ptr(t)) => *t,
                    _ => return Err(fail()),
                };
                if bound.get(&tname).is_some_and(|b| *b != t) {
                    return Err(fail());
                }
                bound.insert(tname, t);
            }
            let mut targs = Vec::new();
            for n in tnames.iter().flatten() {
                match bound.get(n) {
                    Some(t) => targs.push(TArg::Ty(t.clone())),
                    None => return Err(fail()),
                }
            }
            return self.instantiate(name, targs);
        }
        Err(fail())
    }

    /// The function index of `name<args>`, read later if new.
    fn instantiate(&self, name: &str, args: Vec<TArg>) -> Result<usize, String> {
        let shown: Vec<String> = args
            .iter()
            .map(|a| match a {
                TArg::Ty(t) => format!("{t:?}"),
                TArg::Val(v) => match v {
                    Value::Int(i, _) => i.to_string(),
                    other => format!("{other:?}"),
                },
            })
            .collect();
        let key = format!("{name}<{}>", shown.join(", "));
        if let Some(i) = self.instances.borrow().get(&key) {
            return Ok(*i);
        }
        let Some(cands) = self.templates.get(name) else {
            return Err(format!("no template function `{name}`"));
        };
        for (decl, def) in cands {
            let Some(params) = decl.child_by_field_name("parameters") else {
                continue;
            };
            let mut c = params.walk();
            let ps: Vec<Node> = params
                .named_children(&mut c)
                .filter(|p| p.kind() != "comment")
                .collect();
            if ps.len() < args.len() {
                continue;
            }
            let mut bindings = Vec::new();
            let mut ok = true;
            for (i, p) in ps.iter().enumerate() {
                let (pname, arg) = match p.kind() {
                    "type_parameter_declaration" | "optional_type_parameter_declaration" => {
                        let pname = p
                            .child_by_field_name("name")
                            .or_else(|| p.named_child(0))
                            .map(|n| self.text(n).to_string());
                        let arg = match args.get(i) {
                            Some(a @ TArg::Ty(_)) => Some(a.clone()),
                            Some(_) => None,
                            None => p
                                .child_by_field_name("default_type")
                                .and_then(|t| self.base_type(t).ok())
                                .map(TArg::Ty),
                        };
                        (pname, arg)
                    }
                    "parameter_declaration" | "optional_parameter_declaration" => {
                        let pname = p
                            .child_by_field_name("declarator")
                            .map(|n| self.text(n).to_string());
                        let arg = match args.get(i) {
                            Some(a @ TArg::Val(_)) => Some(a.clone()),
                            Some(_) => None,
                            None => p
                                .child_by_field_name("default_value")
                                .and_then(|v| fold(&self.expr(v)))
                                .map(TArg::Val),
                        };
                        (pname, arg)
                    }
                    _ => (None, None),
                };
                match (pname, arg) {
                    (Some(n), Some(a)) => bindings.push((n, a)),
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                continue;
            }
            let idx = self.next_func.get();
            self.next_func.set(idx + 1);
            self.instances.borrow_mut().insert(key.clone(), idx);
            self.pending.borrow_mut().push((
                idx,
                *def,
                bindings,
                format!("{name}<{}>", shown.join(", ")),
            ));
            return Ok(idx);
        }
        Err(format!("the template `{name}` with these arguments"))
    }

    fn has_word(&self, n: Node, word: &str) -> bool {
        let mut c = n.walk();
        let found = n.children(&mut c).any(|ch| {
            ch.kind() != "init_declarator" && self.text(ch).split_whitespace().any(|w| w == word)
        });
        found
    }

    fn global_declaration(&mut self, n: Node) {
        let Some(t) = n.child_by_field_name("type") else {
            return;
        };
        if t.kind() == "enum_specifier" {
            self.enumeration(t);
        }
        let Ok(base) = self.base_type(t) else { return };
        let shared = self.has_word(n, "__shared__");
        let is_const = self.has_word(n, "const") || self.has_word(n, "constexpr");
        let is_extern = self.has_word(n, "extern");
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            if find_kind(d, "function_declarator").is_some() {
                continue;
            }
            let value = (d.kind() == "init_declarator")
                .then(|| d.child_by_field_name("value"))
                .flatten();
            let Ok((name, ty)) = self.declarator(d, base.clone()) else {
                continue;
            };
            if is_const && !shared && matches!(ty, Ty::S(_)) {
                if let Some(v) = value {
                    let ex = self.expr(v);
                    if let Some(val) = fold(&ex).and_then(|v| v.convert(&ty).ok()) {
                        self.globals.insert(name, Binding::Const(val));
                        continue;
                    }
                }
            }
            let mut ty = ty;
            let mut init = None;
            if let Some(v) = value {
                // An initialised `__device__`/`__constant__` variable: its
                // contents when every initialiser is a constant; otherwise
                // it is left unnamed, and using it is unsupported.
                let read = self.init(v);
                let mut flat = Vec::new();
                flatten_init(&read, &mut flat);
                let Some(vals) = flat.iter().map(|e| fold(e)).collect::<Option<Vec<_>>>() else {
                    continue;
                };
                if let Ty::Array(e, 0) = &ty {
                    let per = e.cells().max(1);
                    ty = Ty::Array(e.clone(), vals.len().div_ceil(per));
                }
                if shared || vals.len() > ty.cells() {
                    continue;
                }
                init = Some(vals);
            }
            let dynamic = is_extern && matches!(ty, Ty::Array(_, 0));
            self.vars.push(VarDef {
                name: name.clone(),
                ty,
                space: if shared { Space::Shared } else { Space::Global },
                dynamic,
                init,
            });
            self.globals.insert(name, Binding::Var(self.vars.len() - 1));
        }
    }

    fn base_type(&self, t: Node) -> Result<Ty, String> {
        self.base_type_text(self.text(t))
    }

    fn base_type_text(&self, text: &str) -> Result<Ty, String> {
        let joined = norm_type(text);
        if let Some(ty) = self.typedefs.get(&joined) {
            return Ok(ty.clone());
        }
        let unqualified = joined
            .strip_prefix("cg::")
            .or_else(|| joined.strip_prefix("cooperative_groups::"))
            .unwrap_or(&joined);
        if unqualified == "thread_block"
            || unqualified == "thread_group"
            || unqualified.starts_with("thread_block_tile<")
        {
            return Ok(Ty::Group);
        }
        let s = match joined.as_str() {
            "void" => return Ok(Ty::Void),
            "bool" => Scal::Bool,
            "char" | "signed char" | "int8_t" => Scal::I8,
            "unsigned char" | "uint8_t" | "uchar" => Scal::U8,
            "short" | "short int" | "signed short" | "int16_t" => Scal::I16,
            "unsigned short" | "unsigned short int" | "uint16_t" | "ushort" => Scal::U16,
            "int" | "signed" | "signed int" | "int32_t" => Scal::I32,
            "unsigned" | "unsigned int" | "uint32_t" | "uint" => Scal::U32,
            "long" | "long int" | "long long" | "long long int" | "signed long long"
            | "int64_t" | "ptrdiff_t" | "ssize_t" | "intptr_t" | "signed long" | "clock_t"
            | "time_t" => Scal::I64,
            "unsigned long"
            | "unsigned long int"
            | "unsigned long long"
            | "unsigned long long int"
            | "uint64_t"
            | "size_t"
            | "uintptr_t" => Scal::U64,
            "float" => Scal::F32,
            "double" => Scal::F64,
            _ => return Err(format!("the type `{joined}`")),
        };
        Ok(Ty::S(s))
    }

    /// The name and type a declarator gives to `base`.
    fn declarator(&self, d: Node, base: Ty) -> Result<(String, Ty), String> {
        match d.kind() {
            "identifier" | "field_identifier" => Ok((self.text(d).to_string(), base)),
            "init_declarator" | "parenthesized_declarator" => {
                let inner = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))
                    .ok_or("a declarator")?;
                self.declarator(inner, base)
            }
            "pointer_declarator" => {
                let inner = d.child_by_field_name("declarator").ok_or("a declarator")?;
                self.declarator(inner, Ty::Ptr(Box::new(base)))
            }
            "array_declarator" => {
                let inner = d.child_by_field_name("declarator").ok_or("a declarator")?;
                let n = match d.child_by_field_name("size") {
                    None => 0,
                    Some(s) => {
                        let ex = self.expr_const(s);
                        match fold(&ex) {
                            Some(Value::Int(i, _)) if (0..=1 << 26).contains(&i) => i as usize,
                            _ => {
                                return Err(format!(
                                    "an array size that is not a constant: `{}`",
                                    self.text(s)
                                ))
                            }
                        }
                    }
                };
                self.declarator(inner, Ty::Array(Box::new(base), n))
            }
            "reference_declarator" => Err("a reference".into()),
            other => Err(format!("the declarator `{other}`")),
        }
    }

    /// An expression at a place with no locals in scope yet (array sizes
    /// may name locals that are constants, though).
    fn expr_const(&self, n: Node) -> Ex {
        self.expr(n)
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        for s in self.scopes.iter().rev() {
            if let Some(b) = s.get(name) {
                return Some(b.clone());
            }
        }
        self.globals.get(name).cloned()
    }

    fn function(&mut self, f: Node, templ: bool, bindings: &[(String, TArg)]) -> Func {
        // A template's parameters: types as type names, values as
        // constants, for the time of reading this instance.
        let saved = self.typedefs.clone();
        let mut consts = HashMap::new();
        for (name, arg) in bindings {
            match arg {
                TArg::Ty(t) => {
                    self.typedefs.insert(name.clone(), t.clone());
                }
                TArg::Val(v) => {
                    consts.insert(name.clone(), Binding::Const(v.clone()));
                }
            }
        }
        let func = self.function_body(f, templ, consts);
        self.typedefs = saved;
        func
    }

    fn function_body(&mut self, f: Node, templ: bool, consts: HashMap<String, Binding>) -> Func {
        let name = function_name(f, self.src).unwrap_or_default();
        let global = is_kernel(f, self.src);
        let mut func = Func {
            name: name.clone(),
            global,
            params: Vec::new(),
            ret: Ty::Void,
            slots: 0,
            body: None,
            unsupported: None,
        };
        if templ {
            func.unsupported = Some(format!("the template function `{name}`"));
            return func;
        }
        if f.has_error() {
            func.unsupported = Some(format!("a syntax error in `{name}`"));
            return func;
        }
        match f.child_by_field_name("type").map(|t| self.base_type(t)) {
            Some(Ok(t)) => {
                // A pointer return type is a pointer_declarator around the
                // function declarator.
                let d = f.child_by_field_name("declarator");
                func.ret = if d.is_some_and(|d| d.kind() == "pointer_declarator") {
                    Ty::Ptr(Box::new(t))
                } else {
                    t
                };
            }
            Some(Err(e)) => {
                func.unsupported = Some(format!("the return type of `{name}`: {e}"));
                return func;
            }
            None => {}
        }
        self.scopes = vec![consts, HashMap::new()];
        self.slot_types.clear();
        self.slots = 0;
        if let Some(pl) = f
            .child_by_field_name("declarator")
            .and_then(|d| find_kind(d, "parameter_list"))
        {
            let mut c = pl.walk();
            for p in pl.named_children(&mut c) {
                if p.kind() == "variadic_parameter" {
                    func.unsupported = Some(format!("the variadic function `{name}`"));
                    return func;
                }
                if p.kind() != "parameter_declaration" {
                    continue;
                }
                let ty = p
                    .child_by_field_name("type")
                    .ok_or_else(|| "a parameter without a type".to_string())
                    .and_then(|t| self.base_type(t));
                let decl = match (ty, p.child_by_field_name("declarator")) {
                    (Ok(Ty::Void), None) => continue,
                    (Ok(ty), Some(d)) => self.declarator(d, ty),
                    (Ok(ty), None) => Ok((String::new(), ty)),
                    (Err(e), _) => Err(e),
                };
                match decl {
                    Ok((pname, mut pty)) => {
                        // An array parameter is a pointer.
                        if let Ty::Array(t, _) = pty {
                            pty = Ty::Ptr(t);
                        }
                        let slot = self.slots;
                        self.slots += 1;
                        self.scopes[1].insert(pname.clone(), Binding::Local(slot));
                        self.slot_types.insert(slot, pty.clone());
                        func.params.push(Param {
                            name: pname,
                            ty: pty,
                        });
                    }
                    Err(e) => {
                        func.unsupported = Some(format!("a parameter of `{name}`: {e}"));
                        return func;
                    }
                }
            }
        }
        if let Some(b) = f.child_by_field_name("body") {
            func.body = Some(self.stmt(b));
        }
        func.slots = self.slots;
        func
    }

    fn stmt(&mut self, n: Node) -> St {
        let line = self.line(n);
        let s = self.stmt_kind(n);
        St { s, line }
    }

    fn block(&mut self, n: Node) -> Vec<St> {
        self.scopes.push(HashMap::new());
        let mut out = Vec::new();
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for ch in kids {
            if ch.kind() == "comment" {
                continue;
            }
            out.push(self.stmt(ch));
        }
        self.scopes.pop();
        out
    }

    fn stmt_kind(&mut self, n: Node) -> S {
        let line = self.line(n);
        match n.kind() {
            "compound_statement" => S::Block(self.block(n)),
            "expression_statement" => match n.named_child(0) {
                Some(e) => S::Expr(self.expr(e)),
                None => S::Empty,
            },
            "declaration" => self.local_declaration(n),
            "if_statement" => {
                if self.text(n).starts_with("if constexpr") {
                    // Same semantics at run time for what we model.
                }
                let cond = match n.child_by_field_name("condition") {
                    Some(c) => self.condition(c),
                    None => unsupported("an if without a condition", line),
                };
                self.scopes.push(HashMap::new());
                let then = n
                    .child_by_field_name("consequence")
                    .map(|c| Box::new(self.stmt(c)));
                let els = n.child_by_field_name("alternative").map(|a| {
                    let inner = if a.kind() == "else_clause" {
                        a.named_child(0).unwrap_or(a)
                    } else {
                        a
                    };
                    Box::new(self.stmt(inner))
                });
                self.scopes.pop();
                match then {
                    Some(t) => S::If(cond, t, els),
                    None => S::Unsupported("an if without a body".into()),
                }
            }
            "while_statement" => {
                self.scopes.push(HashMap::new());
                let cond = match n.child_by_field_name("condition") {
                    Some(c) => self.condition(c),
                    None => unsupported("a while without a condition", line),
                };
                let body = n.child_by_field_name("body").map(|b| self.stmt(b));
                self.scopes.pop();
                match body {
                    Some(b) => S::While(cond, Box::new(b)),
                    None => S::Unsupported("a while without a body".into()),
                }
            }
            "do_statement" => {
                let body = n.child_by_field_name("body").map(|b| self.stmt(b));
                let cond = match n.child_by_field_name("condition") {
                    Some(c) => self.expr(c),
                    None => unsupported("a do without a condition", line),
                };
                match body {
                    Some(b) => S::DoWhile(Box::new(b), cond),
                    None => S::Unsupported("a do without a body".into()),
                }
            }
            "for_statement" => {
                self.scopes.push(HashMap::new());
                let mut init = Vec::new();
                let mut c = n.walk();
                let inits: Vec<Node> = n.children_by_field_name("initializer", &mut c).collect();
                for i in inits {
                    if i.kind() == "declaration" {
                        init.push(self.stmt(i));
                    } else {
                        let e = self.expr(i);
                        init.push(St {
                            s: S::Expr(e),
                            line,
                        });
                    }
                }
                let cond = n.child_by_field_name("condition").map(|c| self.expr(c));
                let update = n.child_by_field_name("update").map(|c| self.expr(c));
                let body = n.child_by_field_name("body").map(|b| self.stmt(b));
                self.scopes.pop();
                match body {
                    Some(b) => S::For(init, cond, update, Box::new(b)),
                    None => S::Unsupported("a for without a body".into()),
                }
            }
            "break_statement" => S::Break,
            "continue_statement" => S::Continue,
            "return_statement" => S::Return(n.named_child(0).map(|e| self.expr(e))),
            "switch_statement" => self.switch(n),
            ";" | "empty_statement" => S::Empty,
            "type_definition" => {
                self.typedef(n);
                S::Empty
            }
            "labeled_statement" => {
                let label = n
                    .child_by_field_name("label")
                    .map(|l| self.text(l).to_string());
                let mut c = n.walk();
                let inner = n
                    .named_children(&mut c)
                    .find(|k| Some(*k) != n.child_by_field_name("label"));
                match (label, inner) {
                    (Some(l), Some(i)) => S::Label(l, Box::new(self.stmt(i))),
                    (Some(l), None) => S::Label(l, Box::new(St { s: S::Empty, line })),
                    _ => S::Unsupported("a labelled statement".into()),
                }
            }
            "goto_statement" => match n.child_by_field_name("label") {
                Some(l) => S::Goto(self.text(l).to_string()),
                None => S::Unsupported("goto".into()),
            },
            "for_range_loop" => S::Unsupported("a range-based for".into()),
            "ERROR" => S::Unsupported(format!("a syntax error: `{}`", short(self.text(n)))),
            "asm_statement" | "gnu_asm_expression" => S::Unsupported("inline asm".into()),
            other => S::Unsupported(format!("the statement `{other}`")),
        }
    }

    fn condition(&mut self, c: Node) -> Ex {
        let line = self.line(c);
        match c.kind() {
            "condition_clause" => {
                if c.child_by_field_name("initializer").is_some() {
                    return unsupported("an if with an initializer", line);
                }
                match c.child_by_field_name("value") {
                    Some(v) if v.kind() == "declaration" => {
                        unsupported("a declaration as a condition", line)
                    }
                    Some(v) => self.expr(v),
                    None => unsupported("an empty condition", line),
                }
            }
            _ => self.expr(c),
        }
    }

    fn switch(&mut self, n: Node) -> S {
        let line = self.line(n);
        let cond = match n.child_by_field_name("condition") {
            Some(c) => self.condition(c),
            None => unsupported("a switch without a condition", line),
        };
        let Some(body) = n.child_by_field_name("body") else {
            return S::Unsupported("a switch without a body".into());
        };
        self.scopes.push(HashMap::new());
        let mut stmts = Vec::new();
        let mut labels = Vec::new();
        let mut c = body.walk();
        let cases: Vec<Node> = body.named_children(&mut c).collect();
        for case in cases {
            if case.kind() != "case_statement" {
                if case.kind() != "comment" {
                    stmts.push(self.stmt(case));
                }
                continue;
            }
            let value = case.child_by_field_name("value");
            let label = match value {
                Some(v) => {
                    let ex = self.expr(v);
                    match fold(&ex) {
                        Some(val) => Some(val),
                        None => {
                            self.scopes.pop();
                            return S::Unsupported("a case label that is not a constant".into());
                        }
                    }
                }
                None => None,
            };
            labels.push((label, stmts.len()));
            let mut cc = case.walk();
            let kids: Vec<Node> = case.named_children(&mut cc).collect();
            for k in kids {
                if Some(k) == value || k.kind() == "comment" {
                    continue;
                }
                stmts.push(self.stmt(k));
            }
        }
        self.scopes.pop();
        S::Switch(cond, stmts, labels)
    }

    fn local_declaration(&mut self, n: Node) -> S {
        let line = self.line(n);
        let Some(t) = n.child_by_field_name("type") else {
            return S::Unsupported("a declaration without a type".into());
        };
        let auto = self.text(t) == "auto";
        let base = if auto {
            Ok(Ty::Void)
        } else {
            self.base_type(t)
        };
        let base = match base {
            Ok(b) => b,
            Err(e) => return S::Unsupported(e),
        };
        let shared = self.has_word(n, "__shared__");
        let is_const = self.has_word(n, "const") || self.has_word(n, "constexpr");
        let is_extern = self.has_word(n, "extern");
        if self.has_word(n, "static") && !shared {
            return S::Unsupported("a static local".into());
        }
        let mut out = Vec::new();
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let value = (d.kind() == "init_declarator")
                .then(|| d.child_by_field_name("value"))
                .flatten();
            let (name, ty) = match self.declarator(d, base.clone()) {
                Ok(x) => x,
                Err(e) => return S::Unsupported(e),
            };
            if shared {
                if value.is_some() {
                    return S::Unsupported("an initialised __shared__ variable".into());
                }
                let dynamic = is_extern && matches!(ty, Ty::Array(_, 0));
                self.vars.push(VarDef {
                    name: name.clone(),
                    ty,
                    space: Space::Shared,
                    dynamic,
                    init: None,
                });
                let idx = self.vars.len() - 1;
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .insert(name, Binding::Var(idx));
                continue;
            }
            let init = match value {
                None => Init::None,
                Some(v) => self.init(v),
            };
            if auto && !matches!(init, Init::Expr(_)) {
                return S::Unsupported("auto without a plain initialiser".into());
            }
            if is_const && matches!(ty, Ty::S(_)) {
                if let Init::Expr(e) = &init {
                    if let Some(val) = fold(e).and_then(|v| v.convert(&ty).ok()) {
                        self.scopes
                            .last_mut()
                            .expect("a scope")
                            .insert(name, Binding::Const(val));
                        continue;
                    }
                }
            }
            let slot = self.slots;
            self.slots += 1;
            let decl = self.decls;
            self.decls += 1;
            self.slot_types.insert(slot, ty.clone());
            // The name is visible in its own initialiser only after it is
            // read (C scoping: `int x = x;` names itself, a corner we skip).
            self.scopes
                .last_mut()
                .expect("a scope")
                .insert(name, Binding::Local(slot));
            out.push(St {
                s: S::Decl {
                    slot,
                    ty,
                    init,
                    decl,
                },
                line,
            });
        }
        if out.len() == 1 {
            out.pop().map(|s| s.s).unwrap_or(S::Empty)
        } else {
            // Several declarators: one block that does not open a scope.
            S::Block(out)
        }
    }

    fn init(&mut self, v: Node) -> Init {
        if v.kind() == "initializer_list" {
            let mut c = v.walk();
            let kids: Vec<Node> = v.named_children(&mut c).collect();
            return Init::List(
                kids.into_iter()
                    .filter(|k| k.kind() != "comment")
                    .map(|k| self.init(k))
                    .collect(),
            );
        }
        Init::Expr(self.expr(v))
    }

    fn expr(&self, n: Node) -> Ex {
        let line = self.line(n);
        let e = self.expr_kind(n, line);
        Ex { e, line }
    }

    fn bx(&self, n: Option<Node>, line: usize) -> Box<Ex> {
        Box::new(match n {
            Some(n) => self.expr(n),
            None => unsupported("a missing operand", line),
        })
    }

    fn expr_kind(&self, n: Node, line: usize) -> E {
        match n.kind() {
            "number_literal" => number(self.text(n))
                .map(E::Lit)
                .unwrap_or_else(|| E::Unsupported(format!("the number `{}`", self.text(n)))),
            "true" => E::Lit(Value::of_bool(true)),
            "false" => E::Lit(Value::of_bool(false)),
            "null" | "nullptr" => E::Lit(Value::Null),
            "char_literal" => {
                let t = self.text(n);
                let inner = t.trim_matches('\'');
                let v = match inner {
                    "\\0" => Some(0),
                    "\\n" => Some(10),
                    s if s.chars().count() == 1 => s.chars().next().map(|c| c as i128),
                    _ => None,
                };
                match v {
                    Some(v) => E::Lit(Value::Int(v, Scal::I8)),
                    None => E::Unsupported(format!("the character `{t}`")),
                }
            }
            "parenthesized_expression" => match n.named_child(0) {
                Some(i) => self.expr(i).e,
                None => E::Unsupported("empty parentheses".into()),
            },
            "identifier" => self.name(self.text(n)),
            "qualified_identifier" => {
                let t = self.text(n);
                match t.strip_prefix("::").or_else(|| t.strip_prefix("std::")) {
                    Some(rest) => self.name(rest),
                    None => E::Unsupported(format!("the name `{t}`")),
                }
            }
            "field_expression" => self.field(n, line),
            "binary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let l = self.bx(n.child_by_field_name("left"), line);
                let r = self.bx(n.child_by_field_name("right"), line);
                match bin_op(op) {
                    Some(op) => E::Bin(op, l, r),
                    None => E::Unsupported(format!("the operator `{op}`")),
                }
            }
            "unary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let a = self.bx(n.child_by_field_name("argument"), line);
                let op = match op {
                    "-" => UnOp::Neg,
                    "!" | "not" => UnOp::Not,
                    "~" => UnOp::BitNot,
                    "+" => UnOp::Plus,
                    other => return E::Unsupported(format!("the operator `{other}`")),
                };
                E::Unary(op, a)
            }
            "update_expression" => {
                let op = n.child_by_field_name("operator");
                let arg = n.child_by_field_name("argument");
                let pre = match (op, arg) {
                    (Some(o), Some(a)) => o.start_byte() < a.start_byte(),
                    _ => return E::Unsupported("an update".into()),
                };
                let inc = op.map(|o| self.text(o)) == Some("++");
                E::IncDec {
                    pre,
                    inc,
                    e: self.bx(arg, line),
                }
            }
            "assignment_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("=");
                let l = self.bx(n.child_by_field_name("left"), line);
                let r = match n.child_by_field_name("right") {
                    Some(r) if r.kind() == "initializer_list" => {
                        return E::Unsupported("a braced assignment".into())
                    }
                    r => self.bx(r, line),
                };
                if op == "=" {
                    if let Some(Ty::Struct(_, cells)) = self.static_type(&l) {
                        return E::CopyAssign(l, r, cells);
                    }
                    return E::Assign(None, l, r);
                }
                match bin_op(op.trim_end_matches('=')) {
                    Some(b) => E::Assign(Some(b), l, r),
                    None => E::Unsupported(format!("the operator `{op}`")),
                }
            }
            "conditional_expression" => {
                let c = self.bx(n.child_by_field_name("condition"), line);
                let mut a = self.bx(n.child_by_field_name("consequence"), line);
                let mut b = self.bx(n.child_by_field_name("alternative"), line);
                // Both branches have the type of the usual arithmetic
                // conversions (`c ? 1 : 2.5f` is a float either way).
                if let (Some(Ty::S(x)), Some(Ty::S(y))) =
                    (self.static_type(&a), self.static_type(&b))
                {
                    if x != y {
                        let t = Ty::S(crate::value::common(x, y));
                        a = Box::new(Ex {
                            e: E::Cast(t.clone(), a),
                            line,
                        });
                        b = Box::new(Ex {
                            e: E::Cast(t, b),
                            line,
                        });
                    }
                }
                E::Cond(c, a, b)
            }
            "comma_expression" => E::Comma(
                self.bx(n.child_by_field_name("left"), line),
                self.bx(n.child_by_field_name("right"), line),
            ),
            "subscript_expression" => {
                let a = self.bx(n.child_by_field_name("argument"), line);
                let idx = n.child_by_field_name("indices").and_then(|l| {
                    if l.kind() == "subscript_argument_list" {
                        (l.named_child_count() == 1)
                            .then(|| l.named_child(0))
                            .flatten()
                    } else {
                        Some(l)
                    }
                });
                match idx {
                    Some(i) => E::Index(a, Box::new(self.expr(i))),
                    None => E::Unsupported("a subscript".into()),
                }
            }
            "pointer_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let a = self.bx(n.child_by_field_name("argument"), line);
                match op {
                    "*" => E::Deref(a),
                    "&" => E::AddrOf(a),
                    o => E::Unsupported(format!("the operator `{o}`")),
                }
            }
            "cast_expression" => {
                let ty = n
                    .child_by_field_name("type")
                    .ok_or_else(|| "a cast".to_string())
                    .and_then(|t| self.type_descriptor(t));
                match ty {
                    Ok(ty) => E::Cast(ty, self.bx(n.child_by_field_name("value"), line)),
                    Err(e) => E::Unsupported(e),
                }
            }
            "sizeof_expression" => {
                let ty = match (
                    n.child_by_field_name("type"),
                    n.child_by_field_name("value"),
                ) {
                    (Some(t), _) => self.type_descriptor(t),
                    (None, Some(v)) => {
                        let inner = if v.kind() == "parenthesized_expression" {
                            v.named_child(0).unwrap_or(v)
                        } else {
                            v
                        };
                        match self.expr(inner).e {
                            E::Local(_) | E::Var(_) => Err("sizeof of a variable".to_string()),
                            _ => Err("sizeof of an expression".to_string()),
                        }
                    }
                    _ => Err("sizeof".to_string()),
                };
                match ty.and_then(|t| sizeof(&t)) {
                    Ok(s) => E::Lit(Value::Int(i128::from(s), Scal::U64)),
                    Err(e) => E::Unsupported(e),
                }
            }
            "call_expression" => self.call(n, line),
            "string_literal" | "concatenated_string" | "raw_string_literal" => {
                E::Unsupported("a string".into())
            }
            other => E::Unsupported(format!("the expression `{other}`")),
        }
    }

    fn type_descriptor(&self, t: Node) -> Result<Ty, String> {
        let base = self.base_type(t.child_by_field_name("type").ok_or("a type")?)?;
        let mut ty = base;
        let mut d = t.child_by_field_name("declarator");
        while let Some(dn) = d {
            match dn.kind() {
                "abstract_pointer_declarator" => ty = Ty::Ptr(Box::new(ty)),
                "abstract_reference_declarator" => return Err("a reference type".into()),
                "abstract_array_declarator" => return Err("an array type".into()),
                _ => return Err(format!("the type `{}`", self.text(t))),
            }
            d = dn.child_by_field_name("declarator");
        }
        Ok(ty)
    }

    fn name(&self, name: &str) -> E {
        match self.lookup(name) {
            Some(Binding::Local(s)) => return E::Local(s),
            Some(Binding::Const(v)) => return E::Lit(v),
            Some(Binding::Var(i)) => return E::Var(i),
            None => {}
        }
        match name {
            "warpSize" => E::Lit(Value::int(32)),
            "INT_MAX" => E::Lit(Value::int(i32::MAX.into())),
            "INT_MIN" => E::Lit(Value::int(i32::MIN.into())),
            "UINT_MAX" => E::Lit(Value::uint(u32::MAX.into())),
            "FLT_MAX" => E::Lit(Value::Float(f32::MAX.into(), Scal::F32)),
            "NULL" => E::Lit(Value::Null),
            _ => E::Unsupported(format!("the name `{name}`")),
        }
    }

    fn field(&self, n: Node, line: usize) -> E {
        let arg = n.child_by_field_name("argument");
        let field = n.child_by_field_name("field").map(|f| self.text(f));
        // `block.group_index().x` and friends name the built-in vectors.
        let method = arg
            .filter(|a| a.kind() == "call_expression")
            .and_then(|a| a.child_by_field_name("function"))
            .filter(|f| f.kind() == "field_expression")
            .and_then(|f| f.child_by_field_name("field"))
            .map(|m| self.text(m));
        let dim = arg.and_then(|a| match method.unwrap_or(self.text(a)) {
            "threadIdx" | "thread_index" => Some(Dim3::ThreadIdx),
            "blockIdx" | "group_index" => Some(Dim3::BlockIdx),
            "blockDim" | "dim_threads" | "group_dim" => Some(Dim3::BlockDim),
            "gridDim" => Some(Dim3::GridDim),
            _ => None,
        });
        let _ = line;
        match (dim, field) {
            (Some(d), Some("x")) => E::Dim(d, 0),
            (Some(d), Some("y")) => E::Dim(d, 1),
            (Some(d), Some("z")) => E::Dim(d, 2),
            _ => self.member(n, line),
        }
    }

    /// `s.f` / `p->f` of a struct whose type is plain to see.
    fn member(&self, n: Node, line: usize) -> E {
        let what = || E::Unsupported(format!("the member access `{}`", short(self.text(n))));
        let (Some(arg), Some(field)) = (
            n.child_by_field_name("argument"),
            n.child_by_field_name("field"),
        ) else {
            return what();
        };
        let arrow = n
            .child_by_field_name("operator")
            .is_some_and(|o| self.text(o) == "->");
        let base = self.expr(arg);
        let sty = match (self.static_type(&base), arrow) {
            (Some(Ty::Struct(id, _)), false) => id,
            (Some(Ty::Ptr(t)), true) => match *t {
                Ty::Struct(id, _) => id,
                _ => return what(),
            },
            _ => return what(),
        };
        let fname = self.text(field);
        let Some((_, off, fty)) = self.structs[sty].fields.iter().find(|(f, _, _)| f == fname)
        else {
            return what();
        };
        let _ = line;
        E::Field(Box::new(base), *off, fty.clone())
    }

    /// `cg::tiled_partition<N>(g)`: a tile of N lanes (N a power of two up
    /// to 32); other template calls are not modelled.
    fn template_call(&self, f: Node, args: Vec<Ex>) -> E {
        let text = self.text(f);
        let (name, targs) = match text.find('<') {
            Some(i) => (text[..i].trim(), &text[i..]),
            None => (text, ""),
        };
        let name = name
            .strip_prefix("cg::")
            .or_else(|| name.strip_prefix("cooperative_groups::"))
            .unwrap_or(name);
        if matches!(name, "reinterpret_cast" | "static_cast") && args.len() == 1 {
            let ty = f
                .child_by_field_name("arguments")
                .ok_or_else(|| "a cast".to_string())
                .and_then(|a| self.targs(a));
            return match ty.as_deref() {
                Ok([TArg::Ty(t)]) => E::Cast(
                    t.clone(),
                    Box::new(args.into_iter().next().expect("one argument")),
                ),
                _ => E::Unsupported(format!("the cast `{}`", short(text))),
            };
        }
        if name == "tiled_partition" && args.len() == 1 {
            let n: Option<u32> = targs
                .trim_matches(|c| c == '<' || c == '>')
                .trim()
                .parse()
                .ok();
            return match n {
                Some(n) if n.is_power_of_two() && n <= 32 => E::Comma(
                    Box::new(args.into_iter().next().expect("one argument")),
                    Box::new(Ex {
                        e: E::Lit(Value::Group(n)),
                        line: self.line(f),
                    }),
                ),
                _ => E::Unsupported(format!("the tile `tiled_partition{targs}`")),
            };
        }
        if self.templates.contains_key(name) {
            let targs = f
                .child_by_field_name("arguments")
                .ok_or_else(|| "template arguments".to_string())
                .and_then(|a| self.targs(a))
                .and_then(|t| self.instantiate(name, t));
            return match targs {
                Ok(i) => E::Call(i, args),
                Err(e) => E::Unsupported(e),
            };
        }
        E::Unsupported(format!("the template call `{}`", short(text)))
    }

    fn call(&self, n: Node, line: usize) -> E {
        let Some(f) = n.child_by_field_name("function") else {
            return E::Unsupported("a call".into());
        };
        let mut args = Vec::new();
        if let Some(al) = n.child_by_field_name("arguments") {
            let mut c = al.walk();
            for a in al.named_children(&mut c) {
                if a.kind() != "comment" {
                    args.push(self.expr(a));
                }
            }
        }
        // A functional cast: `T(0)`, `float(x)`; and `(T)(x)`, a C cast the
        // grammar reads as a call through `(T)` when it does not know `T`.
        let type_name = match f.kind() {
            "parenthesized_expression" if f.named_child_count() == 1 => f
                .named_child(0)
                .filter(|t| matches!(t.kind(), "identifier" | "type_identifier")),
            _ => Some(f),
        };
        if let Some(tn) = type_name.filter(|tn| {
            matches!(
                tn.kind(),
                "identifier" | "primitive_type" | "type_identifier"
            ) && args.len() == 1
                && self.lookup(self.text(*tn)).is_none()
        }) {
            if let Ok(t) = self.base_type_text(self.text(tn)) {
                let a = args.into_iter().next().expect("one argument");
                return E::Cast(t, Box::new(a));
            }
        }
        let fname = match f.kind() {
            "identifier" => self.text(f).to_string(),
            "qualified_identifier" if self.text(f).contains('<') => {
                return self.template_call(f, args)
            }
            "qualified_identifier" => {
                let t = self.text(f);
                match t
                    .strip_prefix("std::")
                    .or_else(|| t.strip_prefix("::"))
                    .or_else(|| t.strip_prefix("cg::"))
                    .or_else(|| t.strip_prefix("cooperative_groups::"))
                {
                    Some(r) => r.to_string(),
                    None => return E::Unsupported(format!("the call of `{t}`")),
                }
            }
            "template_function" => return self.template_call(f, args),
            "field_expression" => {
                let obj = f.child_by_field_name("argument");
                let method = f.child_by_field_name("field").map(|m| self.text(m));
                let arrow = f
                    .child_by_field_name("operator")
                    .is_some_and(|o| self.text(o) == "->");
                return match (obj, method, arrow) {
                    (Some(o), Some(m), false) => {
                        E::GroupCall(Box::new(self.expr(o)), m.to_string(), args)
                    }
                    _ => E::Unsupported(format!("the call of `{}`", short(self.text(f)))),
                };
            }
            _ => return E::Unsupported(format!("the call of `{}`", short(self.text(f)))),
        };
        if let Some(t @ Ty::Struct(id, _)) = fname
            .strip_prefix("make_")
            .and_then(|v| self.typedefs.get(v))
        {
            if self.structs[*id].fields.len() == args.len() {
                return E::MakeStruct(t.clone(), args);
            }
            // `helper_math.h`'s `make_float4(float3 v, float w)`: a vector
            // argument gives its members in order.
            let spread = self.spread_vector_arguments(&args);
            if self.structs[*id].fields.len() == spread.len() {
                return E::MakeStruct(t.clone(), spread);
            }
        }
        if matches!(fname.as_str(), "sync" | "synchronize") && args.len() == 1 {
            let g = args.into_iter().next().expect("one argument");
            return E::GroupCall(Box::new(g), "sync".into(), Vec::new());
        }
        if self.templates.contains_key(&fname) {
            return match self.deduce(&fname, &args) {
                Ok(i) => E::Call(i, args),
                Err(e) => E::Unsupported(e),
            };
        }
        if let Some(cands) = self.fn_index.get(&fname) {
            let fitting: Vec<usize> = cands
                .iter()
                .copied()
                .filter(|i| self.fn_params[*i] == args.len())
                .collect();
            return match fitting.as_slice() {
                [one] => E::Call(*one, args),
                [] => E::Unsupported(format!("`{fname}` called with {} arguments", args.len())),
                _ => E::Unsupported(format!("the overloaded function `{fname}`")),
            };
        }
        if self.lookup(&fname).is_some() {
            return E::Unsupported(format!("a call through `{fname}`"));
        }
        let _ = line;
        E::Builtin(fname, args)
    }
}

impl Reader<'_> {
    /// The arguments with each one of a struct type replaced by its members
    /// (`v` of a `float3` by `v.x`, `v.y`, `v.z`).
    fn spread_vector_arguments(&self, args: &[Ex]) -> Vec<Ex> {
        let mut out = Vec::new();
        for a in args {
            match self.static_type(a) {
                Some(Ty::Struct(id, _)) => {
                    for (_, off, fty) in &self.structs[id].fields {
                        out.push(Ex {
                            e: E::Field(Box::new(a.clone()), *off, fty.clone()),
                            line: a.line,
                        });
                    }
                }
                _ => out.push(a.clone()),
            }
        }
        out
    }
}

fn short(t: &str) -> String {
    let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 40 {
        format!("{}...", one.chars().take(40).collect::<String>())
    } else {
        one
    }
}

fn bin_op(op: &str) -> Option<BinOp> {
    Some(match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "&" | "bitand" => BinOp::And,
        "|" | "bitor" => BinOp::Or,
        "^" | "xor" => BinOp::Xor,
        "<" => BinOp::Lt,
        ">" => BinOp::Gt,
        "<=" => BinOp::Le,
        ">=" => BinOp::Ge,
        "==" => BinOp::Eq,
        "!=" | "not_eq" => BinOp::Ne,
        "&&" | "and" => BinOp::LAnd,
        "||" | "or" => BinOp::LOr,
        _ => return None,
    })
}

pub fn sizeof(t: &Ty) -> Result<u64, String> {
    match t {
        Ty::S(s) => Ok(s.size()),
        Ty::Ptr(_) => Ok(8),
        Ty::Array(e, n) => Ok(sizeof(e)? * *n as u64),
        Ty::Void => Err("sizeof(void)".into()),
        Ty::Group => Err("sizeof of a cooperative group".into()),
        Ty::Struct(..) => Err("sizeof of a struct".into()),
    }
}

/// A C number literal with its type (tree-sitter reads a leading minus
/// into the literal: it is the operator applied to the literal).
fn number(t: &str) -> Option<Value> {
    if let Some(rest) = t.strip_prefix('-') {
        return crate::exec::unary(UnOp::Neg, unsigned_number(rest.trim_start())?).ok();
    }
    unsigned_number(t.strip_prefix('+').unwrap_or(t))
}

fn unsigned_number(t: &str) -> Option<Value> {
    let t = t.replace('\'', "");
    let lower = t.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let float_like =
        !is_hex && (lower.contains('.') || lower.contains('e') || lower.ends_with('f'));
    if float_like {
        let (body, s) = if let Some(b) = lower.strip_suffix('f') {
            (b, Scal::F32)
        } else if let Some(b) = lower.strip_suffix('l') {
            (b, Scal::F64)
        } else {
            (lower.as_str(), Scal::F64)
        };
        let v: f64 = body.parse().ok()?;
        let v = if s == Scal::F32 { v as f32 as f64 } else { v };
        return Some(Value::Float(v, s));
    }
    let digits = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[digits.len()..];
    let (v, decimal) = if let Some(h) = digits.strip_prefix("0x") {
        (u128::from_str_radix(h, 16).ok()?, false)
    } else if let Some(b) = digits.strip_prefix("0b") {
        (u128::from_str_radix(b, 2).ok()?, false)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (u128::from_str_radix(&digits[1..], 8).ok()?, false)
    } else {
        (digits.parse::<u128>().ok()?, true)
    };
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    let v = v as i128;
    // The first type of the standard's list that holds the value.
    let s = if !long && !unsigned && v <= i32::MAX as i128 {
        Scal::I32
    } else if !long && v <= u32::MAX as i128 && (unsigned || !decimal) {
        Scal::U32
    } else if !unsigned && v <= i64::MAX as i128 {
        Scal::I64
    } else {
        Scal::U64
    };
    Some(Value::Int(s.wrap(v), s))
}

/// The value of a constant expression, if it is one.
pub fn fold(e: &Ex) -> Option<Value> {
    match &e.e {
        E::Lit(v) => Some(v.clone()),
        E::Unary(op, a) => {
            let v = fold(a)?;
            crate::exec::unary(*op, v).ok()
        }
        E::Bin(op, a, b) => {
            let (x, y) = (fold(a)?, fold(b)?);
            match op {
                BinOp::LAnd => Some(Value::of_bool(x.truthy().ok()? && y.truthy().ok()?)),
                BinOp::LOr => Some(Value::of_bool(x.truthy().ok()? || y.truthy().ok()?)),
                _ => crate::value::arith(*op, &x, &y).ok(),
            }
        }
        E::Cond(c, a, b) => {
            if fold(c)?.truthy().ok()? {
                fold(a)
            } else {
                fold(b)
            }
        }
        E::Cast(t, a) => fold(a)?.convert(t).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_get_their_standard_types() {
        assert_eq!(number("7"), Some(Value::int(7)));
        assert_eq!(number("0xffffffff"), Some(Value::uint(0xffff_ffff)));
        assert_eq!(
            number("4294967295"),
            Some(Value::Int(4294967295, Scal::I64))
        );
        assert_eq!(number("1.5f"), Some(Value::Float(1.5, Scal::F32)));
        assert_eq!(number("2.0"), Some(Value::Float(2.0, Scal::F64)));
        assert_eq!(number("10u"), Some(Value::uint(10)));
    }

    #[test]
    fn kernels_are_listed_in_order() {
        let src = "__device__ int f() { return 1; }\n__global__ void a(int* x) {}\nvoid h() {}\n__global__ void b() {}\n";
        assert_eq!(kernel_names(src), ["a", "b"]);
    }
}
