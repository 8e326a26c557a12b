//! A kernel's entry: its parameters (pointers become global arrays,
//! scalars unknowns of the launch), template arguments, the launch
//! dimensions it mentions, and the finished `Kernel`. Must not lower
//! statements itself: it hands the body to `statements`.

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn kernel(&mut self, def: &FunctionDef<'t>) -> Kernel {
        let node = def.node;
        self.kernel_name = def.name.clone();
        let name_node = node
            .field("declarator")
            .and_then(|d| find_identifier(d, &self.src, &def.name));
        let span = name_node
            .map(|n| Span::from_node(&n))
            .unwrap_or_else(|| Span::from_node(&node));
        let mut max_threads = None;
        for bounds in crate::syntax::queries::launch_bounds(node, &self.src) {
            if let Some(n) = bounds.named_child(0) {
                max_threads = const_eval(&self.src, n, &self.file.macros, &self.file.enumerators);
            }
        }
        let mut grid_seen = [false; 3];
        dims_used(
            node_text(&self.src.clone(), node),
            &mut self.block_dims_used,
            &mut grid_seen,
        );
        let launched = std::mem::take(&mut self.launch_template_args);
        let type_args = std::mem::take(&mut self.launch_type_args);
        self.bind_functor_types(def, &type_args);
        self.bind_template_params(def, (!launched.is_empty()).then_some(launched));
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
        // Facts of the launch site (`blockDim.y == 1`, a constant argument),
        // assumed like a `__requires` at the kernel's entry.
        let origin = self
            .launch_origin
            .take()
            .unwrap_or_else(|| "the host code".to_string());
        let facts = std::mem::take(&mut self.launch_requires);
        self.declare_host_values(&facts);
        for fact in facts {
            self.assumption_origin = Some(AssumptionOrigin::Launch(origin.clone()));
            self.eval_snippet(&format!("__requires({fact})"), Some(span));
        }
        self.assumption_origin = None;
        if let Some(body) = node.field("body") {
            self.statement(body);
            if let Some(bad) = super::statements::first_syntax_error(body) {
                self.syntax_error_in_body(bad);
            }
        }
        // An empty model because the preprocessor left the code out checks
        // nothing: never a silent `verified`.
        let model_empty = self.out.last().is_none_or(|b| b.is_empty());
        if model_empty && self.unsupported.is_empty() {
            // Inside the kernel: a branch the analysis skipped, whether it
            // saw the directive in the tree or had decided it before parsing.
            let (from, to) = (node.start_byte() as u32, node.end_byte() as u32);
            let decided = self
                .file
                .skipped_branches
                .iter()
                .find(|(s, _)| from <= s.start.offset && s.start.offset < to)
                .cloned();
            if let Some((span, directive)) = self.preproc_dropped.first().cloned().or(decided) {
                self.unsupported.push(Unsupported {
                    span,
                    what: format!(
                        "the model of this kernel is empty: its code is under `{}`, which the analysis did not take (nothing was checked)",
                        short(&directive)
                    ),
                });
            }
        }
        self.finish_memory_objects();
        if self.exhausted {
            self.unsupported(node, "kernel too large to model within the step budget");
        }
        let mut body = std::mem::take(self.out.last_mut().expect("output"));
        self.byte_addressing(&mut body);
        self.unorder_dropped_barriers(&mut body);
        self.unorder_mixed_warp_barriers(&mut body);
        let ticket_counters = self.ticket_counters(&body);
        let flag_cells = self.flag_cells(&body);
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
        let mut kernel = Kernel {
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
            stmt_guards: std::mem::take(&mut self.stmt_guards),
            assertions: std::mem::take(&mut self.assertions),
            assumption_texts: std::mem::take(&mut self.assumption_texts),
            unused_specs: std::mem::take(&mut self.unused_specs),
            warp_width: self.warp_width(),
            ticket_counters,
            flag_cells,
            last_blocks: std::mem::take(&mut self.last_blocks),
            atomic_ops: std::mem::take(&mut self.atomic_ops),
            atomic_results_summarised: self.atomic_results_summarised,
            read_values: std::mem::take(&mut self.read_values),
            folds: std::mem::take(&mut self.folds),
            input_orders: Vec::new(),
            applications: std::mem::take(&mut self.applications),
            forwarded_reads: Vec::new(),
            scalar_arrays: Vec::new(),
            shuffles: std::mem::take(&mut self.shuffles),
        };
        kernel.scalar_arrays = self.scalar_arrays(kernel.arrays.len());
        self.keep_input_orders(&mut kernel);
        if !self.track_values {
            // `equiv` runs the model on memory it simulates itself, which
            // already gives every read the value written before it.
            super::shared_values::forward_shared_reads(&mut kernel);
        }
        kernel
    }

    /// The stated facts about input arrays (`__requires(__distinct(a))`)
    /// the verifier may assume: a fact about what the kernel is given says
    /// nothing of an array the kernel itself writes (a read may return a
    /// value written since), so such a statement is set aside, with why.
    fn keep_input_orders(&mut self, kernel: &mut Kernel) {
        let written: Vec<ArrayId> = kernel
            .accesses()
            .iter()
            .filter(|a| a.kind.writes())
            .map(|a| a.array)
            .collect();
        for (order, span, text, origin) in std::mem::take(&mut self.input_orders) {
            // A scan's facts also read its source: neither may change.
            let rewritten = std::iter::once(order.array)
                .chain(match order.kind {
                    OrderKind::Scan { source, .. } => Some(source),
                    _ => None,
                })
                .find(|a| written.contains(a));
            if let Some(array) = rewritten {
                let name = &kernel.arrays[array].name;
                kernel.unused_specs.push((
                    span,
                    format!("{text} (the kernel writes `{name}`: not a fact about its input)"),
                ));
                continue;
            }
            kernel
                .assumption_texts
                .push(StatedAssumption { span, text, origin });
            if !kernel.input_orders.contains(&order) {
                kernel.input_orders.push(order);
            }
        }
    }

    pub(super) fn bind_template_params(
        &mut self,
        def: &FunctionDef<'t>,
        explicit: Option<Vec<String>>,
    ) {
        let insts = self.file.instantiations.get(&def.name);
        for (i, tp) in def.template_params.iter().enumerate() {
            // A type parameter names no value: `T(0)` stays a cast.
            if tp.is_type {
                continue;
            }
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

    /// A template type parameter of the kernel that a struct of the file
    /// binds: written at the launch (`apply<Scale><<<..>>>`), in the one
    /// explicit instantiation, or deduced from the launch's argument for a
    /// parameter of that type (`apply<<<..>>>(Scale{2.0f}, d)`). Unbound
    /// parameters stay unknown types (a call of one is reported).
    fn bind_functor_types(&mut self, def: &FunctionDef<'t>, launched: &[String]) {
        let insts = self.file.instantiations.get(&def.name);
        let params = function_params(def.node);
        let arg_types = std::mem::take(&mut self.launch_arg_types);
        for (i, tp) in def.template_params.iter().enumerate() {
            if !tp.is_type {
                continue;
            }
            let given = launched.get(i).cloned().or_else(|| match insts {
                Some(list) if list.len() == 1 => list[0].get(i).cloned(),
                _ => None,
            });
            let deduced = || {
                params.iter().enumerate().find_map(|(j, p)| {
                    let ty = p
                        .field("type")
                        .and_then(|t| struct_type_name(&self.src, t))?;
                    let by_value = p
                        .field("declarator")
                        .is_some_and(|d| d.kind() == "identifier");
                    (ty == tp.name && by_value)
                        .then(|| arg_types.get(j).cloned().flatten())
                        .flatten()
                })
            };
            if let Some(g) = given.as_deref().map(type_text) {
                if g != tp.name {
                    self.type_bindings.insert(tp.name.clone(), g);
                }
            }
            let bound = given
                .map(|g| g.trim().to_string())
                .filter(|g| self.file.structs.contains_key(g))
                .or_else(deduced);
            if let Some(ty) = bound {
                self.functor_types.insert(tp.name.clone(), ty);
            }
        }
    }

    /// A struct type's name with the kernel's bound template type
    /// parameters put in (`Proxy<T>` is `Proxy<int>` in a launch of
    /// `k<int>`, a functor parameter its bound struct); any other name as
    /// it is.
    pub(super) fn bound_struct_type(&self, name: &str) -> String {
        if let Some(functor) = self.functor_types.get(name) {
            return functor.clone();
        }
        let flat = name
            .split_once('<')
            .and_then(|(base, rest)| Some((base, rest.strip_suffix('>')?)))
            .filter(|(_, args)| !args.contains(['<', '>']));
        let Some((base, args)) = flat else {
            return name.to_string();
        };
        let args: Vec<String> = args
            .split(',')
            .map(|a| {
                let a = a.trim();
                self.type_bindings
                    .get(a)
                    .cloned()
                    .unwrap_or_else(|| a.to_string())
            })
            .collect();
        type_text(&format!("{base}<{}>", args.join(",")))
    }

    pub(super) fn eval_snippet_const(&mut self, text: &str) -> Option<i64> {
        if let Some(v) = parse_int(text) {
            return Some(v);
        }
        match self.eval_snippet(text, None)? {
            Value::Int(Expr::Const(c)) => Some(c),
            _ => None,
        }
    }

    pub(super) fn kernel_param(&mut self, p: Node) {
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
            self.elem_types.insert(id, ty.clone());
            // `Container<int> **objs`: cells holding pointers to objects.
            if let Some(class) = self.pointee_class(&ty, decl, 2) {
                self.note_class_cell(id, class);
            }
            if let Some(r) = element_range(decl, &ty) {
                self.elem_ranges.insert(id, r);
            }
            let v = self.base_ptr(id);
            self.declare(&name, v);
        } else if let Some((lo, hi)) = int_range(&ty) {
            let v = Expr::Var(Var::new(name.clone(), VarKind::Param { lo, hi }));
            self.declare(&name, Value::Int(v));
        } else if let Some(sty) = p
            .field("type")
            .and_then(|t| struct_type_name(&self.src, t))
            .map(|t| self.bound_struct_type(&t))
            .filter(|t| self.file.structs.contains_key(t) && decl.kind() == "identifier")
        {
            // A struct passed by value: its members are grid-uniform unknowns;
            // a pointer member is an array of its own, distinct from the
            // other pointers like distinct pointer parameters (the same
            // documented assumption: the launch passes distinct buffers).
            let scope = self.scopes.len() - 1;
            self.init_object(scope, &name, &sty, 0);
            let obj = (scope, name.clone(), sty);
            for key in self.object_keys(&obj) {
                let suffix = key[name.len()..].to_string();
                let v = match self.scopes[scope].get(&key) {
                    Some(Value::Object(_) | Value::Local) => continue,
                    _ if self.member_is_pointer(&obj, &suffix) => {
                        let id = self.add_array(&key, MemorySpace::Global, vec![None]);
                        self.base_ptr(id)
                    }
                    _ => Value::Int(self.fresh_unknown(&key, Scope::Grid)),
                };
                self.scopes.insert(scope, key, v);
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
            let v = if floats::is_float_type(&ty) {
                self.mark_float(v)
            } else {
                v
            };
            self.declare(&name, Value::Int(v));
        } else {
            self.declare(&name, Value::Local);
        }
    }

    // ----- statements --------------------------------------------------------
}

impl Lowerer<'_, '_> {
    /// The host values a launch's facts name (`analysis::launch`;
    /// `symbols::host_value`): each one value of the host code at the
    /// launch, unknown to the kernel, so a grid-uniform unknown in the range
    /// of its host type, shared by every fact of the launch (and by nothing
    /// else: no kernel name has the prefix).
    fn declare_host_values(&mut self, facts: &[String]) {
        let prefix = crate::symbols::HOST_VALUE_PREFIX;
        for fact in facts {
            let mut rest = fact.as_str();
            while let Some(at) = rest.find(prefix) {
                let len = rest[at..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len() - at);
                let name = &rest[at..at + len];
                if let (None, Some(range)) =
                    (self.lookup(name), crate::symbols::host_value_range(name))
                {
                    let v = self.fresh_value_in(name, Scope::Grid, range);
                    self.declare(name, Value::Int(v));
                }
                rest = &rest[at + len..];
            }
        }
    }
}

pub(crate) fn lower_kernel(file: &FileContext, def: &FunctionDef, options: &Options) -> Kernel {
    let lower = |pipes_off: bool| {
        let mut lw = Lowerer::new(file, options);
        lw.block_pipes_off = pipes_off;
        // Under sizes the user fixed, the driver leaves a site only the facts
        // of the code that agree with them (`analysis::project`).
        if let Some(site) = options.launch_site_types(&def.name) {
            lw.launch_requires = site.requires.clone();
            lw.launch_origin = site.origin.clone();
        }
        // The instantiation a launch names, like the types it passes, is a
        // fact of the code: it holds whatever launch size the user fixed.
        if let Some(site) = options.launch_site_types(&def.name) {
            lw.launch_arg_types = site.arg_types.clone();
            lw.launch_type_args = site.template_args.clone();
            lw.launch_template_args = site.template_args.clone();
        }
        let k = lw.kernel(def);
        (k, lw.block_pipe_broken)
    };
    // A block-scope pipeline the exact model could not follow: its windows
    // would rest on counts the model does not know (a race claimed there
    // may not exist), so the kernel is lowered again with the pipeline's
    // operations as never-divergent barriers (`not-verified`, named).
    match lower(false) {
        (_, true) => lower(true).0,
        (k, false) => k,
    }
}

/// The range of the elements of a pointer parameter declared `ty *name`
/// (or `ty name[]`) with `ty` an integer type: one level of indirection,
/// so an element is a value of `ty`, not a pointer.
pub(super) fn element_range(decl: Node, ty: &str) -> Option<(i64, i64)> {
    let mut levels = 0;
    let mut d = Some(decl);
    while let Some(n) = d {
        match n.kind() {
            "pointer_declarator" | "array_declarator" => levels += 1,
            "identifier" => break,
            "type_qualifier" | "ms_pointer_modifier" => {}
            _ => return None,
        }
        d = n.field("declarator");
    }
    (levels == 1).then(|| int_range(ty)).flatten()
}

/// Integer range of a C type, or None for non-integers.
pub(crate) fn int_range(ty: &str) -> Option<(i64, i64)> {
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

/// The scalar type a standard C or CUDA type name stands for: the name
/// itself for a built-in type, the type of the platform's definition for
/// the system headers' aliases (`clock_t` is `long` on the 64-bit hosts
/// nvcc targets). `None` for a name that is no scalar type the model knows.
pub(crate) fn standard_scalar(name: &str) -> Option<&str> {
    let t = name.trim();
    if int_range(t).is_some() || matches!(t, "float" | "double") {
        return Some(t);
    }
    Some(match t {
        "clock_t" | "time_t" | "intptr_t" | "off_t" => "long",
        "uintptr_t" => "unsigned long",
        "wchar_t" => "int",
        _ => return None,
    })
}

pub(super) fn is_scalar_type(ty: &str) -> bool {
    let t = ty.trim().trim_start_matches("const ").trim();
    int_range(t).is_some()
        || matches!(
            t,
            "float" | "double" | "half" | "__half" | "auto" | "float2" | "float4"
        )
        || t.starts_with("unsigned")
        || t.ends_with("_t")
}

/// Which launch dimensions a piece of source mentions.
pub(super) fn dims_used(src: &str, block: &mut [bool; 3], grid: &mut [bool; 3]) {
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
    // A grid group's ranks and size span every dimension of the grid.
    for whole in ["=blockIdx;", "=gridDim;", "group_index", "this_grid"] {
        if compact.contains(whole) {
            *grid = [true; 3];
        }
    }
}
