//! Launch sites: `k<<<grid, block, shmem, stream>>>(args)` in the project's
//! host code, read into the facts the kernel may assume (a
//! [`LaunchOverride`] per site): constant sizes (`dim3 block(TILE, TILE)`,
//! literals, `constexpr`, macros); what a non-constant launch still says (an
//! integer block argument means `blockDim.y == blockDim.z == 1`,
//! `dim3 block(T, T)` means `blockDim.y == blockDim.x`); constant scalar
//! arguments; sizes computed from arguments (`dim3 grid(width / TILE)` with
//! `width` passed for a parameter); the host checks that dominate the
//! launch (`assert(...)`, `if (...) return ...;` or `exit(...)`, an
//! enclosing `if`); and the constants the callers of the host function
//! around the launch pass for its integer parameters, when those calls are
//! every way it runs (`caller_bindings`).
//!
//! Only facts that are read exactly become assumptions: an expression with
//! a name that is neither a constant nor an argument passed to the kernel
//! is dropped, never guessed.

mod constant_symbols;
pub(super) mod global_pitch;
mod host_order;
mod isolated_facts;
mod loop_relation;
mod ordered_writes;
mod unsigned_quotient;

pub(crate) use isolated_facts::{identifiers, without_isolated_host_facts};

use super::{
    driver_launches, driver_pairing, graph_nodes, host_data, host_helpers, kernel_uses,
    power_helpers,
};
use crate::frontend::{FileContext, Macro};
use crate::options::LaunchOverride;
use crate::syntax::{node_text, strip_parentheses};
use std::collections::HashMap;
use tree_sitter::Node;

/// A kernel's parameters: (name, is an integer scalar, the range of its
/// integer type when the analysis knows it).
pub(crate) type Params = Vec<(String, bool, Option<(i64, i64)>)>;

/// One launch of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    pub kernel: String,
    pub fact: LaunchOverride,
}

/// What the project's files outside a unit say, as the unit's launch
/// sites ask it.
pub(crate) struct Outside<'r> {
    /// Whether a name occurs there (a host function named there may be
    /// called there).
    pub named: &'r dyn Fn(&str) -> bool,
    /// The widths of the allocations into a global through
    /// `cudaMallocPitch` there ([`global_pitch::pitch_writes`]).
    pub pitches: &'r dyn Fn(&str) -> Option<Vec<i64>>,
    /// Their host code, where the arrays passed may have been produced
    /// (`host_data`).
    pub units: &'r dyn host_data::OtherUnits,
}

/// Facts of every launch in `text` (a unit: `cx` is its collection) of a
/// kernel in `kernels`. `origin(line)` names a 0-based unit line for users.
pub(crate) fn sites(
    text: &str,
    root: Node,
    cx: &FileContext,
    kernels: &HashMap<String, Params>,
    origin: &dyn Fn(u32) -> Option<String>,
    outside: &Outside,
) -> Vec<Site> {
    let named_outside = outside.named;
    let mut out = Vec::new();
    // Every launch and every other use names the kernel: a file that names
    // none has none, and its tree is not walked.
    if !kernels.keys().any(|k| text.contains(k.as_str())) {
        return out;
    }
    let mut calls = Vec::new();
    let mut names = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "call_expression" => calls.push(n),
            "identifier" if kernels.contains_key(node_text(text, n)) => names.push(n),
            "preproc_arg" => {
                let body = node_text(text, n);
                for k in kernels.keys() {
                    if kernel_uses::macro_names(body, k) {
                        let what = format!("`{k}` named in a macro");
                        push_not_understood(&mut out, k, n, what, origin);
                    }
                }
            }
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    // Names stored in a pointer or table that is only launched: their
    // launches are those through it.
    let mut held_names: Vec<usize> = Vec::new();
    let push = |out: &mut Vec<Site>, launch: &Launch| {
        let bindings: Vec<(_, _, HashMap<String, bool>)> =
            match host_instantiations(text, root, launch.call, cx, named_outside) {
                Some(b) => b
                    .into_iter()
                    .map(|(bound, types)| (bound, types, HashMap::new()))
                    .collect(),
                None => caller_bindings(text, root, launch.call, cx, named_outside)
                    .into_iter()
                    .map(|b| (b.values, HashMap::new(), b.powers))
                    .collect(),
            };
        for (bound, types, powers) in bindings {
            let read = Read {
                kernels,
                origin,
                outside_pitches: outside.pitches,
                other_units: outside.units,
                named_outside,
            };
            let binding = CallerBinding {
                values: bound,
                powers,
            };
            if let Some(site) = site(text, launch, cx, &read, binding, &types) {
                if !out.contains(&site) {
                    out.push(site);
                }
            }
        }
    };
    for call in calls {
        let Some(launch) = direct_launch(text, call) else {
            continue;
        };
        if kernels.contains_key(&launch.kernel) {
            push(&mut out, &launch);
            continue;
        }
        let held = call
            .child_by_field_name("function")
            .and_then(|f| kernel_uses::launch_variable(text, f))
            .and_then(|v| kernel_uses::held_by(text, call, &v));
        if let Some(held) = held {
            held_names.extend(held.names);
            for k in held.targets {
                push(
                    &mut out,
                    &Launch {
                        kernel: k,
                        template: None,
                        ..launch.clone()
                    },
                );
            }
        }
    }
    for n in names {
        if held_names.contains(&n.id()) {
            continue;
        }
        match kernel_uses::use_of(text, n) {
            kernel_uses::Use::NotALaunch => {}
            kernel_uses::Use::Runtime(call) => {
                let args = crate::syntax::call_arguments(call);
                let launch = Launch {
                    call,
                    kernel: node_text(text, n).to_string(),
                    template: n.parent().filter(|p| p.kind() == "template_function"),
                    cfg: args.iter().skip(1).take(2).copied().collect(),
                    // Passed as an array of pointers (`{&out, &n}`).
                    args: driver_launches::argument_array(text, call, 3),
                    sizes: None,
                    held_after: Vec::new(),
                };
                push(&mut out, &launch);
            }
            kernel_uses::Use::Unknown(what) => match graph_nodes::kernel_node_launches(text, n) {
                // Stored in a graph's kernel node: launched by the calls
                // that add or set the node, with the sizes it holds there.
                Some(node_launches) => {
                    for l in node_launches {
                        let launch = Launch {
                            call: l.call,
                            kernel: node_text(text, n).to_string(),
                            template: n.parent().filter(|p| p.kind() == "template_function"),
                            cfg: vec![l.grid, l.block],
                            // Passed as an array of pointers: not read.
                            args: Vec::new(),
                            sizes: None,
                            held_after: Vec::new(),
                        };
                        push(&mut out, &launch);
                    }
                }
                None => push_not_understood(&mut out, node_text(text, n), n, what, origin),
            },
        }
    }
    // Loaded by name through the driver API and launched by handle.
    let constant = |name: &str| {
        if let Some(v) = cx.enumerators.get(name) {
            return Some(*v);
        }
        if let Some(m) = cx.macros.get(name) {
            return macro_value(m, cx, 0);
        }
        let node = cx.constants.get(name)?;
        host_constant(text, *node, cx, *node)
    };
    let may_write = |call: Node, index: usize| may_write_argument(text, call, index);
    let reader = driver_pairing::HostReader {
        constant: &constant,
        may_write: &may_write,
        integer_range: &integer_range,
    };
    let (driver, not_read) = driver_launches::launches(text, root, kernels, named_outside, &reader);
    for l in driver {
        let launch = Launch {
            call: l.call,
            kernel: l.kernel,
            template: None,
            cfg: Vec::new(),
            args: l.args,
            sizes: Some(l.sizes),
            held_after: l.held,
        };
        push(&mut out, &launch);
    }
    for u in not_read {
        push_not_understood(&mut out, &u.kernel, u.at, u.what, origin);
    }
    out.sort_by_key(|s: &Site| s.fact.origin.clone());
    out
}

/// A use of `kernel` at `at` that may launch it in a way no launch site
/// shows: a launch of any size with any arguments, saying why.
fn push_not_understood(
    out: &mut Vec<Site>,
    kernel: &str,
    at: Node,
    what: String,
    origin: &dyn Fn(u32) -> Option<String>,
) {
    let Some(place) = origin(at.start_position().row as u32) else {
        return;
    };
    let site = Site {
        kernel: kernel.to_string(),
        fact: LaunchOverride {
            kernel_glob: kernel.to_string(),
            not_understood: vec![format!("{place}: {what}")],
            origin: Some(place),
            ..Default::default()
        },
    };
    if !out.contains(&site) {
        out.push(site);
    }
}

/// Values of a host template's non-type parameters, and the types its
/// type parameters name, in one instantiation.
type Instantiation = (HashMap<String, i64>, HashMap<String, String>);

/// The bindings of the template parameters of the host function template
/// around `call` (`template <int S> void run(...) { k<S><<<...>>>(...); }`),
/// one per instantiation of it in the unit with constant arguments
/// (`run<kStages>(...)`) or types (`run<float>(...)`: a launch `k<T>` in it
/// launches `k<float>`); one empty binding when none of its
/// instantiations is written out; `None` when `call` is in no function
/// template.
///
/// Types are bound only when those instantiations are every way the
/// function runs (as for `caller_bindings`): each use of its name in the
/// unit is a call with its template arguments written out, and no other
/// file of the project names it; otherwise no type is bound (a deduced
/// `run(d)` may instantiate it with any type).
fn host_instantiations(
    text: &str,
    root: Node,
    call: Node,
    cx: &FileContext,
    named_outside: &dyn Fn(&str) -> bool,
) -> Option<Vec<Instantiation>> {
    let is_launch = crate::syntax::queries::launch(call, text).is_some();
    let f = enclosing_function(call);
    let template = f
        .filter(|_| is_launch)
        .and_then(|f| f.parent().map(|t| (f, t)))
        .filter(|(_, t)| t.kind() == "template_declaration");
    let (func, template) = template?;
    let params: Vec<Option<String>> = template
        .child_by_field_name("parameters")
        .map(children)
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            (p.kind() == "parameter_declaration")
                .then(|| p.child_by_field_name("declarator"))
                .flatten()
                .and_then(|d| crate::syntax::declarator_name(text, d))
        })
        .collect();
    // `class T` / `typename T` (no default: a default's instantiations may
    // not write the argument).
    let type_params: Vec<Option<String>> = template
        .child_by_field_name("parameters")
        .map(children)
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            (p.kind() == "type_parameter_declaration")
                .then(|| {
                    children(p)
                        .into_iter()
                        .find(|c| c.kind() == "type_identifier")
                })
                .flatten()
                .map(|n| node_text(text, n).to_string())
        })
        .collect();
    let name = func
        .child_by_field_name("declarator")
        .and_then(|d| d.child_by_field_name("declarator"))
        .map(|d| node_text(text, d));
    let any_param = params.iter().chain(&type_params).any(Option::is_some);
    let (Some(name), true) = (name, any_param) else {
        return Some(vec![(HashMap::new(), HashMap::new())]);
    };
    let mut out: Vec<Instantiation> = Vec::new();
    let mut types_complete =
        crate::syntax::has_internal_linkage(text, func) || !named_outside(name);
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        if n.kind() == "identifier" && node_text(text, n) == name {
            types_complete &= is_written_instantiation_call(n);
        }
        if n.kind() != "call_expression" {
            continue;
        }
        let Some(tf) = n
            .child_by_field_name("function")
            .filter(|f| f.kind() == "template_function")
            .filter(|f| f.child_by_field_name("name").map(|m| node_text(text, m)) == Some(name))
        else {
            continue;
        };
        let Some(targs) = tf.child_by_field_name("arguments") else {
            continue;
        };
        let host = Host::new(text, n, cx, &Vec::new(), &[], HashMap::new());
        let mut bound = HashMap::new();
        let mut types = HashMap::new();
        for ((p, t), a) in params.iter().zip(&type_params).zip(children(targs)) {
            if let (Some(p), Some(v)) = (p, host.value(a)) {
                bound.insert(p.clone(), v);
            }
            if let (Some(t), "type_descriptor") = (t, a.kind()) {
                types.insert(t.clone(), crate::frontend::type_text(node_text(text, a)));
            }
        }
        let binding = (bound, types);
        let empty = binding.0.is_empty() && binding.1.is_empty();
        if !empty && !out.contains(&binding) {
            out.push(binding);
        }
    }
    if !types_complete {
        let mut values_only: Vec<Instantiation> = Vec::new();
        for (bound, _) in out {
            let binding = (bound, HashMap::new());
            if !binding.0.is_empty() && !values_only.contains(&binding) {
                values_only.push(binding);
            }
        }
        out = values_only;
    }
    if out.is_empty() {
        out.push((HashMap::new(), HashMap::new()));
    }
    Some(out)
}

/// Whether a use of a host function template's name is its definition's
/// own name, a prototype's, or the callee of a call that writes the
/// template arguments out (`run<float>(..)`): the uses whose
/// instantiations the unit shows.
fn is_written_instantiation_call(name: Node) -> bool {
    let Some(parent) = name.parent() else {
        return false;
    };
    match parent.kind() {
        "function_declarator" => {
            parent.child_by_field_name("declarator").map(|d| d.id()) == Some(name.id())
        }
        "template_function" => parent
            .parent()
            .filter(|c| c.kind() == "call_expression")
            .and_then(|c| c.child_by_field_name("function"))
            .is_some_and(|f| f.id() == parent.id()),
        _ => false,
    }
}

/// At most this many distinct bindings of a host function's parameters
/// by its callers: beyond, the parameters stay unknown.
const MAX_CALLER_BINDINGS: usize = 16;

/// The bindings of the integer parameters of the host function around
/// `call` (`void run(int bs) { dim3 t(bs, bs); k<<<g, t>>>(...); }`) by
/// its calls in the unit (`run(32)`, `int bs = 32; run(bs);`): one per
/// call, each parameter bound to the argument's constant value where the
/// caller gives it one. A binding holds for the launch only if these calls
/// are every way the function runs, so there are none (one empty binding)
/// when its name is used any other way (its address taken, named in a
/// macro), when it is a method, overloaded or recursive, when a call
/// passes another number of arguments (a default), or when another file
/// of the project names it (`named_outside`: it may call it).
fn caller_bindings(
    text: &str,
    root: Node,
    call: Node,
    cx: &FileContext,
    named_outside: &dyn Fn(&str) -> bool,
) -> Vec<CallerBinding> {
    let none = || vec![CallerBinding::default()];
    let Some(func) = enclosing_function(call) else {
        return none();
    };
    let Some(params) = value_parameters(text, func) else {
        return none();
    };
    let Some(name) = crate::syntax::function_name(text, func) else {
        return none();
    };
    if name == "main" || !params.iter().any(|p| p.name.is_some()) {
        return none();
    }
    // Another file naming it may call it, unless it has internal linkage:
    // a file that `#include`s this one (or the header defining it) then
    // compiles and calls its own copy, whose launches are read in that
    // file's unit (with its callers there).
    if !crate::syntax::has_internal_linkage(text, func) && named_outside(&name) {
        return none();
    }
    let mut calls = Vec::new();
    let mut definitions = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
        match n.kind() {
            "function_definition"
                if crate::syntax::function_name(text, n).as_deref() == Some(name.as_str()) =>
            {
                definitions += 1;
            }
            "preproc_arg" if kernel_uses::macro_names(node_text(text, n), &name) => return none(),
            "identifier" if node_text(text, n) == name => {
                let parent = n.parent();
                let is_field = |f: &str| {
                    parent
                        .and_then(|p| p.child_by_field_name(f))
                        .is_some_and(|x| x.id() == n.id())
                };
                match parent.map(|p| p.kind()) {
                    Some("function_declarator") if is_field("declarator") => {}
                    Some("call_expression") if is_field("function") => {
                        let c = parent.expect("the call");
                        let inside =
                            c.start_byte() >= func.start_byte() && c.end_byte() <= func.end_byte();
                        // Arguments left out take their defaults.
                        let given = crate::syntax::call_arguments(c).len();
                        let defaulted = params.iter().skip(given).all(|p| p.default.is_some());
                        if inside || given > params.len() || !defaulted {
                            return none();
                        }
                        calls.push(c);
                    }
                    _ => return none(),
                }
            }
            _ => {}
        }
    }
    if definitions != 1 || calls.is_empty() {
        return none();
    }
    let mut out: Vec<CallerBinding> = Vec::new();
    for c in calls {
        let host = Host::new(text, c, cx, &Vec::new(), &[], HashMap::new());
        let args = crate::syntax::call_arguments(c);
        let mut bound = HashMap::new();
        let mut powers = HashMap::new();
        for (i, p) in params.iter().enumerate() {
            let Some(name) = &p.name else {
                continue;
            };
            // A power of two (or zero) the call passes: kept when the
            // parameter's type holds it (an unsigned `1u << 31` is
            // `INT_MIN` in an `int`).
            if let Some(below_sign_bit) =
                args.get(i).and_then(|a| host.power_of_two_argument(*a, 0))
            {
                if below_sign_bit || p.unsigned {
                    powers.insert(name.clone(), below_sign_bit);
                }
            }
            let v = match (args.get(i), p.default) {
                (Some(a), _) => host.value(*a),
                // A default is evaluated where the function is declared
                // (its constants, not the caller's locals).
                (None, Some(d)) => {
                    Host::new(text, d, cx, &Vec::new(), &[], HashMap::new()).value(d)
                }
                (None, None) => None,
            };
            if let Some(v) = v {
                bound.insert(name.clone(), v);
            }
        }
        let binding = CallerBinding {
            values: bound,
            powers,
        };
        if !out.contains(&binding) {
            out.push(binding);
        }
        if out.len() > MAX_CALLER_BINDINGS {
            return none();
        }
    }
    out
}

/// What the calls of a host function bind of its integer parameters: a
/// constant value, or that it is a power of two or zero (and whether it
/// is then below `2^31`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct CallerBinding {
    values: HashMap<String, i64>,
    powers: HashMap<String, bool>,
}

/// The parameters of a host function, by position: the name of each one
/// an integer taken by value (what a caller's constant binds), `None` for
/// the others, with its default argument if it has one; `None` for a
/// method (called through objects, unseen here).
fn value_parameters<'t>(text: &str, func: Node<'t>) -> Option<Vec<ValueParameter<'t>>> {
    let mut p = func.parent();
    while let Some(n) = p {
        if matches!(n.kind(), "field_declaration_list" | "lambda_expression") {
            return None;
        }
        p = n.parent();
    }
    let declarator =
        crate::syntax::find_function_declarator(func.child_by_field_name("declarator")?)?;
    if declarator
        .child_by_field_name("declarator")
        .is_some_and(|d| d.kind() != "identifier")
    {
        return None;
    }
    let list = declarator.child_by_field_name("parameters")?;
    let mut out = Vec::new();
    for q in children(list) {
        match q.kind() {
            // `int span = 256`: a call may leave it out.
            "parameter_declaration" | "optional_parameter_declaration" => {
                let ty = q.child_by_field_name("type").map(|t| node_text(text, t));
                let d = q.child_by_field_name("declarator");
                let by_value = d.is_some_and(|d| d.kind() == "identifier");
                let integer = ty.is_some_and(is_integer_type_name);
                out.push(ValueParameter {
                    name: d
                        .filter(|_| by_value && integer)
                        .map(|d| node_text(text, d).to_string()),
                    default: q.child_by_field_name("default_value"),
                    unsigned: ty.is_some_and(is_unsigned_type_name),
                });
            }
            // `f(void)` or `...`: not matched by position.
            _ => return None,
        }
    }
    Some(out)
}

/// A host function's parameter as [`value_parameters`] reads it.
struct ValueParameter<'t> {
    name: Option<String>,
    default: Option<Node<'t>>,
    unsigned: bool,
}

/// How a launch names its kernel and passes its sizes and arguments.
#[derive(Clone)]
struct Launch<'t> {
    call: Node<'t>,
    kernel: String,
    /// `k<16>`: the template function the launch names, for its arguments.
    template: Option<Node<'t>>,
    /// Grid, block (and the rest of `<<<…>>>`).
    cfg: Vec<Node<'t>>,
    /// The kernel's arguments, by position (none when not known).
    args: Vec<Node<'t>>,
    /// A driver launch's grid and block components (gx, gy, gz, bx, by,
    /// bz) in place of `cfg`.
    sizes: Option<[Node<'t>; 6]>,
    /// Values locals hold after a call (the helper that handed a driver
    /// launch's kernel back): (local, call, value).
    held_after: Vec<(String, Node<'t>, i64)>,
}

/// A `k<<<…>>>(…)` call (the kernel named at the call).
fn direct_launch<'t>(text: &str, call: Node<'t>) -> Option<Launch<'t>> {
    let syntax = crate::syntax::queries::launch(call, text)?;
    let (config, func) = (syntax.config, syntax.callee);
    let name = match func.kind() {
        "template_function" => node_text(text, func.child_by_field_name("name")?),
        "qualified_identifier" => node_text(text, func.child_by_field_name("name")?),
        _ => node_text(text, func),
    };
    Some(Launch {
        call,
        kernel: name.to_string(),
        template: (func.kind() == "template_function").then_some(func),
        cfg: children(config),
        args: crate::syntax::call_arguments(call),
        sizes: None,
        held_after: Vec::new(),
    })
}

/// What reading one launch site needs beyond the unit.
struct Read<'r> {
    kernels: &'r HashMap<String, Params>,
    origin: &'r dyn Fn(u32) -> Option<String>,
    /// The widths of the allocations into a global through
    /// `cudaMallocPitch` in the project's other files
    /// ([`global_pitch::pitch_writes`]).
    outside_pitches: &'r dyn Fn(&str) -> Option<Vec<i64>>,
    /// The project's other host files, where the arrays passed may have
    /// been produced (`host_data`).
    other_units: &'r dyn host_data::OtherUnits,
    /// Whether another file of the project names a name.
    named_outside: &'r dyn Fn(&str) -> bool,
}

fn site(
    text: &str,
    launch: &Launch,
    cx: &FileContext,
    read: &Read,
    binding: CallerBinding,
    types: &HashMap<String, String>,
) -> Option<Site> {
    let call = launch.call;
    let name = launch.kernel.as_str();
    let params = read.kernels.get(name)?;
    let origin = (read.origin)(call.start_position().row as u32)?;
    let cfg = &launch.cfg;
    let args = &launch.args;
    let mut host = Host::new(text, call, cx, params, args, binding.values);
    host.power_params = binding.powers;
    for (local, via, value) in &launch.held_after {
        host.hold_after_call(local, *via, *value);
    }
    let mut fact = LaunchOverride {
        kernel_glob: name.to_string(),
        origin: Some(origin),
        ..Default::default()
    };
    if let Some(func) = launch.template {
        if let Some(targs) = func.child_by_field_name("arguments") {
            fact.template_args = children(targs)
                .into_iter()
                .map(|a| match host.value(a) {
                    Some(v) => v.to_string(),
                    None => {
                        let written = node_text(text, a);
                        types
                            .get(written.trim())
                            .cloned()
                            .unwrap_or(written.to_string())
                    }
                })
                .collect();
        }
    }
    fact.arg_types = args
        .iter()
        .map(|a| argument_struct_type(text, call, *a, cx))
        .collect();
    if fact.arg_types.iter().all(Option::is_none) {
        fact.arg_types.clear();
    }
    host.alias_sizes(cfg.get(1).copied(), "blockDim");
    host.alias_sizes(cfg.first().copied(), "gridDim");
    if let Some(s) = launch.sizes {
        host.alias_components(host.components_at_launch(&s[3..6]), "blockDim");
        host.alias_components(host.components_at_launch(&s[0..3]), "gridDim");
    }
    let ((grid, mut grid_facts), (block, mut block_facts)) = match launch.sizes {
        Some(s) => (
            host.dims_of(host.components_at_launch(&s[0..3]), None, "gridDim"),
            host.dims_of(host.components_at_launch(&s[3..6]), None, "blockDim"),
        ),
        None => (
            host.dims(cfg.first().copied(), "gridDim"),
            host.dims(cfg.get(1).copied(), "blockDim"),
        ),
    };
    fact.grid_dim = grid;
    fact.block_dim = block;
    fact.requires.append(&mut block_facts);
    fact.requires.append(&mut grid_facts);
    for (i, (p, integer, range)) in params.iter().enumerate() {
        if let (Some(a), true) = (args.get(i), *integer) {
            if let Some(v) = host.value(*a) {
                fact.requires.push(format!("{p} == {v}"));
            } else if let Some(least) = host.pitch_bound(*a) {
                fact.requires.push(format!("{p} >= {least}"));
            } else if let Some(least) = host.global_pitch_bound(*a, read.outside_pitches) {
                fact.requires.push(format!("{p} >= {least}"));
            } else if let Some(e) = host.fitting_initializer(*a, *range) {
                fact.requires.push(format!("{p} == ({e})"));
            } else if let Some(e) = host
                .narrowed_argument(*a, 0)
                .filter(|_| range.is_some_and(holds_a_narrowed_value))
            {
                fact.requires.push(format!("{p} == ({e})"));
            } else if let Some(below_sign_bit) = host.power_of_two_argument(*a, 0) {
                // An unsigned power of two may not fit a signed parameter
                // (`1u << 31` is `INT_MIN` there).
                let fits = below_sign_bit || range.is_some_and(|(lo, _)| lo >= 0);
                if fits {
                    fact.requires.push(format!("(({p}) & (({p}) - 1)) == 0"));
                }
            } else if let Some(most) = host.unsigned_quotient_bound(*a) {
                // Kept only when the parameter's type holds every value up
                // to the bound (the value passed is then the local's).
                if range.is_some_and(|(lo, hi)| lo <= 0 && most <= hi) {
                    fact.requires.push(format!("{p} <= {most}"));
                }
            }
        }
    }
    fact.requires.extend(host.checks());
    // Relations a host `while` loop keeps between an argument and the grid.
    if let (None, Some(grid), Some(block)) = (launch.sizes, cfg.first(), cfg.get(1)) {
        fact.requires
            .extend(host.loop_relation_facts(*grid, *block, args, params));
    }
    let names: Vec<String> = params.iter().map(|(p, _, _)| p.clone()).collect();
    fact.requires
        .extend(host.constant_symbol_facts(name, &names, read.named_outside));
    // What the arrays passed hold: a sort or scan just before the launch.
    fact.requires.extend(host_data::facts(
        text,
        call,
        name,
        &names,
        args,
        &|n| host.kernel_expr(n, 0),
        read.other_units,
    ));
    Some(Site {
        kernel: name.to_string(),
        fact,
    })
}

/// The host function around a launch.
struct Host<'a, 't> {
    text: &'a str,
    call: Node<'t>,
    cx: &'a FileContext<'t>,
    /// Host variable (or field of one) → the kernel-side expression it
    /// equals at the launch: the parameter it is passed for, or the launch
    /// size it gives (`threads.x`, `block_size` of `dim3 threads(block_size)`
    /// → `blockDim.x`).
    passed: HashMap<String, String>,
    /// The arguments alone (host text → parameter), for relations that are
    /// evaluated at the launch itself, where a written variable still
    /// holds the value passed.
    arguments: HashMap<String, String>,
    /// Local declarations in scope at the launch: name → initializer (or
    /// dim3 components), when every write to it that may run before the
    /// launch is understood (a `dim3`'s fields set in order), else unknown.
    locals: HashMap<String, Local<'t>>,
    /// The declared type of each local and parameter of the host function.
    types: HashMap<String, String>,
    /// Host variables written (assigned, incremented, their address taken)
    /// somewhere that may run before the launch: their value at a host
    /// check or at a local's initializer may not be the one passed.
    /// With where each write ends.
    written: Vec<(String, usize)>,
    /// Host functions whose body is `return E;`: name → (params, E).
    inline: HashMap<String, (Vec<String>, Node<'t>)>,
    /// Host functions that return the odd part of a parameter
    /// ([`host_helpers::odd_part`]), defined once in the unit.
    odd_parts: HashMap<String, host_helpers::OddPart>,
    /// Host functions that always return a power of two or zero
    /// ([`power_helpers::returns_power_of_two`]), defined once in the unit.
    power_helpers: Vec<String>,
    /// The enclosing host function template's parameters, bound by one
    /// of its instantiations.
    bound: HashMap<String, i64>,
    /// The writes themselves, for the ones read in order (a pitch).
    write_nodes: Vec<(String, Node<'t>)>,
    /// The host function's parameters passed by value (no `&`, no `*`):
    /// one value for the whole call when never written, so a fact may name
    /// it as a host value even though the kernel is not passed it.
    by_value_params: Vec<String>,
    /// Values that hold between two points of the function, read in
    /// program order (`host_order`): a bound parameter up to its first
    /// write, the variables of a loop of constants after it.
    held: HashMap<String, host_order::Held>,
    /// Values plain writes that surely run before the launch give a local
    /// (`ordered_writes`), in the order of the writes.
    held_after_writes: Vec<(String, host_order::Held)>,
    /// The initializer of each scalar local in scope at the launch,
    /// written later or not.
    initializers: HashMap<String, Node<'t>>,
    /// How many times each name is declared (parameters and the locals
    /// in scope at the launch).
    declarations: HashMap<String, usize>,
    /// The parameters every call of the function passes a power of two
    /// (or zero), with whether it is then below `2^31`.
    power_params: HashMap<String, bool>,
}

#[derive(Clone)]
enum Local<'t> {
    Scalar(Node<'t>),
    /// The x, y, z components (`None`: 1).
    Dim3([Option<Node<'t>>; 3]),
    Unknown,
}

const DEPTH: usize = 24;

impl<'a, 't> Host<'a, 't> {
    /// A call of a host helper of one `return` (`inline`), with as many
    /// arguments as it has parameters: its parameters, its returned
    /// expression and the call's arguments.
    fn inlined_call(&self, call: Node<'t>) -> Option<(&[String], Node<'t>, Vec<Node<'t>>)> {
        let f = node_text(self.text, call.child_by_field_name("function")?);
        let (params, ret) = self.inline.get(f)?;
        let args = call.child_by_field_name("arguments").map(children)?;
        (args.len() == params.len()).then_some((params.as_slice(), *ret, args))
    }

    fn new(
        text: &'a str,
        call: Node<'t>,
        cx: &'a FileContext<'t>,
        params: &Params,
        args: &[Node<'t>],
        bound: HashMap<String, i64>,
    ) -> Self {
        let mut passed = HashMap::new();
        for (i, (p, integer, _)) in params.iter().enumerate() {
            if let (Some(a), true) = (args.get(i), *integer) {
                // `n`, `dims.x`: a variable or a field of one.
                let simple = a.kind() == "identifier"
                    || (a.kind() == "field_expression"
                        && a.child_by_field_name("argument")
                            .is_some_and(|v| v.kind() == "identifier"));
                if simple {
                    passed.insert(node_text(text, *a).to_string(), p.clone());
                }
            }
        }
        let mut h = Host {
            text,
            call,
            cx,
            arguments: passed.clone(),
            passed,
            locals: HashMap::new(),
            types: HashMap::new(),
            written: Vec::new(),
            inline: HashMap::new(),
            odd_parts: HashMap::new(),
            power_helpers: Vec::new(),
            write_nodes: Vec::new(),
            by_value_params: Vec::new(),
            bound,
            held: HashMap::new(),
            held_after_writes: Vec::new(),
            initializers: HashMap::new(),
            declarations: HashMap::new(),
            power_params: HashMap::new(),
        };
        h.read_function();
        // A parameter a caller binds keeps that value only while the
        // function does not write it; a written one, up to its first write.
        let written: Vec<String> = h.written.iter().map(|(v, _)| v.clone()).collect();
        let (kept, unbound): (HashMap<_, _>, HashMap<_, _>) = std::mem::take(&mut h.bound)
            .into_iter()
            .partition(|(name, _)| !written.contains(name));
        h.bound = kept;
        h.hold_until_written(unbound);
        h.run_constant_loops();
        h.hold_after_ordered_writes();
        h
    }

    fn read_function(&mut self) {
        let Some(func) = enclosing_function(self.call) else {
            return;
        };
        let before = self.call.start_byte();
        // Inside a loop, what follows the launch in the loop body (and the
        // loop's own update) runs before the launch's next iteration.
        let reach = outermost_loop(self.call, func).map_or(before, |l| l.end_byte());
        let mut stack = vec![func];
        let mut decls = Vec::new();
        // Each write that may run before the launch: (variable, write).
        let mut writes: Vec<(String, Node<'t>)> = Vec::new();
        while let Some(n) = stack.pop() {
            if n.start_byte() >= reach {
                continue;
            }
            match n.kind() {
                "declaration"
                    if n.start_byte() < before && encloses(self.taken_scope(n), self.call) =>
                {
                    decls.push(n)
                }
                "parameter_declaration" => {
                    if let (Some(t), Some(name)) = (
                        n.child_by_field_name("type"),
                        n.child_by_field_name("declarator")
                            .and_then(|d| crate::syntax::declarator_name(self.text, d)),
                    ) {
                        *self.declarations.entry(name.clone()).or_default() += 1;
                        self.types.insert(name, node_text(self.text, t).to_string());
                    }
                }
                "assignment_expression" | "update_expression" => {
                    let target = n
                        .child_by_field_name("left")
                        .or_else(|| n.child_by_field_name("argument"));
                    if let Some(v) = target.and_then(|l| written_variable(self.text, l)) {
                        writes.push((v, n));
                    }
                }
                // `f(x)` where `f` may take `x` by reference (a kernel
                // launch takes its arguments by value).
                "call_expression"
                    if n.id() != self.call.id() && direct_launch(self.text, n).is_none() =>
                {
                    let args = crate::syntax::call_arguments(n);
                    for (i, a) in args.iter().enumerate() {
                        if a.kind() == "identifier" && may_write_argument(self.text, n, i) {
                            writes.push((node_text(self.text, *a).to_string(), *a));
                        }
                    }
                    // `v.method()`: the method may change the object.
                    if let Some(object) = n
                        .child_by_field_name("function")
                        .filter(|f| f.kind() == "field_expression")
                        .and_then(|f| f.child_by_field_name("argument"))
                        .and_then(|o| written_variable(self.text, o))
                    {
                        writes.push((object, n));
                    }
                }
                // `int &r = x;`: writes through `r` write `x`.
                "init_declarator"
                    if n.child_by_field_name("declarator")
                        .is_some_and(|d| d.kind() == "reference_declarator") =>
                {
                    if let Some(v) = n
                        .child_by_field_name("value")
                        .and_then(|a| written_variable(self.text, a))
                    {
                        writes.push((v, n));
                    }
                }
                // `&x`: whatever receives the address may write `x` (a
                // launch's array of parameter addresses only reads it).
                "pointer_expression"
                    if n.child_by_field_name("operator")
                        .is_some_and(|o| node_text(self.text, o) == "&")
                        && !driver_launches::is_parameter_address(self.text, n) =>
                {
                    if let Some(v) = n
                        .child_by_field_name("argument")
                        .and_then(|a| written_variable(self.text, a))
                    {
                        writes.push((v, n));
                    }
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        if let Some(params) = func.child_by_field_name("declarator").and_then(|d| {
            let mut d = d;
            while d.kind() != "function_declarator" {
                d = d.child_by_field_name("declarator")?;
            }
            d.child_by_field_name("parameters")
        }) {
            for p in children(params) {
                let plain = p
                    .child_by_field_name("declarator")
                    .filter(|d| d.kind() == "identifier");
                if let (Some(d), "parameter_declaration") = (plain, p.kind()) {
                    self.by_value_params
                        .push(node_text(self.text, d).to_string());
                }
            }
        }
        self.write_nodes = writes.clone();
        self.written = writes
            .iter()
            .map(|(v, w)| (v.clone(), w.end_byte()))
            .collect();
        decls.sort_by_key(|d| d.start_byte());
        for d in decls {
            let ty = d
                .child_by_field_name("type")
                .map(|t| node_text(self.text, t))
                .unwrap_or("");
            let mut c = d.walk();
            for decl in d.children_by_field_name("declarator", &mut c) {
                let (name, local) = self.local(ty, decl);
                if let Some(name) = name {
                    *self.declarations.entry(name.clone()).or_default() += 1;
                    if let Local::Scalar(v) = local {
                        self.initializers.insert(name.clone(), v);
                    }
                    let mut mine = writes.iter().filter(|(v, _)| *v == name).map(|(_, w)| *w);
                    let local = match local {
                        Local::Dim3(comps) => self.dim3_writes(&name, comps, &mut mine),
                        l if mine.next().is_none() => l,
                        _ => Local::Unknown,
                    };
                    self.types.insert(name.clone(), ty.to_string());
                    self.locals.insert(name, local);
                }
            }
        }
        // Host helpers of the unit written as one `return` (`is_pow2`).
        let root = {
            let mut r = self.call;
            while let Some(p) = r.parent() {
                r = p;
            }
            r
        };
        let mut c = root.walk();
        let mut defined: HashMap<String, usize> = HashMap::new();
        for f in root.named_children(&mut c).flat_map(linkage_items) {
            if f.kind() != "function_definition" {
                continue;
            }
            if let Some(name) = crate::syntax::function_name(self.text, f) {
                *defined.entry(name).or_default() += 1;
            }
            if let Some((name, params, ret)) = single_return(self.text, f) {
                self.inline.insert(name, (params, ret));
            }
            if let (Some(name), Some(summary)) = (
                crate::syntax::function_name(self.text, f),
                host_helpers::odd_part(self.text, f),
            ) {
                self.odd_parts.insert(name, summary);
            }
            if let Some(name) = crate::syntax::function_name(self.text, f)
                .filter(|_| power_helpers::returns_power_of_two(self.text, f))
            {
                self.power_helpers.push(name);
            }
        }
        self.power_helpers
            .retain(|name| defined.get(name).is_some_and(|n| *n == 1));
        // An overloaded name: which definition a call runs is not read.
        self.odd_parts
            .retain(|name, _| defined.get(name).is_some_and(|n| *n == 1));
        self.inline
            .retain(|name, _| defined.get(name).is_some_and(|n| *n == 1));
    }

    /// The block a statement belongs to: its parent, or, through the
    /// preprocessor conditionals around it (`#ifndef W int w = 80; #endif`),
    /// the block around them when it is in each one's taken branch (the
    /// branches not taken are blanks in the unit: `project::taken`).
    fn taken_scope(&self, n: Node<'t>) -> Option<Node<'t>> {
        let mut child = n;
        let mut p = n.parent()?;
        loop {
            match p.kind() {
                "preproc_else" | "preproc_elif" => p = p.parent()?,
                "preproc_if" | "preproc_ifdef" => {
                    let taken = crate::frontend::preproc_branch(self.text, p, &self.cx.macros);
                    if !taken.iter().any(|t| t.id() == child.id()) {
                        return None;
                    }
                    child = p;
                    p = p.parent()?;
                }
                _ => return Some(p),
            }
        }
    }

    /// A `dim3` local after the writes to it before the launch, followed in
    /// order: each must be `g.x = E` or `g = dim3(...)` as a statement of a
    /// block around the launch (so it runs, once, before it) and before the
    /// launch; any other write makes the local unknown.
    fn dim3_writes(
        &self,
        name: &str,
        mut comps: [Option<Node<'t>>; 3],
        writes: &mut dyn Iterator<Item = Node<'t>>,
    ) -> Local<'t> {
        let mut writes: Vec<Node<'t>> = writes.collect();
        writes.sort_by_key(|w| w.start_byte());
        for w in writes {
            let in_order = w.kind() == "assignment_expression"
                && w.start_byte() < self.call.start_byte()
                && w.child_by_field_name("operator")
                    .is_some_and(|o| node_text(self.text, o) == "=")
                && w.parent().is_some_and(|s| {
                    s.kind() == "expression_statement"
                        && s.parent().is_some_and(|b| {
                            b.kind() == "compound_statement" && encloses(Some(b), self.call)
                        })
                });
            let (Some(left), Some(right), true) = (
                w.child_by_field_name("left"),
                w.child_by_field_name("right"),
                in_order,
            ) else {
                return Local::Unknown;
            };
            match left.kind() {
                "field_expression" => {
                    let axis = left
                        .child_by_field_name("field")
                        .map(|f| node_text(self.text, f));
                    let i = match axis {
                        Some("x") => 0,
                        Some("y") => 1,
                        Some("z") => 2,
                        _ => return Local::Unknown,
                    };
                    let direct = left
                        .child_by_field_name("argument")
                        .is_some_and(|a| node_text(self.text, a) == name);
                    if !direct {
                        return Local::Unknown;
                    }
                    comps[i] = Some(right);
                }
                "identifier" => {
                    let args = match right.kind() {
                        "call_expression"
                            if right
                                .child_by_field_name("function")
                                .is_some_and(|f| node_text(self.text, f) == "dim3") =>
                        {
                            right.child_by_field_name("arguments").map(children)
                        }
                        "initializer_list" => Some(children(right)),
                        _ => None,
                    };
                    match args.and_then(|a| components(&a)) {
                        Some(c) => comps = c,
                        None => return Local::Unknown,
                    }
                }
                _ => return Local::Unknown,
            }
        }
        Local::Dim3(comps)
    }

    /// A declarator of a local: `x = E`, `b(X, Y)`, `b = dim3(X, Y)`, `b{X, Y}`.
    fn local(&self, ty: &str, d: Node<'t>) -> (Option<String>, Local<'t>) {
        let dim3 = ty.ends_with("dim3");
        let name_of = |n: Node| crate::syntax::declarator_name(self.text, n);
        let dim3_of = |c: &[Node<'t>]| components(c).map_or(Local::Unknown, Local::Dim3);
        match d.kind() {
            "init_declarator" => {
                let name = d.child_by_field_name("declarator").and_then(name_of);
                let Some(v) = d.child_by_field_name("value") else {
                    return (name, Local::Unknown);
                };
                let local = match v.kind() {
                    "argument_list" | "initializer_list" if dim3 => dim3_of(&children(v)),
                    "call_expression" if dim3 => match v.child_by_field_name("arguments") {
                        Some(a) => dim3_of(&children(a)),
                        None => Local::Unknown,
                    },
                    _ => Local::Scalar(v),
                };
                (name, local)
            }
            // `dim3 b(T, T)` parses as a function declaration.
            "function_declarator" if dim3 => {
                let name = d.child_by_field_name("declarator").and_then(name_of);
                let comps: Vec<Node> = d
                    .child_by_field_name("parameters")
                    .map(|p| {
                        children(p)
                            .into_iter()
                            .map(|q| q.child_by_field_name("type").unwrap_or(q))
                            .collect()
                    })
                    .unwrap_or_default();
                (name, dim3_of(&comps))
            }
            "identifier" if dim3 => (name_of(d), Local::Dim3([None; 3])),
            _ => (name_of(d), Local::Unknown),
        }
    }

    /// Whether a host expression is evidently an integer (not a `dim3`):
    /// only then does a launch size written with it leave the other two
    /// dimensions at 1.
    /// `prop.multiProcessorCount` of a local `cudaDeviceProp prop`: the
    /// CUDA runtime declares these fields `int`, so a launch size made of
    /// one is an x size (a grid of one dimension).
    fn device_property_count(&self, n: Node, field: &str) -> bool {
        const INT_FIELDS: &[&str] = &[
            "multiProcessorCount",
            "maxThreadsPerBlock",
            "maxThreadsPerMultiProcessor",
            "maxBlocksPerMultiProcessor",
            "warpSize",
            "regsPerBlock",
            "regsPerMultiprocessor",
            "major",
            "minor",
        ];
        let Some(base) = n.child_by_field_name("argument") else {
            return false;
        };
        let ty = self
            .types
            .get(node_text(self.text, base))
            .map(|t| t.trim().trim_start_matches("struct").trim());
        base.kind() == "identifier" && ty == Some("cudaDeviceProp") && INT_FIELDS.contains(&field)
    }

    fn is_integer(&self, n: Node) -> bool {
        match n.kind() {
            "number_literal" | "binary_expression" | "unary_expression" | "sizeof_expression" => {
                true
            }
            "parenthesized_expression" => n.named_child(0).is_some_and(|m| self.is_integer(m)),
            "cast_expression" => n
                .child_by_field_name("type")
                .is_some_and(|t| !node_text(self.text, t).contains("dim3")),
            "conditional_expression" => {
                n.child_by_field_name("consequence")
                    .is_some_and(|m| self.is_integer(m))
                    && n.child_by_field_name("alternative")
                        .is_some_and(|m| self.is_integer(m))
            }
            "field_expression" => n.child_by_field_name("field").is_some_and(|f| {
                let field = node_text(self.text, f);
                matches!(field, "x" | "y" | "z") || self.device_property_count(n, field)
            }),
            "identifier" | "type_identifier" => {
                let name = node_text(self.text, n);
                match self.types.get(name) {
                    Some(t) => is_integer_type_name(t),
                    None => {
                        self.bound.contains_key(name)
                            || self.cx.enumerators.contains_key(name)
                            || self.cx.macros.contains_key(name)
                            || self.cx.constants.contains_key(name)
                    }
                }
            }
            "call_expression" => {
                let Some(f) = n.child_by_field_name("function") else {
                    return false;
                };
                let f = node_text(self.text, f);
                let bare = f.rsplit("::").next().unwrap_or(f);
                if matches!(bare, "min" | "max" | "MIN" | "MAX" | "ceil" | "floor") {
                    return true;
                }
                self.cx.functions.get(f).is_some_and(|d| {
                    d.node
                        .child_by_field_name("type")
                        .is_some_and(|t| is_integer_type_name(node_text(self.text, t)))
                })
            }
            _ => false,
        }
    }

    /// Whether `name` is written anywhere that may run before the launch.
    fn ever_written(&self, name: &str) -> bool {
        self.written.iter().any(|(w, _)| w == name)
    }

    /// Whether `name` keeps, from `at` on, the value it has at the launch:
    /// every write to it that may run before the launch ends before `at`
    /// (a write after the launch in a loop around it is after `at` too).
    fn stable(&self, name: &str, at: usize) -> bool {
        self.written.iter().all(|(w, end)| w != name || *end <= at)
    }

    /// What the launch size `node` makes known on the kernel's side: the
    /// variable it is (`threads` → `blockDim.x`, `threads.y` →
    /// `blockDim.y`) and the variables its components are (`dim3
    /// threads(bs, bs)`: `bs` → `blockDim.x`), when not written before the
    /// launch (then they hold the value the size was made of).
    fn alias_sizes(&mut self, node: Option<Node<'t>>, dim: &str) {
        let Some(node) = node.filter(|n| n.kind() == "identifier") else {
            return;
        };
        let g = node_text(self.text, node).to_string();
        // Only the function's own locals and parameters: a global may be
        // written by any call in between.
        let local = |name: &str| self.types.contains_key(name);
        if self.ever_written(&g) || !local(&g) {
            return;
        }
        let axes = ["x", "y", "z"];
        let comps = match self.dim3_components(node) {
            Some(c) => c,
            None if self.is_integer(node) => {
                self.passed.entry(g).or_insert(format!("{dim}.x"));
                return;
            }
            None => [None; 3],
        };
        for (i, axis) in axes.iter().enumerate() {
            self.passed
                .entry(format!("{g}.{axis}"))
                .or_insert(format!("{dim}.{axis}"));
            // `dim3 threads(bs, bs)` parses as a function declaration: its
            // components are then type names.
            let named = |c: &Node| matches!(c.kind(), "identifier" | "type_identifier");
            if let Some(c) = comps[i].filter(named) {
                let name = node_text(self.text, c).to_string();
                if self.value(c).is_none() && !self.ever_written(&name) && local(&name) {
                    self.passed.entry(name).or_insert(format!("{dim}.{axis}"));
                }
            }
        }
    }

    /// What a driver launch's size components make known on the kernel's
    /// side: a local variable a component is (`bs` of `dim3 block(bs, bs)`
    /// launched as `block.x, block.y`) is that size wherever it keeps the
    /// value it had there (every write to it ends before the component
    /// reads it: a size filled through `&bs` by a call before is one value).
    fn alias_components(&mut self, comps: [Option<Node<'t>>; 3], dim: &str) {
        for (c, axis) in comps.iter().zip(["x", "y", "z"]) {
            let Some(c) = c.filter(|c| c.kind() == "identifier") else {
                continue;
            };
            let name = node_text(self.text, c).to_string();
            if self.value(c).is_none()
                && self.types.contains_key(&name)
                && self.stable(&name, c.start_byte())
            {
                self.passed.entry(name).or_insert(format!("{dim}.{axis}"));
            }
        }
    }

    /// The launch sizes `node` gives `dim` (`gridDim`/`blockDim`): fixed
    /// when every component is a constant, else facts.
    fn dims(&self, node: Option<Node<'t>>, dim: &str) -> (Option<[u32; 3]>, Vec<String>) {
        let Some(node) = node else {
            return (None, Vec::new());
        };
        let comps: [Option<Node>; 3] = match self.dim3_components(node) {
            // `dim3 g(other)`: a copy, not an x size.
            Some([Some(c), None, None]) if !self.is_integer(c) => match self.dim3_components(c) {
                Some(inner) => inner,
                None => return (None, Vec::new()),
            },
            Some(c) => c,
            // An integer: the other two dimensions are 1.
            None if self.is_integer(node) => [Some(node), None, None],
            // A `dim3` whose components are not known: only what the
            // launch itself passes (`g.x` as an argument: `blockDim.x ==` it).
            None => {
                let g = node_text(self.text, node);
                let facts = ["x", "y", "z"]
                    .iter()
                    .filter_map(|axis| {
                        let p = self.arguments.get(&format!("{g}.{axis}"))?;
                        Some(format!("{dim}.{axis} == ({p})"))
                    })
                    .collect();
                return (None, facts);
            }
        };
        self.dims_of(comps, Some(node), dim)
    }

    /// A driver launch's size components as written (`grid.x`, `32`),
    /// each field of a `dim3` local read as that component (`None`: 1).
    fn components_at_launch(&self, written: &[Node<'t>]) -> [Option<Node<'t>>; 3] {
        let mut out = [None; 3];
        for (i, c) in written.iter().enumerate().take(3) {
            out[i] = Some(*c);
            let field = (c.kind() == "field_expression")
                .then(|| {
                    let g = c.child_by_field_name("argument")?;
                    let axis = match node_text(self.text, c.child_by_field_name("field")?) {
                        "x" => 0,
                        "y" => 1,
                        "z" => 2,
                        _ => return None,
                    };
                    match self.locals.get(node_text(self.text, g)) {
                        Some(Local::Dim3(comps)) if g.kind() == "identifier" => Some(comps[axis]),
                        _ => None,
                    }
                })
                .flatten();
            if let Some(component) = field {
                out[i] = component;
            }
        }
        out
    }

    /// [`Host::dims`] of known components (`whole`: the launch's own size
    /// expression, when it is one).
    fn dims_of(
        &self,
        comps: [Option<Node<'t>>; 3],
        whole: Option<Node<'t>>,
        dim: &str,
    ) -> (Option<[u32; 3]>, Vec<String>) {
        let axes = ["x", "y", "z"];
        let mut fixed = [1u32; 3];
        let mut all_fixed = true;
        let mut facts = Vec::new();
        for (i, axis) in axes.iter().enumerate() {
            match comps[i] {
                None => facts.push(format!("{dim}.{axis} == 1")),
                Some(c) => match self.value(c) {
                    Some(v) if (1..=i64::from(u32::MAX)).contains(&v) => {
                        fixed[i] = v as u32;
                        facts.push(format!("{dim}.{axis} == {v}"));
                    }
                    _ => {
                        all_fixed = false;
                        // The launch's own expression, also passed as an
                        // argument: equal at the launch, written or not.
                        let e = self.kernel_expr(c, 0).or_else(|| {
                            whole
                                .filter(|w| w.id() == c.id())
                                .and_then(|_| self.arguments.get(node_text(self.text, c)).cloned())
                        });
                        // (A size that is only itself, `rows` read back as
                        // `gridDim.x`, says nothing.)
                        if let Some(e) = e.filter(|e| *e != format!("{dim}.{axis}")) {
                            facts.push(format!("{dim}.{axis} == ({e})"));
                        } else if dim == "blockDim" && self.occupancy_block_size(c) {
                            facts.push(format!("{dim}.{axis} % 32 == 0"));
                        }
                        // A size that is a power of two or zero in the
                        // host is one as the unsigned launch size (a zero
                        // size never launches).
                        if self.power_of_two_argument(c, 0).is_some() {
                            facts.push(format!("(({dim}.{axis}) & (({dim}.{axis}) - 1)) == 0"));
                        }
                    }
                },
            }
        }
        // `dim3 block(T, T)`: equal however T is chosen.
        for i in 1..3 {
            for j in 0..i {
                if let (Some(a), Some(b)) = (comps[i], comps[j]) {
                    if node_text(self.text, a) == node_text(self.text, b) && self.value(a).is_none()
                    {
                        facts.push(format!("{dim}.{} == {dim}.{}", axes[i], axes[j]));
                    }
                }
            }
        }
        if all_fixed {
            (Some(fixed), Vec::new())
        } else {
            (None, facts)
        }
    }

    fn dim3_components(&self, node: Node<'t>) -> Option<[Option<Node<'t>>; 3]> {
        match node.kind() {
            "identifier" => match self.locals.get(node_text(self.text, node)) {
                Some(Local::Dim3(c)) => Some(*c),
                Some(Local::Scalar(v)) => self.dim3_components(*v),
                _ => None,
            },
            "call_expression" => {
                let f = node.child_by_field_name("function")?;
                (node_text(self.text, f) == "dim3")
                    .then(|| node.child_by_field_name("arguments").map(children))
                    .flatten()
                    .and_then(|a| components(&a))
            }
            "parenthesized_expression" => self.dim3_components(node.named_child(0)?),
            _ => None,
        }
    }
    /// The constant value of a host expression, if it has one.
    fn value(&self, n: Node) -> Option<i64> {
        self.value_at(n, 0)
    }

    fn value_at(&self, n: Node, depth: usize) -> Option<i64> {
        self.value_in(n, depth, None)
    }

    /// [`Host::value_at`] in the host function (`helper`: `None`) or in
    /// the body of an inlined helper, whose parameters are bound to these
    /// values and whose other names are the unit's constants.
    fn value_in(
        &self,
        n: Node,
        depth: usize,
        helper: Option<&HashMap<String, i64>>,
    ) -> Option<i64> {
        if depth > DEPTH {
            return None;
        }
        let ev = |m: Node| self.value_in(m, depth + 1, helper);
        match n.kind() {
            "number_literal" => crate::frontend::parse_int(node_text(self.text, n)),
            "parenthesized_expression" | "type_descriptor" => ev(n.named_child(0)?),
            "identifier" | "type_identifier" if helper.is_some() => {
                let name = node_text(self.text, n);
                match helper.and_then(|p| p.get(name)) {
                    Some(v) => Some(*v),
                    None => self.constant(name, depth),
                }
            }
            "identifier" | "type_identifier" => {
                let name = node_text(self.text, n);
                if let Some(v) = self.held_at(name, n) {
                    return Some(v);
                }
                if let Some(l) = self.locals.get(name) {
                    return match l {
                        Local::Scalar(v) => ev(*v),
                        _ => None,
                    };
                }
                if let Some(v) = self.bound.get(name) {
                    return Some(*v);
                }
                self.constant(name, depth)
            }
            "unary_expression" => {
                let v = ev(n.child_by_field_name("argument")?)?;
                match node_text(self.text, n.child_by_field_name("operator")?) {
                    "-" => v.checked_neg(),
                    "+" => Some(v),
                    // Two's complement, as C's `~` on the (signed or
                    // unsigned) integer: `~0x3f & (x + 0x3f)` rounds up.
                    "~" => Some(!v),
                    "!" => Some(i64::from(v == 0)),
                    _ => None,
                }
            }
            "binary_expression" => {
                let a = ev(n.child_by_field_name("left")?)?;
                let b = ev(n.child_by_field_name("right")?)?;
                let op = node_text(self.text, n.child_by_field_name("operator")?);
                let v = crate::model::fold(crate::frontend::binop(op)?, a, b)?;
                // Inside a helper the operands' C types are not read: only
                // values that every 32-bit integer type holds alike (no
                // unsigned wrap, no signed overflow) are folded.
                let exact = helper.is_none() || (0..=i64::from(i32::MAX)).contains(&v);
                exact.then_some(v)
            }
            // A rounding helper's `(a % b != 0) ? (a / b + 1) : (a / b)`:
            // only the branch taken is evaluated (C evaluates no other).
            "conditional_expression" => {
                let taken = if ev(n.child_by_field_name("condition")?)? != 0 {
                    n.child_by_field_name("consequence")?
                } else {
                    n.child_by_field_name("alternative")?
                };
                ev(taken)
            }
            // A host helper of the unit written as one `return` (`iDivUp(w,
            // 16)`), of constant arguments that every parameter type holds.
            "call_expression" => {
                let (names, ret, args) = self.inlined_call(n)?;
                let mut bound = HashMap::new();
                for (name, a) in names.iter().zip(args) {
                    let v = ev(a).filter(|v| (0..=i64::from(i32::MAX)).contains(v))?;
                    bound.insert(name.clone(), v);
                }
                self.value_in(ret, depth + 1, Some(&bound))
            }
            "cast_expression" => ev(n.child_by_field_name("value")?),
            "sizeof_expression" => {
                // `sizeof(cData)` of a typedef parses as the size of a
                // parenthesized expression: the name is then read as a type
                // when it is an alias (not a variable of the function).
                let t = match n.child_by_field_name("type") {
                    Some(t) => node_text(self.text, t).trim(),
                    None => {
                        let v = strip_parentheses(n.child_by_field_name("value")?);
                        let name = node_text(self.text, v);
                        let alias = v.kind() == "identifier"
                            && self.cx.type_aliases.contains_key(name)
                            && !self.types.contains_key(name);
                        if !alias {
                            return None;
                        }
                        name
                    }
                };
                // A typedef of a plain type (`typedef float2 cData;`) has
                // that type's size.
                let t = self.cx.type_aliases.get(t).map_or(t, |a| a.as_str());
                crate::frontend::type_bytes(t)
            }
            _ => None,
        }
    }

    /// A macro, enumerator or `const`/`constexpr` of the unit.
    fn constant(&self, name: &str, depth: usize) -> Option<i64> {
        if let Some(v) = self.cx.enumerators.get(name) {
            return Some(*v);
        }
        if let Some(m) = self.cx.macros.get(name) {
            return macro_value(m, self.cx, depth);
        }
        let node = self.cx.constants.get(name)?;
        self.value_at(*node, depth + 1)
    }

    /// `node` as a C expression over the kernel's parameters (constants
    /// folded), or `None` if it names anything else.
    fn kernel_expr(&self, n: Node, depth: usize) -> Option<String> {
        self.kernel_expr_with(n, depth, &HashMap::new())
    }

    fn kernel_expr_with(
        &self,
        n: Node,
        depth: usize,
        subst: &HashMap<String, String>,
    ) -> Option<String> {
        if depth > DEPTH {
            return None;
        }
        if let Some(v) = self.value(n).filter(|_| subst.is_empty()) {
            return Some(v.to_string());
        }
        let go = |m: Node| self.kernel_expr_with(m, depth + 1, subst);
        match n.kind() {
            "number_literal" => {
                crate::frontend::parse_int(node_text(self.text, n)).map(|v| v.to_string())
            }
            "true" => Some("1".into()),
            "false" => Some("0".into()),
            "identifier" => {
                let name = node_text(self.text, n);
                if let Some(s) = subst.get(name) {
                    return Some(s.clone());
                }
                if let Some(v) = self.value(n) {
                    return Some(v.to_string());
                }
                // A variable written between where this expression is
                // evaluated (a host check, a local's initializer) and the
                // launch may hold another value there than the one passed.
                if let Some(p) = self.passed.get(name) {
                    if self.stable(name, n.start_byte()) {
                        return Some(p.clone());
                    }
                }
                match self.locals.get(name) {
                    Some(Local::Scalar(v)) => go(*v).map(|e| format!("({e})")),
                    _ => self
                        .host_value(name, None)
                        .or_else(|| self.macro_expr(name, n.start_byte(), depth, subst)),
                }
            }
            "field_expression" => {
                let var = n.child_by_field_name("argument")?;
                let root = node_text(self.text, var);
                if var.kind() != "identifier" || !self.stable(root, n.start_byte()) {
                    return None;
                }
                if let Some(p) = self.passed.get(node_text(self.text, n)) {
                    return Some(p.clone());
                }
                let field = node_text(self.text, n.child_by_field_name("field")?);
                if !self.locals.contains_key(root) {
                    if let Some(h) = self.host_value(root, Some(field)) {
                        return Some(h);
                    }
                }
                let axis = match field {
                    "x" => 0,
                    "y" => 1,
                    "z" => 2,
                    _ => return None,
                };
                match self.locals.get(root) {
                    Some(Local::Dim3(c)) => match c[axis] {
                        Some(v) => go(v).map(|e| format!("({e})")),
                        None => Some("1".into()),
                    },
                    _ => None,
                }
            }
            "parenthesized_expression" => go(n.named_child(0)?).map(|e| format!("({e})")),
            "unary_expression" => {
                let op = node_text(self.text, n.child_by_field_name("operator")?);
                matches!(op, "-" | "!" | "~")
                    .then(|| go(n.child_by_field_name("argument")?).map(|e| format!("{op}({e})")))
                    .flatten()
            }
            "binary_expression" => {
                let op = node_text(self.text, n.child_by_field_name("operator")?);
                if let Some(e) = self.odd_part_test(n, depth, subst) {
                    return Some(e);
                }
                crate::frontend::binop(op)?;
                let a = go(n.child_by_field_name("left")?)?;
                let b = go(n.child_by_field_name("right")?)?;
                Some(format!("({a}) {op} ({b})"))
            }
            "cast_expression" => go(n.child_by_field_name("value")?),
            // A rounding helper's `(a % b != 0) ? (a / b + 1) : (a / b)`.
            "conditional_expression" => {
                let c = go(n.child_by_field_name("condition")?)?;
                let a = go(n.child_by_field_name("consequence")?)?;
                let b = go(n.child_by_field_name("alternative")?)?;
                Some(format!("(({c}) ? ({a}) : ({b}))"))
            }
            "call_expression" => {
                let (params, ret, args) = self.inlined_call(n)?;
                let mut inner = HashMap::new();
                for (p, a) in params.iter().zip(args) {
                    inner.insert(p.clone(), format!("({})", go(a)?));
                }
                self.kernel_expr_with(ret, depth + 1, &inner)
                    .map(|e| format!("({e})"))
            }
            _ => None,
        }
    }

    /// An object-like macro used at `at` whose body is an expression of
    /// names, numbers and operators (`#define WC (4 * block_size)`), as a
    /// kernel-side expression: each name read as it would be at the use,
    /// where the preprocessor puts the body (a local of the function, a
    /// variable passed, another macro). A body with a call, a cast, a
    /// string or anything else is not read.
    fn macro_expr(
        &self,
        name: &str,
        at: usize,
        depth: usize,
        subst: &HashMap<String, String>,
    ) -> Option<String> {
        let m = self.cx.macros.get(name)?;
        let body = m.body.trim();
        if m.params.is_some() || body.is_empty() || depth > DEPTH || body.contains("/*") {
            return None;
        }
        let chars: Vec<char> = body.chars().collect();
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_ascii_alphabetic() || c == '_' {
                let start = i;
                while i < chars.len() && word(chars[i]) {
                    i += 1;
                }
                let token: String = chars[start..i].iter().collect();
                // `f(x)`, `(T)x`: a call or a type, not read here.
                let next = chars[i..].iter().find(|c| !c.is_whitespace());
                let prev = chars[..start].iter().rev().find(|c| !c.is_whitespace());
                if next == Some(&'(') || (prev == Some(&'(') && next == Some(&')')) {
                    return None;
                }
                let e = self.name_expr(&token, at, depth + 1, subst)?;
                out.push_str(&format!("({e})"));
            } else if c.is_ascii_digit() {
                let start = i;
                while i < chars.len() && (word(chars[i]) || chars[i] == '.') {
                    i += 1;
                }
                let token: String = chars[start..i].iter().collect();
                out.push_str(&crate::frontend::parse_int(&token)?.to_string());
            } else if "+-*/%()<>=!&|^~ \t".contains(c) {
                if c == '/' && chars.get(i + 1) == Some(&'/') {
                    return None;
                }
                out.push(c);
                i += 1;
            } else {
                return None;
            }
        }
        Some(format!("({out})"))
    }

    /// The kernel-side expression a host name read at `at` stands for
    /// (as [`Host::kernel_expr`] reads an identifier).
    fn name_expr(
        &self,
        name: &str,
        at: usize,
        depth: usize,
        subst: &HashMap<String, String>,
    ) -> Option<String> {
        if depth > DEPTH {
            return None;
        }
        if let Some(s) = subst.get(name) {
            return Some(s.clone());
        }
        if let Some(v) = self.held_at_offset(name, at) {
            return Some(v.to_string());
        }
        if let Some(v) = self.name_value(name, depth) {
            return Some(v.to_string());
        }
        if let Some(p) = self.passed.get(name) {
            if self.stable(name, at) {
                return Some(p.clone());
            }
        }
        match self.locals.get(name) {
            Some(Local::Scalar(v)) => self
                .kernel_expr_with(*v, depth + 1, subst)
                .map(|e| format!("({e})")),
            Some(_) => None,
            None => self
                .host_value(name, None)
                .or_else(|| self.macro_expr(name, at, depth, subst)),
        }
    }

    /// A local passed for a parameter (`size_t w = (size_t)WA;` then
    /// `&w` in a driver launch's `args`), never written before the launch,
    /// whose initializer is made of launch sizes, constants and macros over
    /// them with `+`, `*`, `/`, `%`, `>>` only: the initializer as a
    /// kernel-side expression, when its value provably fits the local's
    /// type, the parameter's (`range`) and a host `int` (no step of the
    /// host's arithmetic wraps, so the kernel's reading of it is exact).
    fn fitting_initializer(&self, a: Node<'t>, range: Option<(i64, i64)>) -> Option<String> {
        if a.kind() != "identifier" {
            return None;
        }
        let name = node_text(self.text, a);
        let Some(Local::Scalar(init)) = self.locals.get(name) else {
            return None;
        };
        let (_, param_hi) = range?;
        let local = self.types.get(name)?;
        let (_, local_hi) = crate::frontend::int_range(local.trim())?;
        let hi = self.upper_bound(self.text, *init, init.start_byte(), 0)?;
        if hi > param_hi.min(local_hi).min(i64::from(i32::MAX)) {
            return None;
        }
        self.kernel_expr(*init, 0)
    }

    /// An upper bound of a host expression `n` of the text `src` (the unit,
    /// or a macro's body) read at `at`, every value of which is at least 0:
    /// constants, launch block sizes (at most 1024), `+`, `*`, and `/`,
    /// `%`, `>>` (at most their left operand); `None` for anything else.
    fn upper_bound(&self, src: &str, n: Node, at: usize, depth: usize) -> Option<i64> {
        if depth > DEPTH {
            return None;
        }
        let go = |m: Node| self.upper_bound(src, m, at, depth + 1);
        match n.kind() {
            "number_literal" => crate::frontend::parse_int(node_text(src, n)).filter(|v| *v >= 0),
            "parenthesized_expression" => go(n.named_child(0)?),
            "cast_expression" => {
                let t = node_text(src, n.child_by_field_name("type")?);
                is_integer_type_name(t.trim())
                    .then(|| go(n.child_by_field_name("value")?))
                    .flatten()
            }
            "binary_expression" => {
                let l = go(n.child_by_field_name("left")?)?;
                let r = go(n.child_by_field_name("right")?)?;
                match node_text(src, n.child_by_field_name("operator")?) {
                    "+" => l.checked_add(r),
                    "*" => l.checked_mul(r),
                    "/" | "%" | ">>" => Some(l),
                    _ => None,
                }
            }
            "identifier" => {
                let name = node_text(src, n);
                if let Some(v) = self
                    .held_at_offset(name, at)
                    .or_else(|| self.name_value(name, depth))
                {
                    return (v >= 0).then_some(v);
                }
                if let Some(p) = self.passed.get(name) {
                    return (p.starts_with("blockDim.") && self.stable(name, at)).then_some(1024);
                }
                if let Some(Local::Scalar(v)) = self.locals.get(name) {
                    return self.upper_bound(self.text, *v, v.start_byte(), depth + 1);
                }
                let m = self.cx.macros.get(name)?;
                if m.params.is_some() {
                    return None;
                }
                let body = format!("int __v = ({});", m.body);
                let tree = crate::syntax::parse(&body, None);
                let v = tree
                    .root_node()
                    .named_child(0)?
                    .child_by_field_name("declarator")?
                    .child_by_field_name("value")?;
                self.upper_bound(&body, v, at, depth + 1)
            }
            _ => None,
        }
    }

    /// The constant a host name holds (a local's constant initializer, a
    /// bound template parameter, a constant of the unit).
    fn name_value(&self, name: &str, depth: usize) -> Option<i64> {
        if let Some(l) = self.locals.get(name) {
            return match l {
                Local::Scalar(v) => self.value_at(*v, depth + 1),
                _ => None,
            };
        }
        if let Some(v) = self.bound.get(name) {
            return Some(*v);
        }
        self.constant(name, depth)
    }

    /// An argument that divides (or shifts right) an unsigned host value
    /// by constants (`n / (4 * BLOCK)`, `len >> 2`), as a kernel-side
    /// expression: the value passed. Only an operation that cannot wrap,
    /// on a variable read at the launch (a parameter of the host function
    /// or a variable passed, not a local whose initializer may compute in
    /// host arithmetic that wraps), of at most 32 bits, so the quotient
    /// fits any integer parameter of 32 bits.
    fn narrowed_argument(&self, a: Node, depth: usize) -> Option<String> {
        if depth > DEPTH {
            return None;
        }
        let a = strip_parentheses(a);
        match a.kind() {
            "binary_expression" => {
                let op = node_text(self.text, a.child_by_field_name("operator")?);
                let by = self.value(a.child_by_field_name("right")?)?;
                let narrows = match op {
                    "/" => by >= 2,
                    ">>" => (1..32).contains(&by),
                    _ => false,
                };
                if !narrows {
                    return None;
                }
                self.narrowed_argument(a.child_by_field_name("left")?, depth + 1)?;
                self.kernel_expr(a, 0)
            }
            "identifier" if depth > 0 => {
                let name = node_text(self.text, a);
                let unsigned32 = self.types.get(name).is_some_and(|t| {
                    is_unsigned_type_name(t)
                        && crate::frontend::int_range(t.trim())
                            .is_some_and(|(_, hi)| hi <= i64::from(u32::MAX))
                });
                (unsigned32 && !self.locals.contains_key(name) && self.value(a).is_none())
                    .then(|| self.kernel_expr(a, 0))
                    .flatten()
            }
            _ => None,
        }
    }

    /// `h(.., a, ..) == 1` (or `!= 1`, either side) where `h` returns the
    /// odd part of its parameter ([`host_helpers::odd_part`]), called
    /// directly or through a local it initialises: `a` is a positive
    /// power of two (or is not). The argument must be a variable of a type
    /// with the parameter's range, so the value tested is its own.
    fn odd_part_test(
        &self,
        n: Node,
        depth: usize,
        subst: &HashMap<String, String>,
    ) -> Option<String> {
        let op = node_text(self.text, n.child_by_field_name("operator")?);
        if !matches!(op, "==" | "!=") {
            return None;
        }
        let l = strip_parentheses(n.child_by_field_name("left")?);
        let r = strip_parentheses(n.child_by_field_name("right")?);
        let side = match (self.value(l), self.value(r)) {
            (_, Some(1)) => l,
            (Some(1), _) => r,
            _ => return None,
        };
        let call = match side.kind() {
            "call_expression" => side,
            "identifier" => match self.locals.get(node_text(self.text, side)) {
                Some(Local::Scalar(v)) => strip_parentheses(*v),
                _ => return None,
            },
            _ => return None,
        };
        if call.kind() != "call_expression" {
            return None;
        }
        let f = node_text(self.text, call.child_by_field_name("function")?);
        let summary = self.odd_parts.get(f)?;
        let args = call.child_by_field_name("arguments").map(children)?;
        if args.len() != summary.arity {
            return None;
        }
        let arg = strip_parentheses(*args.get(summary.index)?);
        let same_range = arg.kind() == "identifier"
            && self
                .types
                .get(node_text(self.text, arg))
                .and_then(|t| crate::frontend::int_range(t.trim()))
                .is_some_and(|range| crate::frontend::int_range(&summary.ty) == Some(range));
        if !same_range {
            return None;
        }
        let a = self.kernel_expr_with(arg, depth + 1, subst)?;
        let fact = format!("(({a}) > 0 && ((({a}) & (({a}) - 1)) == 0))");
        Some(if op == "==" { fact } else { format!("!{fact}") })
    }

    /// A host parameter passed by value and never written before the
    /// launch (or a field of one: `size.width`) holds one value wherever
    /// the function reads it. A fact may name that value even when the
    /// kernel is not passed it: it becomes a grid-uniform unknown of the
    /// kernel (`symbols::host_value`), one per launch, the same in every fact
    /// of the launch, so `gridDim.x == w / 8` and `pitch >= w` together
    /// say `pitch >= 8 * gridDim.x` without the analysis solving for `w`.
    ///
    /// Only a value of an integer type the analysis knows: its name carries
    /// the type's range (`symbols::host_value`), which the kernel's unknown
    /// keeps, since any value, such as one that wraps a comparison with a
    /// launch size, would admit launches the host cannot make.
    fn host_value(&self, root: &str, field: Option<&str>) -> Option<String> {
        let plain = |s: &str| !s.is_empty() && !s.contains("__");
        if !self.by_value_params.iter().any(|p| p == root)
            || self.ever_written(root)
            || !plain(root)
            || !field.is_none_or(plain)
        {
            return None;
        }
        let ty = self.types.get(root)?.trim();
        let ty = ty.strip_prefix("const ").unwrap_or(ty).trim();
        let ty = match field {
            None => ty.to_string(),
            Some(f) => {
                let name = ty.strip_prefix("struct ").unwrap_or(ty).trim();
                let member = self
                    .cx
                    .structs
                    .get(name)?
                    .fields
                    .iter()
                    .find(|m| m.name == f && !m.array && !m.pointer)?;
                member.elem_type.clone()
            }
        };
        let range = crate::frontend::int_range(&ty)?;
        let path = match field {
            Some(f) => format!("{root}__{f}"),
            None => root.to_string(),
        };
        crate::symbols::host_value(range, &path)
    }

    /// The least value the host variable passed as `arg` (`pitch`,
    /// `(int)pitch`) can hold at the launch when its one value comes from
    /// `cudaMallocPitch(&p, &pitch, width, height)`, perhaps divided by
    /// constants afterwards (`pitch /= sizeof(float)`): CUDA returns a pitch
    /// of at least `width` bytes, so the variable is at least
    /// `width / divisor`. Every write to the variable must be a statement
    /// of a block around the launch, before it (so each runs once, in
    /// order, before the launch), and the last allocation's width must be
    /// a fact of the launch (`kernel_expr`).
    fn pitch_bound(&self, arg: Node<'t>) -> Option<String> {
        let mut a = arg;
        loop {
            a = match a.kind() {
                "cast_expression" => a.child_by_field_name("value")?,
                "parenthesized_expression" => a.named_child(0)?,
                _ => break,
            };
        }
        if a.kind() != "identifier" {
            return None;
        }
        let var = node_text(self.text, a);
        let mut writes: Vec<Node<'t>> = self
            .write_nodes
            .iter()
            .filter(|(v, _)| v == var)
            .map(|(_, w)| *w)
            .collect();
        writes.sort_by_key(|w| w.start_byte());
        let last_alloc = writes
            .iter()
            .rposition(|w| pitch_width(self.text, *w).is_some())?;
        let width = pitch_width(self.text, writes[last_alloc])?;
        let mut divisor: i64 = 1;
        for w in &writes[last_alloc + 1..] {
            divisor = divisor.checked_mul(self.constant_division(*w, var)?)?;
        }
        if !writes[last_alloc..]
            .iter()
            .all(|w| self.runs_once_before_launch(*w))
        {
            return None;
        }
        let e = self.kernel_expr(width, 0)?;
        Some(format!("({e}) / ({divisor})"))
    }

    /// The least value the global passed as `arg` (`pitch`, `(int)pitch`)
    /// holds when every write to it in the project is a
    /// `cudaMallocPitch(&ptr, &pitch, width, height)` of a constant width
    /// ([`global_pitch`]): the least such width.
    fn global_pitch_bound(
        &self,
        arg: Node<'t>,
        outside: &dyn Fn(&str) -> Option<Vec<i64>>,
    ) -> Option<i64> {
        let a = strip_casts_and_parentheses(arg)?;
        if a.kind() != "identifier" {
            return None;
        }
        let var = node_text(self.text, a);
        // A local or parameter of the launching function hides any global.
        if self.types.contains_key(var) || self.locals.contains_key(var) {
            return None;
        }
        let mut root = self.call;
        while let Some(p) = root.parent() {
            root = p;
        }
        let mine = global_pitch::pitch_writes(self.text, root, self.cx, var);
        global_pitch::least_pitch(mine, outside, var)
    }

    /// Whether the host variable `arg` holds, at the launch, the block size
    /// `cudaOccupancyMaxPotentialBlockSize(&minGrid, &arg, kernel, ..)`
    /// chose: its last write, run once before the launch, with no write
    /// after it. The runtime header's search tries block sizes in whole
    /// warps below the least of the device's limit (1024), the kernel's
    /// register limit (counted in whole warps: registers are allocated per
    /// warp) and the `blockSizeLimit` argument, so its answer is a multiple
    /// of the warp size (32) when that argument is absent, 0 or a multiple
    /// of 32 and the kernel it sizes has no `__launch_bounds__` whose
    /// maximum is not one.
    fn occupancy_block_size(&self, arg: Node<'t>) -> bool {
        let mut a = arg;
        while matches!(a.kind(), "cast_expression" | "parenthesized_expression") {
            let inner = match a.kind() {
                "cast_expression" => a.child_by_field_name("value"),
                _ => a.named_child(0),
            };
            let Some(inner) = inner else { return false };
            a = inner;
        }
        if a.kind() != "identifier" {
            return false;
        }
        let var = node_text(self.text, a);
        let last = self
            .write_nodes
            .iter()
            .filter(|(v, _)| v == var)
            .map(|(_, w)| *w)
            .max_by_key(|w| w.start_byte());
        let Some(last) = last else { return false };
        let Some(call) = occupancy_block_size_call(self.text, last) else {
            return false;
        };
        if !self.runs_once_before_launch(last) {
            return false;
        }
        let args = crate::syntax::call_arguments(call);
        let limit_ok = match args.get(4) {
            None => true,
            Some(l) => self.value(*l).is_some_and(|v| v >= 0 && v % 32 == 0),
        };
        let kernel_ok = args.get(2).is_some_and(|k| {
            let name = node_text(self.text, *k);
            let Some(def) = self.cx.kernels.iter().find(|d| d.name == name) else {
                return false;
            };
            crate::syntax::queries::launch_bounds(def.node, self.text)
                .iter()
                .all(|b| {
                    b.named_child(0)
                        .and_then(|n| self.value(n))
                        .is_some_and(|v| v > 0 && v % 32 == 0)
                })
        });
        limit_ok && kernel_ok
    }

    /// `v /= C` or `v = v / C` with `C` a positive constant: `C`.
    fn constant_division(&self, w: Node, var: &str) -> Option<i64> {
        if w.kind() != "assignment_expression" {
            return None;
        }
        let left = w.child_by_field_name("left")?;
        let right = w.child_by_field_name("right")?;
        if left.kind() != "identifier" || node_text(self.text, left) != var {
            return None;
        }
        let c = match node_text(self.text, w.child_by_field_name("operator")?) {
            "/=" => self.value(right)?,
            "=" if right.kind() == "binary_expression" => {
                let l = right.child_by_field_name("left")?;
                let op = node_text(self.text, right.child_by_field_name("operator")?);
                if op != "/" || l.kind() != "identifier" || node_text(self.text, l) != var {
                    return None;
                }
                self.value(right.child_by_field_name("right")?)?
            }
            _ => return None,
        };
        (c > 0).then_some(c)
    }

    /// Whether the write `w` is (inside) a statement of a block around the
    /// launch that ends before it: nested only in calls (`check(f(&v))`)
    /// or parentheses, so it runs once, and before the launch, whenever the
    /// launch runs.
    fn runs_once_before_launch(&self, w: Node) -> bool {
        if w.end_byte() > self.call.start_byte() {
            return false;
        }
        let mut n = w;
        while let Some(p) = n.parent() {
            match p.kind() {
                "argument_list" | "call_expression" | "parenthesized_expression" => n = p,
                "expression_statement" => {
                    return p.parent().is_some_and(|b| {
                        b.kind() == "compound_statement" && encloses(Some(b), self.call)
                    })
                }
                _ => return false,
            }
        }
        false
    }

    /// Host conditions that hold whenever the launch runs, as facts.
    fn checks(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut child = self.call;
        let mut cur = self.call.parent();
        while let Some(n) = cur {
            match n.kind() {
                "function_definition" => break,
                "if_statement" => {
                    let in_then = n
                        .child_by_field_name("consequence")
                        .is_some_and(|c| c.id() == child.id());
                    let in_else = n
                        .child_by_field_name("alternative")
                        .is_some_and(|c| c.id() == child.id());
                    if let Some(cond) = n.child_by_field_name("condition") {
                        if let Some(e) = self.kernel_expr(unwrap_condition(cond), 0) {
                            if in_then {
                                out.push(e);
                            } else if in_else {
                                out.push(format!("!({e})"));
                            }
                        }
                    }
                }
                "compound_statement" => {
                    let mut c = n.walk();
                    for s in n.named_children(&mut c) {
                        if s.start_byte() >= child.start_byte() {
                            break;
                        }
                        out.extend(self.guard_of(s));
                    }
                }
                "case_statement" => out.extend(self.case_fact(n)),
                "for_statement"
                    if n.child_by_field_name("body")
                        .is_some_and(|b| b.id() == child.id()) =>
                {
                    out.extend(self.loop_facts(n));
                }
                "while_statement"
                    if n.child_by_field_name("body")
                        .is_some_and(|b| b.id() == child.id()) =>
                {
                    out.extend(self.while_facts(n));
                }
                _ => {}
            }
            child = n;
            cur = n.parent();
        }
        out
    }

    /// What holds at a launch among the statements of `case`, a label of
    /// a `switch (E)`: `E` equals its value, or the value of an earlier
    /// label whose statements may fall through into it (`case 1: case 2:
    /// k<<<..>>>` holds `E == 1 || E == 2`). A chain that reaches a
    /// `default` (any value) or a label the model cannot evaluate gives no
    /// fact; so does `E` when a variable it reads may be written between
    /// the switch and the launch (`kernel_expr` keeps to stable names).
    /// This ties a template argument to the block size it is launched with
    /// (`switch (threads) { case 512: reduce<512><<<g, threads>>>(..); ..`).
    fn case_fact(&self, case: Node<'t>) -> Option<String> {
        let body = case.parent().filter(|b| b.kind() == "compound_statement")?;
        let switch = body.parent().filter(|s| s.kind() == "switch_statement")?;
        let scrutinee = self.kernel_expr(
            unwrap_condition(switch.child_by_field_name("condition")?),
            0,
        )?;
        let labels: Vec<Node> = children(body)
            .into_iter()
            .take_while(|l| l.start_byte() <= case.start_byte())
            .collect();
        let mut values = Vec::new();
        for (i, label) in labels.iter().enumerate().rev() {
            if label.kind() != "case_statement" {
                return None;
            }
            // Earlier labels count while their statements fall through.
            if i + 1 < labels.len() && case_leaves(self.text, *label) {
                break;
            }
            let value = label.child_by_field_name("value")?;
            let value = self.kernel_expr(value, 0)?;
            values.push(format!("{} == {}", operand(&scrutinee), operand(&value)));
        }
        match values.len() {
            0 => None,
            1 => values.pop(),
            _ => Some(values.join(" || ")),
        }
    }

    /// What holds at every launch in the body of the `for` loop `f`: its
    /// condition, when nothing in the body (or the condition itself)
    /// writes a variable it reads, so each value it tested is the one
    /// passed; and that a power-of-two induction variable
    /// ([`Host::power_of_two_variable`]) passed to the kernel is a power of
    /// two or zero (`(p & (p - 1)) == 0`, the form the verifier encodes
    /// exactly).
    fn loop_facts(&self, f: Node<'t>) -> Vec<String> {
        let mut out = Vec::new();
        let Some(body) = f.child_by_field_name("body") else {
            return out;
        };
        let changes_in = |name: &str, scope: Node| {
            self.written
                .iter()
                .any(|(w, end)| w == name && *end > scope.start_byte() && *end <= scope.end_byte())
                || self.call_may_write(name, scope.start_byte(), self.call.start_byte())
        };
        if let Some(cond) = f.child_by_field_name("condition") {
            out.extend(
                self.tested_at_launch(unwrap_condition(cond), &|name| changes_in(name, body)),
            );
        }
        if let Some(v) = self.power_of_two_variable(f, 0) {
            if let Some(p) = self.passed.get(&v) {
                out.push(format!("(({p}) & (({p}) - 1)) == 0"));
            }
        }
        out
    }

    /// A loop's condition `cond` as a fact at the launch in its body, when
    /// every name it reads is a constant or a variable passed to the kernel
    /// that keeps, from the test to the launch, the value it was tested
    /// with (`changes_before_launch` false, and the condition itself writes
    /// none); the translation then never reads a local's initializer
    /// (evaluated elsewhere).
    fn tested_at_launch(
        &self,
        cond: Node<'t>,
        changes_before_launch: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        let changes_in_cond = |name: &str| {
            self.written
                .iter()
                .any(|(w, end)| w == name && *end > cond.start_byte() && *end <= cond.end_byte())
        };
        let mut subst = HashMap::new();
        let understood = names_read(self.text, cond).iter().all(|name| {
            if changes_in_cond(name) {
                return false;
            }
            if let Some(p) = self.passed.get(name.as_str()) {
                if !changes_before_launch(name) {
                    subst.insert(name.clone(), p.clone());
                    return true;
                }
                return false;
            }
            !self.locals.contains_key(name.as_str()) && self.constant(name, 0).is_some()
        });
        if !understood || subst.is_empty() {
            return None;
        }
        self.kernel_expr_with(cond, 0, &subst)
    }

    /// What holds at every launch in the body of the `while` loop `w`: its
    /// condition, when nothing between the test and the launch writes a
    /// variable it reads. The launch must be in the body itself, in no
    /// loop or lambda of its own (then what follows it in the body runs
    /// only after it, and the test runs again before the next launch), in
    /// a function without `goto`; writes in the body before the launch
    /// (textually, so on any path from the test to it) must miss the
    /// condition's variables, which no address or reference may reach.
    fn while_facts(&self, w: Node<'t>) -> Vec<String> {
        let (Some(body), Some(cond)) = (
            w.child_by_field_name("body"),
            w.child_by_field_name("condition"),
        ) else {
            return Vec::new();
        };
        let mut cur = self.call.parent();
        while let Some(n) = cur {
            if n.id() == body.id() {
                break;
            }
            if matches!(
                n.kind(),
                "for_statement"
                    | "for_range_loop"
                    | "while_statement"
                    | "do_statement"
                    | "lambda_expression"
            ) {
                return Vec::new();
            }
            cur = n.parent();
        }
        let no_goto = enclosing_function(self.call)
            .is_some_and(|f| !node_text(self.text, f).contains("goto"));
        if !no_goto {
            return Vec::new();
        }
        let launch_at = self.call.start_byte();
        // An address or reference taken anywhere may write the variable
        // anywhere later: only plain assignments and increments are placed.
        let changes_before_launch = |name: &str| {
            let aliased = self.write_nodes.iter().any(|(v, n)| {
                v == name && !matches!(n.kind(), "assignment_expression" | "update_expression")
            });
            aliased
                || self
                    .written
                    .iter()
                    .any(|(v, end)| v == name && *end > body.start_byte() && *end <= launch_at)
                || self.call_may_write(name, body.start_byte(), launch_at)
        };
        self.tested_at_launch(unwrap_condition(cond), &changes_before_launch)
            .into_iter()
            .collect()
    }

    /// Whether a call that runs in `from..to` (bytes of the host function,
    /// the launch itself aside) may write `name`: a variable that is no
    /// local or parameter of the function (a global, a `static`) can be
    /// written by any function the host calls (`while (g > 0) {
    /// shrink_g(); k<<<..>>>(g); ..}` launches with what `shrink_g` left),
    /// and `written` holds only this function's own writes.
    fn call_may_write(&self, name: &str, from: usize, to: usize) -> bool {
        if self.types.contains_key(name) {
            return false;
        }
        let Some(func) = enclosing_function(self.call) else {
            return true;
        };
        let mut stack = vec![func];
        while let Some(n) = stack.pop() {
            if n.end_byte() <= from || n.start_byte() >= to {
                continue;
            }
            if n.kind() == "call_expression"
                && n.id() != self.call.id()
                && n.start_byte() >= from
                && n.end_byte() <= to
            {
                return true;
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        false
    }

    /// The induction variable of the `for` loop `f` when it holds a power
    /// of two or zero at every entry to the body: an unsigned variable set
    /// by the loop's initializer to a power of two or zero
    /// ([`Host::power_of_two_or_zero`]), moved only by the loop's update,
    /// a shift or a multiplication or division by a power of two (the
    /// result of either is again a power of two or zero, wrap-around
    /// included), and written nowhere else in the loop.
    fn power_of_two_variable(&self, f: Node<'t>, depth: usize) -> Option<String> {
        if depth > DEPTH {
            return None;
        }
        let init = f.child_by_field_name("initializer")?;
        let update = f.child_by_field_name("update")?;
        let (name, start) = match init.kind() {
            "declaration" => {
                let decls = children(init)
                    .into_iter()
                    .filter(|d| d.kind() == "init_declarator")
                    .collect::<Vec<_>>();
                let [d] = decls[..] else {
                    return None;
                };
                let name = d
                    .child_by_field_name("declarator")
                    .filter(|n| n.kind() == "identifier")?;
                (
                    node_text(self.text, name).to_string(),
                    d.child_by_field_name("value")?,
                )
            }
            "assignment_expression" => {
                let op = node_text(self.text, init.child_by_field_name("operator")?);
                let left = init
                    .child_by_field_name("left")
                    .filter(|n| n.kind() == "identifier")?;
                if op != "=" {
                    return None;
                }
                (
                    node_text(self.text, left).to_string(),
                    init.child_by_field_name("right")?,
                )
            }
            _ => return None,
        };
        let scaling = self.power_of_two_scaling(update, &name)?;
        let ty = self.types.get(&name)?;
        if !is_unsigned_type_name(ty) {
            // A signed counter stays a power of two only while no shift or
            // product carries into its sign bit (`1 << 31` is `INT_MIN`,
            // which a wider kernel parameter sign-extends): an `int`
            // started at a constant power of two (or zero) that only halves
            // never does, nor one that doubles under a test `v < C` (or
            // `v <= C`) with `C * factor <= 2^30`.
            if !is_32_bit_signed_type_name(ty)
                || !self
                    .value(start)
                    .is_some_and(|v| v >= 0 && v & (v - 1) == 0)
            {
                return None;
            }
            let bounded = || {
                let cond = f.child_by_field_name("condition").map(unwrap_condition)?;
                let cond = strip_parentheses(cond);
                let left = cond.child_by_field_name("left")?;
                let op = node_text(self.text, cond.child_by_field_name("operator")?);
                let bound = self.value(cond.child_by_field_name("right")?)?;
                (left.kind() == "identifier"
                    && node_text(self.text, left) == name
                    && matches!(op, "<" | "<="))
                .then_some(bound)
            };
            let keeps_sign = match scaling {
                Scaling::Halves => true,
                Scaling::Multiplies(factor) => {
                    bounded().is_some_and(|c| c.saturating_mul(factor) <= 1 << 30)
                }
            };
            if !keeps_sign {
                return None;
            }
        }
        // Only the initializer and the update write it inside the loop.
        let inside = |end: usize| end > f.start_byte() && end <= f.end_byte();
        let own = |end: usize| {
            (end > init.start_byte() && end <= init.end_byte())
                || (end > update.start_byte() && end <= update.end_byte())
        };
        if self
            .written
            .iter()
            .any(|(w, end)| *w == name && inside(*end) && !own(*end))
        {
            return None;
        }
        self.power_of_two_or_zero(start, f, depth + 1)
            .then_some(name)
    }

    /// `v <<= c`, `v >>= c`, `v *= 2^c`, `v /= 2^c`, or `v = v op c` with
    /// those operators: a power of two or zero stays one. `None` for any
    /// other update.
    fn power_of_two_scaling(&self, update: Node, name: &str) -> Option<Scaling> {
        if update.kind() != "assignment_expression" {
            return None;
        }
        let (Some(op), Some(left), Some(right)) = (
            update.child_by_field_name("operator"),
            update.child_by_field_name("left"),
            update.child_by_field_name("right"),
        ) else {
            return None;
        };
        if left.kind() != "identifier" || node_text(self.text, left) != name {
            return None;
        }
        let (op, amount) = match node_text(self.text, op) {
            "=" => {
                let right = strip_parentheses(right);
                let (Some(l), Some(o), Some(r)) = (
                    right.child_by_field_name("left"),
                    right.child_by_field_name("operator"),
                    right.child_by_field_name("right"),
                ) else {
                    return None;
                };
                if right.kind() != "binary_expression" || node_text(self.text, l) != name {
                    return None;
                }
                (node_text(self.text, o), r)
            }
            "<<=" => ("<<", right),
            ">>=" => (">>", right),
            "*=" => ("*", right),
            "/=" => ("/", right),
            _ => return None,
        };
        scaling_keeps_power_of_two(op, self.value(amount))
    }

    /// Whether the host expression `n`, evaluated at the start of the loop
    /// `at`, is a power of two or zero: a non-negative constant that is
    /// one, the power-of-two induction variable of a loop around `at`
    /// (unchanged in its body), or one of these shifted or multiplied or
    /// divided by a power of two.
    fn power_of_two_or_zero(&self, n: Node, at: Node<'t>, depth: usize) -> bool {
        if depth > DEPTH {
            return false;
        }
        if let Some(c) = self.value(n) {
            return c >= 0 && c & c.wrapping_sub(1) == 0;
        }
        match n.kind() {
            "parenthesized_expression" => n
                .named_child(0)
                .is_some_and(|m| self.power_of_two_or_zero(m, at, depth + 1)),
            "binary_expression" => {
                let (Some(l), Some(o), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("operator"),
                    n.child_by_field_name("right"),
                ) else {
                    return false;
                };
                scaling_keeps_power_of_two(node_text(self.text, o), self.value(r)).is_some()
                    && self.power_of_two_or_zero(l, at, depth + 1)
            }
            "call_expression" => self.power_helper_call(n),
            "identifier" => {
                let name = node_text(self.text, n);
                let mut cur = at.parent();
                while let Some(a) = cur {
                    if a.kind() == "function_definition" {
                        break;
                    }
                    if a.kind() == "for_statement"
                        && encloses(a.child_by_field_name("body"), at)
                        && self.power_of_two_variable(a, depth + 1).as_deref() == Some(name)
                    {
                        return true;
                    }
                    cur = a.parent();
                }
                false
            }
            _ => false,
        }
    }

    /// Whether `n` calls a host helper that always returns a power of two
    /// or zero (`next_pow2(n)`).
    fn power_helper_call(&self, n: Node) -> bool {
        n.child_by_field_name("function")
            .filter(|f| f.kind() == "identifier")
            .is_some_and(|f| {
                self.power_helpers
                    .iter()
                    .any(|h| h == node_text(self.text, f))
            })
    }

    /// `assert(C);` → C; `if (C) return ...;` (no else) → !C.
    fn guard_of(&self, s: Node) -> Option<String> {
        match s.kind() {
            "expression_statement" => {
                let call = s.named_child(0).filter(|c| c.kind() == "call_expression")?;
                let f = node_text(self.text, call.child_by_field_name("function")?);
                if !matches!(f, "assert" | "__builtin_assume") {
                    return None;
                }
                let arg = call.child_by_field_name("arguments").map(children)?;
                self.kernel_expr(*arg.first()?, 0)
            }
            "if_statement" if s.child_by_field_name("alternative").is_none() => {
                let body = s.child_by_field_name("consequence")?;
                if !leaves(self.text, body) {
                    return None;
                }
                let cond = unwrap_condition(s.child_by_field_name("condition")?);
                self.kernel_expr(cond, 0).map(|e| format!("!({e})"))
            }
            _ => None,
        }
    }
}

/// Whether `x op c` is a power of two or zero whenever the unsigned `x`
/// is: a shift by a constant below the width, or a multiplication or
/// division by a constant power of two.
fn scaling_keeps_power_of_two(op: &str, amount: Option<i64>) -> Option<Scaling> {
    match (op, amount) {
        (">>", Some(c)) if (0..64).contains(&c) => Some(Scaling::Halves),
        ("<<", Some(c)) if (0..63).contains(&c) => Some(Scaling::Multiplies(1 << c)),
        ("/", Some(c)) if c > 0 && c & (c - 1) == 0 => Some(Scaling::Halves),
        ("*", Some(c)) if c > 0 && c & (c - 1) == 0 => Some(Scaling::Multiplies(c)),
        _ => None,
    }
}

/// How a loop's update moves a power-of-two counter.
#[derive(Clone, Copy)]
enum Scaling {
    /// Shifted right or divided by a power of two: it never grows.
    Halves,
    /// Shifted left or multiplied: by this factor.
    Multiplies(i64),
}

/// `((e))` → `e`.
fn strip_casts_and_parentheses(mut n: Node) -> Option<Node> {
    loop {
        n = match n.kind() {
            "cast_expression" => n.child_by_field_name("value")?,
            "parenthesized_expression" => n.named_child(0)?,
            _ => return Some(n),
        };
    }
}

/// The names an expression reads (not the callee of a call).
fn names_read(text: &str, n: Node) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(m) = stack.pop() {
        match m.kind() {
            "identifier" => out.push(node_text(text, m).to_string()),
            "call_expression" => stack.extend(m.child_by_field_name("arguments")),
            _ => {
                let mut c = m.walk();
                stack.extend(m.named_children(&mut c));
            }
        }
    }
    out
}

/// `w` is the `&pitch` of `cudaMallocPitch(&ptr, &pitch, width, height)`:
/// the `width` argument.
fn pitch_width<'t>(text: &str, w: Node<'t>) -> Option<Node<'t>> {
    if w.kind() != "pointer_expression" {
        return None;
    }
    let list = w.parent().filter(|p| p.kind() == "argument_list")?;
    let call = list.parent().filter(|c| c.kind() == "call_expression")?;
    let f = node_text(text, call.child_by_field_name("function")?);
    if f.rsplit("::").next() != Some("cudaMallocPitch") {
        return None;
    }
    let args = children(list);
    if args.len() != 4 || args[1].id() != w.id() {
        return None;
    }
    Some(args[2])
}

/// `w` is the `&size` of `cudaOccupancyMaxPotentialBlockSize(&minGrid,
/// &size, kernel, ..)` (or of its `WithFlags`/`VariableSMem` forms, whose
/// block size is the same second argument): that call.
fn occupancy_block_size_call<'t>(text: &str, w: Node<'t>) -> Option<Node<'t>> {
    if w.kind() != "pointer_expression" {
        return None;
    }
    let list = w.parent().filter(|p| p.kind() == "argument_list")?;
    let call = list.parent().filter(|c| c.kind() == "call_expression")?;
    let f = node_text(text, call.child_by_field_name("function")?);
    let known = [
        "cudaOccupancyMaxPotentialBlockSize",
        "cudaOccupancyMaxPotentialBlockSizeWithFlags",
        "cudaOccupancyMaxPotentialBlockSizeVariableSMem",
        "cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags",
    ];
    if !known.contains(&f.rsplit("::").next()?) {
        return None;
    }
    let args = children(list);
    (args.len() >= 3 && args[1].id() == w.id()).then_some(call)
}

/// Whether a statement always leaves the function (`return`, `throw`,
/// `exit(...)`, `abort()`), possibly at the end of a block.
fn leaves(text: &str, s: Node) -> bool {
    match s.kind() {
        "return_statement" | "throw_statement" => true,
        // The C library's functions that end the process never return
        // (`exit(EXIT_FAILURE)` after a failed host check).
        "expression_statement" => s
            .named_child(0)
            .filter(|c| c.kind() == "call_expression")
            .and_then(|c| c.child_by_field_name("function"))
            .is_some_and(|f| {
                let name = node_text(text, f);
                let bare = name.strip_prefix("std::").unwrap_or(name);
                NO_RETURN.contains(&bare)
            }),
        "compound_statement" => {
            let mut c = s.walk();
            let last = s
                .named_children(&mut c)
                .filter(|n| n.kind() != "comment")
                .last();
            last.is_some_and(|l| leaves(text, l))
        }
        _ => false,
    }
}

/// `e` as an operand of `==`: in parentheses unless it is one name or
/// number (`blockDim.x == 256`, `(n / 2) == 64`).
fn operand(e: &str) -> String {
    let simple = e
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if simple {
        e.to_string()
    } else {
        format!("({e})")
    }
}

/// Whether the statements of a `case` label surely end in a jump out of
/// the label (`break`, `return`, `continue`, a call that ends the
/// process): otherwise they may fall through into the next label. A
/// `goto` is not counted: it may jump into the next label's statements.
fn case_leaves(text: &str, case: Node) -> bool {
    let value = case.child_by_field_name("value").map(|v| v.id());
    let last = children(case).into_iter().rfind(|s| Some(s.id()) != value);
    last.is_some_and(|s| jumps_out(text, s))
}

fn jumps_out(text: &str, s: Node) -> bool {
    match s.kind() {
        "break_statement" | "continue_statement" => true,
        "compound_statement" => children(s).last().is_some_and(|l| jumps_out(text, *l)),
        _ => leaves(text, s),
    }
}

/// Functions that end the process: a call to one never returns.
const NO_RETURN: &[&str] = &["exit", "_exit", "_Exit", "quick_exit", "abort"];

fn unwrap_condition(c: Node) -> Node {
    if c.kind() == "condition_clause" {
        if let Some(v) = c.child_by_field_name("value") {
            return v;
        }
        return c.named_child(0).unwrap_or(c);
    }
    c
}

fn children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|x| x.kind() != "comment")
        .collect()
}

/// Whether a parameter of an integer type of `range` holds every value
/// [`Host::narrowed_argument`] may pass (a 32-bit unsigned value halved
/// at least once: below 2^31), so the conversion keeps it.
fn holds_a_narrowed_value((lo, hi): (i64, i64)) -> bool {
    lo <= 0 && hi >= i64::from(i32::MAX)
}

/// A top-level item, or the items of an `extern "C" { .. }` around it.
fn linkage_items(n: Node) -> Vec<Node> {
    if n.kind() != "linkage_specification" {
        return vec![n];
    }
    match n.child_by_field_name("body") {
        Some(b) if b.kind() == "declaration_list" => children(b),
        Some(b) => vec![b],
        None => Vec::new(),
    }
}

/// `bool f(int n) { return E; }` → (name, params, E).
fn single_return<'t>(text: &str, f: Node<'t>) -> Option<(String, Vec<String>, Node<'t>)> {
    let name = crate::syntax::function_name(text, f)?;
    let body = f.child_by_field_name("body")?;
    let stmts = children(body);
    if stmts.len() != 1 || stmts[0].kind() != "return_statement" {
        return None;
    }
    let ret = stmts[0].named_child(0)?;
    let mut d = f.child_by_field_name("declarator")?;
    while d.kind() != "function_declarator" {
        d = d.child_by_field_name("declarator")?;
    }
    let params = children(d.child_by_field_name("parameters")?)
        .into_iter()
        .map(|p| {
            p.child_by_field_name("declarator")
                .and_then(|x| crate::syntax::declarator_name(text, x))
        })
        .collect::<Option<Vec<_>>>()?;
    Some((name, params, ret))
}

fn macro_value(m: &Macro, cx: &FileContext, depth: usize) -> Option<i64> {
    if m.params.is_some() || depth > DEPTH {
        return None;
    }
    let src = format!("int __v = ({});", m.body);
    let tree = crate::syntax::parse(&src, None);
    let v = tree
        .root_node()
        .named_child(0)?
        .child_by_field_name("declarator")?
        .child_by_field_name("value")?;
    // Only literals, operators and other macros/enumerators: an unknown name
    // must not read as 0 the way `#if` reads it.
    if has_unknown_name(&src, v, cx, depth) {
        return None;
    }
    crate::frontend::const_eval(&src, v, &cx.macros, &cx.enumerators)
}

fn has_unknown_name(src: &str, n: Node, cx: &FileContext, depth: usize) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "identifier" {
            let name = node_text(src, x);
            if cx.enumerators.contains_key(name) {
                continue;
            }
            match cx.macros.get(name) {
                Some(m) if m.params.is_none() => {
                    if macro_value(m, cx, depth + 1).is_none() {
                        return true;
                    }
                }
                _ => return true,
            }
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    false
}

/// The struct of the file an argument of a launch evidently is: a temporary
/// (`Scale{2.0f}`, `Scale(2.0f)`) or a local of the host function declared
/// with that type before the launch (`Scale op{2.0f};`).
fn argument_struct_type(text: &str, call: Node, arg: Node, cx: &FileContext) -> Option<String> {
    let named = |n: Node| -> Option<String> {
        let ty = crate::frontend::struct_type_name(text, n)?;
        cx.structs.contains_key(&ty).then_some(ty)
    };
    match arg.kind() {
        "compound_literal_expression" => named(arg.child_by_field_name("type")?),
        "call_expression" => named(arg.child_by_field_name("function")?),
        "identifier" => {
            let name = node_text(text, arg);
            let mut stack = vec![enclosing_function(call)?.child_by_field_name("body")?];
            let mut found = None;
            while let Some(n) = stack.pop() {
                if n.start_byte() >= call.start_byte() {
                    continue;
                }
                if n.kind() == "declaration" {
                    let mut c = n.walk();
                    let declares = n.children_by_field_name("declarator", &mut c).any(|d| {
                        crate::syntax::declarator_name(text, d).as_deref() == Some(name)
                            && matches!(d.kind(), "identifier" | "init_declarator")
                    });
                    if declares {
                        // The last declaration before the launch wins.
                        found = n.child_by_field_name("type").and_then(named);
                    }
                    continue;
                }
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                stack.extend(children.into_iter().rev());
            }
            found
        }
        _ => None,
    }
}

/// The function definition `node` is inside, if any.
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

/// The x, y, z components of `dim3(...)`'s arguments (`None`: 1), if at
/// most three.
fn components<'t>(args: &[Node<'t>]) -> Option<[Option<Node<'t>>; 3]> {
    if args.len() > 3 {
        return None;
    }
    let mut out = [None; 3];
    for (i, a) in args.iter().enumerate() {
        out[i] = Some(*a);
    }
    Some(out)
}

/// Whether `scope` (a block, a `for`) contains `node`.
fn encloses(scope: Option<Node>, node: Node) -> bool {
    scope.is_some_and(|s| s.start_byte() <= node.start_byte() && node.end_byte() <= s.end_byte())
}

/// The outermost loop inside `func` around `node`.
fn outermost_loop<'t>(node: Node<'t>, func: Node<'t>) -> Option<Node<'t>> {
    let mut found = None;
    let mut cur = node.parent();
    while let Some(n) = cur {
        if n.id() == func.id() {
            break;
        }
        if matches!(
            n.kind(),
            "for_statement" | "for_range_loop" | "while_statement" | "do_statement"
        ) {
            found = Some(n);
        }
        cur = n.parent();
    }
    found
}

/// The variable a write targets: `x`, `g.x`, `a[i]`, `(x)` → the name.
fn written_variable(text: &str, mut n: Node) -> Option<String> {
    loop {
        match n.kind() {
            "identifier" => return Some(node_text(text, n).to_string()),
            "field_expression" | "subscript_expression" => {
                n = n.child_by_field_name("argument")?;
            }
            "parenthesized_expression" => n = n.named_child(0)?,
            _ => return None,
        }
    }
}

/// The integer types whose declarations host reading and parameter
/// matching follow (without qualifiers).
pub(super) const INTEGER_TYPE_NAMES: &[&str] = &[
    "int",
    "unsigned",
    "unsigned int",
    "long",
    "long long",
    "unsigned long",
    "unsigned long long",
    "size_t",
    "short",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "uint",
];

/// A declared type that is an integer (`const int`, `unsigned`, `size_t`).
fn is_integer_type_name(ty: &str) -> bool {
    let ty = ty
        .trim()
        .trim_start_matches("const ")
        .trim_start_matches("static ")
        .trim_start_matches("constexpr ")
        .trim();
    INTEGER_TYPE_NAMES.contains(&ty)
}

/// A declared unsigned integer type (`unsigned`, `const uint`, `size_t`).
/// `int` and its spellings: the 32-bit signed types a host counter has.
fn is_32_bit_signed_type_name(ty: &str) -> bool {
    let ty = ty
        .trim()
        .trim_start_matches("const ")
        .trim_start_matches("static ")
        .trim();
    matches!(ty, "int" | "signed" | "signed int" | "int32_t")
}

fn is_unsigned_type_name(ty: &str) -> bool {
    let ty = ty
        .trim()
        .trim_start_matches("const ")
        .trim_start_matches("static ")
        .trim_start_matches("constexpr ")
        .trim();
    matches!(
        ty,
        "unsigned"
            | "unsigned int"
            | "unsigned long"
            | "unsigned long long"
            | "size_t"
            | "uint"
            | "uint32_t"
            | "uint64_t"
    )
}

/// The values a host integer type holds (`None`: not an integer type):
/// a 32-bit type's exactly, a wider one's as far as an `i64` holds them.
fn integer_range(ty: &str) -> Option<(i64, i64)> {
    if let Some(r) = host_order::type_range(ty) {
        return Some(r);
    }
    if !is_integer_type_name(ty) {
        return None;
    }
    Some(if is_unsigned_type_name(ty) {
        (0, i64::MAX)
    } else {
        (i64::MIN, i64::MAX)
    })
}

/// Functions known to take their scalar arguments by value (the C library,
/// the CUDA runtime's C API, whose outputs are pointers).
const BY_VALUE: &[&str] = &[
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "puts",
    "assert",
    "malloc",
    "calloc",
    "free",
    "memset",
    "memcpy",
    "exit",
    "abort",
    "min",
    "max",
    "sqrt",
    "sqrtf",
    "ceil",
    "floor",
    "log2",
    "pow",
    "abs",
    "fabs",
    "rand",
    "srand",
    "__builtin_assume",
    "checkCudaErrors",
    "getLastCudaError",
    "static_cast",
    "dim3",
];

/// Whether the call `call` may write its `index`-th argument (a variable):
/// its callee takes that parameter by non-`const` reference, or the callee
/// is not found in the unit and not known to take it by value.
/// Whether the call `call` only reads its argument `index`: a launch takes
/// its arguments by value; any other callee by the same rules as
/// [`may_write_argument`].
pub(crate) fn reads_argument(text: &str, call: Node, index: usize) -> bool {
    direct_launch(text, call).is_some() || !may_write_argument(text, call, index)
}

/// The constant value of the host expression `e`, read in the host
/// function around `at` (its locals, the unit's macros and constants).
pub(crate) fn host_constant(text: &str, at: Node, cx: &FileContext, e: Node) -> Option<i64> {
    Host::new(text, at, cx, &Vec::new(), &[], HashMap::new()).value(e)
}

fn may_write_argument(text: &str, call: Node, index: usize) -> bool {
    let Some(f) = call.child_by_field_name("function") else {
        return true;
    };
    let callee = match f.kind() {
        "template_function" => f.child_by_field_name("name").unwrap_or(f),
        _ => f,
    };
    let callee = node_text(text, callee);
    let bare = callee.rsplit("::").next().unwrap_or(callee);
    if BY_VALUE.contains(&bare) || bare.starts_with("cuda") || bare.starts_with("std") {
        return false;
    }
    let mut root = call;
    while let Some(p) = root.parent() {
        root = p;
    }
    let mut found = false;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_declarator"
            && n.child_by_field_name("declarator")
                .is_some_and(|d| node_text(text, d).rsplit("::").next() == Some(bare))
        {
            found = true;
            let params = n
                .child_by_field_name("parameters")
                .map(children)
                .unwrap_or_default();
            let by_ref = params.get(index).is_some_and(|p| {
                let t = node_text(text, *p);
                t.contains('&') && !t.trim_start().starts_with("const")
            });
            // A variadic or shorter list: the argument's fate is unknown.
            let unknown =
                params.len() <= index || params.iter().any(|p| p.kind() == "variadic_parameter");
            if by_ref || unknown {
                return true;
            }
            continue;
        }
        if matches!(n.kind(), "compound_statement" | "field_declaration_list") {
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    !found
}
