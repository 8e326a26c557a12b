//! Launches through the CUDA driver API: a kernel loaded by name
//! (`cuModuleGetFunction(&f, module, "k")`, the name perhaps one of a
//! table's or a conditional's) runs at each `cuLaunchKernel(f, gx, gy, gz,
//! bx, by, bz, shared, stream, args, extra)` (or `cuLaunchCooperativeKernel`)
//! the handle reaches, with those sizes and with the kernel's parameters
//! bound by the `args` array (`void *args[] = {&out, &n}`).
//!
//! The handle is followed only where every use of it is understood: a local
//! of the loading function launched, queried (`cuFuncSetAttribute`,
//! `cuOccupancy…`) or compared, or stored through a pointer parameter
//! (`*out = f;`, or loaded straight into `cuModuleGetFunction(out, ..)`)
//! of a function whose every call in the unit passes `&v` of a caller's
//! local that is used the same way. A load whose handle goes anywhere else,
//! or whose name is not read (a `std::string`, a parameter), launches the
//! kernels it may name in a way not understood: the report says so and the
//! kernel keeps a launch of any size.
//!
//! Kernels named nowhere in the project as a string are not seen here (a
//! name built at run time): such a kernel has no launch site of its own
//! then, and is checked under any launch unless `<<<…>>>` sites name it.

use super::driver_pairing::{HostReader, Outcome};
use crate::syntax::node_text;
use std::collections::HashMap;
use std::rc::Rc;
use tree_sitter::Node;

/// The driver's calls that launch the function handle of their first
/// argument, grid and block sizes in arguments 1-6, the kernel's
/// parameters in argument 9.
const DRIVER_LAUNCHES: &[&str] = &["cuLaunchKernel", "cuLaunchCooperativeKernel"];

/// The driver's calls that take a function handle and never launch it.
const HANDLE_QUERIES: &[&str] = &[
    "cuFuncSetAttribute",
    "cuFuncGetAttribute",
    "cuFuncSetCacheConfig",
    "cuFuncSetSharedMemConfig",
    "cuFuncGetModule",
    "cuFuncGetName",
    "cuOccupancyMaxPotentialBlockSize",
    "cuOccupancyMaxPotentialBlockSizeWithFlags",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cuOccupancyAvailableDynamicSMemPerBlock",
];

/// How deep stores through pointer parameters are followed to callers.
const MAX_OUT_DEPTH: usize = 4;

/// One launch of a kernel through the driver API.
pub(crate) struct DriverLaunch<'t> {
    pub call: Node<'t>,
    pub kernel: String,
    /// gx, gy, gz, bx, by, bz.
    pub sizes: [Node<'t>; 6],
    /// The host variables bound to the kernel's parameters, by position
    /// (empty when the `args` array is not read).
    pub args: Vec<Node<'t>>,
    /// Values the launching function's locals hold after a call of the
    /// helper that handed the kernel back (`init(&f, &bs)`: `bs` after
    /// that call) on every way the helper hands this kernel back:
    /// (local, the call, value).
    pub held: Vec<(String, Node<'t>, i64)>,
}

/// A launch a handle reaches, with what the helper that stored the handle
/// into the launching function's local stored along with it.
struct Reached<'t> {
    launch: Node<'t>,
    pairing: Option<Rc<Pairing<'t>>>,
}

/// A helper's call (`init(&f, &bs)`) that stores the handle into the
/// launching function's local: its outcomes, and the caller's locals its
/// integer out-parameters write, by position.
struct Pairing<'t> {
    via: Node<'t>,
    outcomes: Vec<Outcome>,
    locals: HashMap<usize, String>,
}

impl Pairing<'_> {
    /// The values of the caller's locals on each way the helper may hand
    /// `kernel` back (a local absent from one: not known there).
    fn bindings(&self, kernel: &str) -> Vec<Vec<(String, i64)>> {
        let mut out: Vec<Vec<(String, i64)>> = Vec::new();
        for o in self
            .outcomes
            .iter()
            .filter(|o| o.may_hold(kernel, &names_kernel))
        {
            let mut b: Vec<(String, i64)> = o
                .ints
                .iter()
                .filter_map(|(i, v)| Some((self.locals.get(i)?.clone(), *v)))
                .collect();
            b.sort();
            if !out.contains(&b) {
                out.push(b);
            }
        }
        out
    }
}

/// A driver-API use of a kernel not understood: where and why.
pub(crate) struct NotUnderstood<'t> {
    pub kernel: String,
    pub at: Node<'t>,
    pub what: String,
}

/// The driver-API launches in `root` (a unit) of the kernels in `kernels`,
/// and the loads of them whose launches are not understood.
pub(crate) fn launches<'t, P>(
    text: &str,
    root: Node<'t>,
    kernels: &HashMap<String, P>,
    named_outside: &dyn Fn(&str) -> bool,
    reader: &HostReader,
) -> (Vec<DriverLaunch<'t>>, Vec<NotUnderstood<'t>>) {
    let cx = Followed {
        text,
        root,
        named_outside,
        reader,
    };
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    for load in calls_named(text, root, &["cuModuleGetFunction"]) {
        let args = crate::syntax::call_arguments(load);
        let (Some(handle), Some(name)) = (args.first(), args.get(2)) else {
            continue;
        };
        let loaded: Vec<String> = match candidate_names(text, root, *name, 0) {
            Some(names) => kernels
                .keys()
                .filter(|k| names.iter().any(|n| names_kernel(n, k)))
                .cloned()
                .collect(),
            // A name not read may be any kernel's.
            None => {
                for k in kernels.keys() {
                    unknown.push(NotUnderstood {
                        kernel: k.clone(),
                        at: load,
                        what: format!(
                            "a function loaded by `cuModuleGetFunction` with the name `{}`, not read",
                            node_text(text, *name)
                        ),
                    });
                }
                continue;
            }
        };
        if loaded.is_empty() {
            continue;
        }
        let mut calls = Vec::new();
        let reached = handle_launches(&cx, load, *handle, &mut calls);
        for k in loaded {
            match &reached {
                Err(why) => unknown.push(NotUnderstood {
                    kernel: k.clone(),
                    at: load,
                    what: format!("`{k}` loaded by `cuModuleGetFunction` into a handle {why}"),
                }),
                Ok(()) => {
                    for r in &calls {
                        let call = r.launch;
                        let a = crate::syntax::call_arguments(call);
                        let sizes: Option<Vec<Node>> = (1..=6).map(|i| a.get(i).copied()).collect();
                        let Some(Ok(sizes)) = sizes.map(<[Node; 6]>::try_from) else {
                            unknown.push(NotUnderstood {
                                kernel: k.clone(),
                                at: call,
                                what: format!("`{k}` launched by a driver call not read"),
                            });
                            continue;
                        };
                        // One launch per way the helper hands the
                        // kernel back with its integers (the union of them
                        // all); none paired: one launch, its sizes free.
                        let bindings = match &r.pairing {
                            Some(p) => p.bindings(&k),
                            None => vec![Vec::new()],
                        };
                        for b in bindings {
                            let via = r.pairing.as_ref().map(|p| p.via);
                            found.push(DriverLaunch {
                                call,
                                kernel: k.clone(),
                                sizes,
                                args: argument_array(text, call, 9),
                                held: via
                                    .map(|via| {
                                        b.into_iter().map(|(v, value)| (v, via, value)).collect()
                                    })
                                    .unwrap_or_default(),
                            });
                        }
                    }
                }
            }
        }
    }
    (found, unknown)
}

/// Whether a loaded name is `kernel`'s: the name itself (`extern "C"`),
/// or its mangled form (`_Z6kernelPfi`).
fn names_kernel(name: &str, kernel: &str) -> bool {
    name == kernel
        || name
            .strip_prefix("_Z")
            .and_then(|r| r.strip_prefix(&kernel.len().to_string()))
            .is_some_and(|r| r.starts_with(kernel))
}

/// The calls in `root` of a function named (bare) one of `names`.
fn calls_named<'t>(text: &str, root: Node<'t>, names: &[&str]) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.kind() == "call_expression" && callee_is(text, n, names) {
            out.push(n);
        }
    }
    out.sort_by_key(|n| n.start_byte());
    out
}

fn callee_is(text: &str, call: Node, names: &[&str]) -> bool {
    call.child_by_field_name("function").is_some_and(|f| {
        let f = node_text(text, f);
        names.contains(&f.rsplit("::").next().unwrap_or(f))
    })
}

/// The names a load's name argument `n` may hold: the one item of a table
/// of literals at `index` when `n` is `table[i]` and `i` is known there,
/// else every name [`candidate_names`] reads.
fn names_at(text: &str, root: Node, n: Node, index: Option<i64>) -> Option<Vec<String>> {
    if let (Some(i), "subscript_expression") = (index, n.kind()) {
        let table = n.child_by_field_name("argument")?;
        if table.kind() == "identifier" {
            if let Some(items) = table_items(text, root, n, node_text(text, table)) {
                let one = usize::try_from(i).ok().and_then(|i| items.get(i).cloned());
                return one.map(|name| vec![name]);
            }
        }
    }
    candidate_names(text, root, n, 0)
}

/// The names of a table of literals (`const char *t[] = {"a", "b"}`), in
/// order, when each item is one literal and the table is only read
/// (as [`variable_names`] checks); looked up around `at`.
fn table_items(text: &str, root: Node, at: Node, table: &str) -> Option<Vec<String>> {
    variable_names(text, root, at, table, true, 0)?;
    let scope = enclosing_function(at)
        .filter(|f| declares(text, *f, table))
        .unwrap_or(root);
    let mut found = None;
    for n in crate::syntax::identifiers_named(text, scope, table) {
        if let Some(list) = array_items(n) {
            if found.is_some() {
                return None;
            }
            let mut names = Vec::new();
            for item in crate::syntax::items(list) {
                if item.kind() != "string_literal" {
                    return None;
                }
                names.push(candidate_names(text, root, item, 0)?.pop()?);
            }
            found = Some(names);
        }
    }
    found
}

/// The names a name argument may hold: a string literal, either arm of a
/// conditional, an element of a table of literals (`kernels[i]`) never
/// written, a local `const char *` every write to which is such a name;
/// `None` when not read.
fn candidate_names(text: &str, root: Node, n: Node, depth: usize) -> Option<Vec<String>> {
    if depth > 8 {
        return None;
    }
    match n.kind() {
        "string_literal" => {
            let s = node_text(text, n);
            let inner = s.strip_prefix('"')?.strip_suffix('"')?;
            (!inner.contains('\\')).then(|| vec![inner.to_string()])
        }
        "parenthesized_expression" => candidate_names(text, root, n.named_child(0)?, depth + 1),
        "cast_expression" => {
            candidate_names(text, root, n.child_by_field_name("value")?, depth + 1)
        }
        "conditional_expression" => {
            let mut a =
                candidate_names(text, root, n.child_by_field_name("consequence")?, depth + 1)?;
            a.extend(candidate_names(
                text,
                root,
                n.child_by_field_name("alternative")?,
                depth + 1,
            )?);
            Some(a)
        }
        "subscript_expression" => {
            let table = n.child_by_field_name("argument")?;
            (table.kind() == "identifier")
                .then(|| variable_names(text, root, n, node_text(text, table), true, depth))
                .flatten()
        }
        "identifier" => variable_names(text, root, n, node_text(text, n), false, depth),
        _ => None,
    }
}

/// The names a variable (`table`: an array, read by subscript) holds: its
/// initializer's, and, for a scalar, each `v = E`'s, when every other use
/// reads it. The variable is looked up in the function around `at`, then
/// at the unit's top level.
fn variable_names(
    text: &str,
    root: Node,
    at: Node,
    var: &str,
    table: bool,
    depth: usize,
) -> Option<Vec<String>> {
    let scope = enclosing_function(at)
        .filter(|f| declares(text, *f, var))
        .unwrap_or(root);
    let mut names = Vec::new();
    let mut declared = false;
    for n in crate::syntax::identifiers_named(text, scope, var) {
        let parent = n.parent()?;
        let is = |f: &str| {
            parent
                .child_by_field_name(f)
                .is_some_and(|x| x.id() == n.id())
        };
        match parent.kind() {
            // A read of an element.
            "subscript_expression" if table && is("argument") => {
                let up = parent.parent()?;
                let written = match up.kind() {
                    "assignment_expression" => up
                        .child_by_field_name("left")
                        .is_some_and(|l| l.id() == parent.id()),
                    "update_expression" | "pointer_expression" => true,
                    _ => false,
                };
                if written {
                    return None;
                }
            }
            "assignment_expression" if !table && is("left") => {
                let op = parent.child_by_field_name("operator")?;
                if node_text(text, op) != "=" {
                    return None;
                }
                names.extend(candidate_names(
                    text,
                    root,
                    parent.child_by_field_name("right")?,
                    depth + 1,
                )?);
            }
            // Passed by value to the load, compared, printed.
            "argument_list" | "binary_expression" if !table => {}
            _ => {
                // Its declarator: `const char *t[] = {"a", "b"}`, `const char *n = "a"`.
                let mut d = n;
                loop {
                    let p = d.parent()?;
                    match p.kind() {
                        "pointer_declarator" | "array_declarator" => d = p,
                        "init_declarator" => {
                            let value = p.child_by_field_name("value")?;
                            if value.kind() == "initializer_list" {
                                for item in crate::syntax::items(value) {
                                    names.extend(candidate_names(text, root, item, depth + 1)?);
                                }
                            } else {
                                names.extend(candidate_names(text, root, value, depth + 1)?);
                            }
                            declared = true;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
        }
    }
    declared.then_some(names)
}

/// Whether `func` declares a local or parameter named `var`.
fn declares(text: &str, func: Node, var: &str) -> bool {
    let mut stack = vec![func];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        let named = match n.kind() {
            "declaration" => super::kernel_uses::declares_variable(text, n, var),
            "parameter_declaration" => n
                .child_by_field_name("declarator")
                .and_then(|d| crate::syntax::declarator_name(text, d))
                .is_some_and(|d| d == var),
            _ => false,
        };
        if named {
            return true;
        }
    }
    false
}

/// The driver launches the handle written by `load` (through its first
/// argument `handle`: `&f`, or a pointer parameter) reaches, into `out`;
/// `Err(why)` when one of its uses is not understood.
fn handle_launches<'t>(
    cx: &Followed<'_, 't>,
    load: Node<'t>,
    handle: Node<'t>,
    out: &mut Vec<Reached<'t>>,
) -> Result<(), String> {
    let text = cx.text;
    let func = enclosing_function(load).ok_or("outside a function")?;
    match address_of_identifier(handle) {
        Some(v) => local_handle(cx, func, node_text(text, v), out, None, 0),
        None if handle.kind() == "identifier" => {
            let p = node_text(text, handle);
            let i = parameter_index(text, func, p).ok_or_else(|| format!("`{p}` not read"))?;
            through_callers(cx, func, i, out, 0)
        }
        None => Err(format!("`{}` not read", node_text(text, handle))),
    }
}

/// What following a handle through the unit reads.
struct Followed<'a, 't> {
    text: &'a str,
    root: Node<'t>,
    named_outside: &'a dyn Fn(&str) -> bool,
    reader: &'a HostReader<'a>,
}

/// `&v` → `v`.
fn address_of_identifier(n: Node) -> Option<Node> {
    (n.kind() == "pointer_expression")
        .then(|| n.child_by_field_name("argument"))
        .flatten()
        .filter(|a| a.kind() == "identifier")
}

/// The uses of the handle variable `var`, a local of `func`: launches go
/// to `out`; a store through a pointer parameter follows the callers.
/// `&var` may be passed only to a load, a query, or `via`, the call whose
/// store into it is being followed (any other callee might read it).
fn local_handle<'t>(
    cx: &Followed<'_, 't>,
    func: Node<'t>,
    var: &str,
    out: &mut Vec<Reached<'t>>,
    via: Option<Rc<Pairing<'t>>>,
    depth: usize,
) -> Result<(), String> {
    let text = cx.text;
    if parameter_index(text, func, var).is_some() {
        return Err(format!("`{var}`, a parameter"));
    }
    let not_read = |n: Node| {
        Err(format!(
            "`{var}`, used in `{}`",
            node_text(text, n).lines().next().unwrap_or("")
        ))
    };
    for n in crate::syntax::identifiers_named(text, func, var) {
        let Some(parent) = n.parent() else {
            continue;
        };
        match parent.kind() {
            "argument_list" => {
                let call = parent.parent().filter(|c| c.kind() == "call_expression");
                let Some(call) = call else {
                    return not_read(parent);
                };
                let first = crate::syntax::items(parent)
                    .first()
                    .is_some_and(|a| a.id() == n.id());
                if first && callee_is(text, call, DRIVER_LAUNCHES) {
                    let same = |r: &Reached| {
                        r.launch.id() == call.id()
                            && r.pairing.as_ref().map(|p| p.via.id())
                                == via.as_ref().map(|p| p.via.id())
                    };
                    if !out.iter().any(same) {
                        out.push(Reached {
                            launch: call,
                            pairing: via.clone(),
                        });
                    }
                } else if !callee_is(text, call, HANDLE_QUERIES) {
                    return not_read(call);
                }
            }
            // `&v`: loaded into (each load is read on its own), or passed
            // for a callee's pointer parameter being followed.
            "pointer_expression" => {
                let call = parent
                    .parent()
                    .filter(|l| l.kind() == "argument_list")
                    .and_then(|l| l.parent());
                let ok = call.is_some_and(|c| {
                    callee_is(text, c, &["cuModuleGetFunction"])
                        || callee_is(text, c, HANDLE_QUERIES)
                        || via.as_ref().is_some_and(|v| v.via.id() == c.id())
                });
                if !ok {
                    return not_read(parent);
                }
            }
            // `*out = v;`: into the caller's variable.
            "assignment_expression"
                if parent
                    .child_by_field_name("right")
                    .is_some_and(|r| r.id() == n.id()) =>
            {
                let left = parent.child_by_field_name("left");
                let target = left
                    .filter(|l| l.kind() == "pointer_expression")
                    .and_then(|l| l.child_by_field_name("argument"))
                    .filter(|a| a.kind() == "identifier");
                let Some(i) = target.and_then(|t| parameter_index(text, func, node_text(text, t)))
                else {
                    return not_read(parent);
                };
                through_callers(cx, func, i, out, depth + 1)?;
            }
            "binary_expression"
                if parent
                    .child_by_field_name("operator")
                    .is_some_and(|o| matches!(node_text(text, o), "==" | "!=")) => {}
            "unary_expression"
                if parent
                    .child_by_field_name("operator")
                    .is_some_and(|o| node_text(text, o) == "!") => {}
            "init_declarator"
                if parent
                    .child_by_field_name("declarator")
                    .is_some_and(|d| d.id() == n.id()) => {}
            "declaration" => {}
            _ => return not_read(parent),
        }
    }
    Ok(())
}

fn definitions(text: &str, root: Node, name: &str) -> usize {
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.kind() == "function_definition"
            && crate::syntax::function_name(text, n).as_deref() == Some(name)
        {
            count += 1;
        }
    }
    count
}

/// The handle stored through the pointer parameter `index` of `func`:
/// each call of `func` in the unit passes `&v` of a local there, whose
/// uses are read in turn. Every use of `func`'s name must be such a call,
/// and no other file may name it.
fn through_callers<'t>(
    cx: &Followed<'_, 't>,
    func: Node<'t>,
    index: usize,
    out: &mut Vec<Reached<'t>>,
    depth: usize,
) -> Result<(), String> {
    let (text, root) = (cx.text, cx.root);
    let name = crate::syntax::function_name(text, func).ok_or("stored by a function not read")?;
    // A function of internal linkage is called only from its own unit
    // (another unit including its file has its own copy, read there).
    let called_outside =
        !crate::syntax::has_internal_linkage(text, func) && (cx.named_outside)(&name);
    if depth > MAX_OUT_DEPTH || called_outside || definitions(text, root, &name) != 1 {
        return Err(format!(
            "stored by `{name}`, whose callers are not all read"
        ));
    }
    let mut callers = Vec::new();
    for n in crate::syntax::identifiers_named(text, root, &name) {
        let parent = n.parent();
        let is = |k: &str, f: &str| {
            parent.is_some_and(|p| {
                p.kind() == k && p.child_by_field_name(f).is_some_and(|x| x.id() == n.id())
            })
        };
        if is("function_declarator", "declarator") {
            continue;
        }
        if !is("call_expression", "function") {
            return Err(format!("stored by `{name}`, used otherwise than called"));
        }
        callers.push(parent.expect("the call"));
    }
    // What the function stores along with the handle, on each way it
    // returns (none read: nothing paired, the call still followed).
    let names = |n: Node<'t>, i: Option<i64>| names_at(text, root, n, i);
    let outcomes = super::driver_pairing::outcomes(text, func, index, cx.reader, &names);
    for call in callers {
        let args = crate::syntax::call_arguments(call);
        let v = args
            .get(index)
            .copied()
            .and_then(address_of_identifier)
            .ok_or_else(|| format!("stored by `{name}` into a caller's value not read"))?;
        let caller = enclosing_function(call).ok_or("stored outside a function")?;
        let handle = node_text(text, v);
        // The caller's locals the call passes for the integers stored
        // along (`&bs`), each passed once and not the handle's.
        let mut locals = HashMap::new();
        for (i, a) in args.iter().enumerate() {
            if let Some(l) = address_of_identifier(*a).map(|l| node_text(text, l)) {
                let once = args
                    .iter()
                    .filter_map(|b| address_of_identifier(*b))
                    .filter(|b| node_text(text, *b) == l)
                    .count()
                    == 1;
                if i != index && once && l != handle {
                    locals.insert(i, l.to_string());
                }
            }
        }
        let pairing = Pairing {
            via: call,
            outcomes: outcomes.clone().unwrap_or_else(|| {
                vec![Outcome {
                    handle: None,
                    ints: HashMap::new(),
                }]
            }),
            locals,
        };
        local_handle(cx, caller, handle, out, Some(Rc::new(pairing)), depth)?;
    }
    Ok(())
}

/// The position of the parameter named `name` of `func`.
fn parameter_index(text: &str, func: Node, name: &str) -> Option<usize> {
    crate::syntax::function_params(func).iter().position(|p| {
        p.child_by_field_name("declarator")
            .and_then(|d| crate::syntax::declarator_name(text, d))
            .is_some_and(|d| d == name)
    })
}

fn enclosing_function(node: Node) -> Option<Node> {
    let mut f = node.parent();
    while let Some(n) = f {
        if n.kind() == "function_definition" {
            return Some(n);
        }
        f = n.parent();
    }
    None
}

/// The host variables a launch call's array of parameter addresses (its
/// argument `index`: `void *args[] = {&out, &n};`) binds, by position;
/// empty unless the array is a local of the launching function whose
/// every item is `&v` (perhaps cast) and whose only other uses are as
/// the parameter array of launches.
pub(crate) fn argument_array<'t>(text: &str, call: Node<'t>, index: usize) -> Vec<Node<'t>> {
    let Some(arr) = crate::syntax::call_arguments(call)
        .get(index)
        .copied()
        .filter(|a| a.kind() == "identifier")
    else {
        return Vec::new();
    };
    let Some(func) = enclosing_function(call) else {
        return Vec::new();
    };
    let name = node_text(text, arr);
    let mut items = None;
    for n in crate::syntax::identifiers_named(text, func, name) {
        if launch_array_use(text, n) {
            continue;
        }
        match array_items(n) {
            Some(list) if items.is_none() => items = Some(list),
            _ => return Vec::new(),
        }
    }
    let Some(list) = items else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in crate::syntax::items(list) {
        match strip_casts(item).and_then(address_of_identifier) {
            Some(v) => out.push(v),
            None => return Vec::new(),
        }
    }
    out
}

/// Whether the identifier `n` is passed as a launch's parameter array
/// (argument 9 of the driver's launches, 3 of the runtime's).
fn launch_array_use(text: &str, n: Node) -> bool {
    let Some(list) = n.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let Some(call) = list.parent() else {
        return false;
    };
    let at = crate::syntax::items(list)
        .iter()
        .position(|a| a.id() == n.id());
    (callee_is(text, call, DRIVER_LAUNCHES) && at == Some(9))
        || (crate::syntax::queries::is_runtime_launch(call, text) && at == Some(3))
}

/// The initializer list of the declarator `n` names (`args[] = {..}`).
fn array_items(n: Node) -> Option<Node> {
    let mut d = n.parent()?;
    while d.kind() == "array_declarator" || d.kind() == "pointer_declarator" {
        d = d.parent()?;
    }
    (d.kind() == "init_declarator")
        .then(|| d.child_by_field_name("value"))
        .flatten()
        .filter(|v| v.kind() == "initializer_list")
}

fn strip_casts(mut n: Node) -> Option<Node> {
    loop {
        n = match n.kind() {
            "cast_expression" => n.child_by_field_name("value")?,
            "parenthesized_expression" => n.named_child(0)?,
            _ => return Some(n),
        };
    }
}

/// Whether `&v` is an item of a launch's parameter array (as
/// [`argument_array`] reads it): the launch reads `v` when it runs, so the
/// address taken writes nothing before it.
pub(crate) fn is_parameter_address(text: &str, address: Node) -> bool {
    let mut item = address;
    while let Some(p) = item
        .parent()
        .filter(|p| matches!(p.kind(), "cast_expression" | "parenthesized_expression"))
    {
        item = p;
    }
    let Some(list) = item.parent().filter(|p| p.kind() == "initializer_list") else {
        return false;
    };
    let Some(decl) = list.parent().filter(|p| p.kind() == "init_declarator") else {
        return false;
    };
    let Some(name) = decl
        .child_by_field_name("declarator")
        .and_then(|d| crate::syntax::declarator_name(text, d))
    else {
        return false;
    };
    let Some(func) = enclosing_function(decl) else {
        return false;
    };
    let mut launched = false;
    for n in crate::syntax::identifiers_named(text, func, &name) {
        if launch_array_use(text, n) {
            launched = true;
        } else if array_items(n).is_none_or(|l| l.id() != list.id()) {
            return false;
        }
    }
    launched
}
