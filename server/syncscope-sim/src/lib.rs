//! An independent simulator of CUDA kernels, read from source: the oracle
//! that the model of `syncscope-core` is tested against.
//!
//! It shares no code with the core on purpose (its own preprocessor, its own
//! reading of the syntax tree, its own semantics): a bug the two shared would
//! agree with itself and hide. It is the Simulee approach: run every thread
//! of one concrete launch and report two conflicting accesses that no
//! barrier, warp synchronisation or program order puts one before the other.
//!
//! Every construct it does not model is `Outcome::Unsupported` naming it:
//! the oracle never answers `Clean` for code it did not run.
//!
//! What a run assumes and how it orders:
//!
//! - Each pointer parameter points to a buffer of its own of
//!   `Inputs::buffer_len` elements (parameters never alias); every
//!   `extern __shared__` array of a block is one buffer of that length.
//!   Shared and local memory start as zeros.
//! - Blocks run one after another (in the order `Order` asks for), and no
//!   two blocks are ordered: a conflict between blocks is always a race.
//! - Inside a block a thread runs from one synchronisation to the next
//!   while the others wait (under `Order::Interleaved` it also stops after
//!   each atomic). Which accesses race does not depend on that order:
//!   a block barrier orders everything before it before everything after
//!   it (each access records the block's barrier phase), and inside a phase
//!   only `__syncwarp`, shuffles and votes order lanes of one warp (a
//!   vector clock over the warp's lanes). Warps are not lock-step.
//! - A warp operation completes when every existing lane of its mask waits
//!   at a warp operation with the same mask; a lane that never comes is a
//!   `Divergence`, as are threads of a block at different barriers, at the
//!   same barrier in different loop iterations or calls, or ended while
//!   others wait.
//! - Two plain writes of the same value race too, but are reported (with
//!   `Race::same_value`) only when the run finds no other race.
//! - Undefined behaviour (integer division by zero, shifts past the width,
//!   an out-of-range float converted to an integer) is `Unsupported`;
//!   a signed overflow depends on the inputs, so it is reported distinctly
//!   as `SignedOverflow` (the run says nothing about a claim).
//! - Not modelled: fences (`__threadfence`: ordering by fence and atomic),
//!   grid synchronisation, asynchronous copies, pipelines and mbarriers,
//!   textures, inline asm, unions, methods, references, a `goto` into a
//!   loop, and views
//!   of memory as another element type.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod ast;
mod compile;
mod exec;
mod memory;
mod preprocess;
mod sched;
mod value;

/// The grid and block sizes of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// The value of a kernel's scalar argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
}

/// The initial contents of every global buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fill {
    Zero,
    /// Element `i` holds `i`.
    Index,
    Constant(f64),
    /// Pseudo-random values from this seed (small integers for integer
    /// buffers, values in [-1, 1) for floating-point ones).
    Random(u64),
    /// Even elements hold the first integer, odd ones the second
    /// (converted to the element type, wrapping): neighbouring threads
    /// read different values (`-1` and `0`: every bit set, none set).
    Alternating(i64, i64),
}

/// The arguments of one launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    /// By parameter name; a missing scalar is 0.
    pub scalars: BTreeMap<String, Scalar>,
    /// Elements per pointer parameter's buffer.
    pub buffer_len: usize,
    pub fill: Fill,
}

impl Default for Inputs {
    fn default() -> Self {
        Inputs {
            scalars: BTreeMap::new(),
            buffer_len: 4096,
            fill: Fill::Zero,
        }
    }
}

/// The order in which the threads of a block run inside one phase (between
/// two synchronisations). It changes only values (atomics' results, what a
/// racy read sees), never which accesses are ordered.
///
/// A thread runs from one synchronisation to the next without being
/// interrupted, except under `Interleaved`: there it also stops after each
/// atomic operation, so another thread's atomics can come between two of
/// its own (two threads each winning one of two `atomicCAS` elections).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Forward,
    Reverse,
    Seeded(u64),
    /// Seeded, and a thread is preempted after every atomic.
    Interleaved(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimOptions {
    pub defines: Vec<(String, String)>,
    pub include_dirs: Vec<PathBuf>,
    /// Operations (about one per operator, load, store or jump) executed
    /// over all threads before the run stops with `Outcome::StepLimit`.
    pub max_steps: u64,
    pub order: Order,
    /// Go on past an out-of-bounds access instead of stopping there: the
    /// access is not performed (a load yields zero, a store and an atomic
    /// change nothing), and the run ends with the first such access as its
    /// `OutOfBounds` outcome unless it races or diverges first. For
    /// replaying a witness of a race between in-bounds accesses in a kernel
    /// that also goes out of bounds (a static analysis that assumes
    /// in-bounds accesses reports such races); a race it reports is
    /// between two accesses that were in bounds.
    pub continue_out_of_bounds: bool,
    /// Only a race with an access on one of these lines (1-based, as
    /// `Access::line`) ends the run; the run goes on past the others, and
    /// the first of them is its outcome if none of these lines races (a
    /// same-value race on these lines comes first).
    /// For replaying one finding's witness in a kernel with several races.
    /// `None`: the first race ends the run.
    pub race_lines: Option<Vec<usize>>,
    /// The source is a translation unit whose local headers precede the
    /// file's own text (as a build's unit): its `#include "..."` lines are
    /// skipped rather than read from disk again.
    pub includes_expanded: bool,
    /// Run only the blocks whose index is below this in every dimension;
    /// `gridDim` still reads the launch's grid. Blocks are never ordered
    /// with each other, so running some of them first (and the others
    /// never) is one schedule of the whole launch: a race between two
    /// blocks that ran is a race of the launch. For a launch too large to
    /// run whole. `None`: every block.
    pub blocks_run: Option<[u32; 3]>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            defines: Vec::new(),
            include_dirs: Vec::new(),
            max_steps: 50_000_000,
            order: Order::Forward,
            continue_out_of_bounds: false,
            race_lines: None,
            includes_expanded: false,
            blocks_run: None,
        }
    }
}

/// One memory access of a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub thread: [u32; 3],
    pub block: [u32; 3],
    /// 1-based line in the file given to `simulate` (or in the included
    /// file the access was written in).
    pub line: usize,
    pub write: bool,
    pub atomic: bool,
}

/// Two conflicting accesses to one element that nothing orders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// The parameter or `__shared__` variable the element belongs to.
    pub array: String,
    /// The element's index in that array (flattened).
    pub index: i64,
    /// The earlier access of the run.
    pub a: Access,
    /// The later access of the run.
    pub b: Access,
    /// Both accesses are plain writes that stored the same value in this
    /// run (what the checker calls a benign race). Such a race is reported
    /// only when the run finds no other: a `Race` with `same_value` false
    /// always wins.
    pub same_value: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Clean,
    Race(Race),
    /// Two threads of one block that do not meet at the same barrier:
    /// `thread_a` waits at the barrier of `line`, `thread_b` is elsewhere
    /// (ended, or at another barrier or another occurrence of it).
    Divergence {
        block: [u32; 3],
        thread_a: [u32; 3],
        thread_b: [u32; 3],
        line: usize,
    },
    OutOfBounds {
        thread: [u32; 3],
        block: [u32; 3],
        array: String,
        index: i64,
        line: usize,
    },
    /// An `assert(e)` was false.
    AssertionFailed {
        thread: [u32; 3],
        block: [u32; 3],
        line: usize,
    },
    /// A signed integer operation overflowed (`int` arithmetic past
    /// `INT_MAX`): undefined behaviour in C, so the run is outside every
    /// claim about the kernel (the engine reasons in mathematical integers
    /// unless `--bitvector`). Unsigned arithmetic and atomics wrap.
    SignedOverflow {
        thread: [u32; 3],
        block: [u32; 3],
        line: usize,
    },
    /// A `__requires(e)`/`__assume(e)` was false: the launch is outside the
    /// kernel's preconditions.
    Vacuous,
    /// A construct the simulator does not model, named.
    Unsupported(String),
    StepLimit,
}

/// Runs `kernel` of `source` (read from `file`, which locates its
/// `#include "..."`) on one concrete launch.
pub fn simulate(
    file: &Path,
    source: &str,
    kernel: &str,
    launch: &Launch,
    inputs: &Inputs,
    opts: &SimOptions,
) -> Outcome {
    match prepare(file, source, kernel, opts) {
        Ok(prepared) => prepared.run(launch, inputs, opts),
        Err(what) => Outcome::Unsupported(what),
    }
}

/// A translation unit read once (preprocessed with `SimOptions::defines`
/// and `include_dirs`, its syntax read, compiled) and run on as many
/// launches of its kernels as asked.
pub struct Prepared {
    program: ast::Program,
    code: compile::Code,
    kernel: String,
}

/// Reads `source` for [`Prepared::run`] of `kernel` (a template kernel may
/// be named with its arguments, `k<64>`, and is instantiated); `Err` names
/// what could not be read (as `Outcome::Unsupported` would).
pub fn prepare(
    file: &Path,
    source: &str,
    kernel: &str,
    opts: &SimOptions,
) -> Result<Prepared, String> {
    let text = preprocess::preprocess(
        file,
        source,
        &opts.defines,
        &opts.include_dirs,
        opts.includes_expanded,
    )?;
    let program = ast::Program::read(&text, kernel)?;
    let code = compile::compile(&program);
    Ok(Prepared {
        program,
        code,
        kernel: kernel.to_string(),
    })
}

/// A scalar parameter of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarParam {
    pub name: String,
    pub floating: bool,
}

impl Prepared {
    /// Runs the kernel on one launch (`opts`' `defines` and `include_dirs`
    /// were used by [`prepare`] and are not read again).
    pub fn run(&self, launch: &Launch, inputs: &Inputs, opts: &SimOptions) -> Outcome {
        self.run_counted(launch, inputs, opts).0
    }

    /// [`Prepared::run`], with the operations the run executed (for a
    /// caller that shares a budget of steps among several runs).
    pub fn run_counted(
        &self,
        launch: &Launch,
        inputs: &Inputs,
        opts: &SimOptions,
    ) -> (Outcome, u64) {
        self.run_kernel_counted(&self.kernel, launch, inputs, opts)
    }

    /// [`Prepared::run_counted`] for another kernel of the same unit (one
    /// named without template arguments: an explicit instantiation in the
    /// file, or its first): the unit is read and compiled once for all.
    pub fn run_kernel_counted(
        &self,
        kernel: &str,
        launch: &Launch,
        inputs: &Inputs,
        opts: &SimOptions,
    ) -> (Outcome, u64) {
        let mut steps = 0;
        let out = sched::run(
            &self.program,
            &self.code,
            kernel,
            launch,
            inputs,
            opts,
            &mut steps,
        );
        (out, steps)
    }

    /// The scalar parameters of `kernel`, in order (empty when it is not
    /// found: its runs say why).
    pub fn scalar_params(&self, kernel: &str) -> Vec<ScalarParam> {
        sched::kernel_of(&self.program, kernel)
            .map(|k| {
                k.params
                    .iter()
                    .filter_map(|p| match &p.ty {
                        value::Ty::S(s) => Some(ScalarParam {
                            name: p.name.clone(),
                            floating: s.is_float(),
                        }),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The names of the `__global__` kernels of `source`, in order: read after
/// preprocessing with no defines when that succeeds (a kernel declared
/// through a macro is found), else from the text as written.
pub fn kernels(source: &str) -> Vec<String> {
    match preprocess::preprocess(Path::new(""), source, &[], &[], false) {
        Ok(text) => ast::kernel_names(&text.text),
        Err(_) => ast::kernel_names(source),
    }
}
