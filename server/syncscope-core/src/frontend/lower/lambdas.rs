//! Lambdas that capture by reference (`[&]`, `[&a, &b]`, `[]`): a call is
//! the body inlined where the lambda was made, its parameters bound to the
//! arguments. A by-reference capture reads and writes the variable itself,
//! so the body sees each captured name as it is at the call, which is
//! what inlining at the call gives, provided every name of the body still
//! means what it meant where the lambda was written (checked at each
//! call). A capture by value (a copy made when the lambda is made) is not
//! modelled: named, never dropped.

use super::*;

/// A lambda value: where it was written and what its names meant there.
#[derive(Clone)]
pub(super) struct Lambda {
    /// The lambda expression's bytes in the file (found again in the
    /// file's tree at a call: `eval` holds no node of the tree's lifetime).
    bytes: std::ops::Range<usize>,
    /// Its text: the node found must be this code.
    text: String,
    /// The frame the lambda was made in (`Lowerer::frame_base`).
    frame_base: usize,
    /// Each identifier of the body with the scope it resolved to then.
    names: Vec<(String, Option<usize>)>,
}

impl<'a, 't> Lowerer<'a, 't> {
    /// The value of a lambda expression: `Value::Lambda` when every capture
    /// is by reference, else the capture that is not, as the reason.
    pub(super) fn lambda_value(&mut self, node: Node) -> Result<Value, String> {
        if let Some(captures) = node.field("captures") {
            let mut c = captures.walk();
            let children: Vec<Node> = captures.children(&mut c).collect();
            for (i, ch) in children.iter().enumerate() {
                let by_reference = match ch.kind() {
                    "lambda_default_capture" => self.text(*ch) == "&",
                    "identifier" => i > 0 && children[i - 1].kind() == "&",
                    "[" | "]" | "," | "&" => true,
                    _ => false,
                };
                if !by_reference {
                    return Err(format!(
                        "lambda expression with the capture `{}` (a copy made with the lambda)",
                        self.text(*ch)
                    ));
                }
            }
        }
        let body = node
            .field("body")
            .ok_or_else(|| "lambda expression without a body".to_string())?;
        let mut names = Vec::new();
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" {
                let name = self.text(n);
                let at = self.scopes.innermost(&name, self.frame_base);
                names.push((name, at));
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        names.sort();
        names.dedup();
        self.lambdas.push(Lambda {
            bytes: node.byte_range(),
            text: self.text(node),
            frame_base: self.frame_base,
            names,
        });
        Ok(Value::Lambda(self.lambdas.len() - 1))
    }

    /// A call of lambda `id`: its body inlined with the parameters bound
    /// (by value, or as aliases for `&` parameters) and the frame it was
    /// made in visible. A body name that now resolves elsewhere (a local
    /// declared between, shadowing a captured variable; the call inside a
    /// function the lambda was passed to) is not followed: named.
    pub(super) fn call_lambda(&mut self, id: usize, call: Node, args: &[Node]) -> Value {
        let lambda = self.lambdas[id].clone();
        let found = self
            .lambda_node(&lambda.bytes)
            .filter(|n| self.text(*n) == lambda.text);
        let Some(node) = found else {
            self.unsupported(call, "call of a lambda the model cannot find");
            return self.unseen_result("lambda");
        };
        let params: Vec<Node> = node
            .field("declarator")
            .and_then(|d| d.field("parameters"))
            .map(|p| {
                let mut c = p.walk();
                p.named_children(&mut c).collect()
            })
            .unwrap_or_default();
        let param_names: Vec<Option<String>> = params
            .iter()
            .map(|p| {
                p.field("declarator")
                    .and_then(|d| declarator_name(&self.src, d))
            })
            .collect();
        let moved = lambda.names.iter().any(|(name, at)| {
            !param_names.iter().flatten().any(|p| p == name)
                && self.scopes.innermost(name, lambda.frame_base) != *at
        });
        let bindable = params.len() == args.len()
            && param_names.iter().all(Option::is_some)
            && params.iter().all(|p| p.kind() == "parameter_declaration");
        if moved || !bindable {
            for a in args {
                self.eval(*a);
            }
            let why = if moved {
                "call of a lambda where a name of its body means another variable"
            } else {
                "call of a lambda whose parameters do not match its arguments"
            };
            self.unsupported(call, why);
            let callee = call.field("function").map(|f| self.text(f));
            return self.unseen_result(callee.as_deref().unwrap_or("lambda"));
        }
        // Arguments are evaluated in the caller's frame.
        let mut bound = Vec::new();
        for (p, a) in params.iter().zip(args) {
            let decl = p.field("declarator").expect("checked bindable");
            let name = declarator_name(&self.src, decl).expect("checked bindable");
            let v = if contains_kind(decl, "reference_declarator") {
                match self.lvalue(*a) {
                    Some(lv) => Value::Alias(Box::new(lv)),
                    None => Value::Local,
                }
            } else {
                match self.eval(*a) {
                    Value::Alias(lv) if !contains_kind(decl, "pointer_declarator") => {
                        self.read_lvalue(&lv, "arg", None)
                    }
                    Value::Object(_) => {
                        // A struct argument by value: a copy the body may
                        // change; not tracked through a lambda.
                        self.unsupported(call, "struct passed by value to a lambda");
                        Value::Local
                    }
                    v if contains_kind(decl, "pointer_declarator") => v,
                    v => {
                        let ty = p.field("type").map(|t| self.text(t)).unwrap_or_default();
                        self.convert_for_type(&ty, v)
                    }
                }
            };
            bound.push((name, v));
        }
        let saved_base = self.frame_base;
        let saved_returned = std::mem::replace(&mut self.returned, Expr::fals());
        let saved_frames = std::mem::take(&mut self.frames);
        // The frame the lambda was made in stays visible; the parameters
        // and the body's locals live in scopes above the call's.
        let depth = self.scopes.len();
        self.frame_base = lambda.frame_base;
        self.scopes.push();
        for (name, v) in bound {
            self.declare(&name, v);
        }
        // Paired with `call_sites`; a lambda cannot name itself, so it is
        // never a recursion.
        self.call_stack.push("lambda".to_string());
        self.call_sites.push(Span::from_node(&call));
        self.ret_values.push(None);
        if let Some(body) = node.field("body") {
            self.statement(body);
        }
        let ret = self.ret_values.pop().flatten();
        self.call_stack.pop();
        self.call_sites.pop();
        self.scopes.truncate(depth);
        self.frame_base = saved_base;
        self.returned = saved_returned;
        self.frames = saved_frames;
        ret.unwrap_or_else(|| Value::Int(self.fresh_unknown("lambda()", Scope::Thread)))
    }

    /// The lambda expression at `bytes` in the file's tree.
    fn lambda_node(&self, bytes: &std::ops::Range<usize>) -> Option<Node<'t>> {
        let mut root = self.file.kernels.first()?.node;
        while let Some(p) = root.parent() {
            root = p;
        }
        let mut n = root.descendant_for_byte_range(bytes.start, bytes.end)?;
        while n.kind() != "lambda_expression" || n.byte_range() != *bytes {
            n = n.parent()?;
        }
        Some(n)
    }
}
