//! What a device array holds at a launch, read from the host code that
//! produced it just before: a Thrust sort of `n` keys makes them sorted
//! (`__sorted(keys, n)`), a Thrust scan of `n` unsigned values makes the
//! output their prefix sum (`__exclusive_scan(offs, flags, n)`), facts the
//! kernel's race queries assume like the annotations (`verify::input_orders`).
//!
//! Conservative by construction: the producer is a statement of the launch's
//! own host function (or the one statement of a helper it calls, defined in
//! the unit or, when the unit only declares it, once in the project's other
//! files), or, when the array is a parameter of that function that nothing
//! in it touches before the launch, the producer before every call of the
//! function in the project (`chain`: through at most three callers, each
//! call's arguments bound to the parameters), that runs
//! before the launch on every path (an earlier statement of a block around
//! the launch, no loop between them), with no ordering argument (a
//! comparator, a scan's initial value or operator change the order); every
//! statement between them calls nothing but the CUDA runtime, printing and
//! quiet helpers (that only compute: `quiet_helper`), and names the arrays
//! only as the source of a `cudaMemcpy` (no kernel, no other helper, no
//! alias can write them in between); the host's element types
//! are known and are the kernel's (the kernel defined in the unit), the
//! scan's source unsigned; and
//! the extent `n` is an expression over the kernel's arguments. Assumed
//! beyond the code: the scan's total fits its element type, and the
//! producer and the launch run in stream order.

mod chain;

use crate::syntax::node_text;
use std::sync::Arc;
use tree_sitter::Node;

/// The project's host code: the launch's unit and the other files.
pub(super) struct Project<'a, 't> {
    pub text: &'a str,
    pub root: Node<'t>,
    pub others: &'a dyn OtherUnits,
}

/// One host file of the project read as its own translation unit.
pub(crate) struct HostUnit {
    pub text: String,
    pub tree: tree_sitter::Tree,
}

/// The project's host code outside the launch's unit: where a helper the
/// unit only declares is defined, and where the launch's host function is
/// called from.
pub(crate) trait OtherUnits {
    /// The units of the project's other files (outside the launch's file
    /// and the headers it includes) whose text names `name`; `None` when
    /// they cannot all be read (then `name` may be used anywhere).
    fn naming(&self, name: &str) -> Option<Vec<Arc<HostUnit>>>;
}

/// A host fact about the array passed for one kernel parameter, as the
/// condition text a launch fact carries.
pub(super) fn facts<'t>(
    text: &str,
    launch: Node<'t>,
    kernel: &str,
    params: &[String],
    args: &[Node<'t>],
    extent_at_launch: &dyn Fn(Node<'t>) -> Option<String>,
    others: &dyn OtherUnits,
) -> Vec<String> {
    let mut out = Vec::new();
    // The kernel's own element types: a fact about elements of another
    // width (unsigned long long keys read as unsigned) says nothing of
    // the cells the kernel reads.
    let Some(definition) = defined_once(text, launch, kernel) else {
        return out;
    };
    let mut root = launch;
    while let Some(p) = root.parent() {
        root = p;
    }
    let project = Project { text, root, others };
    let kernel_element = |param: &str| {
        declared_type(text, definition, param)
            .as_deref()
            .and_then(pointee)
            .map(|t| element_class(t).to_string())
    };
    let passed: Vec<Option<String>> = args.iter().map(|a| buffer_name(text, *a)).collect();
    let param_of = |name: &str| {
        passed
            .iter()
            .position(|p| p.as_deref() == Some(name))
            .and_then(|i| params.get(i))
    };
    for (i, buffer) in passed.iter().enumerate() {
        let (Some(buffer), Some(param)) = (buffer, params.get(i)) else {
            continue;
        };
        // Only an array holds elements (a scalar is not searched for).
        if kernel_element(param).is_none() {
            continue;
        }
        let Some(p) = produced_at_launch(&project, launch, buffer, args, extent_at_launch) else {
            continue;
        };
        let same_elements = |host: &Option<String>, param: &str| {
            host.is_some()
                && host.as_deref().map(|t| element_class(t).to_string()) == kernel_element(param)
        };
        if !same_elements(&p.output_type, param) {
            continue;
        }
        let extent = p.extent;
        match p.kind {
            Kind::Sort => out.push(format!("__sorted({param}, {extent})")),
            Kind::Scan { inclusive } => {
                let Some(source) = p.source.as_deref() else {
                    continue;
                };
                let Some(source_param) = param_of(source) else {
                    continue;
                };
                let unsigned = p.source_type.as_deref().is_some_and(is_unsigned_name);
                if !unsigned || !same_elements(&p.source_type, source_param) {
                    continue;
                }
                let predicate = if inclusive {
                    "__inclusive_scan"
                } else {
                    "__exclusive_scan"
                };
                out.push(format!("{predicate}({param}, {source_param}, {extent})"));
            }
        }
    }
    out
}

/// What produced `buffer` as the launch sees it, the extent a kernel-side
/// expression and the source (untouched since) a host name at the launch.
struct AtLaunch {
    kind: Kind,
    extent: String,
    source: Option<String>,
    source_type: Option<String>,
    output_type: Option<String>,
}

/// The producer of `buffer` in the launch's own function, else the one
/// before every call of that function (`chain`).
fn produced_at_launch<'t>(
    project: &Project,
    launch: Node<'t>,
    buffer: &str,
    args: &[Node<'t>],
    extent_at_launch: &dyn Fn(Node<'t>) -> Option<String>,
) -> Option<AtLaunch> {
    let text = project.text;
    if let Some(p) = producer_of(project, text, launch, buffer) {
        let extent = extent_at_launch(p.extent)?;
        if let Some(source) = p.source.as_deref() {
            if !untouched_between(text, p.statement, launch, source) {
                return None;
            }
        }
        return Some(AtLaunch {
            kind: p.kind,
            extent,
            source: p.source,
            source_type: p.source_type,
            output_type: p.output_type,
        });
    }
    let func = chain::untouched_from_entry(text, launch, buffer)?;
    let names = parameter_names(text, func)?;
    let index = names.iter().position(|n| n == buffer)?;
    let entry = chain::at_every_call(project, text, func, index, 0)?;
    // The extent: the parameter the callers bound it to, passed to the
    // kernel as it came in.
    let extent_name = names.get(entry.extent)?;
    if !chain::unwritten_parameter(text, func, launch, extent_name) {
        return None;
    }
    let passed = args
        .iter()
        .find(|a| a.kind() == "identifier" && node_text(text, **a) == extent_name)?;
    let extent = extent_at_launch(*passed)?;
    let source = match entry.source {
        Some(s) => {
            let name = names.get(s)?;
            chain::untouched_from_entry(text, launch, name)?;
            Some(name.clone())
        }
        None => None,
    };
    Some(AtLaunch {
        kind: entry.kind,
        extent,
        source,
        source_type: entry.source_type,
        output_type: entry.output_type,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sort,
    Scan { inclusive: bool },
}

/// A Thrust call that produced a buffer, seen from the launch's function.
struct Producer<'t> {
    kind: Kind,
    /// The statement of the launch's function that runs it.
    statement: Node<'t>,
    /// The scanned array's name there.
    source: Option<String>,
    /// The element types of the source and the output, as the host code
    /// declares them (`thrust::device_ptr<T>`, the pointer's declaration).
    source_type: Option<String>,
    output_type: Option<String>,
    /// How many elements it produced, an expression of the launch's
    /// function (an argument of the helper's call when through a helper).
    extent: Node<'t>,
}

/// The Thrust call (or helper around one) that last wrote `buffer` before
/// the launch, when nothing between may have written it since.
fn producer_of<'t>(
    project: &Project,
    text: &str,
    launch: Node<'t>,
    buffer: &str,
) -> Option<Producer<'t>> {
    let mut inner = launch;
    let mut node = launch.parent();
    while let Some(n) = node {
        match n.kind() {
            "function_definition" => return None,
            // A loop between them runs its body after the launch and
            // again before the next one: not followed.
            "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => return None,
            "compound_statement" => {
                let mut earlier = Vec::new();
                let mut c = n.walk();
                for s in n.named_children(&mut c) {
                    if s.start_byte() >= inner.start_byte() {
                        break;
                    }
                    earlier.push(s);
                }
                for s in earlier.into_iter().rev() {
                    if let Some(p) = produced_by(project, text, s, buffer) {
                        return untouched_between(text, s, launch, buffer).then_some(p);
                    }
                    // Checked again from the producer on: a copy out of it
                    // between them leaves it as it is.
                    if mentions(text, s, buffer) && !leaves_alone(text, s, buffer) {
                        return None;
                    }
                }
            }
            _ => {}
        }
        inner = n;
        node = n.parent();
    }
    None
}

/// `statement` as the producer of `buffer`: a Thrust sort or scan writing
/// it, directly or as the one statement of a helper (of the unit, or of
/// the project when the unit only declares it).
fn produced_by<'t>(
    project: &Project,
    text: &str,
    statement: Node<'t>,
    buffer: &str,
) -> Option<Producer<'t>> {
    if statement.kind() != "expression_statement" {
        return None;
    }
    let call = statement.named_child(0)?;
    if call.kind() != "call_expression" {
        return None;
    }
    if let Some(p) = thrust_call(text, call, statement, &|n: Node<'t>| buffer_name(text, n)) {
        if p.output != buffer {
            return None;
        }
        let declared = |name: Option<&str>| {
            name.and_then(|n| host_declared_type(text, statement, n))
                .as_deref()
                .and_then(pointee)
                .map(str::to_string)
        };
        let mut producer = p.producer;
        producer.source_type = producer
            .source_type
            .or_else(|| declared(producer.source.as_deref()));
        producer.output_type = producer.output_type.or_else(|| declared(Some(&p.output)));
        return Some(producer);
    }
    // A helper whose body is one Thrust call over its parameters: its
    // parameters stand for the call's arguments.
    let function = call.child_by_field_name("function")?;
    if function.kind() != "identifier" {
        return None;
    }
    let helper = helper_named(project, text, call, node_text(text, function))?;
    let args = crate::syntax::call_arguments(call);
    if helper.arity != args.len() || buffer_name(text, args[helper.output])? != buffer {
        return None;
    }
    let source = match helper.source {
        Some(i) => Some(buffer_name(text, args[i])?),
        None => None,
    };
    Some(Producer {
        kind: helper.kind,
        statement,
        source,
        source_type: helper.source_type,
        output_type: helper.output_type,
        extent: args[helper.extent],
    })
}

/// A host helper whose body is one Thrust sort or scan over its
/// parameters, by their positions.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Helper {
    kind: Kind,
    arity: usize,
    output: usize,
    source: Option<usize>,
    extent: usize,
    source_type: Option<String>,
    output_type: Option<String>,
}

/// The helper `name` called at `call` (in the unit `text`): its one
/// definition in that unit, or, when it has none (it declares it), the one
/// definition the project's host code gives (the same helper where
/// headers repeat it).
fn helper_named(project: &Project, text: &str, call: Node, name: &str) -> Option<Helper> {
    let mut root = call;
    while let Some(p) = root.parent() {
        root = p;
    }
    match definitions(text, root, name).as_slice() {
        [only] => return helper(text, *only),
        [] => {}
        _ => return None,
    }
    let mut found: Option<Helper> = None;
    let mut agree = |text: &str, root: Node| -> Option<()> {
        for d in definitions(text, root, name) {
            let h = helper(text, d)?;
            match &found {
                Some(f) if *f != h => return None,
                _ => found = Some(h),
            }
        }
        Some(())
    };
    agree(project.text, project.root)?;
    for unit in project.others.naming(name)? {
        agree(&unit.text, unit.tree.root_node())?;
    }
    found
}

/// `helper` read as a [`Helper`].
fn helper(text: &str, helper: Node) -> Option<Helper> {
    let names = parameter_names(text, helper)?;
    let body = helper.child_by_field_name("body")?;
    let statements: Vec<Node> = {
        let mut c = body.walk();
        body.named_children(&mut c)
            .filter(|s| s.kind() != "comment")
            .collect()
    };
    let [only] = statements.as_slice() else {
        return None;
    };
    let inner_call = match only.kind() {
        "expression_statement" => only.named_child(0)?,
        _ => return None,
    };
    // Anything the Thrust call names but a parameter is not followed.
    let parameter = |n: Node| -> Option<String> {
        let name = buffer_name(text, n)?;
        names.contains(&name).then_some(name)
    };
    let found = thrust_call(text, inner_call, *only, &parameter)?;
    let position = |name: &str| names.iter().position(|p| p == name);
    let declared = |name: Option<&str>| {
        name.and_then(|n| declared_type(text, helper, n))
            .as_deref()
            .and_then(pointee)
            .map(str::to_string)
    };
    let source = match found.producer.source.as_deref() {
        Some(s) => Some(position(s)?),
        None => None,
    };
    Some(Helper {
        kind: found.producer.kind,
        arity: names.len(),
        output: position(&found.output)?,
        source,
        extent: position(node_text(text, found.producer.extent).trim())?,
        source_type: found
            .producer
            .source_type
            .clone()
            .or_else(|| declared(found.source_parameter.as_deref())),
        output_type: found
            .producer
            .output_type
            .clone()
            .or_else(|| declared(found.output_parameter.as_deref())),
    })
}

struct ThrustCall<'t> {
    output: String,
    producer: Producer<'t>,
    /// The source's and the output's names as the Thrust call writes them.
    source_parameter: Option<String>,
    output_parameter: Option<String>,
}

/// A `thrust::sort`/`sort_by_key`/`stable_sort(_by_key)`/
/// `exclusive_scan`/`inclusive_scan` over `first, first + n` with no
/// ordering argument; `name` reads an iterator's array.
fn thrust_call<'t>(
    text: &str,
    call: Node<'t>,
    statement: Node<'t>,
    name: &dyn Fn(Node<'t>) -> Option<String>,
) -> Option<ThrustCall<'t>> {
    let function = node_text(text, call.child_by_field_name("function")?).trim();
    let function = function.split('<').next()?.trim();
    let op = function.strip_prefix("thrust::")?;
    let mut args = crate::syntax::call_arguments(call);
    if args.first().is_some_and(|a| is_policy(node_text(text, *a))) {
        args.remove(0);
    }
    let (kind, arity) = match op {
        "sort" | "stable_sort" => (Kind::Sort, 2),
        "sort_by_key" | "stable_sort_by_key" => (Kind::Sort, 3),
        "exclusive_scan" => (Kind::Scan { inclusive: false }, 3),
        "inclusive_scan" => (Kind::Scan { inclusive: true }, 3),
        _ => return None,
    };
    if args.len() != arity {
        return None;
    }
    let first = iterator_array(text, args[0]);
    let first_name = name(first)?;
    let extent = range_length(text, args[1], &first_name, name)?;
    let (output, output_node, source) = match kind {
        Kind::Sort => (first_name, args[0], None),
        Kind::Scan { .. } => (
            name(iterator_array(text, args[2]))?,
            args[2],
            Some(first_name),
        ),
    };
    let source_type = source.as_ref().and_then(|_| element_type(text, args[0]));
    Some(ThrustCall {
        output,
        source_parameter: source.as_ref().and_then(|_| buffer_name(text, first)),
        output_parameter: buffer_name(text, iterator_array(text, output_node)),
        producer: Producer {
            kind,
            statement,
            source,
            source_type,
            output_type: element_type(text, output_node),
            extent,
        },
    })
}

/// `thrust::device`, `thrust::cuda::par.on(s)`: an execution policy.
fn is_policy(arg: &str) -> bool {
    let a = arg.trim();
    matches!(a, "thrust::device" | "thrust::host" | "thrust::seq")
        || a.starts_with("thrust::cuda::par")
        || a.starts_with("thrust::system::")
}

/// The pointer an iterator argument wraps: `thrust::device_ptr<T>(p)`,
/// `thrust::device_pointer_cast(p)`, or `p` itself.
fn iterator_array<'t>(text: &str, mut n: Node<'t>) -> Node<'t> {
    loop {
        match n.kind() {
            "parenthesized_expression" => match n.named_child(0) {
                Some(m) => n = m,
                None => return n,
            },
            "call_expression" => {
                let f = n
                    .child_by_field_name("function")
                    .map(|f| node_text(text, f))
                    .unwrap_or_default();
                let wraps = f.contains("device_ptr") || f.ends_with("device_pointer_cast");
                match crate::syntax::call_arguments(n).as_slice() {
                    [only] if wraps => n = *only,
                    _ => return n,
                }
            }
            _ => return n,
        }
    }
}

/// `n` of the range end `first + n` (the pointer inside the iterator or
/// the iterator plus `n`), when `first` reads the range's start array.
fn range_length<'t>(
    text: &str,
    end: Node<'t>,
    first: &str,
    name: &dyn Fn(Node<'t>) -> Option<String>,
) -> Option<Node<'t>> {
    let e = iterator_array(text, end);
    if e.kind() != "binary_expression" {
        return None;
    }
    let op = node_text(text, e.child_by_field_name("operator")?);
    let (left, right) = (
        e.child_by_field_name("left")?,
        e.child_by_field_name("right")?,
    );
    (op == "+" && name(iterator_array(text, left)).as_deref() == Some(first)).then_some(right)
}

/// The element type `T` of `thrust::device_ptr<T>(..)`, if written.
fn element_type(text: &str, arg: Node) -> Option<String> {
    let t = node_text(text, arg);
    let start = t.find("device_ptr<")? + "device_ptr<".len();
    let end = start + t[start..].find('>')?;
    Some(t[start..end].trim().to_string())
}

fn is_unsigned_name(ty: &str) -> bool {
    element_class(ty).starts_with('u')
}

/// An element type's name for comparing the host's and the kernel's
/// (`unsigned int`, `uint`, `uint32_t`, `const unsigned` → `u32`); an
/// unknown name stands for itself.
fn element_class(ty: &str) -> &str {
    let t = ty.trim();
    let t = t.strip_prefix("const ").unwrap_or(t).trim();
    let t = t.strip_suffix(" const").unwrap_or(t).trim();
    match t {
        "unsigned" | "unsigned int" | "uint" | "uint32_t" => "u32",
        "int" | "signed" | "signed int" | "int32_t" => "i32",
        "unsigned long long" | "unsigned long long int" | "uint64_t" => "u64",
        "long long" | "long long int" | "int64_t" => "i64",
        "unsigned short" | "uint16_t" => "u16",
        "unsigned char" | "uint8_t" => "u8",
        other => other,
    }
}

/// `T` of the declared pointer type `T *` (one level of pointer).
fn pointee(declared: &str) -> Option<&str> {
    let t = declared.trim_end().strip_suffix('*')?;
    (!t.contains('*')).then_some(t.trim())
}

/// The declared type (with its stars) of the host variable `name` seen
/// from `at`: a parameter or local of the function around it, else a
/// declaration at the top level of the unit (declared once).
fn host_declared_type(text: &str, at: Node, name: &str) -> Option<String> {
    let mut func = at.parent();
    while let Some(f) = func {
        if f.kind() == "function_definition" {
            break;
        }
        func = f.parent();
    }
    if let Some(t) = func.and_then(|f| declared_type(text, f, name)) {
        return Some(t);
    }
    let mut root = at;
    while let Some(p) = root.parent() {
        root = p;
    }
    // Locals of the function, then the unit's own declarations; a name
    // declared twice (shadowed) is not followed.
    for scope in func.into_iter().chain(Some(root)) {
        let mut found: Vec<String> = Vec::new();
        let mut stack = vec![scope];
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition" && n.id() != scope.id() {
                continue;
            }
            if n.kind() == "declaration" {
                let ty = n
                    .child_by_field_name("type")
                    .map(|t| node_text(text, t))
                    .unwrap_or_default();
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if crate::syntax::declarator_name(text, d).as_deref() == Some(name) {
                        let declared = node_text(text, d).split('=').next().unwrap_or_default();
                        let stars = declared.chars().filter(|c| *c == '*').count();
                        found.push(format!("{ty} {}", "*".repeat(stars)));
                    }
                }
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        match found.as_slice() {
            [] => continue,
            [only] => return Some(only.clone()),
            _ => return None,
        }
    }
    None
}

/// The array a kernel argument or Thrust iterator names: `p`, `(T *)p`,
/// `thrust::raw_pointer_cast(p)`, `thrust::raw_pointer_cast(v.data())`,
/// `thrust::raw_pointer_cast(&v[0])`.
fn buffer_name(text: &str, mut n: Node) -> Option<String> {
    loop {
        match n.kind() {
            "identifier" => return Some(node_text(text, n).to_string()),
            "parenthesized_expression" => n = n.named_child(0)?,
            "cast_expression" => n = n.child_by_field_name("value")?,
            "pointer_expression" if node_text(text, n).starts_with('&') => {
                let inner = n.child_by_field_name("argument")?;
                if inner.kind() != "subscript_expression" {
                    return None;
                }
                let index = inner.child_by_field_name("index").or_else(|| {
                    inner
                        .child_by_field_name("indices")
                        .and_then(|i| i.named_child(0))
                })?;
                if node_text(text, index).trim() != "0" {
                    return None;
                }
                n = inner.child_by_field_name("argument")?;
            }
            "call_expression" => {
                let f = node_text(text, n.child_by_field_name("function")?);
                if f.ends_with("raw_pointer_cast") {
                    let [only] = crate::syntax::call_arguments(n)[..] else {
                        return None;
                    };
                    n = only;
                } else if let Some(object) = f.strip_suffix(".data") {
                    let ok = object
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_');
                    return ok.then(|| object.to_string());
                } else {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

/// Whether every statement after `producer` and before the statement of
/// `launch` leaves `buffer` as it is: it calls only the CUDA runtime and
/// printing (no kernel, no helper, nothing unseen), and names `buffer`
/// only as the source of a `cudaMemcpy`.
fn untouched_between(text: &str, producer: Node, launch: Node, buffer: &str) -> bool {
    statements_between(producer, launch)
        .is_some_and(|between| between.iter().all(|s| leaves_alone(text, *s, buffer)))
        // Nor the launch's own statement around the call (`if (f(x)) k<<<>>>`).
        && launch_statement_leaves_alone(text, launch, buffer)
}

/// Whether no statement after `producer` and before `call` writes a
/// variable that `extent` reads (assigns it, steps it, takes its address,
/// passes it to a function that may take it by reference, declares
/// another of its name).
fn extent_unwritten_between(text: &str, producer: Node, call: Node, extent: Node) -> bool {
    let names = identifiers_of(text, extent);
    statements_between(producer, call).is_some_and(|between| {
        between
            .iter()
            .all(|s| names.iter().all(|n| !chain::writes(text, *s, n)))
    })
}

/// The identifiers an expression reads.
fn identifiers_of(text: &str, e: Node) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" {
            out.push(node_text(text, n).to_string());
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

/// The statements that run after `producer` and before `launch`: the
/// later ones of `producer`'s block, and those of the blocks around
/// the launch before it (with the conditions of the `if`s around it);
/// `None` when something else (a loop, a `switch`) lies between.
fn statements_between<'t>(producer: Node<'t>, launch: Node<'t>) -> Option<Vec<Node<'t>>> {
    let block = producer.parent()?;
    let mut c = block.walk();
    let mut between: Vec<Node> = block
        .named_children(&mut c)
        .filter(|s| s.start_byte() > producer.start_byte() && s.end_byte() <= launch.start_byte())
        .collect();
    // The statements of inner blocks enclosing the launch before it.
    let mut n = launch.parent();
    while let Some(p) = n {
        if p.id() == block.id() {
            break;
        }
        match p.kind() {
            "compound_statement" => {
                let mut c = p.walk();
                between.extend(
                    p.named_children(&mut c)
                        .filter(|s| s.end_byte() <= launch.start_byte()),
                );
            }
            "if_statement" => between.extend(p.child_by_field_name("condition")),
            "expression_statement" | "else_clause" | "call_expression" | "argument_list" => {}
            _ => return None,
        }
        n = p.parent();
    }
    Some(between)
}

fn launch_statement_leaves_alone(text: &str, launch: Node, buffer: &str) -> bool {
    let mut stack = vec![launch];
    let mut calls_ok = true;
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" && n.id() != launch.id() && !harmless_call(text, n, buffer)
        {
            calls_ok = false;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    calls_ok
}

/// `statement` calls only harmless functions and names `buffer` only as
/// the source of a copy.
fn leaves_alone(text: &str, statement: Node, buffer: &str) -> bool {
    let mut stack = vec![statement];
    let mut allowed: Vec<usize> = Vec::new();
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" {
            if !harmless_call(text, n, buffer) {
                return false;
            }
            let f = n
                .child_by_field_name("function")
                .map(|f| node_text(text, f))
                .unwrap_or_default();
            if f.starts_with("cudaMemcpy") {
                if let Some(src) = crate::syntax::call_arguments(n).get(1) {
                    allowed.push(src.id());
                }
            }
        }
        if allowed.contains(&n.id()) {
            continue;
        }
        if n.kind() == "identifier" && node_text(text, n) == buffer {
            return false;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    true
}

/// How deep calls of quiet helpers ([`quiet_helper`]) are followed.
const QUIET_DEPTH: usize = 3;

/// A call that writes no device array the host code passes around: the
/// CUDA runtime (its copies checked by the caller), error checks,
/// printing, and quiet helpers of the unit ([`quiet_helper`]).
fn harmless_call(text: &str, call: Node, _buffer: &str) -> bool {
    let Some(f) = called_name(text, call) else {
        return false;
    };
    // `cudaMemset`/`cudaMemcpy` into the buffer name it as their first
    // argument, which `leaves_alone` refuses.
    f.starts_with("cuda")
        || matches!(
            f,
            "checkCudaErrors" | "getLastCudaError" | "printf" | "fprintf" | "puts" | "assert"
        )
        || quiet_call(text, call, f, 0)
}

/// The plain name a call calls (no kernel launch, no method, no pointer).
fn called_name<'a>(text: &'a str, call: Node) -> Option<&'a str> {
    let function = call.child_by_field_name("function")?;
    if function.kind() != "identifier" {
        return None;
    }
    let mut c = call.walk();
    if call
        .named_children(&mut c)
        .any(|n| n.kind() == "kernel_call_syntax")
    {
        return None;
    }
    Some(node_text(text, function))
}

/// A call of a quiet helper, or of `min`/`max` where the unit defines no
/// function of that name (the standard ones compute only).
fn quiet_call(text: &str, call: Node, f: &str, depth: usize) -> bool {
    let mut root = call;
    while let Some(p) = root.parent() {
        root = p;
    }
    match definitions(text, root, f).as_slice() {
        [] => matches!(f, "min" | "max" | "printf" | "fprintf" | "puts"),
        [only] => depth < QUIET_DEPTH && quiet_helper(text, *only, depth + 1),
        _ => false,
    }
}

/// A host function that only computes (`computeGridSize(n, 256, blocks,
/// threads)`): it calls nothing but quiet functions (not even the CUDA
/// runtime), launches nothing, and assigns only its parameters (a
/// reference one writes the caller's variable, never an array's cells) and
/// locals it declared before: no write through a pointer, a subscript or a
/// field, none to a global.
fn quiet_helper(text: &str, def: Node, depth: usize) -> bool {
    let Some(params) = parameter_names(text, def) else {
        return false;
    };
    let Some(body) = def.child_by_field_name("body") else {
        return false;
    };
    // Locals and where they are declared; a name declared twice is not
    // followed (which one an assignment means depends on scope).
    let mut locals: Vec<(String, usize)> = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "declaration" {
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                if let Some(name) = crate::syntax::declarator_name(text, d) {
                    locals.push((name, d.start_byte()));
                }
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    let own = |target: Node| {
        if target.kind() != "identifier" {
            return false;
        }
        let name = node_text(text, target);
        let declared: Vec<usize> = locals
            .iter()
            .filter(|(l, _)| l == name)
            .map(|(_, at)| *at)
            .collect();
        match declared.as_slice() {
            [] => params.iter().any(|p| p == name),
            [at] => *at < target.start_byte() && !params.iter().any(|p| p == name),
            _ => false,
        }
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let fine = match n.kind() {
            "call_expression" => {
                called_name(text, n).is_some_and(|f| quiet_call(text, n, f, depth))
            }
            "assignment_expression" => n.child_by_field_name("left").is_some_and(own),
            "update_expression" => n.child_by_field_name("argument").is_some_and(own),
            "delete_expression" | "lambda_expression" | "asm_statement" => false,
            _ => true,
        };
        if !fine {
            return false;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    true
}

/// Whether `statement` names `buffer` at all.
fn mentions(text: &str, statement: Node, buffer: &str) -> bool {
    !crate::syntax::identifiers_named(text, statement, buffer).is_empty()
}

/// The one definition of the host function `name` in the unit.
fn defined_once<'t>(text: &str, at: Node<'t>, name: &str) -> Option<Node<'t>> {
    let mut root = at;
    while let Some(p) = root.parent() {
        root = p;
    }
    match definitions(text, root, name).as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// The definitions of the function `name` under `root`.
fn definitions<'t>(text: &str, root: Node<'t>, name: &str) -> Vec<Node<'t>> {
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            if crate::syntax::function_name(text, n).as_deref() == Some(name) {
                found.push(n);
            }
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    found
}

/// The names of a function's parameters, in order (`None` when one is
/// unnamed or variadic).
fn parameter_names(text: &str, func: Node) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for p in crate::syntax::function_params(func) {
        out.push(crate::syntax::declarator_name(
            text,
            p.child_by_field_name("declarator")?,
        )?);
    }
    Some(out)
}

/// The declared type of parameter `name` of `func`, with its pointer
/// stars (`unsigned int *`).
fn declared_type(text: &str, func: Node, name: &str) -> Option<String> {
    for p in crate::syntax::function_params(func) {
        let d = p.child_by_field_name("declarator")?;
        if crate::syntax::declarator_name(text, d).as_deref() != Some(name) {
            continue;
        }
        let ty = node_text(text, p.child_by_field_name("type")?);
        let stars = node_text(text, d).chars().filter(|c| *c == '*').count();
        return Some(format!("{ty} {}", "*".repeat(stars)));
    }
    None
}
