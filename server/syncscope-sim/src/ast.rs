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

pub struct Program {
    pub funcs: Vec<Func>,
    pub vars: Vec<VarDef>,
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
fn function_nodes<'t>(root: Node<'t>, out: &mut Vec<(Node<'t>, bool)>, templ: bool) {
    let mut c = root.walk();
    for ch in root.named_children(&mut c) {
        match ch.kind() {
            "function_definition" => out.push((ch, templ)),
            "template_declaration" => function_nodes(ch, out, true),
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
    function_nodes(tree.root_node(), &mut fns, false);
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

struct Reader<'a> {
    src: &'a [u8],
    lines: &'a [usize],
    typedefs: HashMap<String, Ty>,
    globals: HashMap<String, Binding>,
    vars: Vec<VarDef>,
    fn_index: HashMap<String, Vec<usize>>,
    fn_params: Vec<usize>,
    scopes: Vec<HashMap<String, Binding>>,
    slots: usize,
    decls: usize,
}

impl Program {
    pub fn read(text: &Text) -> Result<Program, String> {
        let tree = parse(&text.text).ok_or("the parser failed")?;
        let root = tree.root_node();
        let src = text.text.as_bytes();
        let mut r = Reader {
            src,
            lines: &text.lines,
            typedefs: HashMap::new(),
            globals: HashMap::new(),
            vars: Vec::new(),
            fn_index: HashMap::new(),
            fn_params: Vec::new(),
            scopes: Vec::new(),
            slots: 0,
            decls: 0,
        };
        r.file_scope(root);
        let mut fnodes = Vec::new();
        function_nodes(root, &mut fnodes, false);
        for (i, (f, _)) in fnodes.iter().enumerate() {
            let name = function_name(*f, src).unwrap_or_default();
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
        let mut funcs = Vec::new();
        for (f, templ) in fnodes {
            funcs.push(r.function(f, templ));
        }
        Ok(Program {
            funcs,
            vars: r.vars,
        })
    }
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
            if value.is_some() {
                // An initialised `__device__`/`__constant__` variable: its
                // initial contents are not modelled; using it is
                // unsupported rather than wrong.
                continue;
            }
            let dynamic = is_extern && matches!(ty, Ty::Array(_, 0));
            self.vars.push(VarDef {
                name: name.clone(),
                ty,
                space: if shared { Space::Shared } else { Space::Global },
                dynamic,
            });
            self.globals.insert(name, Binding::Var(self.vars.len() - 1));
        }
    }

    fn base_type(&self, t: Node) -> Result<Ty, String> {
        let text = self.text(t);
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace())
            .filter(|w| !w.is_empty())
            .filter(|w| {
                !matches!(
                    *w,
                    "const" | "volatile" | "__restrict__" | "static" | "inline"
                )
            })
            .collect();
        let joined = words.join(" ");
        if let Some(ty) = self.typedefs.get(&joined) {
            return Ok(ty.clone());
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
            | "int64_t" | "ptrdiff_t" | "ssize_t" | "intptr_t" | "signed long" => Scal::I64,
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

    fn function(&mut self, f: Node, templ: bool) -> Func {
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
        self.scopes = vec![HashMap::new()];
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
                        self.scopes[0].insert(pname.clone(), Binding::Local(slot));
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
            "labeled_statement" => S::Unsupported("a labelled statement (goto)".into()),
            "goto_statement" => S::Unsupported("goto".into()),
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
            if auto {
                return S::Unsupported("auto".into());
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
                    return E::Assign(None, l, r);
                }
                match bin_op(op.trim_end_matches('=')) {
                    Some(b) => E::Assign(Some(b), l, r),
                    None => E::Unsupported(format!("the operator `{op}`")),
                }
            }
            "conditional_expression" => E::Cond(
                self.bx(n.child_by_field_name("condition"), line),
                self.bx(n.child_by_field_name("consequence"), line),
                self.bx(n.child_by_field_name("alternative"), line),
            ),
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
            "string_literal" => E::Unsupported("a string".into()),
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
        let dim = arg.and_then(|a| match self.text(a) {
            "threadIdx" => Some(Dim3::ThreadIdx),
            "blockIdx" => Some(Dim3::BlockIdx),
            "blockDim" => Some(Dim3::BlockDim),
            "gridDim" => Some(Dim3::GridDim),
            _ => None,
        });
        let _ = line;
        match (dim, field) {
            (Some(d), Some("x")) => E::Dim(d, 0),
            (Some(d), Some("y")) => E::Dim(d, 1),
            (Some(d), Some("z")) => E::Dim(d, 2),
            _ => E::Unsupported(format!("the member access `{}`", short(self.text(n)))),
        }
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
        let fname = match f.kind() {
            "identifier" => self.text(f).to_string(),
            "qualified_identifier" => {
                let t = self.text(f);
                match t.strip_prefix("std::").or_else(|| t.strip_prefix("::")) {
                    Some(r) => r.to_string(),
                    None => return E::Unsupported(format!("the call of `{t}`")),
                }
            }
            "template_function" => {
                return E::Unsupported(format!("the template call `{}`", short(self.text(f))))
            }
            _ => return E::Unsupported(format!("the call of `{}`", short(self.text(f)))),
        };
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
    }
}

/// A C number literal with its type.
fn number(t: &str) -> Option<Value> {
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
