//! A family for values read back from a `__shared__` tile after a barrier
//! (`frontend/lower/shared_values.rs`): each thread stores its key in a
//! tile, and after the barrier compares a neighbour's cell with its own and
//! scatters by the value read back. Each variant's truth is computed here
//! from its parameters, never by running the engine or the simulator.

use super::*;

/// The tile's shape and its traps.
#[derive(Clone, Copy, Debug)]
enum Tile {
    /// `tile[t] = key[i]`; `tile[t - 1] != tile[t]` → `start[tile[t]]`.
    Left,
    /// `tile[t + 1] = key[i]`, thread 0 the halo `tile[0] = key[i - 1]`;
    /// `tile[t] != tile[t + 1]` → `end[tile[t]]`.
    Halo,
    /// `Left` compared two cells away: a run of two equal keys writes twice.
    Skip,
    /// `Halo` without the halo: thread 0 of a block reads a cell no thread
    /// wrote, which may hold any key.
    NoHalo,
    /// `Left` with one cell overwritten by a constant in a second interval:
    /// a key equal to it meets the overwritten cell's thread.
    Overwritten,
    /// `Left` where odd threads only store their key, over a default of
    /// `t`: the even threads' defaults meet across blocks.
    OddWriters,
}

// Two blocks of 64 threads over `count` keys. The first index of each run
// of equal keys (its key differs from its left neighbour's, read back from
// the tile) writes the run's slot: one writer per slot exactly when equal
// keys are contiguous, which the host's sort guarantees. Racy iff the keys
// are not sorted, or the variant is a trap (racy for some sorted keys,
// given above).
pub(super) fn shared_tiles(rng: &mut Rng) -> Case {
    let tile = *rng.pick(&[
        Tile::Left,
        Tile::Halo,
        Tile::Skip,
        Tile::NoHalo,
        Tile::Overwritten,
        Tile::OddWriters,
    ]);
    let sorted = rng.below(3) != 0;
    let mut k = Src::default();
    k.line("#include <cuda_runtime.h>");
    k.line("#include <thrust/execution_policy.h>");
    k.line("#include <thrust/sort.h>");
    k.line("");
    k.line("__global__ void run_slots(unsigned* slot, const unsigned* key, unsigned count)");
    k.line("{");
    k.line("    __shared__ unsigned tile[65];");
    k.line("    unsigned t = threadIdx.x;");
    k.line("    unsigned i = blockIdx.x * blockDim.x + t;");
    match tile {
        Tile::Left | Tile::Skip | Tile::Overwritten => {
            k.line("    if (i < count)");
            k.line("        tile[t] = key[i];");
        }
        Tile::OddWriters => {
            k.line("    tile[t] = t;");
            k.line("    if (i < count && t % 2 == 1)");
            k.line("        tile[t] = key[i];");
        }
        Tile::Halo | Tile::NoHalo => {
            k.line("    if (i < count) {");
            k.line("        tile[t + 1] = key[i];");
            if matches!(tile, Tile::Halo) {
                k.line("        if (t == 0 && i > 0)");
                k.line("            tile[0] = key[i - 1];");
            }
            k.line("    }");
        }
    }
    k.line("    __syncthreads();");
    if matches!(tile, Tile::Overwritten) {
        k.line("    if (t == 32)");
        k.line("        tile[32] = 7;");
        k.line("    __syncthreads();");
    }
    match tile {
        Tile::Left | Tile::Overwritten | Tile::OddWriters => {
            k.line("    if (i < count && t > 0 && tile[t - 1] != tile[t])");
            k.line("        slot[tile[t]] = i;");
        }
        Tile::Skip => {
            k.line("    if (i < count && t > 1 && tile[t - 2] != tile[t])");
            k.line("        slot[tile[t]] = i;");
        }
        Tile::Halo | Tile::NoHalo => {
            k.line("    if (i < count && i > 0 && tile[t] != tile[t + 1])");
            k.line("        slot[tile[t]] = i;");
        }
    }
    k.line("}");
    let sort = if sorted {
        "    thrust::sort(thrust::device, d_key, d_key + count);\n"
    } else {
        ""
    };
    let host = format!(
        "\nvoid build(unsigned* d_slot, unsigned* d_key, unsigned count)\n{{\n{sort}    run_slots<<<2, 64>>>(d_slot, d_key, count);\n}}\n"
    );
    let trap = !matches!(tile, Tile::Left | Tile::Halo);
    Case {
        seed: 0,
        family: Family::SharedTiles,
        variant: format!(
            "{tile:?}, {}",
            if sorted { "keys sorted" } else { "no sort" }
        ),
        files: vec![("kern.cu".to_string(), format!("{}{host}", k.text))],
        kernel: "run_slots".into(),
        params: vec![
            param("slot", ParamKind::Pointer),
            param("key", ParamKind::Pointer),
            param("count", ParamKind::Unsigned),
        ],
        launches: vec![LaunchShape::exact([2, 1, 1], [64, 1, 1])],
        truth: Truth {
            racy: trap || !sorted,
            ..Truth::default()
        },
        value_probe: None,
        // The host passes its own parameter: any count.
        host_values: Vec::new(),
        sorted_inputs: sorted,
        host_launches: Vec::new(),
    }
}
