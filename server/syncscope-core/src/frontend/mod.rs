//! Front end: the tree-sitter tree of a file → one [`Kernel`] model per
//! `__global__` function.
//!
//! Two stages: [`collect`] walks the translation unit once for what kernels
//! refer to (macros, `__device__` functions, constants, enums, global arrays,
//! template instantiations), honouring `#if`/`#ifdef` with the known macros;
//! then [`lower`] symbolically executes each kernel body into the model.

mod lower;

use crate::model::Kernel;
use crate::options::Options;
use crate::report::Span;
use crate::syntax::{
    declarator_name, function_name, has_qualifier, has_token, node_text, FieldExt,
};
use std::collections::HashMap;
use tree_sitter::Node;

pub use lower::lower_kernel;

/// A `#define`.
#[derive(Clone, Debug)]
pub struct Macro {
    pub params: Option<Vec<String>>,
    pub body: String,
}

/// A `template <int N = 64>` parameter of a kernel or device function.
#[derive(Clone, Debug)]
pub struct TemplateParam {
    pub name: String,
    pub default: Option<String>,
    /// `typename T` / `class T`: a type, never a value (`T(0)` is a cast).
    pub is_type: bool,
}

#[derive(Clone, Debug)]
pub struct FunctionDef<'t> {
    pub name: String,
    pub node: Node<'t>,
    pub is_kernel: bool,
    pub template_params: Vec<TemplateParam>,
}

/// A data member of a struct or class.
#[derive(Clone, Debug)]
pub struct StructField {
    pub name: String,
    /// The struct type of a by-value member (`Inner in;`), if it is one of
    /// the file's modelled structs.
    pub struct_type: Option<String>,
    /// An array member: a thread-private aggregate inside the object.
    pub array: bool,
    /// A pointer member.
    pub pointer: bool,
}

/// A struct or class defined in the file whose objects the front end can
/// model: no base classes, not a template.
#[derive(Clone, Debug, Default)]
pub struct StructDef<'t> {
    pub name: String,
    /// Non-static data members, in declaration order.
    pub fields: Vec<StructField>,
    /// Member functions with a body (in the class or out of line), by name;
    /// constructors under the struct's own name. Each `FunctionDef::name` is
    /// `Struct::method`.
    pub methods: HashMap<String, Vec<FunctionDef<'t>>>,
    /// Member functions declared in the class (with or without a body).
    pub declared: Vec<String>,
    pub has_destructor: bool,
    pub has_constructor: bool,
}

#[derive(Clone, Debug)]
pub struct GlobalArray<'t> {
    pub name: String,
    pub declarator: Node<'t>,
    pub constant: bool,
}

/// Everything at file level that a kernel may refer to.
#[derive(Default)]
pub struct FileContext<'t> {
    pub macros: HashMap<String, Macro>,
    pub functions: HashMap<String, FunctionDef<'t>>,
    pub kernels: Vec<FunctionDef<'t>>,
    /// Integer constants: `const int`, `constexpr`, enumerators (source text of the value).
    pub constants: HashMap<String, Node<'t>>,
    pub enumerators: HashMap<String, i64>,
    pub global_arrays: Vec<GlobalArray<'t>>,
    /// Structs and classes whose objects can be modelled, by name.
    pub structs: HashMap<String, StructDef<'t>>,
    /// Explicit instantiations: kernel name → list of template argument lists.
    pub instantiations: HashMap<String, Vec<Vec<String>>>,
    /// Object-like macros already expanded to a constant (shared by kernels,
    /// which may be lowered on several threads).
    pub macro_constants: std::sync::Mutex<HashMap<String, i64>>,
    /// Launch dimensions mentioned by device functions and macros.
    pub helper_dims: std::sync::OnceLock<([bool; 3], [bool; 3])>,
}

/// Lowers every kernel of a file. Each result pairs a kernel model with its
/// definition span; a kernel whose lowering panicked is reported by the caller.
///
/// Files with many kernels are lowered on several threads (kernels are
/// independent given the file context); the result is in source order.
pub fn lower_file(text: &str, tree: &tree_sitter::Tree, options: &Options) -> Vec<Kernel> {
    let cx = collect(text, tree.root_node(), options);
    let workers = crate::parallel::cores()
        .min(cx.kernels.len() / PARALLEL_MIN_KERNELS)
        .min(8);
    if workers <= 1 {
        return cx
            .kernels
            .iter()
            .map(|k| lower_kernel(text, &cx, k, options))
            .collect();
    }
    crate::parallel::parallel_map(&cx.kernels, workers, crate::parallel::ANALYSIS_STACK, |k| {
        lower_kernel(text, &cx, k, options)
    })
}

/// Fewest kernels per lowering thread (below it a thread costs more than it
/// saves).
const PARALLEL_MIN_KERNELS: usize = 16;

/// Kernel names and definition spans only (cheap; used to map edits to kernels).
pub fn kernel_spans(text: &str, tree: &tree_sitter::Tree) -> Vec<(String, Span)> {
    let cx = collect(text, tree.root_node(), &Options::default());
    cx.kernels
        .iter()
        .map(|k| (k.name.clone(), Span::from_node(&k.node)))
        .collect()
}

/// The macros nvcc defines for the device pass of a file.
pub fn device_pass_macros(options: &Options) -> Vec<(String, String)> {
    vec![
        ("__CUDACC__".into(), "1".into()),
        ("__NVCC__".into(), "1".into()),
        ("__CUDA_ARCH__".into(), options.cuda_arch.to_string()),
    ]
}

/// Walks the top level (and namespaces, `extern "C"`, taken preprocessor branches).
pub fn collect<'t>(text: &str, root: Node<'t>, options: &Options) -> FileContext<'t> {
    let mut cx = FileContext::default();
    // The device pass of nvcc: `__CUDACC__` and `__CUDA_ARCH__` are defined,
    // so code under `#if __CUDA_ARCH__ >= 700` is what the kernel runs. A
    // `-D` of the same name wins (inserted below).
    for (name, value) in device_pass_macros(options) {
        cx.macros.insert(
            name,
            Macro {
                params: None,
                body: value,
            },
        );
    }
    for (name, value) in &options.defines {
        cx.macros.insert(
            name.clone(),
            Macro {
                params: None,
                body: value.clone(),
            },
        );
    }
    // Iterative, with an explicit stack: hostile input may nest deeply.
    let mut stack = vec![(root, Vec::<TemplateParam>::new())];
    while let Some((node, tparams)) = stack.pop() {
        let mut items = Vec::new();
        match node.kind() {
            "translation_unit" | "declaration_list" => {
                let mut c = node.walk();
                items.extend(node.named_children(&mut c));
            }
            "namespace_definition" | "linkage_specification" => {
                if let Some(body) = node.field("body") {
                    if body.kind() == "declaration_list" {
                        let mut c = body.walk();
                        items.extend(body.named_children(&mut c));
                    } else {
                        items.push(body);
                    }
                }
            }
            k if k.starts_with("preproc_if") || k == "preproc_else" || k == "preproc_elif" => {
                items.extend(preproc_branch(text, node, &cx.macros));
            }
            "template_declaration" => {
                let params = template_params(text, node);
                let mut c = node.walk();
                for child in node.named_children(&mut c) {
                    if child.kind() != "template_parameter_list" {
                        stack.push((child, params.clone()));
                    }
                }
                continue;
            }
            _ => {
                // Depth-first in source order: a macro is known before the
                // `#if` that tests it.
                collect_item(text, node, tparams, &mut cx);
                continue;
            }
        }
        for item in items.into_iter().rev() {
            stack.push((item, tparams.clone()));
        }
    }
    cx
}

fn collect_item<'t>(
    text: &str,
    node: Node<'t>,
    tparams: Vec<TemplateParam>,
    cx: &mut FileContext<'t>,
) {
    match node.kind() {
        "preproc_def" | "preproc_function_def" => {
            if let Some((name, m)) = macro_def(text, node) {
                cx.macros.insert(name, m);
            }
        }
        "function_definition" => {
            if let Some((owner, method)) = member_definition(text, node, cx) {
                let def = FunctionDef {
                    name: format!("{owner}::{method}"),
                    node,
                    is_kernel: false,
                    template_params: tparams,
                };
                if let Some(sd) = cx.structs.get_mut(&owner) {
                    if method == owner {
                        sd.has_constructor = true;
                    }
                    sd.methods.entry(method).or_default().push(def);
                }
                return;
            }
            let Some(name) = function_name(text, node) else {
                return;
            };
            let is_kernel = has_token(node, "__global__");
            let def = FunctionDef {
                name: name.clone(),
                node,
                is_kernel,
                template_params: tparams,
            };
            if is_kernel {
                cx.kernels.push(def.clone());
            }
            cx.functions.insert(name, def);
        }
        "template_instantiation" => {
            if let Some(decl) = node.field("declarator") {
                if let Some((name, args)) = instantiation(text, decl) {
                    cx.instantiations.entry(name).or_default().push(args);
                }
            }
        }
        "struct_specifier" | "class_specifier" if tparams.is_empty() => {
            collect_struct(text, node, None, cx);
        }
        "type_definition" => {
            // `typedef struct { ... } Acc;`
            if let Some(ty) = node.field("type") {
                let mut c = node.walk();
                let alias = node
                    .children_by_field_name("declarator", &mut c)
                    .find(|d| d.kind() == "type_identifier")
                    .map(|d| node_text(text, d).to_string());
                if matches!(ty.kind(), "struct_specifier" | "class_specifier") {
                    collect_struct(text, ty, alias, cx);
                }
            }
            collect_enums(text, node, cx);
        }
        "declaration" => {
            if let Some(ty) = node.field("type") {
                // `struct Acc { ... } acc;`
                if matches!(ty.kind(), "struct_specifier" | "class_specifier") && tparams.is_empty()
                {
                    collect_struct(text, ty, None, cx);
                }
            }
            let is_shared = has_qualifier(text, node, "__shared__");
            let is_device = has_qualifier(text, node, "__device__");
            let is_constant = has_qualifier(text, node, "__constant__");
            let is_const =
                has_qualifier(text, node, "const") || has_qualifier(text, node, "constexpr");
            collect_enums(text, node, cx);
            let mut c = node.walk();
            for d in node.children_by_field_name("declarator", &mut c) {
                let (inner, value) = if d.kind() == "init_declarator" {
                    (d.field("declarator"), d.field("value"))
                } else {
                    (Some(d), None)
                };
                let Some(inner) = inner else { continue };
                let is_array = inner.kind() == "array_declarator";
                if (is_device || is_constant || is_shared) && (is_array || is_shared) {
                    if let Some(name) = declarator_name(text, inner) {
                        cx.global_arrays.push(GlobalArray {
                            name,
                            declarator: inner,
                            constant: is_constant,
                        });
                    }
                } else if is_const && inner.kind() == "identifier" {
                    if let Some(v) = value {
                        cx.constants.insert(node_text(text, inner).to_string(), v);
                    }
                } else if is_device && inner.kind() == "identifier" {
                    // A `__device__ int counter;` global scalar: an array of one.
                    cx.global_arrays.push(GlobalArray {
                        name: node_text(text, inner).to_string(),
                        declarator: inner,
                        constant: false,
                    });
                }
            }
        }
        "enum_specifier" => collect_enums(text, node, cx),
        _ => {}
    }
}

/// Records a struct or class definition (with a body) whose objects the front
/// end can model. One with base classes is left out: its members are not all
/// known, and a method call on its objects is reported as not verified.
fn collect_struct<'t>(text: &str, spec: Node<'t>, alias: Option<String>, cx: &mut FileContext<'t>) {
    let Some(body) = spec.field("body") else {
        return;
    };
    let Some(name) = spec
        .field("name")
        .map(|n| node_text(text, n).to_string())
        .or(alias)
    else {
        return;
    };
    let mut c = spec.walk();
    if spec
        .children(&mut c)
        .any(|ch| ch.kind() == "base_class_clause")
    {
        return;
    }
    collect_enums(text, body, cx);
    let mut sd = StructDef {
        name: name.clone(),
        ..Default::default()
    };
    let mut c = body.walk();
    let members: Vec<Node<'t>> = body.named_children(&mut c).collect();
    for m in members {
        let m = if m.kind() == "template_declaration" {
            let mut c2 = m.walk();
            let inner = m
                .named_children(&mut c2)
                .find(|ch| ch.kind() != "template_parameter_list");
            match inner {
                Some(i) => i,
                None => continue,
            }
        } else {
            m
        };
        match m.kind() {
            "function_definition" => {
                let decl = m.field("declarator");
                if decl.is_some_and(|d| contains_destructor(d)) {
                    sd.has_destructor = true;
                    continue;
                }
                let Some(mname) = function_name(text, m) else {
                    continue;
                };
                if mname == name {
                    sd.has_constructor = true;
                }
                sd.declared.push(mname.clone());
                sd.methods
                    .entry(mname.clone())
                    .or_default()
                    .push(FunctionDef {
                        name: format!("{name}::{mname}"),
                        node: m,
                        is_kernel: false,
                        template_params: Vec::new(),
                    });
            }
            "field_declaration" | "declaration" => {
                if has_qualifier(text, m, "static") {
                    continue;
                }
                let ty = m.field("type");
                let mut c2 = m.walk();
                let decls: Vec<Node> = m.children_by_field_name("declarator", &mut c2).collect();
                for d in decls {
                    if contains_destructor(d) {
                        sd.has_destructor = true;
                        continue;
                    }
                    if is_function_declarator(d) {
                        // A member function declared here, defined out of line.
                        if let Some(n) = declarator_name(text, d) {
                            if n == name {
                                sd.has_constructor = true;
                            }
                            sd.declared.push(n);
                        }
                        continue;
                    }
                    let Some(fname) = declarator_name(text, d) else {
                        continue;
                    };
                    let array = declarator_kinds(d).contains(&"array_declarator");
                    let by_value = !declarator_kinds(d)
                        .iter()
                        .any(|k| matches!(*k, "pointer_declarator" | "reference_declarator"));
                    let struct_type = ty
                        .filter(|_| by_value && !array)
                        .and_then(|t| struct_type_name(text, t))
                        .filter(|t| cx.structs.contains_key(t));
                    let pointer = declarator_kinds(d).contains(&"pointer_declarator");
                    sd.fields.push(StructField {
                        name: fname,
                        struct_type,
                        array,
                        pointer,
                    });
                }
            }
            _ => {}
        }
    }
    cx.structs.insert(name, sd);
}

/// The struct name a type node names (`Acc`, `struct Acc`, `ns::Acc`).
pub fn struct_type_name(text: &str, ty: Node) -> Option<String> {
    match ty.kind() {
        "type_identifier" => Some(node_text(text, ty).to_string()),
        "struct_specifier" | "class_specifier" => {
            ty.field("name").and_then(|n| struct_type_name(text, n))
        }
        "qualified_identifier" => ty.field("name").and_then(|n| struct_type_name(text, n)),
        _ => None,
    }
}

/// `Acc::put` in `void Acc::put(...) { ... }` for a struct of the file:
/// (owner, method).
fn member_definition(text: &str, def: Node, cx: &FileContext) -> Option<(String, String)> {
    let mut d = def.field("declarator")?;
    for _ in 0..8 {
        match d.kind() {
            "function_declarator" | "pointer_declarator" | "reference_declarator" => {
                d = d.field("declarator")?;
            }
            "qualified_identifier" => {
                let owner = node_text(text, d.field("scope")?).to_string();
                let name = d.field("name")?;
                if !cx.structs.contains_key(&owner) {
                    return None;
                }
                if name.kind() == "destructor_name" {
                    return None;
                }
                return Some((owner, node_text(text, name).to_string()));
            }
            _ => return None,
        }
    }
    None
}

/// The kinds along a declarator's chain (`*p[4]`: pointer, array, ...).
fn declarator_kinds(d: Node) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut cur = Some(d);
    for _ in 0..64 {
        let Some(n) = cur else { break };
        out.push(n.kind());
        cur = n.field("declarator");
    }
    out
}

fn is_function_declarator(d: Node) -> bool {
    declarator_kinds(d).contains(&"function_declarator")
}

fn contains_destructor(d: Node) -> bool {
    let mut stack = vec![d];
    while let Some(n) = stack.pop() {
        if n.kind() == "destructor_name" {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

fn collect_enums(text: &str, node: Node, cx: &mut FileContext) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "enumerator_list" {
            let mut next = 0i64;
            let mut c = n.walk();
            for e in n.named_children(&mut c) {
                if e.kind() != "enumerator" {
                    continue;
                }
                let Some(name) = e.field("name") else {
                    continue;
                };
                if let Some(v) = e.field("value") {
                    if let Some(val) = const_eval(text, v, &cx.macros, &cx.enumerators) {
                        next = val;
                    }
                }
                cx.enumerators
                    .insert(node_text(text, name).to_string(), next);
                next = next.wrapping_add(1);
            }
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}

pub fn macro_def(text: &str, node: Node) -> Option<(String, Macro)> {
    let name = node_text(text, node.field("name")?).to_string();
    let body = node
        .field("value")
        .map(|v| node_text(text, v).trim().to_string())
        .unwrap_or_default();
    let params = node.field("parameters").map(|p| {
        let mut c = p.walk();
        p.named_children(&mut c)
            .map(|n| node_text(text, n).to_string())
            .collect()
    });
    Some((name, Macro { params, body }))
}

/// The items of the taken branch of a preprocessor conditional.
pub fn preproc_branch<'t>(
    text: &str,
    node: Node<'t>,
    macros: &HashMap<String, Macro>,
) -> Vec<Node<'t>> {
    let taken = match node.kind() {
        "preproc_ifdef" => {
            let name = node.field("name").map(|n| node_text(text, n)).unwrap_or("");
            let defined = macros.contains_key(name);
            let negate = node
                .child(0)
                .map(|c| node_text(text, c).starts_with("#ifndef"))
                .unwrap_or(false);
            defined != negate
        }
        "preproc_if" | "preproc_elif" => node
            .field("condition")
            .and_then(|c| const_eval(text, c, macros, &HashMap::new()))
            .map(|v| v != 0)
            .unwrap_or(false),
        "preproc_else" => true,
        _ => false,
    };
    if taken {
        let mut out = Vec::new();
        let mut c = node.walk();
        for (i, child) in node.children(&mut c).enumerate() {
            let field = node.field_name_for_child(i as u32);
            if child.is_named() && !matches!(field, Some("condition" | "name" | "alternative")) {
                out.push(child);
            }
        }
        out
    } else if let Some(alt) = node.field("alternative") {
        preproc_branch(text, alt, macros)
    } else {
        Vec::new()
    }
}

/// Evaluates a constant expression (preprocessor conditions, enumerators,
/// array sizes). Unknown identifiers are 0 in `#if`, as in C.
pub fn const_eval(
    text: &str,
    node: Node,
    macros: &HashMap<String, Macro>,
    enums: &HashMap<String, i64>,
) -> Option<i64> {
    const_eval_depth(text, node, macros, enums, 0)
}

fn const_eval_depth(
    text: &str,
    node: Node,
    macros: &HashMap<String, Macro>,
    enums: &HashMap<String, i64>,
    depth: usize,
) -> Option<i64> {
    if depth > 64 {
        return None;
    }
    let ev = |n: Node| const_eval_depth(text, n, macros, enums, depth + 1);
    match node.kind() {
        "number_literal" => parse_int(node_text(text, node)),
        "char_literal" => node_text(text, node).chars().nth(1).map(|c| c as i64),
        "true" => Some(1),
        "false" => Some(0),
        "parenthesized_expression" => ev(node.named_child(0)?),
        "preproc_defined" => {
            let mut c = node.walk();
            let name = node.named_children(&mut c).next()?;
            Some(macros.contains_key(node_text(text, name)) as i64)
        }
        "identifier" => {
            let name = node_text(text, node);
            if let Some(v) = enums.get(name) {
                return Some(*v);
            }
            match macros.get(name) {
                Some(m) if m.params.is_none() => {
                    if m.body.is_empty() {
                        return Some(0);
                    }
                    let tree = crate::syntax::parse(&format!("int __v = ({});", m.body), None);
                    let decl = tree.root_node().named_child(0)?;
                    let init = decl.field("declarator")?;
                    let value = init.field("value")?;
                    let src = format!("int __v = ({});", m.body);
                    const_eval_depth(&src, value, macros, enums, depth + 1)
                }
                _ => Some(0),
            }
        }
        "unary_expression" => {
            let v = ev(node.field("argument")?)?;
            match node_text(text, node.field("operator")?) {
                "-" => v.checked_neg(),
                "+" => Some(v),
                "!" => Some((v == 0) as i64),
                "~" => Some(!v),
                _ => None,
            }
        }
        "binary_expression" => {
            let a = ev(node.field("left")?)?;
            let b = ev(node.field("right")?)?;
            let op = node_text(text, node.field("operator")?);
            crate::model::fold(binop(op)?, a, b)
        }
        "conditional_expression" => {
            let c = ev(node.field("condition")?)?;
            if c != 0 {
                ev(node.field("consequence")?)
            } else {
                ev(node.field("alternative")?)
            }
        }
        "cast_expression" => ev(node.field("value")?),
        _ => None,
    }
}

pub fn binop(op: &str) -> Option<crate::model::BinOp> {
    use crate::model::BinOp::*;
    Some(match op {
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        "%" => Rem,
        "<<" => Shl,
        ">>" => Shr,
        "&" => BitAnd,
        "|" => BitOr,
        "^" => BitXor,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "==" => Eq,
        "!=" => Ne,
        "&&" => And,
        "||" => Or,
        _ => return None,
    })
}

/// Parses a C integer literal (decimal, hex, octal, binary; `u`/`l` suffixes).
/// Floating literals and out-of-range values give `None`.
pub fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim().replace('\'', "");
    let lower = s.to_ascii_lowercase();
    let digits = lower.trim_end_matches(['u', 'l']);
    if let Some(hex) = digits.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if digits.contains(['.', 'e', 'f', 'p']) {
        return None;
    }
    if let Some(bin) = digits.strip_prefix("0b") {
        return i64::from_str_radix(bin, 2).ok();
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return i64::from_str_radix(&digits[1..], 8).ok();
    }
    digits.parse().ok()
}

fn template_params(text: &str, node: Node) -> Vec<TemplateParam> {
    let mut out = Vec::new();
    let Some(list) = node.field("parameters") else {
        return out;
    };
    let mut c = list.walk();
    for p in list.named_children(&mut c) {
        let name = p
            .field("declarator")
            .and_then(|d| declarator_name(text, d))
            .or_else(|| {
                let mut c2 = p.walk();
                let n = p
                    .named_children(&mut c2)
                    .find(|n| n.kind() == "type_identifier" || n.kind() == "identifier")
                    .map(|n| node_text(text, n).to_string());
                n
            });
        let default = p
            .field("default_value")
            .or_else(|| p.field("default_type"))
            .map(|d| node_text(text, d).to_string());
        let is_type = p.kind().contains("type_parameter");
        if let Some(name) = name {
            out.push(TemplateParam {
                name,
                default,
                is_type,
            });
        }
    }
    out
}

fn instantiation(text: &str, decl: Node) -> Option<(String, Vec<String>)> {
    let mut d = decl;
    for _ in 0..8 {
        if d.kind() == "template_function" {
            let name = node_text(text, d.field("name")?).to_string();
            let args = d.field("arguments")?;
            let mut c = args.walk();
            let list = args
                .named_children(&mut c)
                .map(|a| node_text(text, a).to_string())
                .collect();
            return Some((name, list));
        }
        d = d.field("declarator")?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_literals() {
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int("010"), Some(8));
        assert_eq!(parse_int("256u"), Some(256));
        assert_eq!(parse_int("1.0f"), None);
        assert_eq!(parse_int("99999999999999999999999"), None);
    }

    #[test]
    fn collects_kernels_macros_and_taken_branches() {
        let src = "#define A 1\n#if A\n__global__ void k1() {}\n#else\n__global__ void k2() {}\n#endif\n#ifndef B\n__device__ int f() { return 1; }\n#endif\nnamespace n { __global__ void k3() {} }\n";
        let tree = crate::syntax::parse(src, None);
        let cx = collect(src, tree.root_node(), &Options::default());
        let names: Vec<_> = cx.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["k1", "k3"]);
        assert!(cx.functions.contains_key("f"));
    }
}
