//! A family for indices and values built of bit fields (`bit-fields`):
//! a lane permutation of a tile (`(t & ~31) | ((t << 1 | (t >> 4) & 1) &
//! 31)`, a transpose `((t & 7) << 3) | ((t >> 3) & 7)`) as the cell a
//! thread writes, and a word packed of fields (`(r << 24) | (g << 16) |
//! ...`) as the value. The race queries keep a packed value opaque
//! (`races::written_values`: equal to another thread's only as one
//! computation of equal inputs); the traps are fields that share a bit
//! (two threads land on one cell), masks that drop one, and packed values
//! that differ per thread or are one value for all. The truth is computed
//! here from the variant, by evaluating the index function on every
//! thread of the block, never by running the engine or the simulator.

use super::*;

/// (C text over `t`, the same function in Rust).
type Perm = (&'static str, fn(i64) -> i64);

const PERMS: [Perm; 11] = [
    (
        "(t & 0xFFFFFFE0) | (((t << 1) | ((t >> 4) & 1)) & 0x1F)",
        |t| (t & !31) | (((t << 1) | ((t >> 4) & 1)) & 31),
    ),
    ("(t & ~31) | ((t << 1) & 31)", |t| {
        (t & !31) | ((t << 1) & 31)
    }),
    ("(t & 0xFFFFFFF0) | ((t + 3) & 15)", |t| {
        (t & !15) | ((t + 3) & 15)
    }),
    ("(t & -32) ^ ((t >> 1) & 15)", |t| {
        (t & -32) ^ ((t >> 1) & 15)
    }),
    ("((t >> 3) << 3) | ((t * 5) & 7)", |t| {
        ((t >> 3) << 3) | ((t * 5) & 7)
    }),
    ("(t << 1) | (t >> 5)", |t| (t << 1) | (t >> 5)),
    ("(t & 31) | 32", |t| (t & 31) | 32),
    ("t ^ 1", |t| t ^ 1),
    ("((t & 7) << 3) | (t >> 3)", |t| ((t & 7) << 3) | (t >> 3)),
    ("((t & 7) << 3) | ((t >> 3) & 7)", |t| {
        ((t & 7) << 3) | ((t >> 3) & 7)
    }),
    ("((t & 7) << 2) | ((t >> 3) & 7)", |t| {
        ((t & 7) << 2) | ((t >> 3) & 7)
    }),
];

/// (C text of the written value, equal for every thread of a launch).
const VALUES: [(&str, bool); 5] = [
    ("(unsigned)t * 3u", false),
    ("(base << 8) | 7u", true),
    (
        "((unsigned)t << 24) | ((base & 255u) << 16) | (base >> 16)",
        false,
    ),
    ("(base << 16) | (base >> 16)", true),
    ("((unsigned)t << 8) | (base & 255u)", false),
];

/// Threads per block (the kernel requires it).
const BLOCK: i64 = 64;

pub(super) fn bit_fields(rng: &mut Rng) -> Case {
    let (perm, f) = *rng.pick(&PERMS);
    let (value, equal) = *rng.pick(&VALUES);
    let shared = rng.coin();
    let cells: Vec<i64> = (0..BLOCK).map(f).collect();
    assert!(cells.iter().all(|c| (0..2 * BLOCK).contains(c)));
    let collide = (0..cells.len()).any(|i| cells[i + 1..].contains(&cells[i]));
    let mut k = Src::default();
    k.line("__global__ void bit_fields(unsigned* out, unsigned base)");
    k.line("{");
    k.line(&format!(
        "    __requires(blockDim.x == {BLOCK} && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);"
    ));
    k.line("    int t = threadIdx.x;");
    k.line(&format!("    int p = {perm};"));
    let write = if shared {
        k.line(&format!("    __shared__ unsigned tile[{}];", 2 * BLOCK));
        k.line("    tile[t] = 0u;");
        k.line(&format!("    tile[t + {BLOCK}] = 0u;"));
        k.line("    __syncthreads();");
        let write = k.line(&format!("    tile[p] = {value};"));
        k.line("    __syncthreads();");
        k.line(&format!(
            "    out[blockIdx.x * {BLOCK} + t] = tile[t] + tile[t + {BLOCK}];"
        ));
        write
    } else {
        k.line(&format!(
            "    out[blockIdx.x * {} + p] = {value};",
            2 * BLOCK
        ))
    };
    k.line("}");
    single(
        "bit_fields",
        k,
        vec![
            param("out", ParamKind::Pointer),
            param("base", ParamKind::Unsigned),
        ],
        vec![LaunchShape {
            grid: [Dim::Any, Dim::OneOf(vec![1]), Dim::OneOf(vec![1])],
            block: [
                Dim::OneOf(vec![BLOCK as u32]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        }],
        Truth {
            racy: collide && !equal,
            same_value_writes: vec![(write, equal)],
            ..Truth::default()
        },
        format!("p = `{perm}`, value `{value}`, shared {shared}"),
    )
}
