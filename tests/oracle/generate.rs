//! Kernels generated from real idioms, each with the truth the generator
//! knows by construction: the launches the kernel can run under, whether
//! some launch and some inputs of that set give a race or a divergence,
//! which barriers are needed, and whether the threads of a same-value
//! write really write one value in machine arithmetic.
//!
//! Every family has racy and race-free variants, drawn from the seed. The
//! truth is computed from the variant's parameters by the rules written
//! next to each family, never by running anything: it is the second,
//! independent oracle next to the simulator (`super::check`).

use super::rng::Rng;

mod bit_fields;
mod compare_exchange;
mod grid_ranks;
mod host_rules;
mod launch_facts;
mod precision_rules;
mod quotient_grids;
mod shared_tiles;

/// A family of generated kernels: one idiom of real code and its traps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// `if (t == c1) a = ..; if (t == c2) e = ..; if (t == c3) out = e - a;`
    ThreadIdGuards,
    /// `if (threadIdx.x == 0) *total += 1;` under grids of one or more blocks.
    OneThreadCounter,
    /// `if (blockIdx.x == 0) halo[t] = ..; if (blockIdx.x == gridDim.x - 1) halo[t] = ..;`
    BlockIdGuards,
    /// `v != v`, `!(v == v)`, `v < v`, signed zero, `v + 1 == v`.
    FloatCompare,
    /// `base + t < base` (unsigned carry), `x & (x - 1)`, shifts that wrap.
    BitTricks,
    /// Threads writing one location with values equal in mathematics but
    /// not in machine arithmetic, or truly equal.
    SameValueWrites,
    /// `__syncwarp(0xffffffff)` against partial masks, with or without a
    /// `__syncthreads()` after.
    WarpMasks,
    /// A loop with `break` and an optional barrier in its body.
    LoopBreak,
    /// `atomicAdd` tickets and compare-and-swap flags.
    TicketsAndFlags,
    /// The last-block pattern with its fence always, under a condition, or absent.
    ConditionalFence,
    /// A kernel file, its header and a host file launching it through
    /// `<<<>>>` with `dim3` fields set after the declaration, sizes changed
    /// in a loop, `cudaLaunchKernel` or a function pointer.
    HostLaunches,
    /// A host function launching the kernel with its parameter, called with
    /// constants, locals, macros or a command-line value: the callers'
    /// values bind the kernel's width.
    HostCallerValues,
    /// A host loop (`for`/`while`, doubling, halving, stepping) passing its
    /// counter as the kernel's stride: power-of-two strides and others.
    HostLoopStrides,
    /// A command-line size checked on the host before the launch: the check
    /// ends in `exit`/`abort`, or only prints, or checks a weaker bound.
    HostExitChecks,
    /// Integer division by a parameter: evaluated on every path (a zero
    /// divisor is undefined behaviour) or only where the divisor was tested.
    DivisionGuards,
    /// A kernel loaded by name through the driver API and launched by
    /// `cuLaunchKernel` with its arguments in the `args` array.
    DriverLaunches,
    /// A driver-API kernel handed back by a host helper together with its
    /// block size (a loop over a table of names, halving the block when it
    /// does not fit): each kernel gets only the sizes stored with it.
    DriverPairing,
    /// A block size from `cudaOccupancyMaxPotentialBlockSize` (a whole
    /// number of warps) against a race that needs a partial warp.
    OccupancyBlockSize,
    /// A host helper returning its argument's odd part, checked `!= 1`
    /// before a launch passing `n / 512` or `n >> 9`.
    HostHelperSummaries,
    /// A block size rounded up by a host helper that returns a power of
    /// two (a doubling loop, the bit smear, `1u << k`) or not (whole warps).
    PowerHelpers,
    /// An induction variable's value after its loop used as an index.
    LoopExitValues,
    /// Local arrays of pointers indexed by constants, and pitched rows
    /// `(T*)((char*)p + y * pitch)`.
    PointerViews,
    /// A warp barrier in a grid-stride loop: warp-uniform only for whole
    /// warps and a bound that is a multiple of 32.
    WarpUniformStrides,
    /// A launch's width set in program order: written before or after the
    /// launch, under a condition, through a pointer, by a constant loop,
    /// halved between launches, or a header's macro per includer.
    HostOrder,
    /// A stride parameter from callers passing powers of two or not:
    /// literals, scaled locals, `1 << k`, a rounding helper.
    PowerOfTwoArguments,
    /// A row pitch kept in a global that `cudaMallocPitch` fills in another
    /// file, with other uses that read, reallocate, halve or reset it.
    GlobalPitch,
    /// Keys a Thrust sort orders before the launch, with writes between.
    HostDataFacts,
    /// Surplus threads clamped to the last element (`min(g, last)`) redo
    /// its work from read-only inputs: same-value writes, unless the value
    /// mixes in the thread, reads memory the kernel writes, or the clamp is
    /// off by one.
    ClampedTails,
    /// Keys stored in a `__shared__` tile, a neighbour's read back after
    /// the barrier and scattered by: race-free for sorted keys, with traps
    /// (a cell no thread wrote, one overwritten later, another neighbour).
    SharedTiles,
    /// A host `while` loop launching once per level with the grid and the
    /// length it passes updated together: the relation `blocks * b <=
    /// half` kept by the entry and the body, or broken.
    LoopRelations,
    /// A block size dispatched by a host `switch`: grouped labels,
    /// fall-through, `default`, the size changed before the launch.
    SwitchCases,
    /// A file's `--block-dim` (and `--grid-dim`) against the sizes of its
    /// host launch sites: the grids of the sites they agree with kept.
    OptionSites,
    /// A host `while` loop over a launch's argument: its test holds at the
    /// launch unless the body writes the argument first (directly,
    /// through a pointer, a reference or a helper writing a global), or
    /// the loop is a `do`-`while`.
    HostWhileTests,
    /// A grid made as a quotient, `<<<w / B, B>>>`, over threads owning
    /// columns of rows `w` wide, with grids of more threads than columns
    /// and overlapping rows as traps.
    QuotientGrids,
    /// Loops over the grid's thread ranks in steps of the grid's thread count.
    GridRanks,
    /// A lane permutation or transpose built of bit fields as the cell a
    /// thread writes, and a word packed of fields as the value: fields
    /// that share a bit, masks that drop one, values per thread or one.
    BitFields,
    /// The compare-exchange steps of a sorting network in shared memory:
    /// a doubling size, a halving stride with a barrier at its top, pairs
    /// `2t - (t & (stride - 1))` and `+ stride`; strides and masks off a
    /// power of two, and a write-back without its barrier, as traps.
    CompareExchangeSteps,
}

pub const FAMILIES: [Family; 37] = [
    Family::ThreadIdGuards,
    Family::OneThreadCounter,
    Family::BlockIdGuards,
    Family::FloatCompare,
    Family::BitTricks,
    Family::SameValueWrites,
    Family::WarpMasks,
    Family::LoopBreak,
    Family::TicketsAndFlags,
    Family::ConditionalFence,
    Family::HostLaunches,
    Family::HostCallerValues,
    Family::HostLoopStrides,
    Family::HostExitChecks,
    Family::DivisionGuards,
    Family::DriverLaunches,
    Family::DriverPairing,
    Family::OccupancyBlockSize,
    Family::HostHelperSummaries,
    Family::PowerHelpers,
    Family::LoopExitValues,
    Family::PointerViews,
    Family::WarpUniformStrides,
    Family::HostOrder,
    Family::PowerOfTwoArguments,
    Family::GlobalPitch,
    Family::HostDataFacts,
    Family::ClampedTails,
    Family::SharedTiles,
    Family::LoopRelations,
    Family::SwitchCases,
    Family::OptionSites,
    Family::HostWhileTests,
    Family::QuotientGrids,
    Family::GridRanks,
    Family::BitFields,
    Family::CompareExchangeSteps,
];

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::ThreadIdGuards => "thread-id-guards",
            Family::OneThreadCounter => "one-thread-counter",
            Family::BlockIdGuards => "block-id-guards",
            Family::FloatCompare => "float-compare",
            Family::BitTricks => "bit-tricks",
            Family::SameValueWrites => "same-value-writes",
            Family::WarpMasks => "warp-masks",
            Family::LoopBreak => "loop-break",
            Family::TicketsAndFlags => "tickets-and-flags",
            Family::ConditionalFence => "conditional-fence",
            Family::HostLaunches => "host-launches",
            Family::HostCallerValues => "host-caller-values",
            Family::HostLoopStrides => "host-loop-strides",
            Family::HostExitChecks => "host-exit-checks",
            Family::DivisionGuards => "division-guards",
            Family::DriverLaunches => "driver-launches",
            Family::DriverPairing => "driver-pairing",
            Family::OccupancyBlockSize => "occupancy-block-size",
            Family::HostHelperSummaries => "host-helper-summaries",
            Family::PowerHelpers => "power-helpers",
            Family::LoopExitValues => "loop-exit-values",
            Family::PointerViews => "pointer-views",
            Family::WarpUniformStrides => "warp-uniform-strides",
            Family::HostOrder => "host-order",
            Family::PowerOfTwoArguments => "power-of-two-arguments",
            Family::GlobalPitch => "global-pitch",
            Family::HostDataFacts => "host-data-facts",
            Family::ClampedTails => "clamped-tails",
            Family::SharedTiles => "shared-tiles",
            Family::LoopRelations => "loop-relations",
            Family::SwitchCases => "switch-cases",
            Family::OptionSites => "option-sites",
            Family::HostWhileTests => "host-while-tests",
            Family::QuotientGrids => "quotient-grids",
            Family::GridRanks => "grid-ranks",
            Family::BitFields => "bit-fields",
            Family::CompareExchangeSteps => "compare-exchange-steps",
        }
    }
}

/// The values one launch dimension can take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    /// Any size the hardware allows (a size computed at run time).
    Any,
    OneOf(Vec<u32>),
}

/// One way the kernel is launched: every combination of the dimensions'
/// values is a launch that can happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub grid: [Dim; 3],
    pub block: [Dim; 3],
}

impl LaunchShape {
    /// Any launch at all.
    pub fn any() -> LaunchShape {
        LaunchShape {
            grid: [Dim::Any, Dim::Any, Dim::Any],
            block: [Dim::Any, Dim::Any, Dim::Any],
        }
    }

    /// One-dimensional blocks and grids of any size (what [`ONE_D`] requires).
    pub fn one_d() -> LaunchShape {
        let one = || Dim::OneOf(vec![1]);
        LaunchShape {
            grid: [Dim::Any, one(), one()],
            block: [Dim::Any, one(), one()],
        }
    }

    pub fn exact(grid: [u32; 3], block: [u32; 3]) -> LaunchShape {
        LaunchShape {
            grid: grid.map(|g| Dim::OneOf(vec![g])),
            block: block.map(|b| Dim::OneOf(vec![b])),
        }
    }
}

/// A kernel parameter, by the kind of value the harness gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Pointer,
    Int,
    Unsigned,
    Float,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

/// What the generator knows of its kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Truth {
    /// Some launch of the launch set and some inputs give a data race
    /// (same-value writes excluded) or a barrier divergence.
    pub racy: bool,
    /// Each barrier's 1-based line in the kernel file, and whether removing
    /// it (alone) gives a race under some launch and inputs.
    pub barriers: Vec<(usize, bool)>,
    /// Lines of writes that threads make to one location, and whether the
    /// values written are equal in machine arithmetic for every input.
    pub same_value_writes: Vec<(usize, bool)>,
}

/// One generated case.
#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    pub family: Family,
    /// The variant's parameters, for the failure message.
    pub variant: String,
    /// (relative path, text); the first file holds the kernel and is the
    /// one checked and simulated.
    pub files: Vec<(String, String)>,
    pub kernel: String,
    pub params: Vec<Param>,
    /// The union of these shapes is every launch the kernel can run under.
    pub launches: Vec<LaunchShape>,
    pub truth: Truth,
    /// For same-value writes: a kernel (same parameters plus `int*
    /// mismatch`, launched like the case, blocks of at most 64 threads)
    /// that indexes `mismatch` past its end exactly when two threads of a block
    /// computed different values: the simulator's out-of-bounds report is
    /// the evidence, so the value check does not rest on the generator.
    pub value_probe: Option<(String, String)>,
    /// Scalar parameters whose values the host code fixes: every value its
    /// launches pass. The simulator draws these parameters from them only.
    pub host_values: Vec<(String, Vec<i64>)>,
    /// The host sorts every buffer the kernel reads before each launch: the
    /// simulator draws only ascending fills.
    pub sorted_inputs: bool,
    /// The launches the host code makes, each with the scalar arguments it
    /// passes, where a launch's sizes and its arguments go together (a host
    /// loop passing a length with the grid made from it, a `case` label's
    /// block with the width it passes). When not empty, each simulation
    /// draws its launch and these arguments from one entry, instead of
    /// `launches` and `host_values` independently: their product holds
    /// launches the host never makes, under which a true claim can race.
    pub host_launches: Vec<HostLaunch>,
}

/// One launch (or one set of launch sizes) the host code makes, with the
/// values it passes to the kernel's scalar parameters (the others are
/// drawn as any value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLaunch {
    pub shape: LaunchShape,
    pub scalars: Vec<(String, i64)>,
}

impl Case {
    pub fn kernel_file(&self) -> &(String, String) {
        &self.files[0]
    }
}

/// The precondition that makes `threadIdx.x`/`blockIdx.x` identify a
/// thread and a block: one-dimensional blocks and grids.
pub const ONE_D: &str =
    "__requires(blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);";

/// Source text with the 1-based line of each statement written.
#[derive(Default)]
struct Src {
    text: String,
    lines: usize,
}

impl Src {
    /// Appends one line; returns its 1-based number.
    fn line(&mut self, s: &str) -> usize {
        self.text.push_str(s);
        self.text.push('\n');
        self.lines += 1;
        self.lines
    }
}

fn param(name: &str, kind: ParamKind) -> Param {
    Param {
        name: name.into(),
        kind,
    }
}

/// The case of `seed`: its family and variant are drawn from it.
pub fn generate(seed: u64) -> Case {
    generate_in(*Rng::new(seed).pick(&FAMILIES), seed)
}

/// The case of `seed` in one family: `generate(seed)` is the case of its
/// own family, so a seed and its family name one case either way.
pub fn generate_in(family: Family, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    // The draw `generate` spent on the family.
    let _ = rng.next_u64();
    generate_family(family, seed, &mut rng)
}

/// The family named `name` (as [`Family::name`] spells it).
pub fn family_named(name: &str) -> Option<Family> {
    FAMILIES.iter().copied().find(|f| f.name() == name)
}

fn generate_family(family: Family, seed: u64, rng: &mut Rng) -> Case {
    let mut case = match family {
        Family::ThreadIdGuards => thread_id_guards(rng),
        Family::OneThreadCounter => one_thread_counter(rng),
        Family::BlockIdGuards => block_id_guards(rng),
        Family::FloatCompare => float_compare(rng),
        Family::BitTricks => bit_tricks(rng),
        Family::SameValueWrites => same_value_writes(rng),
        Family::WarpMasks => warp_masks(rng),
        Family::LoopBreak => loop_break(rng),
        Family::TicketsAndFlags => tickets_and_flags(rng),
        Family::ConditionalFence => conditional_fence(rng),
        Family::HostLaunches => host_launches(rng),
        Family::HostCallerValues => host_caller_values(rng),
        Family::HostLoopStrides => host_loop_strides(rng),
        Family::HostExitChecks => host_exit_checks(rng),
        Family::DivisionGuards => division_guards(rng),
        Family::DriverLaunches => precision_rules::driver_launches(rng),
        Family::DriverPairing => precision_rules::driver_pairing(rng),
        Family::OccupancyBlockSize => precision_rules::occupancy_block_size(rng),
        Family::HostHelperSummaries => precision_rules::host_helper_summaries(rng),
        Family::PowerHelpers => precision_rules::power_helpers(rng),
        Family::LoopExitValues => precision_rules::loop_exit_values(rng),
        Family::PointerViews => precision_rules::pointer_views(rng),
        Family::WarpUniformStrides => precision_rules::warp_uniform_strides(rng),
        Family::HostOrder => host_rules::host_order(rng),
        Family::PowerOfTwoArguments => host_rules::power_of_two_arguments(rng),
        Family::GlobalPitch => host_rules::global_pitch(rng),
        Family::HostDataFacts => host_rules::host_data_facts(rng),
        Family::ClampedTails => precision_rules::clamped_tails(rng),
        Family::SharedTiles => shared_tiles::shared_tiles(rng),
        Family::LoopRelations => launch_facts::loop_relations(rng),
        Family::SwitchCases => launch_facts::switch_cases(rng),
        Family::OptionSites => launch_facts::option_sites(rng),
        Family::HostWhileTests => launch_facts::host_while_tests(rng),
        Family::QuotientGrids => quotient_grids::quotient_grids(rng),
        Family::GridRanks => grid_ranks::grid_ranks(rng),
        Family::BitFields => bit_fields::bit_fields(rng),
        Family::CompareExchangeSteps => compare_exchange::compare_exchange_steps(rng),
    };
    case.seed = seed;
    case.family = family;
    case
}

/// A case of one file, `kernel.cu`.
fn single(
    kernel: &str,
    src: Src,
    params: Vec<Param>,
    launches: Vec<LaunchShape>,
    truth: Truth,
    variant: String,
) -> Case {
    Case {
        seed: 0,
        family: Family::ThreadIdGuards,
        variant,
        files: vec![("kernel.cu".into(), src.text)],
        kernel: kernel.into(),
        params,
        launches,
        truth,
        value_probe: None,
        host_values: Vec::new(),
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

/// The guard `t == c`, spelled one of the ways real code spells it.
fn tid_eq(rng: &mut Rng, c: u32) -> String {
    match rng.below(3) {
        0 => format!("threadIdx.x == {c}"),
        1 => format!("t == {c}"),
        _ => format!("{c} == t"),
    }
}

// Thread c1 reads the row start, thread c2 the row end, thread c3 writes
// the length. `t == c` is one thread of each block (blocks are 1-D: by
// `__requires`, or because the kernel never mentions another dimension,
// the engine's documented assumption the harness honours): the accesses to
// `a` (by c1 and c3) and `e` (by c2 and c3) race unless one thread makes
// them all or a barrier separates them: racy iff no barrier and
// (c1 != c3 or c2 != c3).
fn thread_id_guards(rng: &mut Rng) -> Case {
    let (c1, c2, c3) = (rng.range(0, 2), rng.range(0, 2), rng.range(0, 2));
    let barrier = rng.coin();
    let requires = rng.below(3); // 0: none, 1: one-dimensional blocks, 2: and grids
    let needed = c1 != c3 || c2 != c3;
    let mut s = Src::default();
    s.line("__global__ void row_length(const int* rp, int* len)");
    s.line("{");
    let shape = match requires {
        0 => LaunchShape::any(),
        1 => {
            s.line("    __requires(blockDim.y == 1 && blockDim.z == 1);");
            let mut shape = LaunchShape::any();
            shape.block[1] = Dim::OneOf(vec![1]);
            shape.block[2] = Dim::OneOf(vec![1]);
            shape
        }
        _ => {
            s.line(&format!("    {ONE_D}"));
            LaunchShape::one_d()
        }
    };
    s.line("    __shared__ int a;");
    s.line("    __shared__ int e;");
    s.line("    int b = blockIdx.x;");
    s.line("    unsigned t = threadIdx.x;");
    s.line(&format!("    if ({}) a = rp[b];", tid_eq(rng, c1)));
    s.line(&format!("    if ({}) e = rp[b + 1];", tid_eq(rng, c2)));
    let mut truth = Truth {
        racy: !barrier && needed,
        ..Truth::default()
    };
    if barrier {
        truth
            .barriers
            .push((s.line("    __syncthreads();"), needed));
    }
    s.line(&format!("    if ({}) len[b] = e - a;", tid_eq(rng, c3)));
    s.line("}");
    single(
        "row_length",
        s,
        vec![
            param("rp", ParamKind::Pointer),
            param("len", ParamKind::Pointer),
        ],
        vec![shape],
        truth,
        format!(
            "c1={c1} c2={c2} c3={c3} barrier={barrier} requires={}",
            ["none", "1-D blocks", "1-D blocks and grid"][requires as usize]
        ),
    )
}

// Every thread stores its element, and the threads that pass the guard
// update `*total`. Blocks are 1-D (the kernel mentions no other block
// dimension) and so is the grid (none but `blockIdx.x`); thread 0 of
// every block passes `threadIdx.x == 0`: a plain update races unless the
// guard also asks for block 0 or the grid is one block.
fn one_thread_counter(rng: &mut Rng) -> Case {
    let block_guard = rng.coin();
    let atomic = rng.below(3) == 0;
    let single_block = rng.below(3) == 0;
    let one_d = rng.coin();
    let mut s = Src::default();
    s.line("__global__ void count_blocks(int* out, int* total)");
    s.line("{");
    let mut shape = LaunchShape::any();
    if one_d {
        s.line(&format!("    {ONE_D}"));
        shape = LaunchShape::one_d();
    }
    if single_block {
        s.line("    __requires(gridDim.x == 1);");
        shape.grid[0] = Dim::OneOf(vec![1]);
    }
    s.line("    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;");
    let guard = if block_guard {
        "threadIdx.x == 0 && blockIdx.x == 0"
    } else {
        "threadIdx.x == 0"
    };
    let update = if atomic {
        "atomicAdd(total, 1);"
    } else if rng.coin() {
        "*total += 1;"
    } else {
        "*total = *total + 1;"
    };
    s.line(&format!("    if ({guard}) {update}"));
    s.line("}");
    single(
        "count_blocks",
        s,
        vec![param("out", ParamKind::Pointer), param("total", ParamKind::Pointer)],
        vec![shape],
        Truth {
            racy: !atomic && !block_guard && !single_block,
            ..Truth::default()
        },
        format!("block_guard={block_guard} atomic={atomic} single_block={single_block} one_d_requires={one_d}"),
    )
}

// Block 0 and the last block write the halo; they are one block only when
// the grid has one block. Racy iff both write `halo[t]` (different
// constants) and the grid can have two blocks.
fn block_id_guards(rng: &mut Rng) -> Case {
    let same_index = rng.coin();
    let single_block = rng.below(3) == 0;
    let mut s = Src::default();
    s.line("__global__ void halo_edges(int* halo)");
    s.line("{");
    let mut shape = LaunchShape::one_d();
    if single_block {
        s.line("    __requires(blockDim.y == 1 && blockDim.z == 1 && gridDim.x == 1 && gridDim.y == 1 && gridDim.z == 1);");
        shape.grid[0] = Dim::OneOf(vec![1]);
    } else {
        s.line(&format!("    {ONE_D}"));
    }
    s.line("    unsigned t = threadIdx.x;");
    s.line("    if (blockIdx.x == 0) halo[t] = 1;");
    let second = if same_index { "t" } else { "blockDim.x + t" };
    let last = if rng.coin() {
        "blockIdx.x == gridDim.x - 1"
    } else {
        "blockIdx.x + 1 == gridDim.x"
    };
    s.line(&format!("    if ({last}) halo[{second}] = 2;"));
    s.line("}");
    single(
        "halo_edges",
        s,
        vec![param("halo", ParamKind::Pointer)],
        vec![shape],
        Truth {
            racy: same_index && !single_block,
            ..Truth::default()
        },
        format!("same_index={same_index} single_block={single_block}"),
    )
}

// Every thread stores its index to `out[0]` when the condition on the
// scalar `v` holds: racy iff some float `v` satisfies it (IEEE: NaN,
// signed zero, infinities, rounding).
fn float_compare(rng: &mut Rng) -> Case {
    const CONDS: [(&str, bool); 10] = [
        ("v != v", true),
        ("!(v == v)", true),
        ("!(v >= v)", true),
        ("v < v", false),
        ("v > v", false),
        ("v != v && v == v", false),
        ("v == 0.0f && 1.0f / v < 0.0f", true),
        ("v + 1.0f == v", true),
        ("v * 0.0f != 0.0f", true),
        ("v - v != 0.0f", true),
    ];
    let (cond, sat) = *rng.pick(&CONDS);
    let mut s = Src::default();
    s.line("__global__ void nan_guard(const float* in, float* out, float v)");
    s.line("{");
    s.line(&format!("    {ONE_D}"));
    s.line("    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;");
    s.line(&format!("    if ({cond})"));
    s.line("        out[0] = (float)i;");
    s.line("    out[i + 1] = in[i];");
    s.line("}");
    single(
        "nan_guard",
        s,
        vec![
            param("in", ParamKind::Pointer),
            param("out", ParamKind::Pointer),
            param("v", ParamKind::Float),
        ],
        vec![LaunchShape::one_d()],
        Truth {
            racy: sat,
            ..Truth::default()
        },
        format!("cond=`{cond}`"),
    )
}

// The threads of a block whose condition holds write `out[blockIdx.x]`:
// racy iff two threads of one block can satisfy it in 32-bit unsigned
// arithmetic (where a carry wraps and a shift drops bits).
fn bit_tricks(rng: &mut Rng) -> Case {
    const CONDS: [(&str, bool); 9] = [
        ("base + t < base", true),
        ("base + t < t", true),
        ("(t & (t - 1)) == 0", true),
        ("t != 0 && (t & (t - 1)) == 0 && t < 2", false),
        ("(t >> 5) == base", true),
        ("(t >> 5) == base && (t & 31) == 0", false),
        ("(t << 27) == 0", true),
        ("t * 0x80000000u == 0u", true),
        ("(t << 27) == 0 && t < 32", false),
    ];
    let (cond, sat) = *rng.pick(&CONDS);
    let mut s = Src::default();
    s.line("__global__ void carry_check(unsigned* out, unsigned base)");
    s.line("{");
    s.line(&format!("    {ONE_D}"));
    s.line("    unsigned t = threadIdx.x;");
    s.line(&format!("    if ({cond})"));
    s.line("        out[blockIdx.x] = t;");
    s.line("}");
    single(
        "carry_check",
        s,
        vec![
            param("out", ParamKind::Pointer),
            param("base", ParamKind::Unsigned),
        ],
        vec![LaunchShape::one_d()],
        Truth {
            racy: sat,
            ..Truth::default()
        },
        format!("cond=`{cond}`"),
    )
}

// Every thread of a block writes `out[blockIdx.x]`; the values are equal
// for all threads in machine arithmetic (a benign race) or only in
// mathematics (a real race).
fn same_value_writes(rng: &mut Rng) -> Case {
    // (type, expression, equal in machine arithmetic)
    const EXPRS: [(&str, &str, bool); 8] = [
        ("float", "(t & 1) ? (x + y) + z : x + (y + z)", false),
        ("float", "(t & 1) ? x * 3.0f : x + x + x", false),
        ("unsigned", "(base + t < base) ? 1u : 0u", false),
        ("unsigned", "(t & 1) ? (base * 2u) / 2u : base", false),
        ("unsigned", "(base + t) - t", true),
        ("unsigned", "7u", true),
        ("unsigned", "(t & 1) ? base * 2u : base << 1", true),
        ("float", "x * 2.0f", true),
    ];
    let (ty, expr, equal) = *rng.pick(&EXPRS);
    let scalars = if ty == "float" {
        "float x, float y, float z"
    } else {
        "unsigned base"
    };
    let params = |extra: bool| {
        let mut p = vec![param("out", ParamKind::Pointer)];
        if ty == "float" {
            p.extend(["x", "y", "z"].map(|n| param(n, ParamKind::Float)));
        } else {
            p.push(param("base", ParamKind::Unsigned));
        }
        if extra {
            p.push(param("mismatch", ParamKind::Pointer));
        }
        p
    };
    let mut s = Src::default();
    s.line(&format!("__global__ void same_value({ty}* out, {scalars})"));
    s.line("{");
    s.line(&format!("    {ONE_D}"));
    s.line("    unsigned t = threadIdx.x;");
    let write = s.line(&format!("    out[blockIdx.x] = {expr};"));
    s.line("}");
    // The probe compares the values of a block's threads after a barrier;
    // NaN equals NaN here (one NaN or another, the write is the same
    // "not a number"), everything else compares with `!=`.
    let mut p = Src::default();
    p.line(&format!(
        "__global__ void same_value_probe({ty}* out, {scalars}, int* mismatch)"
    ));
    p.line("{");
    p.line("    __requires(blockDim.x <= 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);");
    p.line(&format!("    __shared__ {ty} vals[64];"));
    p.line("    unsigned t = threadIdx.x;");
    p.line(&format!("    vals[t] = {expr};"));
    p.line("    __syncthreads();");
    p.line("    if (t == 0) {");
    p.line("        for (unsigned j = 1; j < blockDim.x; ++j) {");
    p.line("            bool both_nan = vals[j] != vals[j] && vals[0] != vals[0];");
    p.line("            if (vals[j] != vals[0] && !both_nan) mismatch[1 << 20] = 1;");
    p.line("        }");
    p.line("    }");
    p.line("}");
    let mut case = single(
        "same_value",
        s,
        params(false),
        vec![LaunchShape::one_d()],
        Truth {
            racy: !equal,
            same_value_writes: vec![(write, equal)],
            ..Truth::default()
        },
        format!("{ty} `{expr}`"),
    );
    case.params = params(false);
    case.value_probe = Some(("same_value_probe".into(), p.text));
    case
}

// Each thread writes `s[t]`, synchronises, and reads its partner
// `s[t ^ d]`. The read is ordered after the partner's write iff a barrier
// orders them: `__syncthreads()`, or a `__syncwarp` whose mask holds both
// lanes and that both lanes execute. Full mask: the partner is in the warp
// iff d < 32. Low half only: lanes 16..31 execute no `__syncwarp`, so
// they are never ordered. Both halves (each its own mask): ordered iff
// d < 16. A low-half mask executed by every lane orders only the low
// lanes among themselves: the high lanes race. A low-half exchange (only
// lanes 0..15 synchronise and read) is ordered iff d < 16. A barrier is
// needed iff the kernel races without it.
fn warp_masks(rng: &mut Rng) -> Case {
    let form = rng.below(6);
    let d = *rng.pick(&[1u32, 5, 16, 32]);
    let block_barrier = rng.coin();
    // Racy with the block barrier `block` present or not and with a warp
    // synchronisation taken out (`removed`; None: all present).
    let racy = |block: bool, removed: Option<usize>| {
        !block
            && match (form, removed) {
                (0 | 1, None) => d >= 32,
                (3 | 5, None) => d >= 16,
                // Every synchronisation is needed, or none orders enough.
                _ => true,
            }
    };
    let mut s = Src::default();
    s.line("__global__ void warp_exchange(int* out)");
    s.line("{");
    s.line("    __requires(blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);");
    s.line("    __shared__ int s[64];");
    s.line("    unsigned t = threadIdx.x;");
    s.line("    s[t] = (int)t * 3;");
    let mut warp_syncs = Vec::new();
    match form {
        0 => warp_syncs.push(s.line("    __syncwarp(0xffffffff);")),
        1 => warp_syncs.push(s.line("    __syncwarp();")),
        2 => {
            s.line("    if ((t & 31) < 16)");
            warp_syncs.push(s.line("        __syncwarp(0x0000ffff);"));
        }
        3 => {
            s.line("    if ((t & 31) < 16)");
            warp_syncs.push(s.line("        __syncwarp(0x0000ffff);"));
            s.line("    else");
            warp_syncs.push(s.line("        __syncwarp(0xffff0000);"));
        }
        4 => warp_syncs.push(s.line("    __syncwarp(0x0000ffff);")),
        _ => {
            s.line("    if ((t & 31) < 16) {");
            warp_syncs.push(s.line("        __syncwarp(0x0000ffff);"));
        }
    }
    let mut truth = Truth::default();
    for (i, line) in warp_syncs.iter().enumerate() {
        truth.barriers.push((*line, racy(block_barrier, Some(i))));
    }
    let indent = if form == 5 { "        " } else { "    " };
    if block_barrier {
        // In the low-half exchange only lanes 0..15 would reach it inside
        // the branch (a divergence): the branch closes around it.
        if form == 5 {
            s.line("    }");
        }
        truth
            .barriers
            .push((s.line("    __syncthreads();"), racy(false, None)));
        if form == 5 {
            s.line("    if ((t & 31) < 16) {");
        }
    }
    s.line(&format!("{indent}out[blockIdx.x * 64 + t] = s[t ^ {d}];"));
    if form == 5 {
        s.line("    }");
    }
    s.line("}");
    truth.racy = racy(block_barrier, None);
    single(
        "warp_exchange",
        s,
        vec![param("out", ParamKind::Pointer)],
        vec![LaunchShape {
            grid: [Dim::Any, Dim::OneOf(vec![1]), Dim::OneOf(vec![1])],
            block: [
                Dim::OneOf(vec![64]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        }],
        truth,
        format!(
            "sync={} d={d} block_barrier={block_barrier}",
            [
                "full",
                "default",
                "low-half",
                "both-halves",
                "low-mask-all-lanes",
                "low-half-exchange"
            ][form as usize]
        ),
    )
}

// Iteration i writes `s[t + i * k]`; a thread leaves the loop at
// `i == stop` (plus one for odd threads when the break depends on the
// thread). With k == 1, thread t at iteration 1 and thread t + 1 at
// iteration 0 write one element: racy iff some thread reaches iteration 1
// and no barrier in the body separates the iterations. A barrier in the
// body with a thread-dependent break is divergent (n large enough).
fn loop_break(rng: &mut Rng) -> Case {
    let k = rng.below(2) as u32;
    let stop = rng.range(1, 3);
    let thread_break = rng.below(3) == 0;
    let loop_barrier = rng.coin();
    let iterations = stop + u32::from(thread_break);
    let collides = k == 1 && iterations >= 2;
    let mut s = Src::default();
    s.line("__global__ void shifted_fill(int* out, int n)");
    s.line("{");
    s.line("    __requires(blockDim.x <= 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);");
    s.line("    __shared__ int s[128];");
    s.line("    unsigned t = threadIdx.x;");
    s.line("    for (int i = 0; i < n; ++i) {");
    if thread_break {
        s.line(&format!("        if (i == {stop} + (int)(t & 1)) break;"));
    } else {
        s.line(&format!("        if (i == {stop}) break;"));
    }
    s.line(&format!("        s[t + i * {k}] = i;"));
    let mut truth = Truth::default();
    let divergent = loop_barrier && thread_break;
    if loop_barrier {
        let l = s.line("        __syncthreads();");
        truth.barriers.push((l, collides));
    }
    s.line("    }");
    // The final barrier orders the last writes before the reads of
    // `s[t]`: needed iff another thread writes `s[t]` and no barrier in
    // the body already ordered it.
    let l = s.line("    __syncthreads();");
    truth
        .barriers
        .push((l, (collides && !loop_barrier) || divergent));
    s.line("    out[blockIdx.x * 64 + t] = s[t];");
    s.line("}");
    truth.racy = (collides && !loop_barrier) || divergent;
    single(
        "shifted_fill",
        s,
        vec![param("out", ParamKind::Pointer), param("n", ParamKind::Int)],
        vec![LaunchShape {
            grid: [Dim::Any, Dim::OneOf(vec![1]), Dim::OneOf(vec![1])],
            block: [
                Dim::OneOf((1..=64).collect()),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        }],
        truth,
        format!("k={k} stop={stop} thread_break={thread_break} loop_barrier={loop_barrier}"),
    )
}

// Tickets from `atomicAdd` are distinct: `slots[my]` is race-free, a slot
// shared by two tickets (`my / 2`, `my & 3`) races. One winner of a
// compare-and-swap writes alone; an `atomicAdd(flag, 1) < 2` lets two in.
fn tickets_and_flags(rng: &mut Rng) -> Case {
    let mut s = Src::default();
    let (racy, variant, params);
    if rng.coin() {
        let (index, r) = *rng.pick(&[("my", false), ("my / 2", true), ("my & 3", true)]);
        s.line("__global__ void take_slot(int* counter, int* slots)");
        s.line("{");
        s.line("    int my = atomicAdd(counter, 1);");
        s.line(&format!("    slots[{index}] = (int)threadIdx.x;"));
        s.line("}");
        racy = r;
        variant = format!("ticket slot `{index}`");
        params = vec![
            param("counter", ParamKind::Pointer),
            param("slots", ParamKind::Pointer),
        ];
    } else {
        let (claim, r) = *rng.pick(&[
            ("atomicCAS(flag, 0, 1) == 0", false),
            ("atomicExch(flag, 1) == 0", false),
            ("atomicAdd(flag, 1) < 2", true),
        ]);
        s.line("__global__ void elect(int* flag, int* winner)");
        s.line("{");
        s.line(&format!("    if ({claim})"));
        s.line("        *winner = (int)(threadIdx.x + blockIdx.x * blockDim.x);");
        s.line("}");
        racy = r;
        variant = format!("flag `{claim}`");
        params = vec![
            param("flag", ParamKind::Pointer),
            param("winner", ParamKind::Pointer),
        ];
    }
    let kernel = if variant.starts_with("ticket") {
        "take_slot"
    } else {
        "elect"
    };
    single(
        kernel,
        s,
        params,
        vec![LaunchShape::any()],
        Truth {
            racy,
            ..Truth::default()
        },
        variant,
    )
}

// The last-block pattern: thread 0 of each block writes its partial sum,
// fences, draws a ticket; the block drawing the last ticket reads every
// partial. Without a fence executed before the ticket, the partials are
// not ordered before the last block's reads: racy when the fence is absent
// or under a parameter that can be 0.
fn conditional_fence(rng: &mut Rng) -> Case {
    let fence = rng.below(3); // 0: always, 1: under `publish`, 2: none
    let mut s = Src::default();
    s.line("__global__ void last_block_sum(float* partial, unsigned* count, float* result, int publish)");
    s.line("{");
    s.line(&format!("    {ONE_D}"));
    s.line("    __shared__ bool last;");
    s.line("    if (threadIdx.x == 0) {");
    s.line("        partial[blockIdx.x] = (float)blockIdx.x + 1.0f;");
    match fence {
        0 => {
            s.line("        __threadfence();");
        }
        1 => {
            s.line("        if (publish)");
            s.line("            __threadfence();");
        }
        _ => {}
    }
    s.line("        unsigned ticket = atomicAdd(count, 1u);");
    s.line("        last = (ticket == gridDim.x - 1);");
    s.line("    }");
    s.line("    __syncthreads();");
    s.line("    if (last && threadIdx.x == 0) {");
    s.line("        float sum = 0.0f;");
    s.line("        for (unsigned b = 0; b < gridDim.x; ++b)");
    s.line("            sum += partial[b];");
    s.line("        *result = sum;");
    s.line("    }");
    s.line("}");
    single(
        "last_block_sum",
        s,
        vec![
            param("partial", ParamKind::Pointer),
            param("count", ParamKind::Pointer),
            param("result", ParamKind::Pointer),
            param("publish", ParamKind::Int),
        ],
        vec![LaunchShape::one_d()],
        Truth {
            racy: fence != 0,
            ..Truth::default()
        },
        format!(
            "fence={}",
            ["always", "if (publish)", "none"][fence as usize]
        ),
    )
}

/// How the host file launches the kernel, and the launches that gives.
struct HostForm {
    code: String,
    shape: LaunchShape,
}

fn host_form(rng: &mut Rng) -> HostForm {
    let one = || Dim::OneOf(vec![1]);
    let shape = |g: Dim, b: Dim| LaunchShape {
        grid: [g, one(), one()],
        block: [b, one(), one()],
    };
    let block = *rng.pick(&[32u32, 64, 128]);
    let grid = *rng.pick(&[1u32, 1, 2]);
    match rng.below(6) {
        0 => HostForm {
            code: format!("    fill_rows<<<{grid}, {block}>>>(out);\n"),
            shape: shape(Dim::OneOf(vec![grid]), Dim::OneOf(vec![block])),
        },
        1 => {
            // Fields set after the declaration: the grid from a run-time
            // size, the block from a constant.
            let runtime_grid = rng.coin();
            let g = if runtime_grid {
                "n / 256".to_string()
            } else {
                grid.to_string()
            };
            HostForm {
                code: format!(
                    "    dim3 grid;\n    grid.x = {g};\n    dim3 threads;\n    threads.x = {block};\n    fill_rows<<<grid, threads>>>(out);\n"
                ),
                shape: shape(
                    if runtime_grid {
                        Dim::Any
                    } else {
                        Dim::OneOf(vec![grid])
                    },
                    Dim::OneOf(vec![block]),
                ),
            }
        }
        2 => {
            // The grid doubles every round.
            HostForm {
                code: format!(
                    "    int blocks = {grid};\n    for (int round = 0; round < 3; ++round) {{\n        fill_rows<<<blocks, {block}>>>(out);\n        blocks *= 2;\n    }}\n"
                ),
                shape: shape(
                    Dim::OneOf(vec![grid, grid * 2, grid * 4]),
                    Dim::OneOf(vec![block]),
                ),
            }
        }
        3 => {
            // The block doubles every round.
            let start = *rng.pick(&[16u32, 32]);
            HostForm {
                code: format!(
                    "    int threads = {start};\n    for (int round = 0; round < 3; ++round) {{\n        fill_rows<<<{grid}, threads>>>(out);\n        threads *= 2;\n    }}\n"
                ),
                shape: shape(
                    Dim::OneOf(vec![grid]),
                    Dim::OneOf(vec![start, start * 2, start * 4]),
                ),
            }
        }
        4 => HostForm {
            code: format!(
                "    void* args[] = {{&out}};\n    cudaLaunchKernel((void*)fill_rows, dim3(n / {block}), dim3({block}), args, 0, 0);\n"
            ),
            shape: shape(Dim::Any, Dim::OneOf(vec![block])),
        },
        _ => HostForm {
            code: format!(
                "    kernel_fn table[] = {{fill_rows}};\n    launch_with(table[0], out, n / {block}, {block});\n"
            ),
            shape: shape(Dim::Any, Dim::OneOf(vec![block])),
        },
    }
}

// `fill_rows` races only under some launches: the grid-sensitive body when
// the grid has two blocks, the block-sensitive one when a block has more
// than 64 threads. The host file's launches (one or two forms) decide
// whether such a launch happens.
fn host_launches(rng: &mut Rng) -> Case {
    let grid_sensitive = rng.coin();
    let forms: Vec<HostForm> = (0..rng.range(1, 2)).map(|_| host_form(rng)).collect();
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void fill_rows(int* out)");
    k.line("{");
    if grid_sensitive {
        k.line("    out[threadIdx.x] = (int)blockIdx.x;");
    } else {
        k.line("    out[blockIdx.x * 64 + (threadIdx.x & 63)] = (int)threadIdx.x;");
    }
    k.line("}");
    let header = "#pragma once\n\n__global__ void fill_rows(int* out);\n\ntypedef void (*kernel_fn)(int*);\n";
    let mut host = String::from(
        "#include <cuda_runtime.h>\n#include \"kern.cuh\"\n\nstatic void launch_with(kernel_fn k, int* out, int blocks, int threads)\n{\n    k<<<blocks, threads>>>(out);\n}\n\nvoid run(int* out, int n)\n{\n",
    );
    for f in &forms {
        host.push_str(&f.code);
    }
    host.push_str("}\n\nint main()\n{\n    int* out = 0;\n    cudaMalloc(&out, 1 << 20);\n    run(out, 1 << 12);\n    cudaDeviceSynchronize();\n    return 0;\n}\n");
    let max = |d: &Dim| match d {
        Dim::Any => u32::MAX,
        Dim::OneOf(v) => v.iter().copied().max().unwrap_or(1),
    };
    let racy = forms.iter().any(|f| {
        if grid_sensitive {
            max(&f.shape.grid[0]) >= 2
        } else {
            max(&f.shape.block[0]) > 64
        }
    });
    let variant = format!(
        "{} body, launches: {}",
        if grid_sensitive {
            "grid-sensitive"
        } else {
            "block-sensitive"
        },
        forms
            .iter()
            .map(|f| f.code.trim().replace('\n', " "))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    Case {
        seed: 0,
        family: Family::HostLaunches,
        variant,
        files: vec![
            ("kern.cu".into(), k.text),
            ("kern.cuh".into(), header.into()),
            ("host.cu".into(), host),
        ],
        kernel: "fill_rows".into(),
        params: vec![param("out", ParamKind::Pointer)],
        launches: forms.into_iter().map(|f| f.shape).collect(),
        truth: Truth {
            racy,
            ..Truth::default()
        },
        value_probe: None,
        host_values: Vec::new(),
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

/// A case of a kernel (`kernel`: its text begins with `#include
/// "kern.cuh"`, a blank line and the signature) and host code whose `main`
/// runs `host_body` after allocating `d`: either three files (`kern.cu`,
/// its header `kern.cuh` and `host.cu`, the host calling across files) or
/// one file holding the kernel and the host code, as many samples do.
#[allow(clippy::too_many_arguments)]
fn host_case(
    rng: &mut Rng,
    family: Family,
    kernel: (&str, Src),
    params: Vec<Param>,
    host_prelude: &str,
    host_body: &str,
    launch: LaunchShape,
    host_values: Vec<(String, Vec<i64>)>,
    racy: bool,
    variant: String,
) -> Case {
    let (name, k) = kernel;
    let signature = k.text.lines().nth(2).unwrap_or_default().to_string();
    let header = format!("#pragma once\n\n{signature};\n");
    let includes = "#include <cuda_runtime.h>\n#include <stdio.h>\n#include <stdlib.h>\n";
    let main = format!(
        "{host_prelude}int main(int argc, char** argv)\n{{\n    int* d = 0;\n    cudaMalloc(&d, 1 << 20);\n{host_body}    cudaDeviceSynchronize();\n    return 0;\n}}\n"
    );
    let (files, shape) = if rng.coin() {
        let host = format!("{includes}#include \"kern.cuh\"\n\n{main}");
        (
            vec![
                ("kern.cu".to_string(), k.text),
                ("kern.cuh".to_string(), header),
                ("host.cu".to_string(), host),
            ],
            "three files",
        )
    } else {
        let own = k.text.replacen("#include \"kern.cuh\"\n", includes, 1);
        (
            vec![("kern.cu".to_string(), format!("{own}\n{main}"))],
            "one file",
        )
    };
    Case {
        seed: 0,
        family,
        variant: format!("{variant}; {shape}"),
        files,
        kernel: name.into(),
        params,
        launches: vec![launch],
        truth: Truth {
            racy,
            ..Truth::default()
        },
        value_probe: None,
        host_values,
        sorted_inputs: false,
        host_launches: Vec::new(),
    }
}

/// The kernel of the width families: block `b` writes `out[b * w + t]`, so
/// two blocks' rows overlap exactly when `w < blockDim.x` (widths are never
/// negative here).
fn fill_rows_kernel() -> Src {
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void fill_rows(int* out, int w)");
    k.line("{");
    k.line("    out[blockIdx.x * w + threadIdx.x] = (int)threadIdx.x;");
    k.line("}");
    k
}

/// The merge step of a bitonic network at the stride its parameter gives
/// (the host-loop and power-of-two-argument families): thread `t` orders
/// `pos = 2t - (t & (stride - 1))` and `pos + stride`.
fn merge_step_kernel() -> Src {
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void merge_step(float* a, int stride)");
    k.line("{");
    k.line("    unsigned t = threadIdx.x;");
    k.line("    unsigned pos = 2 * t - (t & (stride - 1));");
    k.line("    float x = a[pos];");
    k.line("    float y = a[pos + stride];");
    k.line("    a[pos] = fminf(x, y);");
    k.line("    a[pos + stride] = fmaxf(x, y);");
    k.line("}");
    k
}

/// Two one-dimensional blocks of `threads` threads.
fn two_blocks_of(threads: u32) -> LaunchShape {
    LaunchShape::exact([2, 1, 1], [threads, 1, 1])
}

// Block `b` writes `out[b * w + t]`: the two blocks' rows overlap exactly
// when `w < threads` (widths are never negative here). `run` launches with
// its parameter; the callers give constants, a local, a macro, a value
// passed through a second helper, or a command-line value (any width):
// racy iff some caller's width is below the block size or unknown.
fn host_caller_values(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[32u32, 64]);
    let k = fill_rows_kernel();
    let mut prelude = format!(
        "static void run(int* out, int w)\n{{\n    fill_rows<<<2, {threads}>>>(out, w);\n}}\n\n"
    );
    let mut body = String::new();
    let mut values = Vec::new();
    let mut unknown = false;
    let mut forms = Vec::new();
    for call in 0..rng.range(1, 3) {
        let w = i64::from(*rng.pick(&[16u32, 32, 64, 128]));
        match rng.below(5) {
            0 => {
                body.push_str(&format!("    run(d, {w});\n"));
                forms.push(format!("literal {w}"));
                values.push(w);
            }
            1 => {
                body.push_str(&format!(
                    "    {{\n        int width{call} = {w};\n        run(d, width{call});\n    }}\n"
                ));
                forms.push(format!("local {w}"));
                values.push(w);
            }
            2 => {
                prelude = format!("#define WIDTH{call} {w}\n{prelude}");
                body.push_str(&format!("    run(d, WIDTH{call});\n"));
                forms.push(format!("macro {w}"));
                values.push(w);
            }
            3 => {
                prelude.push_str(&format!(
                    "static void via{call}(int* out)\n{{\n    run(out, {w});\n}}\n\n"
                ));
                body.push_str(&format!("    via{call}(d);\n"));
                forms.push(format!("through a helper {w}"));
                values.push(w);
            }
            _ => {
                body.push_str("    if (argc > 1)\n        run(d, atoi(argv[1]));\n");
                forms.push("command line".into());
                unknown = true;
            }
        }
    }
    let racy = unknown || values.iter().any(|&w| w < i64::from(threads));
    let host_values = if unknown {
        Vec::new()
    } else {
        vec![("w".to_string(), values)]
    };
    host_case(
        rng,
        Family::HostCallerValues,
        ("fill_rows", k),
        vec![param("out", ParamKind::Pointer), param("w", ParamKind::Int)],
        &prelude,
        &body,
        two_blocks_of(threads),
        host_values,
        racy,
        format!("{threads} threads; callers: {}", forms.join(", ")),
    )
}

/// The elements thread `t` touches in the merge step: `pos` and
/// `pos + stride`, with `pos = 2t - (t & (stride - 1))` in 32-bit unsigned
/// arithmetic, as the kernel computes it.
fn merge_step_cells(t: u32, stride: u32) -> [u32; 2] {
    let pos = (2 * t).wrapping_sub(t & stride.wrapping_sub(1));
    [pos, pos.wrapping_add(stride)]
}

/// Two threads of a block of `threads` touch one element (every access
/// writes): the truth of the merge step at this stride.
fn merge_step_collides(threads: u32, stride: u32) -> bool {
    let mut owner = std::collections::HashMap::new();
    for t in 0..threads {
        for cell in merge_step_cells(t, stride) {
            if *owner.entry(cell).or_insert(t) != t {
                return true;
            }
        }
    }
    false
}

// The bitonic merge step `pos = 2t - (t & (stride - 1))`, touching `pos`
// and `pos + stride`: each thread its own pair when the stride is a power
// of two, colliding pairs for most other strides. The host loop gives the
// strides; the truth is computed from the loop's values.
fn host_loop_strides(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[16u32, 32]);
    let n = *rng.pick(&[32i64, 48, 64, 100]);
    let k = merge_step_kernel();
    let launch = format!("merge_step<<<1, {threads}>>>((float*)d, s);");
    let (code, strides, form): (String, Vec<i64>, &str) = match rng.below(7) {
        0 => (
            format!("    for (int s = 1; s < {n}; s <<= 1)\n        {launch}\n"),
            std::iter::successors(Some(1i64), |s| Some(s * 2))
                .take_while(|&s| s < n)
                .collect(),
            "doubling from 1",
        ),
        1 => (
            format!("    for (int s = {n} / 2; s > 0; s >>= 1)\n        {launch}\n"),
            std::iter::successors(Some(n / 2), |s| Some(s / 2))
                .take_while(|&s| s > 0)
                .collect(),
            "halving from n / 2",
        ),
        2 => (
            format!("    for (int s = 2; s <= {n}; s += 2)\n        {launch}\n"),
            (1..=n / 2).map(|i| 2 * i).collect(),
            "stepping by 2",
        ),
        3 => (
            format!("    int s = 1;\n    while (s < {n}) {{\n        {launch}\n        s *= 2;\n    }}\n"),
            std::iter::successors(Some(1i64), |s| Some(s * 2))
                .take_while(|&s| s < n)
                .collect(),
            "while doubling",
        ),
        4 => (
            format!("    int s = {n} / 2;\n    while (s > 0) {{\n        {launch}\n        s >>= 1;\n    }}\n"),
            std::iter::successors(Some(n / 2), |s| Some(s / 2))
                .take_while(|&s| s > 0)
                .collect(),
            "while halving",
        ),
        5 => (
            // The update before the launch: the last launch passes 0.
            format!("    int s = {n} / 2;\n    while (s > 0) {{\n        s >>= 1;\n        {launch}\n    }}\n"),
            std::iter::successors(Some(n / 4), |s| (*s > 0).then_some(s / 2)).collect(),
            "while halving before the launch",
        ),
        _ => (
            format!("    for (int s = 1; s < {n}; s += s + 1)\n        {launch}\n"),
            std::iter::successors(Some(1i64), |s| Some(2 * s + 1))
                .take_while(|&s| s < n)
                .collect(),
            "s += s + 1",
        ),
    };
    let racy = strides
        .iter()
        .any(|&s| merge_step_collides(threads, s as u32));
    host_case(
        rng,
        Family::HostLoopStrides,
        ("merge_step", k),
        vec![
            param("a", ParamKind::Pointer),
            param("stride", ParamKind::Int),
        ],
        "",
        &code,
        LaunchShape::exact([1, 1, 1], [threads, 1, 1]),
        vec![("stride".to_string(), strides.clone())],
        racy,
        format!("{threads} threads, {form}, n = {n}: strides {strides:?}"),
    )
}

// Two blocks of 64 threads write `out[i % n]`: distinct cells exactly when
// `n >= 128`. `n` comes from the command line; the host checks it against a
// bound and stops (`exit`, `abort`, `return` from `main`) or only prints.
// Racy iff a launch can happen with `n < 128`.
fn host_exit_checks(rng: &mut Rng) -> Case {
    let bound = *rng.pick(&[64i64, 128, 256]);
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void wrap_fill(int* out, int n)");
    k.line("{");
    k.line("    int i = blockIdx.x * blockDim.x + threadIdx.x;");
    k.line("    out[i % n] = i;");
    k.line("}");
    let (stop, stops) = match rng.below(5) {
        0 => (
            "{\n        fprintf(stderr, \"n too small\\n\");\n        exit(EXIT_FAILURE);\n    }"
                .to_string(),
            true,
        ),
        1 => ("\n        abort();".to_string(), true),
        2 => ("{\n        return 1;\n    }".to_string(), true),
        3 => ("\n        exit(1);".to_string(), true),
        _ => (
            "{\n        printf(\"warning: n is small\\n\");\n    }".to_string(),
            false,
        ),
    };
    let body = format!(
        "    int n = argc > 1 ? atoi(argv[1]) : {bound};\n    if (n < {bound}) {stop}\n    wrap_fill<<<2, 64>>>(d, n);\n"
    );
    let racy = !stops || bound < 128;
    let values = if stops {
        vec![bound, bound + 1, 2 * bound + 3]
    } else {
        vec![1, 7, 64, 100, 128, 200]
    };
    host_case(
        rng,
        Family::HostExitChecks,
        ("wrap_fill", k),
        vec![param("out", ParamKind::Pointer), param("n", ParamKind::Int)],
        "",
        &body,
        two_blocks_of(64),
        vec![("n".to_string(), values)],
        racy,
        format!(
            "n < {bound} {}",
            if stops {
                "stops the program"
            } else {
                "only prints"
            }
        ),
    )
}

// `q == 0` sends every thread to `out[0]` (a race between any two threads);
// otherwise each thread writes its own cell. The forms compute `q` from the
// divisor `d`: `d / d` and `d % d + 1` are 1 wherever they are defined (a
// zero divisor is undefined behaviour, so no execution has it), while the
// guarded forms give 0 for `d == 0` without dividing, and `5 / d` is 0 for
// `|d| > 5`.
fn division_guards(rng: &mut Rng) -> Case {
    let (form, racy) = *rng.pick(&[
        ("int q = d / d;", false),
        ("int q = d % d + 1;", false),
        ("if (d == 0) return;\n    int q = d / d;", false),
        ("int q = (d != 0) ? d / d : 0;", true),
        ("int q = (d == 0) ? 0 : d / d;", true),
        ("int q = (d != 0 && d / d == 1);", true),
        ("int q = 5 / d;", true),
    ]);
    let mut s = Src::default();
    s.line("__global__ void split(int* out, int d)");
    s.line("{");
    s.line(&format!("    {ONE_D}"));
    s.line("    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;");
    for line in form.lines() {
        s.line(&format!("    {}", line.trim()));
    }
    s.line("    if (q == 0)");
    s.line("        out[0] = (int)t;");
    s.line("    else");
    s.line("        out[t + 1] = q;");
    s.line("}");
    let mut case = single(
        "split",
        s,
        vec![param("out", ParamKind::Pointer), param("d", ParamKind::Int)],
        vec![LaunchShape::one_d()],
        Truth {
            racy,
            ..Truth::default()
        },
        form.replace('\n', " "),
    );
    case.family = Family::DivisionGuards;
    case
}
