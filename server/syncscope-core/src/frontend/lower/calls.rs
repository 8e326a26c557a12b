//! Calls: the callee is resolved (a `__device__` function of the file, a
//! builtin, a method) and inlined with its arguments bound; calls the model
//! cannot follow are reported, never dropped. Builtins are `builtins`'.

use super::*;

impl<'a, 't> Lowerer<'a, 't> {
    pub(super) fn call(&mut self, node: Node) -> Value {
        let Some(func) = node.field("function") else {
            return Value::Int(Expr::Const(0));
        };
        let args = crate::syntax::call_arguments(node);
        if func.kind() == "field_expression" {
            let field = func
                .field("field")
                .map(|f| self.text(f))
                .unwrap_or_default();
            // libcu++'s atomics: the CUDA atomics they stand for.
            if let Some(v) = self.atomic_method(func, &field, node, &args) {
                return v;
            }
            // A method of a modelled object: inlined with its members bound.
            if let Some(obj) = self.member_base(func) {
                return self.method_call(obj, &field, node, &args);
            }
            if let Some(id) = func.field("argument").and_then(|a| self.barrier_object(a)) {
                return self.barrier_method(id, &field, node, &args);
            }
            // Methods of cooperative groups: `block.sync()`, `g.thread_rank()`.
            let base = func
                .field("argument")
                .map(|a| self.eval(a))
                .unwrap_or(Value::Local);
            if let Value::Group(g) = base {
                return self.group_method(g, &field, node, &args);
            }
            if let Value::Pipeline(id, block) = base {
                return self.pipeline_method(id, block, &field, node, &args);
            }
            // A method of an object of the file's classes in memory.
            if let Some(obj) = self.pointed_object(&base) {
                return self.memory_method_call(obj, &field, node, &args);
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
            return self.unseen_result(&field);
        }
        if args.is_empty() {
            if let Some(def) = self.conversion_of(func) {
                return self.inline(&def, node, &[], None, None);
            }
        }
        let (name, template_args) = match func.kind() {
            "identifier" => {
                let name = self.text(func);
                if let Some((_, Value::Function(target))) = self.lookup(&name) {
                    // A function pointer whose target is known: a call of it.
                    let target = target.clone();
                    return self.named_call(&target, node, &args, None);
                }
                if let Some((_, Value::Lambda(id))) = self.lookup(&name) {
                    let id = *id;
                    return self.call_lambda(id, node, &args);
                }
                // A functor whose type the file defines: its `operator()`
                // inlined with the object's members bound.
                if let Some(obj) = self.object_path(func) {
                    let has_call_operator = self
                        .file
                        .structs
                        .get(&obj.2)
                        .is_some_and(|s| s.methods.contains_key("operator()"));
                    if has_call_operator {
                        return self.method_call(obj, "operator()", node, &args);
                    }
                }
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
                    return self.unseen_result(&name);
                }
                // Inside a method of an object in memory: another method
                // of the same object.
                if let Some(obj) = self.memory_this(&name) {
                    return self.memory_method_call(obj, &name, node, &args);
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
                // `(clock_t)(end - start)`: a C cast of a parenthesised
                // operand, which the grammar reads as a call when it does
                // not know the type's name.
                if let (Some(ty), [operand]) = (self.parenthesized_type(func), args.as_slice()) {
                    let v = self.eval(*operand);
                    return self.convert_for_type(&ty, v);
                }
                for a in &args {
                    self.eval(*a);
                }
                self.unsupported(node, "call through a function pointer");
                return self.unseen_result("function pointer");
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
                let callee = short(&self.text(func));
                return self.unseen_result(&callee);
            }
        };
        self.named_call(&name, node, &args, template_args)
    }

    /// The scalar type `(T)` names when a call's callee is `(T)`: `T` a
    /// typedef of the file of a scalar type or a standard scalar type's name, and
    /// nothing else by that name in sight (no local, parameter, function,
    /// macro or global), so the call cannot be one through a pointer.
    fn parenthesized_type(&self, callee: Node) -> Option<String> {
        let mut c = callee.walk();
        let inner: Vec<Node> = callee.named_children(&mut c).collect();
        let [name] = inner.as_slice() else {
            return None;
        };
        if !matches!(name.kind(), "identifier" | "type_identifier") {
            return None;
        }
        let name = self.text(*name);
        let shadowed = self.lookup(&name).is_some()
            || self.file.functions.contains_key(&name)
            || self.file.macros.contains_key(&name)
            || self.file.constants.contains_key(&name)
            || self.file.global_arrays.iter().any(|g| g.name == name);
        if shadowed {
            return None;
        }
        let ty = self
            .file
            .type_aliases
            .get(&name)
            .map_or(name.as_str(), |t| t);
        standard_scalar(ty).map(str::to_string)
    }

    /// `SharedMemory<T>()`: a temporary of a struct whose pointer conversion
    /// operator the code then uses (`T *s = SharedMemory<T>();`). The
    /// temporary holds nothing else, so the call is its conversion.
    fn conversion_of(&self, func: Node) -> Option<FunctionDef<'t>> {
        let name = match func.kind() {
            "template_function" | "template_type" => self.text(func.field("name")?),
            "type_identifier" => self.text(func),
            _ => return None,
        };
        self.file.conversions.get(&name).cloned()
    }

    pub(super) fn inline(
        &mut self,
        def: &FunctionDef<'t>,
        call: Node,
        args: &[Node],
        targs: Option<Vec<String>>,
        this: Option<ObjRef>,
    ) -> Value {
        let memory_this = self.mem.pending_this.take();
        if self.call_stack.contains(&def.name) || self.call_stack.len() > 24 {
            self.unsupported(call, format!("recursive call to `{}`", def.name));
            for a in args {
                self.eval(*a);
            }
            if let Some(obj) = &this {
                self.copy_object(obj, None);
            }
            return self.unseen_result(&def.name);
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
            // A by-value parameter converts its argument (`float x` given `t`).
            let v = if is_ref || contains_kind(decl, "pointer_declarator") {
                v
            } else {
                let pty = p.field("type").map(|t| self.text(t)).unwrap_or_default();
                self.convert_for_type(&pty, v)
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
        self.scopes.push();
        self.frame_base = self.scopes.len() - 1;
        self.bind_template_params(def, targs);
        if let Some((obj, class)) = &memory_this {
            self.bind_memory_this(*obj, class);
        }
        if let Some((scope, path, ty)) = &this {
            // `this` and the members, as references to the object's locals.
            let alias = |name: String| {
                Value::Alias(Box::new(LValue::Local {
                    scope: *scope,
                    name,
                }))
            };
            self.declare("this", alias(path.clone()));
            let fields = self.struct_fields(ty);
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
        if let Some((obj, _)) = memory_this {
            self.memory_member_initializers(fnode, obj);
        }
        self.call_stack.push(def.name.clone());
        let site = Span::from_node(&call);
        self.call_sites.push(site);
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
        self.call_sites.pop();
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

impl<'a, 't> Lowerer<'a, 't> {
    /// The result of a call the model cannot follow (already reported as
    /// `unsupported`): an unknown marked as unseen code, so a race that
    /// depends on it is a possible race naming `callee`, never a definite
    /// one (what the call returns is not known to be any value at all).
    pub(super) fn unseen_result(&mut self, callee: &str) -> Value {
        let name: String = callee
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '#' && !crate::symbols::is_tag_bracket(*c))
            .collect();
        Value::Int(self.fresh_unknown(&format!("{UNSEEN_PREFIX}{name}"), Scope::Thread))
    }
}

pub(super) fn substitute_params(body: &str, params: &[String], args: &[String]) -> String {
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

impl<'t> Lowerer<'_, 't> {
    /// The one definition of an overloaded `name` (several definitions in
    /// the file) whose parameter count is `arity`: C++ picks among them by
    /// the arguments, and a call must not inline another overload's body.
    /// `None` when the name has no overloads, or when the count does not
    /// single one out (default arguments, a variadic list, several of that
    /// count): the file's last definition is then taken, as for any name.
    pub(super) fn overload_for(&self, name: &str, arity: usize) -> Option<&FunctionDef<'t>> {
        let all = self.file.overloads.get(name)?;
        let mut fitting = all
            .iter()
            .filter(|f| self.fixed_arity(f.node) == Some(arity));
        let one = fitting.next()?;
        fitting.next().is_none().then_some(one)
    }

    /// The number of parameters a function definition takes, when every
    /// call passes exactly that many (no default argument, no `...`, every
    /// parameter named).
    fn fixed_arity(&self, def: Node) -> Option<usize> {
        let params = def
            .field("declarator")
            .and_then(find_function_declarator)
            .and_then(|d| d.field("parameters"))?;
        let mut c = params.walk();
        let mut count = 0;
        for p in params.named_children(&mut c) {
            match p.kind() {
                // `f(void)` takes none and `f(int)` one: told apart only by
                // text, which is not at hand while a snippet is lowered.
                "parameter_declaration" if p.field("declarator").is_none() => return None,
                "parameter_declaration" => count += 1,
                "comment" => {}
                _ => return None,
            }
        }
        Some(count)
    }
}
