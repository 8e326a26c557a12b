//! File-level collection: one walk over the translation unit for what
//! kernels refer to (`__device__` functions, structs, enums, constants,
//! global arrays, template instantiations), honouring `#if`/`#ifdef` with the
//! known macros. Must not lower kernel bodies (that is `lower`).

use super::*;

/// Walks the top level (and namespaces, `extern "C"`, taken preprocessor branches).
pub(crate) fn collect<'t>(text: &str, root: Node<'t>, options: &Options) -> FileContext<'t> {
    let mut cx = FileContext {
        source: std::sync::Arc::from(text),
        mentions_atomic_types: super::lower::mentions_atomic_types(text),
        skipped_branches: options.skipped_branches.clone(),
        ..Default::default()
    };
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

pub(super) fn collect_item<'t>(
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
            collect_class_method(text, node, &tparams, cx);
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
            // kernels.scm says which definitions are kernels; which
            // definitions exist is this walk's (a query sees the branches
            // of `#if` that the preprocessor drops too).
            let is_kernel = crate::syntax::queries::is_kernel(node, text);
            let def = FunctionDef {
                name: name.clone(),
                node,
                is_kernel,
                template_params: tparams,
            };
            if is_kernel {
                cx.kernels.push(def.clone());
            }
            if let Some(earlier) = cx.functions.insert(name.clone(), def.clone()) {
                let all = cx.overloads.entry(name).or_default();
                if all.is_empty() {
                    all.push(earlier);
                }
                all.push(def);
            }
        }
        "template_instantiation" => {
            if let Some(decl) = node.field("declarator") {
                if let Some((name, args)) = instantiation(text, decl) {
                    cx.instantiations.entry(name).or_default().push(args);
                }
            }
        }
        "union_specifier" => {
            if let (Some(name), Some(_)) = (node.field("name"), node.field("body")) {
                cx.unions.insert(node_text(text, name).to_string(), node);
            }
        }
        "struct_specifier" | "class_specifier" => {
            collect_conversion(text, node, &tparams, cx);
            collect_class(text, node, &tparams, cx);
            if tparams.is_empty() {
                collect_struct(text, node, None, cx);
            }
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
                } else if ty.kind() == "union_specifier" && ty.field("body").is_some() {
                    if let Some(alias) = alias {
                        cx.unions.insert(alias, ty);
                    }
                } else if let Some(alias) = alias {
                    collect_scalar_typedef(text, ty, alias, cx);
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
                if ty.kind() == "union_specifier" && ty.field("body").is_some() {
                    if let Some(name) = ty.field("name") {
                        cx.unions.insert(node_text(text, name).to_string(), ty);
                    }
                }
            }
            let is_shared = has_qualifier(text, node, "__shared__");
            let is_device = has_qualifier(text, node, "__device__");
            let is_constant = has_qualifier(text, node, "__constant__");
            let is_const =
                has_qualifier(text, node, "const") || has_qualifier(text, node, "constexpr");
            let elem_type = node
                .field("type")
                .map(|t| node_text(text, t).to_string())
                .unwrap_or_default();
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
                            shared: is_shared,
                            dynamic: is_shared && has_qualifier(text, node, "extern"),
                            elem_type: elem_type.clone(),
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
                        shared: false,
                        dynamic: false,
                        elem_type: elem_type.clone(),
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
/// The first `operator T*()` defined in a struct (or struct template) body.
fn collect_conversion<'t>(
    text: &str,
    spec: Node<'t>,
    tparams: &[TemplateParam],
    cx: &mut FileContext<'t>,
) {
    let (Some(body), Some(name)) = (spec.field("body"), spec.field("name")) else {
        return;
    };
    // `SharedMemory<double>` (a specialisation) is `SharedMemory`.
    let name = node_text(text, name);
    let name = name.split('<').next().unwrap_or(name).trim().to_string();
    let mut c = body.walk();
    for m in body.named_children(&mut c) {
        let is_conversion = m.kind() == "function_definition"
            && m.field("declarator").is_some_and(|d| {
                crate::syntax::contains_kind(d, "operator_cast") || d.kind() == "operator_cast"
            })
            && m.field("body").is_some();
        if is_conversion && !cx.conversions.contains_key(&name) {
            cx.conversions.insert(
                name.clone(),
                FunctionDef {
                    name: format!("{name}::operator"),
                    node: m,
                    is_kernel: false,
                    template_params: tparams.to_vec(),
                },
            );
        }
    }
}

pub(super) fn collect_struct<'t>(
    text: &str,
    spec: Node<'t>,
    alias: Option<String>,
    cx: &mut FileContext<'t>,
) {
    let Some(body) = spec.field("body") else {
        return;
    };
    let Some(name) = spec
        .field("name")
        .map(|n| type_text(node_text(text, n)))
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
    let sd = struct_members(text, body, &name, cx).0;
    cx.structs.insert(name, sd);
}

/// Records any class or struct definition with a body (a template, one with
/// base classes) in `FileContext::classes`: the types of objects that live
/// in memory.
pub(super) fn collect_class<'t>(
    text: &str,
    spec: Node<'t>,
    tparams: &[TemplateParam],
    cx: &mut FileContext<'t>,
) {
    let (Some(body), Some(name)) = (spec.field("body"), spec.field("name")) else {
        return;
    };
    let name = type_text(node_text(text, name));
    let mut bases = Vec::new();
    let mut c = spec.walk();
    for clause in spec
        .children(&mut c)
        .filter(|ch| ch.kind() == "base_class_clause")
    {
        let mut c2 = clause.walk();
        for b in clause.named_children(&mut c2) {
            if matches!(
                b.kind(),
                "type_identifier" | "template_type" | "qualified_identifier"
            ) {
                bases.push(type_text(node_text(text, b)));
            }
        }
    }
    let (members, virtuals) = struct_members(text, body, &name, cx);
    cx.classes.insert(
        name,
        ClassDef {
            members,
            bases,
            template_params: tparams.iter().map(|p| p.name.clone()).collect(),
            virtuals,
        },
    );
}

/// Whether a member declaration says `virtual`.
fn is_virtual_member(text: &str, m: Node) -> bool {
    let mut c = m.walk();
    let found = m
        .children(&mut c)
        .any(|ch| ch.kind() == "virtual" || node_text(text, ch) == "virtual");
    found
}

/// The data members and member functions of a struct body, and the member
/// functions it declares `virtual`.
fn struct_members<'t>(
    text: &str,
    body: Node<'t>,
    name: &str,
    cx: &mut FileContext<'t>,
) -> (StructDef<'t>, Vec<String>) {
    let mut virtuals = Vec::new();
    let mut sd = StructDef::default();
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
        let is_virtual = is_virtual_member(text, m);
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
                if is_virtual {
                    virtuals.push(mname.clone());
                }
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
                            if is_virtual {
                                virtuals.push(n.clone());
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
                    let mut dims = Vec::new();
                    let mut a = Some(d);
                    while let Some(n) = a.filter(|n| n.kind() == "array_declarator") {
                        dims.push(
                            n.field("size")
                                .map(|s| node_text(text, s).to_string())
                                .unwrap_or_default(),
                        );
                        a = n.field("declarator");
                    }
                    dims.reverse();
                    // A union written in the member's declaration: kept
                    // under its own text (the member's `elem_type`), so a
                    // `__shared__` object's union member can be laid out.
                    if let Some(u) = ty.filter(|t| {
                        t.kind() == "union_specifier"
                            && t.field("name").is_none()
                            && t.field("body").is_some()
                    }) {
                        cx.unions.insert(node_text(text, u).to_string(), u);
                    }
                    sd.fields.push(StructField {
                        name: fname,
                        struct_type,
                        array,
                        pointer,
                        dims,
                        elem_type: ty
                            .map(|t| node_text(text, t).to_string())
                            .unwrap_or_default(),
                    });
                }
            }
            _ => {}
        }
    }
    (sd, virtuals)
}

/// The struct name a type node names (`Acc`, `struct Acc`, `ns::Acc`).
/// A type's text in one spelling: spaces only between words
/// (`Proxy< unsigned  int >` is `Proxy<unsigned int>`).
pub(crate) fn type_text(t: &str) -> String {
    let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(words.len());
    let chars: Vec<char> = words.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let punct = |x: Option<&char>| x.is_some_and(|x| matches!(x, '<' | '>' | ',' | '*' | '&'));
        if c == ' ' && (punct(chars.get(i + 1)) || (i > 0 && punct(chars.get(i - 1)))) {
            continue;
        }
        out.push(c);
    }
    out
}

pub(crate) fn struct_type_name(text: &str, ty: Node) -> Option<String> {
    match ty.kind() {
        "type_identifier" => Some(node_text(text, ty).to_string()),
        // `Proxy<int>`: an explicit specialisation's name (`template <>
        // struct Proxy<int> { .. }` is collected under it).
        "template_type" => Some(type_text(node_text(text, ty))),
        "struct_specifier" | "class_specifier" => {
            ty.field("name").and_then(|n| struct_type_name(text, n))
        }
        "qualified_identifier" => ty.field("name").and_then(|n| struct_type_name(text, n)),
        _ => None,
    }
}

/// `Acc::put` in `void Acc::put(...) { ... }` for a struct of the file:
/// (owner, method).
pub(super) fn member_definition(
    text: &str,
    def: Node,
    cx: &FileContext,
) -> Option<(String, String)> {
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

/// A member function of a class defined out of line (`void Vec<T>::push(T
/// e) { .. }`): recorded with the class in `FileContext::classes`.
fn collect_class_method<'t>(
    text: &str,
    def: Node<'t>,
    tparams: &[TemplateParam],
    cx: &mut FileContext<'t>,
) {
    let mut d = def.field("declarator");
    for _ in 0..8 {
        let Some(n) = d else { return };
        match n.kind() {
            "function_declarator" | "pointer_declarator" | "reference_declarator" => {
                d = n.field("declarator");
            }
            "qualified_identifier" => {
                let (Some(scope), Some(name)) = (n.field("scope"), n.field("name")) else {
                    return;
                };
                if name.kind() == "destructor_name" {
                    return;
                }
                let scope = node_text(text, scope);
                let owner = scope.split('<').next().unwrap_or(scope).trim().to_string();
                let method = node_text(text, name).to_string();
                if let Some(class) = cx.classes.get_mut(&owner) {
                    class
                        .members
                        .methods
                        .entry(method.clone())
                        .or_default()
                        .push(FunctionDef {
                            name: format!("{owner}::{method}"),
                            node: def,
                            is_kernel: false,
                            template_params: tparams.to_vec(),
                        });
                }
                return;
            }
            _ => return,
        }
    }
}

/// The kinds along a declarator's chain (`*p[4]`: pointer, array, ...).
pub(super) fn declarator_kinds(d: Node) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut cur = Some(d);
    for _ in 0..64 {
        let Some(n) = cur else { break };
        out.push(n.kind());
        cur = n.field("declarator");
    }
    out
}

pub(super) fn is_function_declarator(d: Node) -> bool {
    declarator_kinds(d).contains(&"function_declarator")
}

pub(super) fn contains_destructor(d: Node) -> bool {
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

/// `typedef unsigned int uint_t;`, `typedef float2 cData;` (also through an
/// earlier alias): the alias and the type it names, with the alias's own
/// declarator plain (a pointer or array typedef is not recorded).
fn collect_scalar_typedef(text: &str, ty: Node, alias: String, cx: &mut FileContext) {
    let named = type_text(node_text(text, ty));
    let resolved = match ty.kind() {
        "primitive_type" | "sized_type_specifier" => named,
        "type_identifier" => match cx.type_aliases.get(&named) {
            Some(earlier) => earlier.clone(),
            None => match crate::frontend::lower::standard_scalar(&named) {
                Some(t) => t.to_string(),
                None => named,
            },
        },
        _ => return,
    };
    if resolved != alias {
        cx.type_aliases.insert(alias, resolved);
    }
}

pub(super) fn collect_enums(text: &str, node: Node, cx: &mut FileContext) {
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

pub(super) fn template_params(text: &str, node: Node) -> Vec<TemplateParam> {
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

pub(super) fn instantiation(text: &str, decl: Node) -> Option<(String, Vec<String>)> {
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
