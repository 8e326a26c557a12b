//! Which kernel a host helper hands back with which integers: a helper
//! that loads a kernel by name through the driver API and stores the
//! handle and some integers through its pointer parameters
//! (`*out = f; *block = bs;`), perhaps trying one kernel per block size in
//! a loop until one fits (`cuModuleGetFunction(&f, m, names[i])`, `bs /= 2`
//! on a failed occupancy check). The pairing matters: each kernel runs
//! only with the block size stored along with it.
//!
//! The helper's body is run path by path on the integers it computes (its
//! integer locals, the unit's constants), a condition that is not known
//! (a value the driver returned) taking both ways, loops unrolled. Each
//! path that returns gives one [`Outcome`]: the names the stored handle
//! may hold and the value each integer out-parameter then holds. A path
//! that ends the process (`exit`) gives none. When the body holds a
//! construct this reading does not follow, or too many paths, there are
//! no outcomes (`None`) and nothing is paired.
//!
//! Assumed: a load by the name of a kernel the project defines finds it
//! (the handle then holds that kernel).

use crate::syntax::node_text;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// At most this many statements are run over all paths of one helper.
const MAX_STEPS: usize = 20_000;
/// At most this many paths are followed at once.
const MAX_PATHS: usize = 256;
/// At most this many iterations of one loop on one path.
const MAX_ITERATIONS: usize = 64;

/// The process-ending calls: a path through one of them never returns.
const ENDS_PROCESS: &[&str] = &["exit", "_exit", "_Exit", "quick_exit", "abort"];

/// What the host code around the helper answers.
pub(crate) struct HostReader<'r> {
    /// The value of a name of the unit (macro, enumerator, constant).
    pub constant: &'r dyn Fn(&str) -> Option<i64>,
    /// Whether a call may write its argument `index` (a variable passed by
    /// reference).
    pub may_write: &'r dyn Fn(Node, usize) -> bool,
    /// The range of values a host integer type holds, `None` for a type
    /// that is not an integer.
    pub integer_range: &'r dyn Fn(&str) -> Option<(i64, i64)>,
}

/// One way the helper returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// The names the handle stored through the handle parameter may hold
    /// (`None`: not known, or not stored on this path: any kernel).
    pub handle: Option<Vec<String>>,
    /// The value stored through each integer out-parameter, by position
    /// (absent: not known, or not stored on this path).
    pub ints: HashMap<usize, i64>,
}

impl Outcome {
    /// Whether the handle may name `kernel` (`names_kernel` matches a
    /// loaded name to a kernel) on this outcome.
    pub(crate) fn may_hold(&self, kernel: &str, names_kernel: &dyn Fn(&str, &str) -> bool) -> bool {
        self.handle
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| names_kernel(n, kernel)))
    }
}

/// The outcomes of the helper `func`, whose parameter `handle_param`
/// receives the handle (see the module's description).
pub(crate) fn outcomes<'t>(
    text: &str,
    func: Node<'t>,
    handle_param: usize,
    reader: &HostReader,
    load_names: &dyn Fn(Node<'t>, Option<i64>) -> Option<Vec<String>>,
) -> Option<Vec<Outcome>> {
    let body = func.child_by_field_name("body")?;
    if node_text(text, body).contains("goto") {
        return None;
    }
    let params = crate::syntax::function_params(func);
    let mut names = Vec::new();
    let mut out_ints = HashMap::new();
    for (i, p) in params.iter().enumerate() {
        let d = p.child_by_field_name("declarator")?;
        let name = crate::syntax::declarator_name(text, d)?;
        let ty = p.child_by_field_name("type").map(|t| node_text(text, t));
        // `int *block`: an integer out-parameter, when its every use is a
        // store `*block = e` (a callee given it may write it any time).
        let pointer = d.kind() == "pointer_declarator"
            && d.child_by_field_name("declarator")
                .is_some_and(|x| x.kind() == "identifier");
        let integer = ty.is_some_and(|t| (reader.integer_range)(t).is_some());
        if pointer && i != handle_param && integer && only_stored_through(text, body, &name) {
            out_ints.insert(name.clone(), i);
        }
        names.push(name);
    }
    let handle_name = names.get(handle_param)?.clone();
    // A lambda's body runs whenever it is called: not followed. A name
    // declared twice (shadowed in an inner block) is not followed either.
    if has_kind(body, "lambda_expression") {
        return None;
    }
    let mut declared: HashSet<String> = HashSet::new();
    for n in names {
        if !declared.insert(n) {
            return None;
        }
    }
    if !collect_declared(text, body, &mut declared) {
        return None;
    }
    let mut handles = HashSet::new();
    collect_loaded_handles(text, body, &mut handles);
    let mut run = Run {
        text,
        names: load_names,
        reader,
        handle_param: handle_name,
        out_ints,
        escaped: escaped_locals(text, body),
        handles,
        declared,
        types: HashMap::new(),
        steps: 0,
    };
    let start = State::default();
    let ends = run.block(body, vec![start])?;
    let mut out: Vec<Outcome> = Vec::new();
    for (state, flow) in ends {
        if matches!(flow, Flow::Break | Flow::Continue) {
            return None;
        }
        let outcome = Outcome {
            handle: state.stored_handle.flatten(),
            ints: state
                .stored_ints
                .into_iter()
                .filter_map(|(i, v)| Some((i, v?)))
                .collect(),
        };
        if !out.contains(&outcome) {
            out.push(outcome);
        }
    }
    Some(out)
}

/// How a statement ends on one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

/// One path's values.
#[derive(Clone, Debug, Default)]
struct State {
    /// The helper's integer locals declared so far (`None`: not known).
    ints: HashMap<String, Option<i64>>,
    /// The names each local handle may hold (`None`: not known).
    handles: HashMap<String, Option<Vec<String>>>,
    /// What was stored through the handle parameter (`None`: nothing yet;
    /// `Some(None)`: a handle whose names are not known).
    stored_handle: Option<Option<Vec<String>>>,
    /// What was stored through each integer out-parameter, by position.
    stored_ints: HashMap<usize, Option<i64>>,
}

struct Run<'a, 't, 'r> {
    text: &'a str,
    /// The names a load's name argument may hold, given the value of its
    /// index when it is a table's element at a known index.
    names: &'a dyn Fn(Node<'t>, Option<i64>) -> Option<Vec<String>>,
    reader: &'a HostReader<'r>,
    /// The handle parameter's name.
    handle_param: String,
    /// Integer out-parameters stored only by `*p = e`: name → position.
    out_ints: HashMap<String, usize>,
    /// The locals whose address is taken (`&x`, `int &r = x`): whatever
    /// holds it may write them at any later time, so they are never known.
    escaped: HashSet<String>,
    /// The locals a load writes (`cuModuleGetFunction(&f, ..)`).
    handles: HashSet<String>,
    /// Every name the helper declares (parameters and locals): never one
    /// of the unit's constants.
    declared: HashSet<String>,
    /// The declared type of each integer local.
    types: HashMap<String, String>,
    steps: usize,
}

type Paths = Vec<(State, Flow)>;

impl<'t> Run<'_, 't, '_> {
    fn tick(&mut self, paths: usize) -> Option<()> {
        self.steps += paths;
        (self.steps <= MAX_STEPS && paths <= MAX_PATHS).then_some(())
    }

    /// The statements of a block run in order on each state.
    fn block(&mut self, block: Node<'t>, states: Vec<State>) -> Option<Paths> {
        let mut live: Vec<State> = states;
        let mut done: Paths = Vec::new();
        for s in crate::syntax::items(block) {
            let mut next = Vec::new();
            for st in live {
                for (st, flow) in self.statement(s, st)? {
                    match flow {
                        Flow::Normal => next.push(st),
                        other => done.push((st, other)),
                    }
                }
            }
            live = next;
            self.tick(live.len() + done.len())?;
        }
        done.extend(live.into_iter().map(|s| (s, Flow::Normal)));
        Some(done)
    }

    fn statement(&mut self, s: Node<'t>, st: State) -> Option<Paths> {
        self.tick(1)?;
        match s.kind() {
            "compound_statement" => self.block(s, vec![st]),
            "comment" => Some(vec![(st, Flow::Normal)]),
            "expression_statement" => {
                let mut st = st;
                if let Some(e) = s.named_child(0) {
                    if !self.effects(e, &mut st)? {
                        return Some(Vec::new());
                    }
                }
                Some(vec![(st, Flow::Normal)])
            }
            "declaration" => {
                let mut st = st;
                if !self.declaration(s, &mut st)? {
                    return Some(Vec::new());
                }
                Some(vec![(st, Flow::Normal)])
            }
            "break_statement" => Some(vec![(st, Flow::Break)]),
            "continue_statement" => Some(vec![(st, Flow::Continue)]),
            "return_statement" => {
                let mut st = st;
                if let Some(e) = s.named_child(0) {
                    if !self.effects(e, &mut st)? {
                        return Some(Vec::new());
                    }
                }
                Some(vec![(st, Flow::Return)])
            }
            "if_statement" => {
                let cond = condition(s.child_by_field_name("condition")?)?;
                let then = s.child_by_field_name("consequence")?;
                let otherwise = s.child_by_field_name("alternative").map(|a| {
                    if a.kind() == "else_clause" {
                        a.named_child(0).unwrap_or(a)
                    } else {
                        a
                    }
                });
                let mut out = Vec::new();
                for (st, taken) in self.branch(cond, st)? {
                    if taken {
                        out.extend(self.statement(then, st)?);
                    } else if let Some(e) = otherwise {
                        out.extend(self.statement(e, st)?);
                    } else {
                        out.push((st, Flow::Normal));
                    }
                }
                Some(out)
            }
            "while_statement" => {
                let cond = condition(s.child_by_field_name("condition")?)?;
                let body = s.child_by_field_name("body")?;
                self.run_loop(Some(cond), None, body, st, false)
            }
            "do_statement" => {
                let cond = condition(s.child_by_field_name("condition")?)?;
                let body = s.child_by_field_name("body")?;
                self.run_loop(Some(cond), None, body, st, true)
            }
            "for_statement" => {
                let mut st = st;
                if let Some(init) = s.child_by_field_name("initializer") {
                    let ok = if init.kind() == "declaration" {
                        self.declaration(init, &mut st)?
                    } else {
                        self.effects(init, &mut st)?
                    };
                    if !ok {
                        return Some(Vec::new());
                    }
                }
                let body = s.child_by_field_name("body")?;
                let cond = s.child_by_field_name("condition");
                let update = s.child_by_field_name("update");
                self.run_loop(cond, update, body, st, false)
            }
            // Anything else is followed only when it changes nothing this
            // reading tracks.
            _ if is_inert(s) => Some(vec![(st, Flow::Normal)]),
            _ => None,
        }
    }

    /// A loop on one state: its paths that leave it (a `return` goes on
    /// out; a `break` or a failed condition ends the loop normally).
    fn run_loop(
        &mut self,
        cond: Option<Node<'t>>,
        update: Option<Node<'t>>,
        body: Node<'t>,
        st: State,
        body_first: bool,
    ) -> Option<Paths> {
        let mut live = vec![st];
        let mut out: Paths = Vec::new();
        for iteration in 0..=MAX_ITERATIONS {
            if live.is_empty() {
                return Some(out);
            }
            if iteration == MAX_ITERATIONS {
                return None;
            }
            let mut entering = Vec::new();
            for st in live {
                if body_first && iteration == 0 {
                    entering.push(st);
                    continue;
                }
                match cond {
                    None => entering.push(st),
                    Some(c) => {
                        for (st, taken) in self.branch(c, st)? {
                            if taken {
                                entering.push(st);
                            } else {
                                out.push((st, Flow::Normal));
                            }
                        }
                    }
                }
            }
            let mut next = Vec::new();
            for st in entering {
                for (mut st, flow) in self.statement(body, st)? {
                    match flow {
                        Flow::Break => out.push((st, Flow::Normal)),
                        Flow::Return => out.push((st, Flow::Return)),
                        Flow::Normal | Flow::Continue => {
                            if let Some(u) = update {
                                if !self.effects(u, &mut st)? {
                                    continue;
                                }
                            }
                            next.push(st);
                        }
                    }
                }
            }
            live = next;
            self.tick(live.len() + out.len())?;
        }
        None
    }

    /// The states a condition splits `st` into, each with whether it
    /// holds there: one when its value is known, two when not.
    fn branch(&mut self, cond: Node<'t>, st: State) -> Option<Vec<(State, bool)>> {
        let mut st = st;
        // A condition that writes (`if ((err = call(&x)) != 0)`): its
        // writes first, then its value is not known.
        if writes_anything(cond) {
            if !self.effects(cond, &mut st)? {
                return Some(Vec::new());
            }
            return Some(vec![(st.clone(), true), (st, false)]);
        }
        Some(match self.eval(cond, &st) {
            Some(v) => vec![(st, v != 0)],
            None => vec![(st.clone(), true), (st, false)],
        })
    }

    /// A declaration's initializers, in order; `false` when the path ends
    /// (an initializer calls `exit`).
    fn declaration(&mut self, d: Node<'t>, st: &mut State) -> Option<bool> {
        let ty = d
            .child_by_field_name("type")
            .map(|t| node_text(self.text, t).to_string())
            .unwrap_or_default();
        let integer = (self.reader.integer_range)(&ty).is_some();
        let mut c = d.walk();
        let declarators: Vec<Node> = d.children_by_field_name("declarator", &mut c).collect();
        for decl in declarators {
            let (target, value) = match decl.kind() {
                "init_declarator" => (
                    decl.child_by_field_name("declarator")?,
                    decl.child_by_field_name("value"),
                ),
                _ => (decl, None),
            };
            if let Some(v) = value {
                if !self.effects(v, st)? {
                    return Some(false);
                }
            }
            let Some(name) = crate::syntax::declarator_name(self.text, target) else {
                continue;
            };
            if self.handles.contains(&name) {
                // A handle starts with no kernel (`= 0`, `= NULL`, or none
                // yet); any other initializer is not followed.
                let null = value.is_none_or(|v| {
                    matches!(
                        node_text(self.text, v).trim(),
                        "0" | "NULL" | "nullptr" | "{}"
                    )
                });
                st.handles
                    .insert(name, if null { Some(Vec::new()) } else { None });
                continue;
            }
            if integer && target.kind() == "identifier" {
                let v = match value {
                    Some(v) if v.kind() != "initializer_list" => self.eval(v, st),
                    _ => None,
                };
                self.types.insert(name.clone(), ty.clone());
                let v = v.filter(|v| self.fits(&name, *v));
                st.ints.insert(name, v);
            }
        }
        Some(true)
    }

    fn fits(&self, name: &str, v: i64) -> bool {
        !self.escaped.contains(name)
            && self
                .types
                .get(name)
                .and_then(|t| (self.reader.integer_range)(t))
                .is_some_and(|(lo, hi)| (lo..=hi).contains(&v))
    }

    /// The writes of an expression, in evaluation order as far as C fixes
    /// it (the arguments of a call before the call, a right-hand side
    /// before its store); `false` when the path ends there (`exit`).
    fn effects(&mut self, e: Node<'t>, st: &mut State) -> Option<bool> {
        match e.kind() {
            "assignment_expression" => {
                let left = e.child_by_field_name("left")?;
                let right = e.child_by_field_name("right")?;
                let op = node_text(self.text, e.child_by_field_name("operator")?);
                if !self.effects(right, st)? {
                    return Some(false);
                }
                self.assign(left, op, right, st)?;
                Some(true)
            }
            "update_expression" => {
                let a = e.child_by_field_name("argument")?;
                let name = node_text(self.text, a).to_string();
                if a.kind() != "identifier" {
                    return self.effects(a, st);
                }
                if let Some(old) = st.ints.get(&name).cloned() {
                    let op = node_text(self.text, e.child_by_field_name("operator")?);
                    let v = old.and_then(|o| match op {
                        "++" => o.checked_add(1),
                        "--" => o.checked_sub(1),
                        _ => None,
                    });
                    let v = v.filter(|v| self.fits(&name, *v));
                    st.ints.insert(name, v);
                } else if self.is_tracked_elsewhere(&name) {
                    return None;
                }
                Some(true)
            }
            "call_expression" => self.call(e, st),
            "comma_expression" => {
                for c in children(e) {
                    if !self.effects(c, st)? {
                        return Some(false);
                    }
                }
                Some(true)
            }
            // `a && f(&x)`, `c ? f(&x) : g(&y)`: a write that may or may
            // not run leaves what it writes unknown.
            "binary_expression" | "conditional_expression"
                if writes_anything(e) && self.runs_conditionally(e) =>
            {
                let mut scratch = st.clone();
                for c in children(e) {
                    let _ = self.effects(c, &mut scratch)?;
                }
                self.forget_changed(st, &scratch);
                Some(true)
            }
            _ => {
                for c in children(e) {
                    if !self.effects(c, st)? {
                        return Some(false);
                    }
                }
                Some(true)
            }
        }
    }

    /// Whether some operand of `e` may not run: `&&`, `||`, `?:`.
    fn runs_conditionally(&self, e: Node) -> bool {
        e.kind() == "conditional_expression"
            || e.child_by_field_name("operator")
                .is_some_and(|o| matches!(node_text(self.text, o), "&&" | "||"))
    }

    /// Everything `changed` differs from `st` in becomes unknown in `st`.
    fn forget_changed(&self, st: &mut State, changed: &State) {
        for (k, v) in &changed.ints {
            if st.ints.get(k) != Some(v) {
                st.ints.insert(k.clone(), None);
            }
        }
        for (k, v) in &changed.handles {
            if st.handles.get(k) != Some(v) {
                st.handles.insert(k.clone(), None);
            }
        }
        if changed.stored_handle != st.stored_handle {
            st.stored_handle = Some(None);
        }
        for (k, v) in &changed.stored_ints {
            if st.stored_ints.get(k) != Some(v) {
                st.stored_ints.insert(*k, None);
            }
        }
    }

    /// Whether `name` is a parameter or handle this reading tracks
    /// otherwise than as an integer local (a write to it is not followed).
    fn is_tracked_elsewhere(&self, name: &str) -> bool {
        name == self.handle_param || self.out_ints.contains_key(name) || self.handles.contains(name)
    }

    fn assign(&mut self, left: Node<'t>, op: &str, right: Node<'t>, st: &mut State) -> Option<()> {
        match left.kind() {
            "identifier" => {
                let name = node_text(self.text, left).to_string();
                if let Some(old) = st.ints.get(&name).cloned() {
                    let r = self.eval(right, st);
                    let v = if op == "=" {
                        r
                    } else {
                        let bin = crate::frontend::binop(op.strip_suffix('=')?)?;
                        old.zip(r).and_then(|(a, b)| crate::model::fold(bin, a, b))
                    };
                    let v = v.filter(|v| self.fits(&name, *v));
                    st.ints.insert(name, v);
                } else if self.handles.contains(&name) {
                    let v = (op == "=").then(|| self.handle_value(right, st)).flatten();
                    st.handles.insert(name, v);
                } else if self.is_tracked_elsewhere(&name) {
                    return None;
                }
            }
            // `*out = f`, `*block = bs`.
            "pointer_expression"
                if left
                    .child_by_field_name("operator")
                    .is_some_and(|o| node_text(self.text, o) == "*") =>
            {
                let target = left.child_by_field_name("argument")?;
                let name = node_text(self.text, target);
                if target.kind() == "identifier" && name == self.handle_param {
                    let v = (op == "=").then(|| self.handle_value(right, st)).flatten();
                    st.stored_handle = Some(v);
                } else if let Some(&i) = self.out_ints.get(name) {
                    let v = (op == "=").then(|| self.eval(right, st)).flatten();
                    st.stored_ints.insert(i, v);
                }
            }
            _ => {
                if !self.effects(left, st)? {
                    return None;
                }
            }
        }
        Some(())
    }

    /// The names a handle expression holds: a local handle's.
    fn handle_value(&self, e: Node, st: &State) -> Option<Vec<String>> {
        let e = strip(e);
        let name = node_text(self.text, e);
        match e.kind() {
            "identifier" => st.handles.get(name).cloned().flatten(),
            "number_literal" if name == "0" => Some(Vec::new()),
            "null" | "nullptr" => Some(Vec::new()),
            _ => None,
        }
    }

    /// A call: a load sets its handle; a process-ending call ends the
    /// path; any other call may write the variables whose address it is
    /// given (or that it takes by reference).
    fn call(&mut self, call: Node<'t>, st: &mut State) -> Option<bool> {
        let args = crate::syntax::call_arguments(call);
        for a in &args {
            if !self.effects(*a, st)? {
                return Some(false);
            }
        }
        let callee = call
            .child_by_field_name("function")
            .map(|f| node_text(self.text, f))
            .unwrap_or("");
        let bare = callee.rsplit("::").next().unwrap_or(callee);
        if ENDS_PROCESS.contains(&bare) {
            return Some(false);
        }
        if bare == "cuModuleGetFunction" {
            let names = args.get(2).and_then(|n| self.loaded_names(*n, st));
            match args.first().map(|h| strip(*h)) {
                Some(h) if is_address_of(self.text, h).is_some() => {
                    let v = is_address_of(self.text, h)?;
                    if self.handles.contains(v) {
                        st.handles.insert(v.to_string(), names);
                    }
                }
                Some(h) if node_text(self.text, h) == self.handle_param => {
                    st.stored_handle = Some(names);
                }
                _ => {}
            }
            return Some(true);
        }
        for (i, a) in args.iter().enumerate() {
            let a = strip(*a);
            let written = match is_address_of(self.text, a) {
                Some(v) => Some(v),
                None if a.kind() == "identifier" && (self.reader.may_write)(call, i) => {
                    Some(node_text(self.text, a))
                }
                None => None,
            };
            let Some(v) = written else {
                continue;
            };
            if st.ints.contains_key(v) {
                st.ints.insert(v.to_string(), None);
            } else if self.handles.contains(v) {
                // A query (`cuFuncSetAttribute(&..)`) does not take one,
                // but nothing else is read here: not known.
                if !is_handle_query(bare) {
                    st.handles.insert(v.to_string(), None);
                }
            } else if v == self.handle_param {
                st.stored_handle = Some(None);
            }
        }
        Some(true)
    }

    /// The names a load's name argument may hold on this path: an item of
    /// a table of literals at an index known here (`kernels[i]`), or what
    /// `self.names` reads of it anywhere.
    fn loaded_names(&self, n: Node<'t>, st: &State) -> Option<Vec<String>> {
        let n = strip(n);
        let index = (n.kind() == "subscript_expression")
            .then(|| {
                n.child_by_field_name("indices")
                    .or_else(|| n.child_by_field_name("index"))
            })
            .flatten()
            .and_then(|i| {
                if i.kind() == "subscript_argument_list" {
                    crate::syntax::items(i).first().copied()
                } else {
                    Some(i)
                }
            })
            .and_then(|i| self.eval(i, st));
        (self.names)(n, index)
    }

    /// The value of an integer expression on this path.
    fn eval(&self, n: Node, st: &State) -> Option<i64> {
        let v = self.eval_raw(n, st, 0)?;
        // A negative value where an unsigned local takes part: C would
        // have wrapped it.
        if v < 0 && self.reads_unsigned(n) {
            return None;
        }
        Some(v)
    }

    fn reads_unsigned(&self, n: Node) -> bool {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if x.kind() == "identifier" {
                let name = node_text(self.text, x);
                let unsigned = self
                    .types
                    .get(name)
                    .and_then(|t| (self.reader.integer_range)(t))
                    .is_some_and(|(lo, _)| lo == 0);
                if unsigned {
                    return true;
                }
            }
            stack.extend(children(x));
        }
        false
    }

    fn eval_raw(&self, n: Node, st: &State, depth: usize) -> Option<i64> {
        if depth > 32 {
            return None;
        }
        let ev = |m: Node| self.eval_raw(m, st, depth + 1);
        match n.kind() {
            "number_literal" => crate::frontend::parse_int(node_text(self.text, n)),
            "true" => Some(1),
            "false" => Some(0),
            "parenthesized_expression" => ev(n.named_child(0)?),
            "cast_expression" => ev(n.child_by_field_name("value")?),
            "identifier" => {
                let name = node_text(self.text, n);
                match st.ints.get(name) {
                    Some(v) => *v,
                    None if self.declared.contains(name) => None,
                    None => (self.reader.constant)(name),
                }
            }
            "unary_expression" => {
                let v = ev(n.child_by_field_name("argument")?)?;
                match node_text(self.text, n.child_by_field_name("operator")?) {
                    "-" => v.checked_neg(),
                    "+" => Some(v),
                    "!" => Some(i64::from(v == 0)),
                    _ => None,
                }
            }
            "binary_expression" => {
                let op = node_text(self.text, n.child_by_field_name("operator")?);
                let l = ev(n.child_by_field_name("left")?);
                // `&&` and `||` decided by their left side alone.
                match (op, l) {
                    ("&&", Some(0)) => return Some(0),
                    ("||", Some(v)) if v != 0 => return Some(1),
                    _ => {}
                }
                let r = ev(n.child_by_field_name("right")?);
                match (op, r) {
                    ("&&", Some(0)) => return Some(0),
                    ("||", Some(v)) if v != 0 => return Some(1),
                    _ => {}
                }
                crate::model::fold(crate::frontend::binop(op)?, l?, r?)
            }
            "conditional_expression" => {
                let a = ev(n.child_by_field_name("consequence")?);
                let b = ev(n.child_by_field_name("alternative")?);
                match ev(n.child_by_field_name("condition")?) {
                    Some(c) if c != 0 => a,
                    Some(_) => b,
                    None => a.filter(|a| Some(*a) == b),
                }
            }
            _ => None,
        }
    }
}

/// Whether `p` is used in `body` only as the target of stores `*p = e`.
fn only_stored_through(text: &str, body: Node, p: &str) -> bool {
    crate::syntax::identifiers_named(text, body, p)
        .into_iter()
        .all(|n| {
            let Some(deref) = n.parent().filter(|d| {
                d.kind() == "pointer_expression"
                    && d.child_by_field_name("operator")
                        .is_some_and(|o| node_text(text, o) == "*")
            }) else {
                return false;
            };
            deref.parent().is_some_and(|a| {
                a.kind() == "assignment_expression"
                    && a.child_by_field_name("left")
                        .is_some_and(|l| l.id() == deref.id())
            })
        })
}

/// The names a function body declares, into `out`; `false` when one is
/// declared twice (or is a parameter's too).
fn collect_declared(text: &str, n: Node, out: &mut HashSet<String>) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "declaration" {
            let mut c = x.walk();
            for d in x.children_by_field_name("declarator", &mut c) {
                if let Some(name) = crate::syntax::declarator_name(text, d) {
                    if !out.insert(name) {
                        return false;
                    }
                }
            }
        }
        stack.extend(children(x));
    }
    true
}

/// The names whose address the body takes (`&x` anywhere but as a load's
/// handle, `int &r = x`).
fn escaped_locals(text: &str, body: Node) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![body];
    while let Some(x) = stack.pop() {
        if let Some(v) = is_address_of(text, x) {
            out.insert(v.to_string());
        }
        if x.kind() == "init_declarator"
            && x.child_by_field_name("declarator")
                .is_some_and(|d| d.kind() == "reference_declarator")
        {
            if let Some(v) = x.child_by_field_name("value").map(strip) {
                out.insert(node_text(text, v).to_string());
            }
        }
        stack.extend(children(x));
    }
    out
}

/// The locals loads write into (`cuModuleGetFunction(&f, ..)`).
fn collect_loaded_handles(text: &str, n: Node, out: &mut HashSet<String>) {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "call_expression" {
            let callee = x
                .child_by_field_name("function")
                .map(|f| node_text(text, f))
                .unwrap_or("");
            if callee.rsplit("::").next() == Some("cuModuleGetFunction") {
                if let Some(v) = crate::syntax::call_arguments(x)
                    .first()
                    .and_then(|h| is_address_of(text, strip(*h)))
                {
                    out.insert(v.to_string());
                }
            }
        }
        stack.extend(children(x));
    }
}

fn is_handle_query(callee: &str) -> bool {
    callee.starts_with("cuFunc") || callee.starts_with("cuOccupancy")
}

/// `&v` → `v`.
fn is_address_of<'a>(text: &'a str, n: Node) -> Option<&'a str> {
    (n.kind() == "pointer_expression"
        && n.child_by_field_name("operator")
            .is_some_and(|o| node_text(text, o) == "&"))
    .then(|| n.child_by_field_name("argument"))
    .flatten()
    .filter(|a| a.kind() == "identifier")
    .map(|a| node_text(text, a))
}

/// The value of an `if`'s or loop's condition node.
fn condition(c: Node) -> Option<Node> {
    if c.kind() == "condition_clause" {
        // `if (int x = ..)`: a declaration there is not followed.
        if c.child_by_field_name("initializer").is_some() {
            return None;
        }
        let v = c
            .child_by_field_name("value")
            .or_else(|| c.named_child(0))?;
        return (v.kind() != "declaration").then_some(v);
    }
    if c.kind() == "parenthesized_expression" {
        return c.named_child(0);
    }
    Some(c)
}

fn strip(mut n: Node) -> Node {
    loop {
        n = match n.kind() {
            "parenthesized_expression" => match n.named_child(0) {
                Some(c) => c,
                None => return n,
            },
            "cast_expression" => match n.child_by_field_name("value") {
                Some(c) => c,
                None => return n,
            },
            _ => return n,
        };
    }
}

/// Whether an expression may write anything (an assignment, an
/// increment, a call).
fn writes_anything(n: Node) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if matches!(
            x.kind(),
            "assignment_expression" | "update_expression" | "call_expression"
        ) {
            return true;
        }
        stack.extend(children(x));
    }
    false
}

/// Whether a statement this reading does not follow changes nothing: no
/// write, no call, no jump out of it.
fn is_inert(s: Node) -> bool {
    let mut stack = vec![s];
    while let Some(x) = stack.pop() {
        if matches!(
            x.kind(),
            "assignment_expression"
                | "update_expression"
                | "call_expression"
                | "return_statement"
                | "break_statement"
                | "continue_statement"
                | "goto_statement"
                | "throw_statement"
                | "declaration"
        ) {
            return false;
        }
        stack.extend(children(x));
    }
    true
}

fn has_kind(n: Node, kind: &str) -> bool {
    n.kind() == kind || children(n).into_iter().any(|c| has_kind(c, kind))
}

fn children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}
