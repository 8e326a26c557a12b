//! A relation between a launch's argument and its grid that the host
//! `while` loop around the launch keeps: `blockDim.x * gridDim.x == p`
//! or `<= p`, where `p` is an integer parameter.
//!
//! Why: a host loop that launches a kernel once per level often passes the
//! level's size together with a grid computed from it, and updates both at
//! the end of the body (`n >>= 10; grid.x = ..; block.x = n;`). Neither
//! value is known, so no single host fact ties them; the kernel's offsets
//! (`out[gid + n]` beside writes below `blockDim.x * gridDim.x`) are
//! race-free only under the relation. It is read here as a loop invariant:
//! the relation, evaluated on the host variables the launch passes (its
//! grid and block expressions, the argument), is proved by induction with
//! Z3 over the host code executed symbolically, exactly (C's integer types,
//! wrap-around, conversions):
//!
//! * it holds on entry to the loop, on every path from the function's start
//!   (the loop nested only in blocks and `if`s, no `goto`);
//! * the body keeps it: from a state where it holds and the loop's test is
//!   true, every path to the end of the body ends in a state where it holds
//!   (a path that leaves by `break`, `return` or `exit` owes nothing; a
//!   `continue` is not read: no fact);
//! * from such a state, the path to the launch (the body's statements
//!   before it, the launch nested only in blocks and `if`s of the body)
//!   ends in a state where it holds for the values passed.
//!
//! Only host variables the function alone writes, by plain assignments
//! outside lambdas (no address taken, no reference, no call that may write
//! them), each declared once, are followed; any other value read is a fresh
//! unknown, any statement not understood (a nested loop, a `switch`) makes
//! the variables it assigns unknown, and a branch the analysis cannot
//! decide is taken both ways. Anything else stops the reading: no fact.

use super::Params;
use crate::frontend::FileContext;
use crate::syntax::node_text;
use std::collections::{BTreeMap, HashMap};
use tree_sitter::Node;

impl<'a, 't> super::Host<'a, 't> {
    /// The relations of [`module`](self) at this launch, of grid `grid`
    /// and block `block`.
    pub(super) fn loop_relation_facts(
        &self,
        grid: Node<'t>,
        block: Node<'t>,
        args: &[Node<'t>],
        params: &Params,
    ) -> Vec<String> {
        let constant = |n: Node| self.value(n);
        facts(&Inputs {
            text: self.text,
            cx: self.cx,
            call: self.call,
            grid,
            block,
            args,
            params,
            types: &self.types,
            by_value_params: &self.by_value_params,
            write_nodes: &self.write_nodes,
            constant: &constant,
        })
    }
}

/// What the reading needs from the host function around the launch.
struct Inputs<'a, 't> {
    pub text: &'a str,
    pub cx: &'a FileContext<'t>,
    pub call: Node<'t>,
    pub grid: Node<'t>,
    pub block: Node<'t>,
    pub args: &'a [Node<'t>],
    pub params: &'a Params,
    /// Declared type of each local and parameter of the function.
    pub types: &'a HashMap<String, String>,
    /// Parameters passed by value.
    pub by_value_params: &'a [String],
    /// Every write that may run before the launch: (variable, write).
    pub write_nodes: &'a [(String, Node<'t>)],
    /// The constant value of a host expression (macros, named constants).
    pub constant: &'a dyn Fn(Node) -> Option<i64>,
}

/// The relations kept at the launch, as kernel facts.
fn facts(inputs: &Inputs) -> Vec<String> {
    let Some(func) = super::enclosing_function(inputs.call) else {
        return Vec::new();
    };
    if node_text(inputs.text, func).contains("goto") {
        return Vec::new();
    }
    let Some(w) = enclosing_while(inputs.call) else {
        return Vec::new();
    };
    let Some(body) = w.child_by_field_name("body") else {
        return Vec::new();
    };
    let Some(func_body) = func.child_by_field_name("body") else {
        return Vec::new();
    };
    // The loop reached from the function's start only through blocks and
    // `if`s; the launch reached from the body's start likewise.
    if !nested_in_blocks_and_ifs(w, func_body) || !nested_in_blocks_and_ifs(inputs.call, body) {
        return Vec::new();
    }
    if continues(body) {
        return Vec::new();
    }
    let mut run = Run::new(inputs, func);
    let mut out = Vec::new();
    for (i, (p, integer, range)) in inputs.params.iter().enumerate() {
        let (Some(arg), true) = (inputs.args.get(i), *integer) else {
            continue;
        };
        let Some(param_type) = range.and_then(param_type) else {
            continue;
        };
        for relation in [Relation::Equal, Relation::AtMost] {
            if run.proves(w, func_body, body, *arg, param_type, relation) {
                out.push(relation.fact(p));
                break;
            }
        }
    }
    out
}

/// `blockDim.x * gridDim.x` against the parameter.
#[derive(Clone, Copy)]
enum Relation {
    Equal,
    AtMost,
}

impl Relation {
    fn fact(self, p: &str) -> String {
        match self {
            Relation::Equal => format!("(blockDim.x) * (gridDim.x) == ({p})"),
            Relation::AtMost => format!("(blockDim.x) * (gridDim.x) <= ({p})"),
        }
    }

    /// On 66-bit two's complement terms: the product of two 32-bit
    /// unsigned sizes and any 32-bit value fit, so nothing wraps.
    fn smt(self, block: &str, grid: &str, value: &str) -> String {
        let product = format!("(bvmul {block} {grid})");
        match self {
            Relation::Equal => format!("(= {product} {value})"),
            Relation::AtMost => format!("(bvsle {product} {value})"),
        }
    }
}

/// The host integer types read: width in bits and signedness.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct IntType {
    bits: u32,
    signed: bool,
}

const INT: IntType = IntType {
    bits: 32,
    signed: true,
};
const UNSIGNED: IntType = IntType {
    bits: 32,
    signed: false,
};

/// A 32-bit parameter's type from its range (a wider one is not read).
fn param_type((lo, hi): (i64, i64)) -> Option<IntType> {
    if (lo, hi) == (0, i64::from(u32::MAX)) {
        Some(UNSIGNED)
    } else if (lo, hi) == (i64::from(i32::MIN), i64::from(i32::MAX)) {
        Some(INT)
    } else {
        None
    }
}

/// A declared host type (qualifiers dropped): an integer type of known
/// width (LP64), or `dim3`.
fn host_type(ty: &str) -> Option<Tracked> {
    let ty = ty
        .trim()
        .trim_start_matches("const ")
        .trim_start_matches("static ")
        .trim();
    let int = |bits, signed| Some(Tracked::Scalar(IntType { bits, signed }));
    match ty {
        "int" | "signed" | "signed int" | "int32_t" => int(32, true),
        "unsigned" | "unsigned int" | "uint" | "uint32_t" => int(32, false),
        "long" | "long long" | "long int" | "int64_t" | "ptrdiff_t" => int(64, true),
        "unsigned long" | "unsigned long long" | "size_t" | "uint64_t" => int(64, false),
        "dim3" => Some(Tracked::Dim3),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tracked {
    Scalar(IntType),
    Dim3,
}

/// A value: an SMT bit-vector term of its type's width. `flexible`: a named
/// constant whose C type is not read (a small non-negative value); it
/// takes the other operand's type where that is unsigned and makes the
/// result unknown against a signed one, where the two readings differ.
#[derive(Clone, Debug)]
struct Val {
    term: String,
    ty: IntType,
    flexible: bool,
}

impl Val {
    fn constant(v: i64, ty: IntType) -> Val {
        let modulus = 1i128 << ty.bits;
        let bits = (i128::from(v)).rem_euclid(modulus);
        Val {
            term: format!("(_ bv{bits} {})", ty.bits),
            ty,
            flexible: false,
        }
    }

    fn truth(&self) -> String {
        format!("(not (= {} (_ bv0 {})))", self.term, self.ty.bits)
    }

    fn from_truth(b: String) -> Val {
        Val {
            term: format!("(ite {b} (_ bv1 32) (_ bv0 32))"),
            ty: INT,
            flexible: false,
        }
    }

    fn convert(&self, to: IntType) -> Val {
        let term = if to.bits > self.ty.bits {
            let ext = if self.ty.signed {
                "sign_extend"
            } else {
                "zero_extend"
            };
            format!("((_ {ext} {}) {})", to.bits - self.ty.bits, self.term)
        } else if to.bits < self.ty.bits {
            format!("((_ extract {} 0) {})", to.bits - 1, self.term)
        } else {
            self.term.clone()
        };
        Val {
            term,
            ty: to,
            flexible: false,
        }
    }

    /// The mathematical value as a 66-bit term.
    fn wide(&self) -> String {
        self.convert(IntType {
            bits: 66,
            signed: true,
        })
        .term
    }
}

/// One path's state: its condition and the tracked variables' values
/// (`g.x` for a `dim3`'s fields).
#[derive(Clone)]
struct Path {
    condition: String,
    values: BTreeMap<String, Val>,
}

/// What executing a statement leaves: the path going on (none when every
/// path left the function or the loop), or a construct that stops the
/// reading.
type Flow = Result<Option<Path>, Stop>;

#[derive(Debug)]
struct Stop;

/// A symbolic run over the host function.
struct Run<'i, 'a, 't> {
    inputs: &'i Inputs<'a, 't>,
    tracked: HashMap<String, Tracked>,
    declarations: Vec<String>,
    fresh: usize,
    /// While evaluating the relation: an untracked name stops it.
    strict: bool,
    /// The path at the launch, once reached.
    at_launch: Option<Path>,
}

impl<'i, 'a, 't> Run<'i, 'a, 't> {
    fn new(inputs: &'i Inputs<'a, 't>, func: Node<'t>) -> Self {
        let text = inputs.text;
        let mut declared: HashMap<String, usize> = HashMap::new();
        count_declarations(text, func, &mut declared);
        let in_lambda = |n: Node| {
            let mut cur = n.parent();
            while let Some(p) = cur {
                if p.kind() == "lambda_expression" {
                    return true;
                }
                if p.id() == func.id() {
                    return false;
                }
                cur = p.parent();
            }
            false
        };
        let mut tracked = HashMap::new();
        for (name, ty) in inputs.types {
            let Some(kind) = host_type(ty) else { continue };
            if declared.get(name) != Some(&1) {
                continue;
            }
            let is_param = inputs.by_value_params.contains(name);
            if !is_param && !declared_as_plain_local(text, func, name) {
                continue;
            }
            let plain = inputs
                .write_nodes
                .iter()
                .filter(|(v, _)| v == name)
                .all(|(_, w)| {
                    matches!(w.kind(), "assignment_expression" | "update_expression")
                        && !in_lambda(*w)
                        && plain_target(text, *w, name, kind)
                });
            if plain {
                tracked.insert(name.clone(), kind);
            }
        }
        Run {
            inputs,
            tracked,
            declarations: Vec::new(),
            fresh: 0,
            strict: false,
            at_launch: None,
        }
    }

    /// Whether `relation` of the argument `arg` holds at every launch, by
    /// induction over the loop `w`.
    fn proves(
        &mut self,
        w: Node<'t>,
        func_body: Node<'t>,
        body: Node<'t>,
        arg: Node<'t>,
        param_type: IntType,
        relation: Relation,
    ) -> bool {
        self.declarations.clear();
        self.fresh = 0;
        self.at_launch = None;
        // The parameters hold the caller's values, unknown.
        let mut start = Path {
            condition: "true".into(),
            values: BTreeMap::new(),
        };
        for name in self.inputs.by_value_params {
            if let Some(kind) = self.tracked.get(name).copied() {
                self.havoc(&mut start, name, kind);
            }
        }
        let Ok(entry) = self.run_to(func_body, w, start) else {
            return false;
        };
        let Some(cond) = w
            .child_by_field_name("condition")
            .map(super::unwrap_condition)
        else {
            return false;
        };
        if assigns(cond) {
            return false;
        }
        // The state at the test of any iteration: what the loop writes is
        // unknown, the rest is as on entry.
        let mut head = entry.clone();
        head.condition = "true".into();
        for (name, kind) in self.tracked.clone() {
            let written = self
                .inputs
                .write_nodes
                .iter()
                .any(|(v, n)| *v == name && encloses(w, *n));
            if written || declared_within(self.inputs.text, w, &name) {
                self.havoc(&mut head, &name, kind);
            }
        }
        let Some(invariant_at_head) = self.relation(&head, arg, param_type, relation) else {
            return false;
        };
        let Some(invariant_on_entry) = self.relation(&entry, arg, param_type, relation) else {
            return false;
        };
        let test = match self.eval(cond, &head) {
            Some(t) => t.truth(),
            None => self.fresh_bool(),
        };
        let mut iteration = head.clone();
        iteration.condition = test.clone();
        let Ok(end) = self.exec(body, Some(iteration)) else {
            return false;
        };
        let Some(launch) = self.at_launch.take() else {
            return false;
        };
        let Some(at_launch) = self.relation(&launch, arg, param_type, relation) else {
            return false;
        };
        let kept = match &end {
            Some(end) => {
                let Some(after) = self.relation(end, arg, param_type, relation) else {
                    return false;
                };
                self.unsat(&[&invariant_at_head, &end.condition], &after)
            }
            None => true,
        };
        kept && self.unsat(&[&entry.condition], &invariant_on_entry)
            && self.unsat(&[&invariant_at_head, &launch.condition], &at_launch)
    }

    /// Executes the statements of `block` before the one holding `target`,
    /// then descends into it (a block, or an `if` whose branch holds it),
    /// up to `target` itself.
    fn run_to(&mut self, block: Node<'t>, target: Node<'t>, mut path: Path) -> Result<Path, Stop> {
        if block.id() == target.id() {
            return Ok(path);
        }
        match block.kind() {
            "compound_statement" => {
                let mut c = block.walk();
                let statements: Vec<Node<'t>> = block.named_children(&mut c).collect();
                for s in statements {
                    if s.start_byte() <= target.start_byte() && target.end_byte() <= s.end_byte() {
                        return self.run_to(s, target, path);
                    }
                    path = self.exec(s, Some(path))?.ok_or(Stop)?;
                }
                Err(Stop)
            }
            "if_statement" => {
                let cond = block
                    .child_by_field_name("condition")
                    .map(super::unwrap_condition)
                    .ok_or(Stop)?;
                if assigns(cond) {
                    return Err(Stop);
                }
                let truth = match self.eval(cond, &path) {
                    Some(t) => t.truth(),
                    None => self.fresh_bool(),
                };
                let then = block.child_by_field_name("consequence").ok_or(Stop)?;
                let (branch, taken) = if encloses(then, target) {
                    (then, truth)
                } else {
                    let alt = block.child_by_field_name("alternative").ok_or(Stop)?;
                    (else_body(alt).ok_or(Stop)?, format!("(not {truth})"))
                };
                path.condition = format!("(and {} {taken})", path.condition);
                self.run_to(branch, target, path)
            }
            _ => Err(Stop),
        }
    }

    /// Executes one statement.
    fn exec(&mut self, s: Node<'t>, flow: Option<Path>) -> Flow {
        let Some(mut path) = flow else {
            return Ok(None);
        };
        let holds_launch = encloses(s, self.inputs.call);
        match s.kind() {
            "compound_statement" => {
                let mut c = s.walk();
                let statements: Vec<Node<'t>> = s.named_children(&mut c).collect();
                let mut flow = Some(path);
                for st in statements {
                    flow = self.exec(st, flow)?;
                }
                Ok(flow)
            }
            "comment" | "empty_statement" => Ok(Some(path)),
            "declaration" if !holds_launch => {
                let mut c = s.walk();
                let declarators: Vec<Node<'t>> =
                    s.children_by_field_name("declarator", &mut c).collect();
                for d in declarators {
                    self.declare(d, &mut path);
                }
                Ok(Some(path))
            }
            "expression_statement" => {
                let Some(e) = s.named_child(0) else {
                    return Ok(Some(path));
                };
                if holds_launch {
                    // The arguments are read before the launch runs; the
                    // statement must write nothing the reading follows.
                    if assigns(s) || e.id() != self.inputs.call.id() {
                        return Err(Stop);
                    }
                    self.at_launch = Some(path.clone());
                    return Ok(Some(path));
                }
                if super::leaves(self.inputs.text, s) {
                    return Ok(None);
                }
                if !self.assign(e, &mut path) {
                    self.havoc_writes(s, &mut path);
                }
                Ok(Some(path))
            }
            "if_statement" => {
                let cond = s
                    .child_by_field_name("condition")
                    .map(super::unwrap_condition)
                    .ok_or(Stop)?;
                if assigns(cond) {
                    return Err(Stop);
                }
                let truth = match self.eval(cond, &path) {
                    Some(t) => t.truth(),
                    None => self.fresh_bool(),
                };
                let mut then_path = path.clone();
                then_path.condition = format!("(and {} {truth})", path.condition);
                let mut else_path = path.clone();
                else_path.condition = format!("(and {} (not {truth}))", path.condition);
                let then = s.child_by_field_name("consequence").ok_or(Stop)?;
                let then_flow = self.exec(then, Some(then_path))?;
                let else_flow = match s.child_by_field_name("alternative") {
                    Some(alt) => self.exec(else_body(alt).ok_or(Stop)?, Some(else_path))?,
                    None => Some(else_path),
                };
                Ok(merge(&truth, then_flow, else_flow))
            }
            "return_statement" | "throw_statement" | "break_statement" if !holds_launch => Ok(None),
            _ if holds_launch => Err(Stop),
            _ => {
                // A loop, a `switch`, a `try`: what it assigns is unknown
                // after it (a path leaving through it is kept going on).
                self.havoc_writes(s, &mut path);
                Ok(Some(path))
            }
        }
    }

    /// A declarator of a declaration: the declared variable's first value.
    fn declare(&mut self, d: Node<'t>, path: &mut Path) {
        let (name_node, value) = match d.kind() {
            "init_declarator" => (
                d.child_by_field_name("declarator"),
                d.child_by_field_name("value"),
            ),
            // `dim3 b(n)` parses as a function declaration: its components
            // are the parameters' type names.
            "function_declarator" => (
                d.child_by_field_name("declarator"),
                d.child_by_field_name("parameters"),
            ),
            _ => (Some(d), None),
        };
        let name = name_node
            .filter(|n| n.kind() == "identifier")
            .map(|n| node_text(self.inputs.text, n).to_string());
        let Some(name) = name else {
            // Whatever the initializer assigns is unknown after it.
            self.havoc_writes(d, path);
            return;
        };
        let Some(kind) = self.tracked.get(&name).copied() else {
            self.havoc_writes(d, path);
            return;
        };
        if value.is_some_and(assigns) {
            self.havoc_writes(d, path);
            self.havoc(path, &name, kind);
            return;
        }
        match kind {
            Tracked::Scalar(ty) => {
                let v = value
                    .and_then(|v| match v.kind() {
                        "initializer_list" | "argument_list" => {
                            let [one] = super::children(v)[..] else {
                                return None;
                            };
                            self.eval(one, path)
                        }
                        _ => self.eval(v, path),
                    })
                    .map(|v| v.convert(ty));
                match v {
                    Some(v) => {
                        path.values.insert(name, v);
                    }
                    None => self.havoc(path, &name, kind),
                }
            }
            Tracked::Dim3 => {
                let comps = match value {
                    None => Some([None, None, None]),
                    Some(v) => match v.kind() {
                        "initializer_list" | "argument_list" => components(v),
                        "parameter_list" => parameter_components(v),
                        _ => self.dim3_value(v),
                    },
                };
                match comps {
                    Some(comps) => self.set_dim3(path, &name, comps),
                    None => self.havoc(path, &name, kind),
                }
            }
        }
    }

    /// The components of a `dim3` expression: `dim3(a, b)`, or another
    /// tracked `dim3`.
    fn dim3_value(&self, v: Node<'t>) -> Option<[Option<Node<'t>>; 3]> {
        let v = crate::syntax::strip_parentheses(v);
        if v.kind() == "call_expression"
            && v.child_by_field_name("function")
                .is_some_and(|f| node_text(self.inputs.text, f) == "dim3")
        {
            return components(v.child_by_field_name("arguments")?);
        }
        None
    }

    fn set_dim3(&mut self, path: &mut Path, name: &str, comps: [Option<Node<'t>>; 3]) {
        for (field, c) in ["x", "y", "z"].iter().zip(comps) {
            let key = format!("{name}.{field}");
            let v = match c {
                None => Some(Val::constant(1, UNSIGNED)),
                Some(c) => self.eval(c, path).map(|v| v.convert(UNSIGNED)),
            };
            let v = v.unwrap_or_else(|| self.fresh_val(UNSIGNED));
            path.values.insert(key, v);
        }
    }

    /// A plain assignment or increment of a tracked variable, executed.
    /// `false`: not one (the caller makes what it writes unknown).
    fn assign(&mut self, e: Node<'t>, path: &mut Path) -> bool {
        let text = self.inputs.text;
        let (target, op, right) = match e.kind() {
            "assignment_expression" => {
                let (Some(l), Some(o), Some(r)) = (
                    e.child_by_field_name("left"),
                    e.child_by_field_name("operator"),
                    e.child_by_field_name("right"),
                ) else {
                    return false;
                };
                (l, node_text(text, o).to_string(), Some(r))
            }
            "update_expression" => {
                let (Some(a), Some(o)) = (
                    e.child_by_field_name("argument"),
                    e.child_by_field_name("operator"),
                ) else {
                    return false;
                };
                let op = if node_text(text, o) == "++" {
                    "+="
                } else {
                    "-="
                };
                (a, op.to_string(), None)
            }
            _ => return false,
        };
        if right.is_some_and(assigns) {
            return false;
        }
        let target = crate::syntax::strip_parentheses(target);
        let (key, ty) = match target.kind() {
            "identifier" => {
                let name = node_text(text, target);
                match self.tracked.get(name) {
                    Some(Tracked::Scalar(ty)) => (name.to_string(), *ty),
                    Some(Tracked::Dim3) => {
                        // `g = dim3(..)`.
                        if op != "=" {
                            return false;
                        }
                        let Some(comps) = right.and_then(|r| self.dim3_value(r)) else {
                            return false;
                        };
                        let name = name.to_string();
                        self.set_dim3(path, &name, comps);
                        return true;
                    }
                    None => return false,
                }
            }
            "field_expression" => {
                let (Some(a), Some(f)) = (
                    target.child_by_field_name("argument"),
                    target.child_by_field_name("field"),
                ) else {
                    return false;
                };
                let name = node_text(text, a);
                let field = node_text(text, f);
                if self.tracked.get(name) != Some(&Tracked::Dim3)
                    || !matches!(field, "x" | "y" | "z")
                {
                    return false;
                }
                (format!("{name}.{field}"), UNSIGNED)
            }
            _ => return false,
        };
        let value = if op == "=" {
            right.and_then(|r| self.eval(r, path))
        } else {
            let current = path.values.get(&key).cloned();
            let operand = match right {
                Some(r) => self.eval(r, path),
                None => Some(Val::constant(1, INT)),
            };
            match (current, operand) {
                (Some(c), Some(o)) => binary(op.trim_end_matches('='), c, o),
                _ => None,
            }
        };
        let v = value
            .map(|v| v.convert(ty))
            .unwrap_or_else(|| self.fresh_val(ty));
        path.values.insert(key, v);
        true
    }

    /// Every tracked variable the code `n` assigns becomes unknown.
    fn havoc_writes(&mut self, n: Node<'t>, path: &mut Path) {
        let mut stack = vec![n];
        let mut names = Vec::new();
        while let Some(m) = stack.pop() {
            if matches!(m.kind(), "assignment_expression" | "update_expression") {
                let target = m
                    .child_by_field_name("left")
                    .or_else(|| m.child_by_field_name("argument"));
                if let Some(v) = target.and_then(|t| super::written_variable(self.inputs.text, t)) {
                    names.push(v);
                }
            }
            if m.kind() == "declaration" {
                let mut c = m.walk();
                for d in m.children_by_field_name("declarator", &mut c) {
                    if let Some(name) = crate::syntax::declarator_name(self.inputs.text, d) {
                        names.push(name);
                    }
                }
            }
            let mut c = m.walk();
            stack.extend(m.named_children(&mut c));
        }
        for name in names {
            if let Some(kind) = self.tracked.get(&name).copied() {
                self.havoc(path, &name, kind);
            }
        }
    }

    fn havoc(&mut self, path: &mut Path, name: &str, kind: Tracked) {
        match kind {
            Tracked::Scalar(ty) => {
                let v = self.fresh_val(ty);
                path.values.insert(name.to_string(), v);
            }
            Tracked::Dim3 => {
                for field in ["x", "y", "z"] {
                    let v = self.fresh_val(UNSIGNED);
                    path.values.insert(format!("{name}.{field}"), v);
                }
            }
        }
    }

    fn fresh_val(&mut self, ty: IntType) -> Val {
        self.fresh += 1;
        let name = format!("|v{}|", self.fresh);
        self.declarations
            .push(format!("(declare-const {name} (_ BitVec {}))", ty.bits));
        Val {
            term: name,
            ty,
            flexible: false,
        }
    }

    fn fresh_bool(&mut self) -> String {
        self.fresh += 1;
        let name = format!("|b{}|", self.fresh);
        self.declarations
            .push(format!("(declare-const {name} Bool)"));
        name
    }

    /// The relation for the values the launch would pass in `path`.
    fn relation(
        &mut self,
        path: &Path,
        arg: Node<'t>,
        param_type: IntType,
        relation: Relation,
    ) -> Option<String> {
        self.strict = true;
        let sizes = (
            self.launch_size_x(self.inputs.block, path),
            self.launch_size_x(self.inputs.grid, path),
            self.eval(arg, path),
        );
        self.strict = false;
        let (Some(block), Some(grid), Some(value)) = sizes else {
            return None;
        };
        Some(relation.smt(
            &block.wide(),
            &grid.wide(),
            &value.convert(param_type).wide(),
        ))
    }

    /// The `x` size a launch configuration argument gives: a tracked
    /// `dim3`'s field, `dim3(a, ..)`'s first, or an integer expression.
    fn launch_size_x(&mut self, n: Node<'t>, path: &Path) -> Option<Val> {
        let n = crate::syntax::strip_parentheses(n);
        if n.kind() == "identifier" {
            let name = node_text(self.inputs.text, n);
            if self.tracked.get(name) == Some(&Tracked::Dim3) {
                return path.values.get(&format!("{name}.x")).cloned();
            }
            if self
                .inputs
                .types
                .get(name)
                .is_some_and(|t| t.contains("dim3"))
            {
                return None;
            }
        }
        if let Some(comps) = self.dim3_value(n) {
            return match comps[0] {
                None => Some(Val::constant(1, UNSIGNED)),
                Some(c) => self.eval(c, path).map(|v| v.convert(UNSIGNED)),
            };
        }
        self.eval(n, path).map(|v| v.convert(UNSIGNED))
    }

    /// The value of the host expression `n` in `path`, exactly; `None`
    /// when any part of it is not read (the caller then takes a fresh
    /// unknown of the type it needs).
    fn eval(&mut self, n: Node<'t>, path: &Path) -> Option<Val> {
        let text = self.inputs.text;
        match n.kind() {
            "number_literal" => literal(node_text(text, n)),
            "true" => Some(Val::constant(1, INT)),
            "false" => Some(Val::constant(0, INT)),
            "parenthesized_expression" => self.eval(n.named_child(0)?, path),
            "identifier" | "type_identifier" => {
                let name = node_text(text, n);
                match self.tracked.get(name) {
                    Some(Tracked::Scalar(_)) => return path.values.get(name).cloned(),
                    Some(Tracked::Dim3) => return None,
                    None => {}
                }
                if let Some(m) = self.inputs.cx.macros.get(name) {
                    if m.params.is_none() {
                        if let Some(v) = literal(m.body.trim()) {
                            return Some(v);
                        }
                    }
                }
                if let Some(ty) = self.inputs.types.get(name) {
                    // A local or parameter not followed: any value.
                    return match host_type(ty) {
                        Some(Tracked::Scalar(ty)) if !self.strict => Some(self.fresh_val(ty)),
                        _ => None,
                    };
                }
                let c = (self.inputs.constant)(n)?;
                let mut v = Val::constant(c, INT);
                v.flexible = true;
                (0..=i64::from(i32::MAX)).contains(&c).then_some(v)
            }
            "field_expression" => {
                let a = n.child_by_field_name("argument")?;
                let f = n.child_by_field_name("field")?;
                let name = node_text(text, a);
                let field = node_text(text, f);
                if self.tracked.get(name) == Some(&Tracked::Dim3)
                    && matches!(field, "x" | "y" | "z")
                {
                    return path.values.get(&format!("{name}.{field}")).cloned();
                }
                None
            }
            "cast_expression" => {
                let ty = n.child_by_field_name("type")?;
                let ty = match host_type(node_text(text, ty)) {
                    Some(Tracked::Scalar(ty)) => ty,
                    _ => return None,
                };
                Some(
                    self.eval(n.child_by_field_name("value")?, path)?
                        .convert(ty),
                )
            }
            "unary_expression" => {
                let op = node_text(text, n.child_by_field_name("operator")?);
                let v = self.eval(n.child_by_field_name("argument")?, path)?;
                match op {
                    "!" => Some(Val::from_truth(format!("(not {})", v.truth()))),
                    "+" | "-" | "~" => {
                        if v.flexible && op != "+" {
                            return None;
                        }

                        let f = if op == "-" {
                            "bvneg"
                        } else if op == "~" {
                            "bvnot"
                        } else {
                            return Some(v);
                        };
                        Some(Val {
                            term: format!("({f} {})", v.term),
                            ty: v.ty,
                            flexible: false,
                        })
                    }
                    _ => None,
                }
            }
            "binary_expression" => {
                let op = node_text(text, n.child_by_field_name("operator")?);
                let l = self.eval(n.child_by_field_name("left")?, path)?;
                let r = self.eval(n.child_by_field_name("right")?, path)?;
                binary(op, l, r)
            }
            "conditional_expression" => {
                let c = self.eval(n.child_by_field_name("condition")?, path)?;
                let a = self.eval(n.child_by_field_name("consequence")?, path)?;
                let b = self.eval(n.child_by_field_name("alternative")?, path)?;
                let ty = common(&a, &b)?;
                let (a, b) = (a.convert(ty), b.convert(ty));
                Some(Val {
                    term: format!("(ite {} {} {})", c.truth(), a.term, b.term),
                    ty,
                    flexible: false,
                })
            }
            _ => None,
        }
    }

    /// Whether `hypotheses` imply `goal`: Z3 finds their conjunction with
    /// its negation unsatisfiable (unknown, a timeout: not proved).
    fn unsat(&self, hypotheses: &[&str], goal: &str) -> bool {
        let mut text = self.declarations.join("\n");
        for h in hypotheses {
            text.push_str(&format!("\n(assert {h})"));
        }
        text.push_str(&format!("\n(assert (not {goal}))"));
        if text.len() > 1 << 20 {
            return false;
        }
        prove(&text)
    }
}

/// Runs one query in a fresh Z3 context under a resource limit.
fn prove(text: &str) -> bool {
    use z3::{Params, SatResult, Solver};
    z3::with_z3_config(&z3::Config::new(), || {
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("rlimit", 2_000_000);
        solver.set_params(&params);
        if crate::verify::smt::load(&solver, text).is_err() {
            return false;
        }
        solver.check() == SatResult::Unsat
    })
}

/// The statement of an `else` (past any comment before it).
fn else_body(alt: Node) -> Option<Node> {
    if alt.kind() != "else_clause" {
        return Some(alt);
    }
    let mut c = alt.walk();
    let body = alt.named_children(&mut c).find(|n| n.kind() != "comment");
    body
}

/// The two flows after an `if` on `truth`.
fn merge(truth: &str, then: Option<Path>, other: Option<Path>) -> Option<Path> {
    match (then, other) {
        (None, f) | (f, None) => f,
        (Some(t), Some(e)) => {
            let mut values = BTreeMap::new();
            for (k, tv) in &t.values {
                if let Some(ev) = e.values.get(k) {
                    let v = if tv.term == ev.term {
                        tv.clone()
                    } else {
                        Val {
                            term: format!("(ite {truth} {} {})", tv.term, ev.term),
                            ty: tv.ty,
                            flexible: false,
                        }
                    };
                    values.insert(k.clone(), v);
                }
            }
            Some(Path {
                condition: format!("(or {} {})", t.condition, e.condition),
                values,
            })
        }
    }
}

/// A C integer literal with its type (decimal: `int`, then `long`;
/// hexadecimal or octal: `int`, `unsigned`, `long`; suffixes `u`, `l`).
fn literal(s: &str) -> Option<Val> {
    let lower = s.to_ascii_lowercase().replace('\'', "");
    let digits = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[digits.len()..];
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    let (value, decimal) = if let Some(h) = digits.strip_prefix("0x") {
        (u64::from_str_radix(h, 16).ok()?, false)
    } else if let Some(b) = digits.strip_prefix("0b") {
        (u64::from_str_radix(b, 2).ok()?, false)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (u64::from_str_radix(&digits[1..], 8).ok()?, false)
    } else {
        (digits.parse::<u64>().ok()?, true)
    };
    let fits = |ty: IntType| {
        let max = if ty.signed {
            (1u64 << (ty.bits - 1)) - 1
        } else if ty.bits == 64 {
            u64::MAX
        } else {
            (1u64 << ty.bits) - 1
        };
        value <= max
    };
    let candidates: &[IntType] = match (unsigned, long, decimal) {
        (true, false, _) => &[UNSIGNED, U64],
        (true, true, _) => &[U64],
        (false, false, true) => &[INT, I64],
        (false, false, false) => &[INT, UNSIGNED, I64, U64],
        (false, true, true) => &[I64],
        (false, true, false) => &[I64, U64],
    };
    let ty = candidates.iter().copied().find(|t| fits(*t))?;
    let modulus = 1u128 << ty.bits;
    Some(Val {
        term: format!("(_ bv{} {})", u128::from(value) % modulus, ty.bits),
        ty,
        flexible: false,
    })
}

const I64: IntType = IntType {
    bits: 64,
    signed: true,
};
const U64: IntType = IntType {
    bits: 64,
    signed: false,
};

/// The usual arithmetic conversions; `None` where a named constant of
/// unread type meets a signed operand.
fn common(a: &Val, b: &Val) -> Option<IntType> {
    match (a.flexible, b.flexible) {
        // Both of unread types: their result's type is not read either
        // (`A - B` wraps if either is unsigned).
        (true, true) => return None,
        (true, false) => return (!b.ty.signed).then_some(b.ty),
        (false, true) => return (!a.ty.signed).then_some(a.ty),
        (false, false) => {}
    }
    let (x, y) = (a.ty, b.ty);
    Some(if x.signed == y.signed {
        IntType {
            bits: x.bits.max(y.bits),
            signed: x.signed,
        }
    } else {
        let (s, u) = if x.signed { (x, y) } else { (y, x) };
        if u.bits >= s.bits {
            u
        } else {
            s
        }
    })
}

/// `l op r` in C.
fn binary(op: &str, l: Val, r: Val) -> Option<Val> {
    let logical = |f: &str| {
        Some(Val::from_truth(format!(
            "({f} {} {})",
            l.truth(),
            r.truth()
        )))
    };
    match op {
        "&&" => return logical("and"),
        "||" => return logical("or"),
        "<<" | ">>" => {
            if l.flexible {
                return None;
            }
            let ty = l.ty;
            let amount = r.convert(IntType {
                bits: ty.bits,
                signed: r.ty.signed,
            });
            let f = match (op, ty.signed) {
                ("<<", _) => "bvshl",
                (_, true) => "bvashr",
                _ => "bvlshr",
            };
            return Some(Val {
                term: format!("({f} {} {})", l.convert(ty).term, amount.term),
                ty,
                flexible: false,
            });
        }
        _ => {}
    }
    let ty = common(&l, &r)?;
    let (a, b) = (l.convert(ty).term, r.convert(ty).term);
    let s = ty.signed;
    let arithmetic = match op {
        "+" => Some("bvadd"),
        "-" => Some("bvsub"),
        "*" => Some("bvmul"),
        "/" => Some(if s { "bvsdiv" } else { "bvudiv" }),
        "%" => Some(if s { "bvsrem" } else { "bvurem" }),
        "&" => Some("bvand"),
        "|" => Some("bvor"),
        "^" => Some("bvxor"),
        _ => None,
    };
    if let Some(f) = arithmetic {
        return Some(Val {
            term: format!("({f} {a} {b})"),
            ty,
            flexible: false,
        });
    }
    let truth = match op {
        "==" => format!("(= {a} {b})"),
        "!=" => format!("(not (= {a} {b}))"),
        "<" => format!("({} {a} {b})", if s { "bvslt" } else { "bvult" }),
        "<=" => format!("({} {a} {b})", if s { "bvsle" } else { "bvule" }),
        ">" => format!("({} {a} {b})", if s { "bvsgt" } else { "bvugt" }),
        ">=" => format!("({} {a} {b})", if s { "bvsge" } else { "bvuge" }),
        _ => return None,
    };
    Some(Val::from_truth(truth))
}

/// `dim3(a, b)`'s or `{a, b}`'s components (`None`: 1); more than three
/// arguments: not one.
fn components(list: Node) -> Option<[Option<Node>; 3]> {
    let args = super::children(list);
    if args.len() > 3 {
        return None;
    }
    Some([
        args.first().copied(),
        args.get(1).copied(),
        args.get(2).copied(),
    ])
}

/// The components of `dim3 b(x, y)` read as a function declaration: each
/// parameter a bare type name (the variable named); one with a declarator
/// of its own (`n * m` read as a pointer `m`) is not read.
fn parameter_components(list: Node) -> Option<[Option<Node>; 3]> {
    let params = super::children(list);
    if params.len() > 3 {
        return None;
    }
    let mut comps = [None; 3];
    for (slot, p) in comps.iter_mut().zip(params) {
        if p.kind() != "parameter_declaration" || p.child_by_field_name("declarator").is_some() {
            return None;
        }
        *slot = Some(p.child_by_field_name("type")?);
    }
    Some(comps)
}

/// The `while` loop whose body holds `call` most closely.
fn enclosing_while(call: Node) -> Option<Node> {
    let mut cur = call.parent();
    while let Some(n) = cur {
        match n.kind() {
            "while_statement" => return Some(n),
            "function_definition" | "lambda_expression" => return None,
            _ => cur = n.parent(),
        }
    }
    None
}

/// Whether every node between `n` and `outer` is a block or an `if` whose
/// branch holds it (not its condition).
fn nested_in_blocks_and_ifs(n: Node, outer: Node) -> bool {
    let mut child = n;
    let mut cur = n.parent();
    while let Some(p) = cur {
        if p.id() == outer.id() {
            return true;
        }
        let ok = match p.kind() {
            "compound_statement" | "else_clause" => true,
            "if_statement" => p
                .child_by_field_name("condition")
                .is_some_and(|c| c.id() != child.id()),
            "expression_statement" => child.kind() == "call_expression",
            _ => false,
        };
        if !ok {
            return false;
        }
        child = p;
        cur = p.parent();
    }
    false
}

/// Whether a `continue` in `body` goes to its loop's next test.
fn continues(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "continue_statement" => return true,
            "for_statement" | "for_range_loop" | "while_statement" | "do_statement"
            | "lambda_expression" => continue,
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

/// Whether `n` assigns or increments anything.
fn assigns(n: Node) -> bool {
    let mut stack = vec![n];
    while let Some(m) = stack.pop() {
        if matches!(
            m.kind(),
            "assignment_expression" | "update_expression" | "comma_expression"
        ) {
            return true;
        }
        let mut c = m.walk();
        stack.extend(m.named_children(&mut c));
    }
    false
}

fn encloses(outer: Node, n: Node) -> bool {
    outer.start_byte() <= n.start_byte() && n.end_byte() <= outer.end_byte()
}

/// How many times each name is declared in `func` (parameters, locals in
/// every scope, lambda parameters).
fn count_declarations(text: &str, func: Node, out: &mut HashMap<String, usize>) {
    let mut stack = vec![func];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "declaration"
                | "parameter_declaration"
                | "optional_parameter_declaration"
                | "for_range_loop"
        ) {
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                if let Some(name) = crate::syntax::declarator_name(text, d) {
                    *out.entry(name).or_default() += 1;
                }
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}

/// Whether `name` is declared in `n`.
fn declared_within(text: &str, n: Node, name: &str) -> bool {
    let mut counts = HashMap::new();
    count_declarations(text, n, &mut counts);
    counts.contains_key(name)
}

/// Whether `name`'s one declaration in `func` is a plain local: an
/// identifier, initialized or not (no reference, pointer or array).
fn declared_as_plain_local(text: &str, func: Node, name: &str) -> bool {
    let mut stack = vec![func];
    while let Some(n) = stack.pop() {
        if n.kind() == "declaration" {
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                let id = match d.kind() {
                    "init_declarator" | "function_declarator" => {
                        d.child_by_field_name("declarator")
                    }
                    _ => Some(d),
                };
                if let Some(id) = id.filter(|i| i.kind() == "identifier") {
                    if node_text(text, id) == name {
                        return true;
                    }
                }
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

/// Whether the write `w` targets `name` itself (or, for a `dim3`, one of
/// its fields).
fn plain_target(text: &str, w: Node, name: &str, kind: Tracked) -> bool {
    let Some(t) = w
        .child_by_field_name("left")
        .or_else(|| w.child_by_field_name("argument"))
        .map(crate::syntax::strip_parentheses)
    else {
        return false;
    };
    match t.kind() {
        "identifier" => node_text(text, t) == name,
        "field_expression" => {
            kind == Tracked::Dim3
                && t.child_by_field_name("argument")
                    .is_some_and(|a| a.kind() == "identifier" && node_text(text, a) == name)
                && t.child_by_field_name("field")
                    .is_some_and(|f| matches!(node_text(text, f), "x" | "y" | "z"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_take_cs_types() {
        let ty = |s: &str| literal(s).map(|v| v.ty);
        assert_eq!(ty("512"), Some(INT));
        assert_eq!(ty("512u"), Some(UNSIGNED));
        assert_eq!(ty("4000000000"), Some(I64));
        assert_eq!(ty("0xFFFFFFFF"), Some(UNSIGNED));
        assert_eq!(ty("8ul"), Some(U64));
        assert_eq!(ty("1.5f"), None);
        assert_eq!(literal("0x10").map(|v| v.term), Some("(_ bv16 32)".into()));
    }

    #[test]
    fn a_constant_of_unread_type_meets_only_unsigned_operands() {
        let mut flexible = Val::constant(16, INT);
        flexible.flexible = true;
        let unsigned = Val::constant(3, UNSIGNED);
        let signed = Val::constant(3, INT);
        assert_eq!(binary("/", signed, flexible.clone()).map(|v| v.ty), None);
        assert_eq!(
            binary("/", unsigned, flexible.clone()).map(|v| v.ty),
            Some(UNSIGNED)
        );
        assert!(binary("-", flexible.clone(), flexible).is_none());
    }

    #[test]
    fn mixed_signedness_follows_the_usual_conversions() {
        let ty = |a: IntType, b: IntType| common(&Val::constant(1, a), &Val::constant(1, b));
        assert_eq!(ty(INT, UNSIGNED), Some(UNSIGNED));
        assert_eq!(ty(I64, UNSIGNED), Some(I64));
        assert_eq!(ty(INT, U64), Some(U64));
    }
}
