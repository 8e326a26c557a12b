//! A family for the compare-exchange steps of a sorting network in shared
//! memory (`compare-exchange-steps`): an outer loop over the merge size,
//! an inner loop over the stride with a barrier at its top, and each
//! thread's pair `pos = 2 * t - (t & (stride - 1))` and `pos + stride`.
//! Both threads of a step share its iteration, so the stride is one value
//! for the block: the pairs of distinct threads are disjoint exactly when
//! every stride the loops reach is a power of two and the mask is
//! `stride - 1` (`precheck::interval_pair_disjoint`, `affine`'s power of
//! two by form). The traps: a stride stepped down by one or started off a
//! power of two, a size stepped by two, a mask off by one, the write-back
//! without its barrier. The truth is computed here by enumerating the
//! steps and the threads' cells, never by running the engine or the
//! simulator.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SizeStep {
    /// `size <<= 1`
    Shift,
    /// `size *= 2`
    Double,
    /// `size += 2`: 6, 10, ... give strides that are not powers of two.
    PlusTwo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StrideStart {
    /// `size / 2`
    Half,
    /// `size >> 1`
    Shifted,
    /// `size / 2 + 1`
    HalfPlusOne,
    /// `size - size / 4`: three quarters.
    ThreeQuarters,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StrideStep {
    /// `stride >>= 1`
    Shift,
    /// `stride /= 2`
    Halve,
    /// `stride -= 1`
    MinusOne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mask {
    /// `t & (stride - 1)`
    BelowStride,
    /// `t & stride`
    Stride,
    /// `t & (stride + 1)`
    AboveStride,
}

impl SizeStep {
    fn text(self) -> &'static str {
        match self {
            SizeStep::Shift => "size <<= 1",
            SizeStep::Double => "size *= 2",
            SizeStep::PlusTwo => "size += 2",
        }
    }
    fn next(self, size: u32) -> u32 {
        match self {
            SizeStep::Shift | SizeStep::Double => size * 2,
            SizeStep::PlusTwo => size + 2,
        }
    }
}

impl StrideStart {
    fn text(self) -> &'static str {
        match self {
            StrideStart::Half => "size / 2",
            StrideStart::Shifted => "size >> 1",
            StrideStart::HalfPlusOne => "size / 2 + 1",
            StrideStart::ThreeQuarters => "size - size / 4",
        }
    }
    fn value(self, size: u32) -> u32 {
        match self {
            StrideStart::Half | StrideStart::Shifted => size / 2,
            StrideStart::HalfPlusOne => size / 2 + 1,
            StrideStart::ThreeQuarters => size - size / 4,
        }
    }
}

impl StrideStep {
    fn text(self) -> &'static str {
        match self {
            StrideStep::Shift => "stride >>= 1",
            StrideStep::Halve => "stride /= 2",
            StrideStep::MinusOne => "stride -= 1",
        }
    }
    fn next(self, stride: u32) -> u32 {
        match self {
            StrideStep::Shift | StrideStep::Halve => stride / 2,
            StrideStep::MinusOne => stride - 1,
        }
    }
}

impl Mask {
    fn text(self) -> &'static str {
        match self {
            Mask::BelowStride => "stride - 1",
            Mask::Stride => "stride",
            Mask::AboveStride => "stride + 1",
        }
    }
    fn value(self, stride: u32) -> u32 {
        match self {
            Mask::BelowStride => stride.wrapping_sub(1),
            Mask::Stride => stride,
            Mask::AboveStride => stride + 1,
        }
    }
}

/// The strides of every step the loops run, with `n` keys (`size < n` in
/// the outer loop, `stride > 0` in the inner one).
fn strides(n: u32, size_step: SizeStep, start: StrideStart, step: StrideStep) -> Vec<u32> {
    let mut out = Vec::new();
    let mut size = 2;
    while size < n {
        let mut stride = start.value(size);
        while stride > 0 {
            out.push(stride);
            stride = step.next(stride);
        }
        size = size_step.next(size);
    }
    out
}

/// Whether two distinct threads of `threads` touch one cell in the step of
/// `stride` (each thread reads and may write `pos` and `pos + stride`).
fn step_collides(threads: u32, stride: u32, mask: Mask) -> bool {
    let mut owner = std::collections::HashMap::new();
    for t in 0..threads {
        let pos = (2 * t).wrapping_sub(t & mask.value(stride));
        for cell in [pos, pos.wrapping_add(stride)] {
            if *owner.entry(cell).or_insert(t) != t {
                return true;
            }
        }
    }
    false
}

pub(super) fn compare_exchange_steps(rng: &mut Rng) -> Case {
    let threads = *rng.pick(&[16u32, 32]);
    let n = 2 * threads;
    let size_step = *rng.pick(&[
        SizeStep::Shift,
        SizeStep::Shift,
        SizeStep::Double,
        SizeStep::PlusTwo,
    ]);
    let start = *rng.pick(&[
        StrideStart::Half,
        StrideStart::Half,
        StrideStart::Shifted,
        StrideStart::HalfPlusOne,
        StrideStart::ThreeQuarters,
    ]);
    let step = *rng.pick(&[
        StrideStep::Shift,
        StrideStep::Shift,
        StrideStep::Halve,
        StrideStep::MinusOne,
    ]);
    let mask = *rng.pick(&[
        Mask::BelowStride,
        Mask::BelowStride,
        Mask::BelowStride,
        Mask::Stride,
        Mask::AboveStride,
    ]);
    let write_back_barrier = rng.below(4) != 0;
    let mut k = Src::default();
    k.line("__global__ void sort_steps(unsigned* keys)");
    k.line("{");
    k.line(&format!(
        "    __requires(blockDim.x == {threads} && blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1);"
    ));
    // Room for every cell a trap's stride reaches (below 4 * threads).
    k.line(&format!("    __shared__ unsigned s[{}];", 4 * n));
    k.line("    unsigned t = threadIdx.x;");
    k.line(&format!("    unsigned base = blockIdx.x * {n};"));
    k.line("    s[t] = keys[base + t];");
    k.line(&format!(
        "    s[t + {threads}] = keys[base + t + {threads}];"
    ));
    k.line(&format!(
        "    for (unsigned size = 2; size < {n}; {}) {{",
        size_step.text()
    ));
    k.line("        unsigned up = (t & (size / 2)) == 0;");
    k.line(&format!(
        "        for (unsigned stride = {}; stride > 0; {}) {{",
        start.text(),
        step.text()
    ));
    let inner_barrier = k.line("            __syncthreads();");
    k.line(&format!(
        "            unsigned pos = 2 * t - (t & ({}));",
        mask.text()
    ));
    k.line("            unsigned a = s[pos];");
    k.line("            unsigned b = s[pos + stride];");
    k.line("            if ((a > b) == up) {");
    k.line("                s[pos] = b;");
    k.line("                s[pos + stride] = a;");
    k.line("            }");
    k.line("        }");
    k.line("    }");
    let last_barrier = write_back_barrier.then(|| k.line("    __syncthreads();"));
    k.line("    keys[base + t] = s[t];");
    k.line(&format!(
        "    keys[base + t + {threads}] = s[t + {threads}];"
    ));
    k.line("}");
    let steps = strides(n, size_step, start, step);
    let steps_collide = steps.iter().any(|&s| step_collides(threads, s, mask));
    // Any two steps (and the load before the first) are ordered by the
    // inner barrier: without it, consecutive steps' pairs meet (and the
    // load meets the first step) as soon as there is a step.
    let write_back_races = !steps.is_empty() && !write_back_barrier;
    let racy = steps_collide || write_back_races;
    let mut truth = Truth {
        racy,
        ..Truth::default()
    };
    truth.barriers.push((inner_barrier, !steps.is_empty()));
    if let Some(line) = last_barrier {
        truth.barriers.push((line, !steps.is_empty()));
    }
    single(
        "sort_steps",
        k,
        vec![param("keys", ParamKind::Pointer)],
        vec![LaunchShape {
            grid: [Dim::Any, Dim::OneOf(vec![1]), Dim::OneOf(vec![1])],
            block: [
                Dim::OneOf(vec![threads]),
                Dim::OneOf(vec![1]),
                Dim::OneOf(vec![1]),
            ],
        }],
        truth,
        format!(
            "threads={threads} {}, stride = {}; {}, mask t & ({}), write-back barrier {write_back_barrier}",
            size_step.text(),
            start.text(),
            step.text(),
            mask.text()
        ),
    )
}
