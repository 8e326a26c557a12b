//! A family for loops over the grid's thread ranks (`grid-ranks`): the
//! rank `(block rank) * (threads a block) + (thread rank in its block)`
//! in all three dimensions, a first loop reading `v[i]` and a second
//! writing it, `i` from the rank in steps of the grid's thread count:
//! each thread owns the cells of its rank, race-free under any launch
//! (`precheck::low_digit_owned` with the grid's thread count as one place
//! value). The traps: a step of one block's threads (blocks overlap), of
//! the threads along x only (overlap when the launch has rows of blocks
//! or threads), half the grid (ranks meet one step apart), and a write
//! one cell past the rank (the next thread's cell). The truth is computed
//! here from the variant, never by running the engine or the simulator.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Every thread of the grid: race-free.
    Grid,
    /// One block's threads: racy with two blocks.
    Block,
    /// `gridDim.x * blockDim.x`: race-free only on a launch flat in y and z.
    AlongX,
    /// Half the grid's threads, rounded up (never 0): racy with two
    /// threads or more.
    HalfGrid,
}

pub(super) fn grid_ranks(rng: &mut Rng) -> Case {
    let step = *rng.pick(&[
        Step::Grid,
        Step::Grid,
        Step::Block,
        Step::AlongX,
        Step::HalfGrid,
    ]);
    let shifted = rng.below(4) == 0;
    // The half-grid trap only under the flat launch: under any launch its
    // race is beyond the solver within the kernel's nets (`unknown` after
    // 120 s, which tries no rule); under <<<2, 32>>> it is found at once,
    // and a rule that took the half grid for the grid would verify it.
    let flat = step == Step::HalfGrid || rng.below(2) == 0;
    let step_text = match step {
        Step::Grid => "blockDim.x * blockDim.y * blockDim.z * (gridDim.x * gridDim.y * gridDim.z)",
        Step::Block => "blockDim.x * blockDim.y * blockDim.z",
        Step::AlongX => "gridDim.x * blockDim.x",
        Step::HalfGrid => {
            "(blockDim.x * blockDim.y * blockDim.z * (gridDim.x * gridDim.y * gridDim.z) + 1) / 2"
        }
    };
    let mut k = Src::default();
    k.line("__global__ void grid_rounds(float* v, int n)");
    k.line("{");
    k.line("    int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);");
    k.line("    int rank = block * (blockDim.x * blockDim.y * blockDim.z)");
    k.line("        + (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));");
    k.line(&format!("    int step = {step_text};"));
    k.line("    float s = 0.0f;");
    k.line("    for (int i = rank; i < n; i += step)");
    k.line("        s += v[i];");
    k.line("    for (int i = rank; i < n; i += step)");
    k.line(&format!(
        "        v[{}] = s * 2.0f;",
        if shifted { "i + 1" } else { "i" }
    ));
    k.line("}");
    if flat {
        // The launch the engine is told of, as real code tells it: a host
        // launch site (without it the engine checks any launch).
        k.line("");
        k.line("static void run_rounds(float* v, int n)");
        k.line("{");
        k.line("    grid_rounds<<<2, 32>>>(v, n);");
        k.line("}");
    }
    // Flat: one row of two blocks of 32 threads; otherwise any launch
    // (rows of blocks and of threads included).
    let launch = if flat {
        LaunchShape {
            grid: [
                Dim::OneOf(vec![2]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
            block: [
                Dim::OneOf(vec![32]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        }
    } else {
        LaunchShape::any()
    };
    let racy = shifted
        || match step {
            Step::Grid => false,
            Step::Block | Step::HalfGrid => true,
            Step::AlongX => !flat,
        };
    let mut case = single(
        "grid_rounds",
        k,
        vec![param("v", ParamKind::Pointer), param("n", ParamKind::Int)],
        vec![launch],
        Truth {
            racy,
            ..Truth::default()
        },
        format!(
            "step {step:?}, {}, {}",
            if shifted { "write i + 1" } else { "write i" },
            if flat { "<<<2, 32>>>" } else { "any launch" }
        ),
    );
    case.family = Family::GridRanks;
    case
}
