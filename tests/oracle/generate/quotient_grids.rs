//! A family for the grid a launch makes as a quotient (`quotient-grids`):
//! `<<<w / B, B>>>` bounds every global id below `w`, so a thread owning
//! the column `col` of rows `w` wide (`out[col + row * w]` in a loop over
//! the rows) writes cells no other thread writes, with no test of `col` in
//! the kernel (`precheck::low_digit_owned`, `affine`'s launch quotients).
//! The traps: grids with more threads than columns (one block more, the
//! quotient rounded up, half the block as divisor), each race-free only
//! under a `col < w` test, and rows half a width apart (racy under any
//! grid). The truth is computed here from the variant, never by running
//! the engine or the simulator.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Grid {
    /// `w / B`: at most `w` threads.
    Floor,
    /// `w / B + 1`: more threads than columns.
    OneMore,
    /// `(w + B - 1) / B`: more threads than columns unless `B` divides `w`.
    Ceil,
    /// `w / (B / 2)`: about twice the columns.
    HalfBlocks,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Index {
    /// `out[col + row * w]`
    ColumnFirst,
    /// `out[row * w + col]`
    RowFirst,
    /// `out[col + row * (w / 2)]`: rows overlap.
    HalfRows,
}

pub(super) fn quotient_grids(rng: &mut Rng) -> Case {
    let b = *rng.pick(&[32i64, 64]);
    let grid = *rng.pick(&[
        Grid::Floor,
        Grid::Floor,
        Grid::OneMore,
        Grid::Ceil,
        Grid::HalfBlocks,
    ]);
    let index = *rng.pick(&[Index::ColumnFirst, Index::RowFirst, Index::HalfRows]);
    let guarded = rng.below(3) == 0;
    let grid_text = match grid {
        Grid::Floor => format!("width / {b}"),
        Grid::OneMore => format!("width / {b} + 1"),
        Grid::Ceil => format!("(width + {}) / {b}", b - 1),
        Grid::HalfBlocks => format!("width / {}", b / 2),
    };
    let blocks = |w: i64| match grid {
        Grid::Floor => w / b,
        Grid::OneMore => w / b + 1,
        Grid::Ceil => (w + b - 1) / b,
        Grid::HalfBlocks => w / (b / 2),
    };
    let cell = match index {
        Index::ColumnFirst => "col + row * w",
        Index::RowFirst => "row * w + col",
        Index::HalfRows => "col + row * (w / 2)",
    };
    let mut k = Src::default();
    k.line("#include \"kern.cuh\"");
    k.line("");
    k.line("__global__ void column_rows(int* out, int w, int h)");
    k.line("{");
    k.line("    int col = blockIdx.x * blockDim.x + threadIdx.x;");
    if guarded {
        k.line("    if (col >= w)");
        k.line("        return;");
    }
    k.line("    for (int row = 0; row < h; row++)");
    k.line(&format!("        out[{cell}] = col * 7 + row;"));
    k.line("}");
    // Two rows meet another thread's: rows half a width apart always
    // (column `w / 2` of row 0 is column 0 of row 1), more threads than
    // columns without the test (column `w` of row 0 is column 0 of row 1).
    let racy = index == Index::HalfRows || (grid != Grid::Floor && !guarded);
    // The launches the host makes for a sample of widths (a grid of no
    // block is no launch).
    let host_launches = [b, b + 1, 2 * b - 1, 2 * b, 3 * b + 5]
        .into_iter()
        .filter(|&w| blocks(w) >= 1)
        .map(|w| HostLaunch {
            shape: LaunchShape {
                grid: [
                    Dim::OneOf(vec![blocks(w) as u32]),
                    Dim::OneOf(vec![1]),
                    Dim::OneOf(vec![1]),
                ],
                block: [
                    Dim::OneOf(vec![b as u32]),
                    Dim::OneOf(vec![1]),
                    Dim::OneOf(vec![1]),
                ],
            },
            scalars: vec![("w".to_string(), w)],
        })
        .collect();
    let prelude = format!(
        "static void smear(int* d, int width, int height)\n{{\n    column_rows<<<{grid_text}, {b}>>>(d, width, height);\n}}\n\n"
    );
    let mut case = host_case(
        rng,
        Family::QuotientGrids,
        ("column_rows", k),
        vec![
            param("out", ParamKind::Pointer),
            param("w", ParamKind::Int),
            param("h", ParamKind::Int),
        ],
        &prelude,
        "    smear(d, argc > 1 ? atoi(argv[1]) : 128, argc > 2 ? atoi(argv[2]) : 4);\n",
        LaunchShape {
            grid: [Dim::Any, Dim::OneOf(vec![1]), Dim::OneOf(vec![1])],
            block: [
                Dim::OneOf(vec![b as u32]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        },
        Vec::new(),
        racy,
        format!("<<<{grid_text}, {b}>>>, out[{cell}], guarded {guarded}"),
    );
    case.host_launches = host_launches;
    case
}
