//! Symbolic execution of a kernel body into the model.
//!
//! Locals live in an environment of symbolic values (SSA by substitution:
//! `x = ...; x = ...;` simply rebinds `x`). Conditionals merge environments
//! with `ite`; loops are summarised without unrolling: a dry run of the body
//! finds each variable's per-iteration update, induction variables become
//! closed forms of an iteration counter (`i0 + c*k`, `x0 * 2^k`, `x0 >> k`),
//! and anything else becomes an unknown. Values read from memory are
//! unknowns. A construct the model cannot represent is recorded as
//! `Unsupported` and makes the kernel `not-verified`.

mod asm;
mod asynccopy;
mod builtins;
mod calls;
mod conversions;
mod expressions;
mod floats;
mod groups;
mod kernel;
mod lambdas;
mod libcu_atomics;
pub(crate) use libcu_atomics::mentions_atomic_types;
mod loops;
mod memory_objects;
mod objects;
mod places;
mod shared_values;
mod spec;
mod statements;
mod targets;
mod unions;
mod views;
mod wmma;

pub(crate) use kernel::{int_range, lower_kernel, standard_scalar};
pub(crate) use views::type_bytes;

use super::{
    binop, const_eval, parse_int, preproc_branch, struct_type_name, type_text, FileContext,
    FunctionDef, StructField,
};
use crate::model::*;
use crate::options::Options;
use crate::report::Span;
use crate::symbols;
use crate::syntax::{
    contains_kind, declarator_name, find_function_declarator, find_identifier, function_params,
    has_qualifier, node_text, FieldExt,
};
use calls::*;
use kernel::*;
use loops::*;
use objects::*;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;
use tree_sitter::Node;

const MAX_DEPTH: usize = 300;
const MAX_STEPS: usize = 3_000_000;
const MAX_EXPR: usize = 4000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupKind {
    /// A group of `n` consecutive threads of a block that one barrier
    /// orders together: a warp (32) or a `tiled_partition<n>` tile.
    Tile(i64),
    Block,
    Grid,
    /// `this_thread()`: one thread; its `sync()` orders nothing.
    Single,
    /// `coalesced_threads()`: the threads of a warp active at that point;
    /// `labeled_partition` / `binary_partition` of one: a subset of them.
    /// The number tells one group object from another (`groups.rs`).
    Coalesced(usize, Partition),
}

/// Whether a coalesced group is all the active threads of a warp, or a
/// partition of them by a label (whose members need not be neighbours).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Partition {
    Whole,
    Labeled,
}

#[derive(Clone, Debug, PartialEq)]
struct Ptr {
    array: ArrayId,
    /// Other arrays the pointer may point into, each with the condition
    /// under which it does (pairwise exclusive); it points into `array`
    /// where none holds. A pointer chosen among arrays (`c ? a : b`, one
    /// assigned on the branches of an `if`) has them, and an access
    /// through it is one access per array under its condition
    /// (`record_access`). Each is laid out like `array`
    /// (`Lowerer::alike_arrays`), so what is read from `array`'s layout
    /// (element type, dimensions, space) holds for every one of them.
    others: Vec<(Expr, ArrayId)>,
    /// Flattened element offset.
    offset: Expr,
    /// Offset within the current row (for bounds of the last dimension).
    inner: Expr,
    /// The dimension the next subscript indexes.
    level: usize,
    /// Another element type the pointer sees memory as (then `offset` counts
    /// bytes, or elements of a type of unknown size).
    view: Option<views::View>,
}

#[derive(Clone, Debug, PartialEq)]
enum LValue {
    Local {
        scope: usize,
        name: String,
    },
    Mem {
        ptr: Ptr,
        bounds: Vec<Expr>,
    },
    /// A thread-private aggregate element: never shared, value unknown.
    Discard,
    Opaque(String),
}

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(Expr),
    Ptr(Ptr),
    /// A thread-private aggregate (local array or struct).
    Local,
    Group(GroupKind),
    /// `threadIdx`, `blockIdx`, `blockDim`, `gridDim` as a whole (0..4).
    Dim3(u8),
    /// A reference (or address of a local) aliasing another lvalue.
    Alias(Box<LValue>),
    /// A pointer of unknown origin.
    Opaque(String),
    /// A `__device__` function of the file named as a value (a function
    /// pointer whose target is known).
    Function(String),
    /// A `cuda::pipeline` (its number in the kernel; block scope or not).
    Pipeline(usize, bool),
    /// A lambda that captures by reference (its number in the kernel,
    /// `Lowerer::lambdas`).
    Lambda(usize),
    /// An object of a struct the file defines (its type). Its members are
    /// locals of the same scope named `object.member` (nested objects:
    /// `object.inner.member`), so branches merge and loops summarise them
    /// like any other local.
    Object(String),
}

/// A last-block flag's value (`Lowerer::broadcasts`) and the condition
/// under which thread 0 wrote it.
type Broadcast = (Expr, Expr);

/// A modelled object: the scope its members live in, its path, its type.
type ObjRef = (usize, String, String);

/// How an argument binds to a parameter of an inlined function.
enum Bound {
    Value(Value),
    /// A by-value object: a copy of this one (`None`: of an untracked value).
    Copy(String, Option<ObjRef>),
}

struct Frame {
    is_loop: bool,
    broke: Expr,
    continued: Expr,
    thread_exit: bool,
    /// Labels after this loop that a `goto` inside it jumps to.
    gotos: Vec<String>,
}

#[derive(Clone, Debug)]
enum Update {
    Unchanged,
    Add(Expr),
    Pow2Up(i64),
    Pow2Down(i64),
    Havoc(Scope),
    /// A pointer an iteration may leave pointing into other arrays: after
    /// any number of iterations it points into one of these (an unknown
    /// one, at an unknown offset); none known when empty.
    Retarget(Vec<ArrayId>),
}

struct Lowerer<'a, 't> {
    /// The file's text (`FileContext::source`, shared).
    src: std::sync::Arc<str>,
    file: &'a FileContext<'t>,
    arrays: Vec<Array>,
    array_names: HashMap<String, ArrayId>,
    extern_shared: Option<ArrayId>,
    /// `__shared__` objects of the file's structs (by their cell), and the
    /// arrays their array members are.
    shared_objects: HashMap<ArrayId, String>,
    member_arrays: HashMap<(ArrayId, String), ArrayId>,
    /// Objects of the file's classes in memory (`memory_objects`).
    mem: memory_objects::MemoryObjects,
    /// `__shared__` unions: their arrays of bytes and members' layout.
    shared_unions: HashMap<ArrayId, unions::UnionLayout>,
    /// Thread-local unions (scope, name): private memory of one thread.
    local_unions: HashMap<(usize, String), unions::UnionLayout>,
    /// Declared element types of arrays (for byte sizes), where known.
    elem_types: HashMap<ArrayId, String>,
    /// Arrays whose elements are values of an integer C type (a pointer
    /// parameter `const unsigned char *p`, a `__shared__ short s[64]`):
    /// the range of that type, which bounds every value read from them.
    elem_ranges: HashMap<ArrayId, (i64, i64)>,
    /// Accesses recorded through a view, by access id.
    viewed: HashMap<usize, views::Recorded>,
    scopes: Scopes,
    frame_base: usize,
    path: Vec<Expr>,
    /// For each prefix of `path` met so far, its last condition and the
    /// conjunction of the prefix: guards share their enclosing conditions'
    /// conjunction (one `Arc`), so the model of a loop nest `n` deep holds
    /// `n` conjunctions, not one of each length per access.
    path_conj: std::cell::RefCell<Vec<(Expr, Expr)>>,
    cond_spans: Vec<(Span, Arc<Expr>)>,
    returned: Expr,
    /// Threads that took a forward `goto` and skip code until its label.
    jumped: Vec<(String, Expr)>,
    /// The value of the write being recorded (see `Access::value`).
    written_value: Option<Expr>,
    /// Whether reads record the value they yield (`Options::track_values`).
    track_values: bool,
    /// The value of the read being recorded (with `track_values`).
    read_value: Option<Expr>,
    /// Locks held here (the lock's text, and the unseen condition that the
    /// thread holds it): mutual exclusion is not modelled, so a race of an
    /// access under a lock depends on it and is not verified, never a
    /// definite race nor silently safe.
    locks: Vec<(String, Expr)>,
    /// A `__threadfence()` was called and no atomic followed it yet.
    fence_pending: bool,
    /// `next_access` at the latest `__threadfence()`, and
    /// `last_full_barrier` then (a barrier between the fence and the
    /// atomic orders nothing before the fence).
    fence_access: (usize, (usize, Option<usize>)),
    /// The guard of the latest `__threadfence()`: it orders the increment
    /// of a last-block pattern only where it runs on every path the
    /// increment does (`if (publish) __threadfence();` orders nothing when
    /// `publish` is false).
    fence_guard: Expr,
    /// After `__threadfence()` and an atomic (the last-block pattern: a
    /// block that sees the counter complete reads what the others wrote
    /// before their fence): the atomic's target and a grid-uniform
    /// condition every later access carries. That ordering is not
    /// modelled, so a race of such an access is not verified.
    fenced: Option<(String, Expr)>,
    /// Last-block patterns seen so far (`Kernel::last_blocks`).
    last_blocks: Vec<crate::model::LastBlock>,
    /// Atomic operations seen so far (`Kernel::atomic_ops`).
    atomic_ops: Vec<crate::model::AtomicOp>,
    /// `Kernel::atomic_results_summarised`.
    atomic_results_summarised: bool,
    /// `Kernel::read_values`.
    read_values: Vec<(Var, usize)>,
    /// `Kernel::applications`.
    applications: Vec<Application>,
    /// `Kernel::shuffles`.
    shuffles: Vec<crate::model::Shuffle>,
    /// `__requires(__distinct(a))` and the like, with their span and
    /// text; the kernel keeps those about arrays it does not write.
    input_orders: Vec<(InputOrder, Span, String, AssumptionOrigin)>,
    /// `Kernel::folds`.
    folds: Vec<Fold>,
    /// `next_access` at the latest barrier every thread of the block
    /// passes, and its id.
    last_full_barrier: (usize, Option<usize>),
    /// `__shared__` scalars (array) holding a value one thread wrote that
    /// depends on a block's ticket (`s_last = ticket == gridDim.x - 1`):
    /// read back as that value (a read racing with the write is a race of
    /// its own), by the reads whose own condition implies the condition
    /// under which thread 0 wrote it (true, or one value for the block).
    broadcasts: Vec<(ArrayId, i64, Option<Broadcast>)>,
    /// Threads stuck in a loop that never ends: like `returned`, but not
    /// undone when an inlined function's frame ends (they never come back).
    hung: Expr,
    frames: Vec<Frame>,
    ret_values: Vec<Option<Value>>,
    out: Vec<Vec<Stmt>>,
    next_access: usize,
    next_barrier: usize,
    next_loop: usize,
    loops: Vec<usize>,
    loop_counters: Vec<String>,
    unknown_counts: HashMap<String, usize>,
    /// The locals each loop statement may assign, by node id (see
    /// `loops::assigned_names`).
    assigned_memo: HashMap<usize, std::collections::HashSet<String>>,
    /// The expression statement being lowered: its expression's node id
    /// (unique among the live trees' nodes) and the statement's span
    /// (`statement_span`).
    expr_stmt: Option<(usize, Span)>,
    /// The jumps each loop statement holds, by node id (see `loops::jumps`).
    jumps_memo: HashMap<usize, loops::Jumps>,
    counter_counts: HashMap<String, usize>,
    unsupported: Vec<Unsupported>,
    assumptions: Vec<Expr>,
    /// `__assert`s, loop invariants, device-function preconditions.
    assertions: Vec<Assertion>,
    /// The assumptions as written, for the report.
    assumption_texts: Vec<StatedAssumption>,
    /// Specifications neither assumed nor checked, with the reason.
    unused_specs: Vec<(Span, String)>,
    /// Inside the argument of a specification (two-thread predicates allowed).
    spec_depth: usize,
    /// The first access predicate met in the current specification.
    spec_access_predicate: Option<String>,
    /// Evaluating a loop's condition (where GPUVerify's invariants are).
    loop_head: usize,
    /// Asynchronous copies in flight and pipeline stages (see `asynccopy`).
    async_state: asynccopy::AsyncState,
    async_seq: usize,
    async_batch: usize,
    /// Loop bodies being lowered, innermost last.
    async_loops: Vec<asynccopy::LoopAsync>,
    next_pipeline: usize,
    /// `__shared__ cuda::pipeline_shared_state<scope, N>` objects by name:
    /// N when it is a constant.
    pipeline_states: HashMap<String, Option<Expr>>,
    /// Block-scope pipelines made over such a state (`make_pipeline(block,
    /// &state)`), by pipeline id: their stage count, then (once the
    /// pipeline is bound to a local) their counters (see `asynccopy`).
    block_pipe_stages: HashMap<usize, Expr>,
    /// Block-scope pipelines made with a role (`make_pipeline(block,
    /// &state, role)`), by pipeline id: whether the thread is a producer.
    block_pipe_producers: HashMap<usize, Expr>,
    block_pipes: HashMap<usize, asynccopy::BlockPipe>,
    /// The loops being lowered around the current code, outermost first
    /// (see `asynccopy::lockstep`).
    enclosing_loops: Vec<asynccopy::EnclosingLoop>,
    /// The unknowns standing for a lockstep commit count where its guard
    /// does not hold (see `asynccopy::lockstep`).
    lockstep_unknowns: HashSet<Arc<str>>,
    /// `wmma::fragment` locals (and arrays of them) by the scope that binds
    /// them and their name: their tile's shape when the model can read it
    /// (see `wmma`).
    fragments: HashMap<(usize, String), Option<wmma::Fragment>>,
    /// `typedef`s inside the kernel's bodies: the type each names, `None`
    /// for a name given two different types (see `views::local_typedef`).
    local_aliases: HashMap<String, Option<String>>,
    /// While the accesses of a copy into a block-scope pipeline are
    /// recorded: the pipeline and the copy's stage.
    pipe_copy: Option<(usize, Expr)>,
    /// Block-scope pipelines are not modelled exactly in this lowering (the
    /// kernel is lowered again so when the exact model broke down: an
    /// operation some threads skip, a copy without its acquire, counts the
    /// model does not know).
    pub(super) block_pipes_off: bool,
    pub(super) block_pipe_broken: bool,
    /// Groups of active threads (`GroupKind::Coalesced`) made so far, and
    /// for those whose rank or size was asked, the thread's rank and the
    /// group's size (one unknown each per group object).
    coalesced_groups: usize,
    coalesced_ranks: HashMap<usize, (Expr, Expr)>,
    /// Results of `atomicAdd(&c, g.size())` at a ticket counter: the group,
    /// and the ticket name of the counter (see `groups::broadcast`).
    reservations: HashMap<Var, (usize, String)>,
    /// `cuda::barrier` objects in shared memory: whether `init` gave them
    /// the whole block (None: not initialised in the kernel).
    barrier_objects: HashMap<ArrayId, Option<bool>>,
    /// Between `bar.arrive()` and its `bar.wait(token)` (see `asynccopy`).
    split_arrive: Option<asynccopy::SplitPhase>,
    /// The barrier ids of the waits of barrier objects, and the objects
    /// some thread drops out of (`arrive_and_drop`): their waits are not
    /// whole-block barriers after all.
    object_waits: Vec<(usize, ArrayId)>,
    dropped_barriers: Vec<ArrayId>,
    /// Loops (node ids) around an `__mbarrier_test_wait` the model does not
    /// follow: a thread leaving one may have seen its phase complete.
    spin_loops: Vec<usize>,
    /// Block dimensions the kernel mentions (x, y, z).
    block_dims_used: [bool; 3],
    /// Arrays an asynchronous copy writes, and arrays atomics update: the
    /// copy's writes are modelled as atomic updates, so both on one array
    /// is outside the model.
    async_targets: HashSet<ArrayId>,
    atomic_targets: HashSet<ArrayId>,
    /// Every atomic update: its array, and for an add of a non-zero
    /// constant at a constant index, the index and the step's sign.
    atomic_updates: Vec<(ArrayId, Option<(i64, i64)>)>,
    /// Every `atomicCAS`/`atomicExch` update: its array, and for one of
    /// constants at a constant index (CAS: compare and new value differ),
    /// the index and the value it sets.
    flag_updates: Vec<(ArrayId, Option<(i64, i64)>)>,
    /// Whether the file names libcu++'s atomic types at all (a cheap gate
    /// before looking for atomic objects at every use of a cell).
    libcu_atomics: bool,
    /// `cuda::atomic_ref` locals (scope, name): aliases of a memory cell
    /// whose every use is atomic (`libcu_atomics`).
    atomic_refs: HashSet<(usize, String)>,
    /// Sizes of the groups whose warp-level barriers the kernel uses
    /// (32 for `__syncwarp`, N for a `tiled_partition<N>` tile).
    warp_widths: std::collections::BTreeSet<i64>,
    /// Facts of the kernel's launch site, assumed at its entry.
    launch_requires: Vec<String>,
    /// Where that launch is (`host.cu:42`), named with each of its facts.
    launch_origin: Option<String>,
    /// The origin of the assumption being lowered when it is not an
    /// annotation of the code (a launch fact evaluated as a snippet).
    assumption_origin: Option<AssumptionOrigin>,
    /// Template arguments of the kernel's launch site.
    launch_template_args: Vec<String>,
    /// The struct type of each argument of the kernel's launch site.
    launch_arg_types: Vec<Option<String>>,
    /// Template arguments of the kernel's launch site, whatever launch
    /// sizes the user fixed (types bound to functors).
    launch_type_args: Vec<String>,
    /// The kernel's template type parameters bound to a struct of the file
    /// (a functor's type): explicitly, or by the launch's argument.
    functor_types: HashMap<String, String>,
    /// The kernel's template type parameters bound to any type by its
    /// launch or its one explicit instantiation (`T` → `int`): what picks
    /// a struct template's specialisation (`Proxy<T>` is `Proxy<int>`).
    type_bindings: HashMap<String, String>,
    /// Sizes of array dimensions that are not constants (`As[BS][BS]` with
    /// a template parameter BS, `s[N]` with N from a missing header): strides
    /// and bounds use them, so a row never shrinks to size 1.
    symbolic_dims: HashMap<ArrayId, Vec<Option<Expr>>>,
    call_stack: Vec<String>,
    /// The lambdas made so far (`Value::Lambda` numbers them).
    lambdas: Vec<lambdas::Lambda>,
    /// Where each function on `call_stack` was called (innermost last).
    call_sites: Vec<Span>,
    dry: usize,
    span_override: Option<Span>,
    /// See `Kernel::stmt_guards`.
    stmt_guards: Vec<(u32, Expr)>,
    depth: usize,
    steps: usize,
    exhausted: bool,
    macro_depth: usize,
    kernel_name: String,
    /// Preprocessor conditionals of the kernel whose taken branch is empty
    /// (span of the directive, its first line): code the model left out.
    preproc_dropped: Vec<(Span, String)>,
    /// Parameter passing of functions declared without a body, by name.
    prototypes: HashMap<String, Option<Vec<builtins::Passing>>>,
    /// The unknowns standing for floating-point values (see `floats`).
    float_vars: HashSet<Arc<str>>,
    /// Locals declared with a floating-point type (scope, name): a value
    /// assigned to one later is converted (see `floats`).
    float_locals: HashSet<(usize, String)>,
}

impl<'a, 't> Lowerer<'a, 't> {
    fn new(file: &'a FileContext<'t>, options: &Options) -> Self {
        Lowerer {
            src: file.source.clone(),
            file,
            arrays: Vec::new(),
            array_names: HashMap::new(),
            extern_shared: None,
            elem_types: HashMap::new(),
            elem_ranges: HashMap::new(),
            shared_objects: HashMap::new(),
            member_arrays: HashMap::new(),
            mem: Default::default(),
            shared_unions: HashMap::new(),
            local_unions: HashMap::new(),
            viewed: HashMap::new(),
            scopes: Scopes::new(),
            frame_base: 0,
            path: Vec::new(),
            path_conj: Default::default(),
            cond_spans: Vec::new(),
            returned: Expr::fals(),
            jumped: Vec::new(),
            written_value: None,
            track_values: options.track_values,
            read_value: None,
            locks: Vec::new(),
            fence_pending: false,
            fence_access: (0, (0, None)),
            fence_guard: Expr::tru(),
            fenced: None,
            last_blocks: Vec::new(),
            atomic_ops: Vec::new(),
            atomic_results_summarised: false,
            read_values: Vec::new(),
            applications: Vec::new(),
            shuffles: Vec::new(),
            input_orders: Vec::new(),
            folds: Vec::new(),
            last_full_barrier: (0, None),
            broadcasts: Vec::new(),
            hung: Expr::fals(),
            frames: Vec::new(),
            ret_values: Vec::new(),
            out: vec![Vec::new()],
            next_access: 0,
            next_barrier: 0,
            next_loop: 0,
            loops: Vec::new(),
            loop_counters: Vec::new(),
            unknown_counts: HashMap::new(),
            assigned_memo: HashMap::new(),
            jumps_memo: HashMap::new(),
            expr_stmt: None,
            counter_counts: HashMap::new(),
            unsupported: Vec::new(),
            assumptions: Vec::new(),
            assertions: Vec::new(),
            assumption_texts: Vec::new(),
            unused_specs: Vec::new(),
            spec_depth: 0,
            spec_access_predicate: None,
            loop_head: 0,
            async_state: Default::default(),
            async_seq: 0,
            async_batch: 0,
            async_loops: Vec::new(),
            next_pipeline: 0,
            pipeline_states: HashMap::new(),
            block_pipe_stages: HashMap::new(),
            block_pipe_producers: HashMap::new(),
            block_pipes: HashMap::new(),
            enclosing_loops: Vec::new(),
            lockstep_unknowns: HashSet::new(),
            fragments: HashMap::new(),
            local_aliases: HashMap::new(),
            pipe_copy: None,
            block_pipes_off: false,
            block_pipe_broken: false,
            coalesced_groups: 0,
            coalesced_ranks: HashMap::new(),
            reservations: HashMap::new(),
            barrier_objects: HashMap::new(),
            split_arrive: None,
            object_waits: Vec::new(),
            dropped_barriers: Vec::new(),
            spin_loops: Vec::new(),
            block_dims_used: [true, false, false],
            async_targets: HashSet::new(),
            atomic_targets: HashSet::new(),
            atomic_updates: Vec::new(),
            flag_updates: Vec::new(),
            libcu_atomics: file.mentions_atomic_types,
            atomic_refs: HashSet::new(),
            warp_widths: Default::default(),
            launch_requires: Vec::new(),
            launch_origin: None,
            assumption_origin: None,
            launch_template_args: Vec::new(),
            launch_arg_types: Vec::new(),
            launch_type_args: Vec::new(),
            functor_types: HashMap::new(),
            type_bindings: HashMap::new(),
            symbolic_dims: HashMap::new(),
            call_stack: Vec::new(),
            lambdas: Vec::new(),
            call_sites: Vec::new(),
            dry: 0,
            span_override: None,
            stmt_guards: Vec::new(),
            depth: 0,
            steps: 0,
            exhausted: false,
            macro_depth: 0,
            kernel_name: String::new(),
            preproc_dropped: Vec::new(),
            prototypes: HashMap::new(),
            float_vars: HashSet::new(),
            float_locals: HashSet::new(),
        }
    }

    // ----- helpers -------------------------------------------------------

    fn text(&self, node: Node) -> String {
        node_text(&self.src, node).to_string()
    }

    fn span(&self, node: Node) -> Span {
        self.span_override.unwrap_or_else(|| Span::from_node(&node))
    }

    /// The span of the expression statement `node` is the whole expression
    /// of, else `node`'s (where a barrier's statement starts and ends).
    /// `Node::parent` walks down from the root of the tree (time linear in
    /// the depth, quadratic over a loop nest's barriers): the expression
    /// statement being lowered is checked first.
    fn statement_span(&self, node: Node) -> Span {
        if let Some((id, span)) = self.expr_stmt {
            if id == node.id() {
                return self.span_override.unwrap_or(span);
            }
        }
        let stmt = node
            .parent()
            .filter(|p| p.kind() == "expression_statement")
            .unwrap_or(node);
        self.span(stmt)
    }

    fn unsupported(&mut self, node: Node, what: impl Into<String>) {
        if self.dry > 0 {
            return;
        }
        let span = self.span(node);
        let what = what.into();
        if !self
            .unsupported
            .iter()
            .any(|u| u.span == span && u.what == what)
        {
            self.unsupported.push(Unsupported { span, what });
        }
    }

    /// `Expr::all(self.path)`, built from the conjunctions of its prefixes
    /// made before (see `path_conj`).
    fn path_condition(&self) -> Expr {
        let mut conj = self.path_conj.borrow_mut();
        let same = conj
            .iter()
            .zip(&self.path)
            .take_while(|((c, _), p)| c == *p)
            .count();
        conj.truncate(same);
        for p in &self.path[same..] {
            let before = conj.last().map_or_else(Expr::tru, |(_, g)| g.clone());
            conj.push((p.clone(), Expr::and(before, p.clone())));
        }
        conj.last().map_or_else(Expr::tru, |(_, g)| g.clone())
    }

    fn guard(&self) -> Expr {
        let mut g = self.path_condition();
        g = Expr::and(g, Expr::not(self.returned.clone()));
        g = Expr::and(g, Expr::not(self.hung.clone()));
        for (_, jumped) in &self.jumped {
            g = Expr::and(g, Expr::not(jumped.clone()));
        }
        for (_, held) in &self.locks {
            g = Expr::and(g, held.clone());
        }
        if let Some((_, after)) = &self.fenced {
            g = Expr::and(g, after.clone());
        }
        for f in &self.frames {
            // A frame no thread left (`false`) adds nothing: `g` is already
            // 0/1-valued, so `g && !(false || false)` is `g` itself.
            if f.broke.is_false() && f.continued.is_false() {
                continue;
            }
            g = Expr::and(g, Expr::not(Expr::or(f.broke.clone(), f.continued.clone())));
        }
        g
    }

    /// `⟨counters⟩` of the enclosing loops: a value made inside a loop may
    /// differ from one iteration to the next (the verifier instantiates it
    /// per iteration).
    fn iteration_tag(&self) -> String {
        symbols::iteration_tag(&self.loop_counters)
    }

    fn fresh_unknown(&mut self, base: &str, scope: Scope) -> Expr {
        self.note_unknown_after_atomic();
        self.fresh_value(base, scope)
    }

    /// An unknown made by anything but a memory read or an atomic's own
    /// result (a shuffle or vote, a group reduction, a value the front end
    /// cannot follow) may stand for a value computed from a kept atomic
    /// result that the model no longer shows: the schedule checks must
    /// then not read the model as showing every use of that result.
    fn note_unknown_after_atomic(&mut self) {
        if self
            .atomic_ops
            .iter()
            .any(|o| !o.discarded && o.result.is_some())
        {
            self.atomic_results_summarised = true;
        }
    }

    /// A fresh unknown for a value read from memory or returned by an
    /// atomic: its own origin, tracked by the model (the access, the
    /// `AtomicOp`).
    fn fresh_value(&mut self, base: &str, scope: Scope) -> Expr {
        self.fresh_value_in(base, scope, (i64::MIN, i64::MAX))
    }

    /// A fresh value (as `fresh_value`) that lies in `lo..=hi` (a value of
    /// a C type).
    fn fresh_value_in(&mut self, base: &str, scope: Scope, (lo, hi): (i64, i64)) -> Expr {
        let base: String = base
            .chars()
            .filter(|c| !c.is_whitespace() && !symbols::is_tag_bracket(*c))
            .take(40)
            .collect();
        let tag = self.iteration_tag();
        let n = self.unknown_counts.entry(base.clone()).or_insert(0);
        let name = symbols::fresh(&base, *n, &tag);
        *n += 1;
        Expr::Var(Var::new(name, VarKind::Unknown { scope, lo, hi }))
    }

    fn fresh_bool(&mut self, base: &str, scope: Scope) -> Expr {
        self.note_unknown_after_atomic();
        let tag = self.iteration_tag();
        let n = self.unknown_counts.entry(base.to_string()).or_insert(0);
        let name = symbols::fresh(base, *n, &tag);
        *n += 1;
        Expr::Var(Var::new(
            name,
            VarKind::Unknown {
                scope,
                lo: 0,
                hi: 1,
            },
        ))
    }

    /// From here on the thread holds the lock `target` (see `locks`).
    fn acquire_lock(&mut self, target: String) {
        if self.locks.iter().any(|(t, _)| *t == target) {
            return;
        }
        let held = self.fresh_bool(&symbols::lock(&target), Scope::Thread);
        self.locks.push((target, held));
    }

    fn emit(&mut self, s: Stmt) {
        if let (Some(phase), Stmt::Access(a)) = (&mut self.split_arrive, &s) {
            phase.accesses.push(a.clone());
        }
        self.out.last_mut().expect("output stack").push(s);
    }

    fn bound(&mut self, e: Expr, scope_hint: Scope) -> Expr {
        if e.size_up_to(MAX_EXPR) > MAX_EXPR {
            let s = e.scope().max(scope_hint);
            let big = self.fresh_unknown("big", s);
            if self.is_float(&e) {
                return self.mark_float(big);
            }
            big
        } else {
            e
        }
    }

    fn tick(&mut self) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.exhausted = true;
        }
        !self.exhausted
    }

    fn lookup(&self, name: &str) -> Option<(usize, &Value)> {
        let i = self.scopes.innermost(name, self.frame_base)?;
        self.scopes[i].get(name).map(|v| (i, v))
    }

    fn declare(&mut self, name: &str, v: Value) {
        if let Value::Pipeline(id, true) = v {
            self.bind_block_pipe(id, name);
        }
        let top = self.scopes.len() - 1;
        // A new binding of the name in this scope is no fragment (until
        // `declare_fragment` says it is).
        self.fragments.remove(&(top, name.to_string()));
        self.scopes.insert(top, name.to_string(), v);
    }

    fn push_scope(&mut self) {
        self.scopes.push();
    }

    fn pop_scope(&mut self) {
        if self.scopes.len() > self.frame_base + 1 {
            self.scopes.pop();
        }
    }
}

/// The environment: one map of locals per block scope (innermost last),
/// and for each name the scopes that bind it, so that a lookup does not
/// walk every enclosing scope (a loop nest `n` deep has `2n` of them, and a
/// lookup per name made lowering it quadratic). The maps are changed only
/// through `insert`, `push`, `pop` and `truncate`, which keep the index.
/// The maps are shared between copies (`Rc`) until one is changed: a copy
/// of the environment per loop and branch no longer copies every scope.
#[derive(Clone, Debug)]
struct Scopes {
    maps: Vec<Rc<HashMap<String, Value>>>,
    /// For each name, the scopes binding it, ascending.
    bound_in: HashMap<String, Vec<usize>>,
}

impl Scopes {
    fn new() -> Self {
        Scopes {
            maps: vec![Rc::default()],
            bound_in: HashMap::new(),
        }
    }

    fn len(&self) -> usize {
        self.maps.len()
    }

    fn get(&self, i: usize) -> Option<&HashMap<String, Value>> {
        self.maps.get(i).map(|m| &**m)
    }

    /// The innermost scope at or above `from` that binds `name`.
    fn innermost(&self, name: &str, from: usize) -> Option<usize> {
        let &i = self.bound_in.get(name)?.last()?;
        (i >= from).then_some(i)
    }

    /// Binds `name` in scope `i` (which must exist).
    fn insert(&mut self, i: usize, name: String, v: Value) {
        let map = Rc::make_mut(&mut self.maps[i]);
        if let Some(old) = map.get_mut(&name) {
            *old = v;
            return;
        }
        let at = self.bound_in.entry(name.clone()).or_default();
        if let Err(pos) = at.binary_search(&i) {
            at.insert(pos, i);
        }
        map.insert(name, v);
    }

    fn push(&mut self) {
        self.maps.push(Rc::default());
    }

    fn pop(&mut self) -> Option<Rc<HashMap<String, Value>>> {
        let map = self.maps.pop()?;
        let i = self.maps.len();
        for name in map.keys() {
            if let Some(at) = self.bound_in.get_mut(name) {
                if let Ok(pos) = at.binary_search(&i) {
                    at.remove(pos);
                }
                if at.is_empty() {
                    self.bound_in.remove(name);
                }
            }
        }
        Some(map)
    }

    fn truncate(&mut self, n: usize) {
        while self.maps.len() > n {
            self.pop();
        }
    }

    /// The maps, outermost first.
    fn into_maps(self) -> Vec<Rc<HashMap<String, Value>>> {
        self.maps
    }
}

impl std::ops::Index<usize> for Scopes {
    type Output = HashMap<String, Value>;
    fn index(&self, i: usize) -> &Self::Output {
        &self.maps[i]
    }
}

/// Whether `e` may differ between the threads of a block as the lowering
/// sees it: it mentions a thread index or a per-thread unknown (loop
/// counters, which `Expr::scope` also counts, are the same in every thread
/// that runs the iteration).
fn thread_dependent(e: &Expr) -> bool {
    e.mentions(&mut |v| match v.kind {
        VarKind::ThreadIdx(_) => true,
        VarKind::Unknown { scope, .. } => scope == Scope::Thread,
        _ => false,
    })
}

fn value_scope(v: &Value) -> Scope {
    match v {
        Value::Int(e) => e.scope(),
        Value::Ptr(p) => p.offset.scope(),
        _ => Scope::Thread,
    }
}

/// Source text for a message: one line, at most 60 characters.
fn short(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        let cut: String = one_line.chars().take(57).collect();
        format!("{cut}...")
    } else {
        one_line
    }
}

/// The lock a spin or try-lock in `text` takes: the first argument of its
/// `atomicCAS`/`atomicExch`, without `&` and spaces (`&mutex[0]` → `mutex[0]`).
fn lock_target(text: &str) -> Option<String> {
    let at = ["atomicCAS(", "atomicExch("]
        .iter()
        .filter_map(|f| text.find(f).map(|i| i + f.len()))
        .min()?;
    let arg = text[at..].split(',').next()?;
    let t: String = arg
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '&')
        .collect();
    (!t.is_empty()).then_some(t)
}
