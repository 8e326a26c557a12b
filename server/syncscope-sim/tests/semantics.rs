//! The simulator's semantics, one small kernel per mechanism: each asserts
//! the exact outcome (the race's array and lines, the divergence's barrier).

use std::path::Path;

use syncscope_sim::{
    kernels, simulate, Fill, Inputs, Launch, Order, Outcome, Race, Scalar, SimOptions,
};

fn launch(grid: u32, block: u32) -> Launch {
    Launch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
    }
}

fn sim_with(src: &str, l: Launch, inputs: &Inputs, opts: &SimOptions) -> Outcome {
    let k = kernels(src);
    assert_eq!(k.len(), 1, "one kernel in {src}");
    simulate(Path::new("/nonexistent/k.cu"), src, &k[0], &l, inputs, opts)
}

fn sim(src: &str, l: Launch) -> Outcome {
    sim_with(src, l, &Inputs::default(), &SimOptions::default())
}

fn race(o: Outcome) -> Race {
    match o {
        Outcome::Race(r) => r,
        other => panic!("expected a race, got {other:?}"),
    }
}

fn lines(r: &Race) -> (usize, usize) {
    (r.a.line.min(r.b.line), r.a.line.max(r.b.line))
}

#[test]
fn a_shared_write_read_by_a_neighbour_without_a_barrier_races() {
    let src = "__global__ void k(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
";
    let r = race(sim(src, launch(1, 64)));
    assert_eq!(r.array, "s");
    assert_eq!(lines(&r), (3, 4));
    assert!(r.a.write != r.b.write, "{r:?}");
}

#[test]
fn the_same_with_a_barrier_is_clean() {
    let src = "__global__ void k(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
";
    assert_eq!(sim(src, launch(1, 64)), Outcome::Clean);
    assert_eq!(sim(src, launch(3, 64)), Outcome::Clean);
}

#[test]
fn a_barrier_under_a_thread_dependent_condition_diverges() {
    let src = "__global__ void k(int* a) {
  if (threadIdx.x < 16) {
    a[threadIdx.x] = 1;
    __syncthreads();
  }
}
";
    match sim(src, launch(1, 32)) {
        Outcome::Divergence { line, block, .. } => {
            assert_eq!(line, 4);
            assert_eq!(block, [0, 0, 0]);
        }
        other => panic!("{other:?}"),
    }
    // Every thread takes the branch: no divergence.
    assert_eq!(sim(src, launch(1, 16)), Outcome::Clean);
}

#[test]
fn the_same_barrier_in_different_iterations_is_divergence() {
    let src = "__global__ void k(int* a) {
  for (int i = 0; i < 2; i++) {
    if ((i + threadIdx.x) % 2 == 0) {
      __syncthreads();
    }
  }
}
";
    assert!(matches!(
        sim(src, launch(1, 2)),
        Outcome::Divergence { line: 4, .. }
    ));
}

#[test]
fn a_value_passed_between_threads_without_a_barrier_races() {
    let src = "__global__ void k(int* a, int* e, int* out) {
  if (threadIdx.x == 0) a[0] = 5;
  if (threadIdx.x == 1) e[0] = a[0] + 1;
  if (threadIdx.x == 0) out[0] = e[0];
}
";
    let r = race(sim(src, launch(1, 2)));
    // Thread 0 runs first: its read of `e` on line 4 and thread 1's write.
    assert_eq!(r.array, "a");
    assert_eq!(lines(&r), (2, 3));
    // The other order finds the same pair (happens-before, not the order run).
    let rev = SimOptions {
        order: Order::Reverse,
        ..SimOptions::default()
    };
    let r = race(sim_with(src, launch(1, 2), &Inputs::default(), &rev));
    assert_eq!(r.array, "a");
}

#[test]
fn one_thread_per_block_updating_one_counter_races_between_blocks() {
    let src = "__global__ void k(int* t) {
  if (threadIdx.x == 0) *t += 1;
}
";
    assert_eq!(sim(src, launch(1, 32)), Outcome::Clean);
    let r = race(sim(src, launch(2, 32)));
    assert_eq!(r.array, "t");
    assert_eq!(r.index, 0);
    assert_ne!(r.a.block, r.b.block);
    assert_eq!((r.a.line, r.b.line), (2, 2));
}

#[test]
fn nan_is_not_equal_to_itself() {
    let src = "__global__ void k(float* in, float* out) {
  float v = in[0] / in[1];
  if (v != v) out[threadIdx.x % 2] = 1.0f;
}
";
    // 0/0 is NaN: the branch is live and two threads write one element.
    let r = race(sim(src, launch(1, 4)));
    assert_eq!(r.array, "out");
    let ones = Inputs {
        fill: Fill::Constant(1.0),
        ..Inputs::default()
    };
    assert_eq!(
        sim_with(src, launch(1, 4), &ones, &SimOptions::default()),
        Outcome::Clean
    );
}

#[test]
fn unsigned_carry_is_machine_arithmetic() {
    let src = "__global__ void k(unsigned base, int* out) {
  unsigned t = threadIdx.x;
  if (base + t < base) out[0] = t;
}
";
    let big = Inputs {
        scalars: [("base".to_string(), Scalar::Int(0xffff_fff0))].into(),
        ..Inputs::default()
    };
    // Threads 16.. wrap around and all write out[0].
    let r = race(sim_with(src, launch(1, 32), &big, &SimOptions::default()));
    assert_eq!(r.array, "out");
    assert!(r.a.thread[0] >= 16 && r.b.thread[0] >= 16, "{r:?}");
    assert_eq!(sim(src, launch(1, 32)), Outcome::Clean);
}

#[test]
fn a_half_warp_syncwarp_orders_only_that_half() {
    let half = "__global__ void k(int* out) {
  __shared__ int s[32];
  unsigned lane = threadIdx.x % 32;
  s[lane] = lane;
  if (lane < 16) __syncwarp(0x0000ffff); else __syncwarp(0xffff0000);
  out[threadIdx.x] = s[OTHER];
}
";
    let within = half.replace("OTHER", "lane ^ 1");
    assert_eq!(sim(&within, launch(1, 32)), Outcome::Clean);
    let across = half.replace("OTHER", "(lane + 16) % 32");
    let r = race(sim(&across, launch(1, 32)));
    assert_eq!(r.array, "s");
    assert_eq!(lines(&r), (4, 6));
}

#[test]
fn a_full_warp_syncwarp_orders_the_warp_but_not_two_warps() {
    let src = "__global__ void k(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = s[OTHER];
}
";
    let same_warp = src.replace("OTHER", "threadIdx.x ^ 31");
    assert_eq!(sim(&same_warp, launch(1, 64)), Outcome::Clean);
    let other_warp = src.replace("OTHER", "(threadIdx.x + 32) % 64");
    assert_eq!(race(sim(&other_warp, launch(1, 64))).array, "s");
}

#[test]
fn lanes_of_a_warp_are_not_in_lock_step() {
    let src = "__global__ void k(int* out) {
  __shared__ int s[32];
  s[threadIdx.x] = 1;
  out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}
";
    assert_eq!(race(sim(src, launch(1, 32))).array, "s");
}

#[test]
fn an_atomic_and_a_plain_access_race() {
    let src = "__global__ void k(int* c, int* out) {
  if (threadIdx.x == 0) atomicAdd(c, 1);
  if (threadIdx.x == 1) out[0] = *c;
}
";
    let r = race(sim(src, launch(1, 2)));
    assert_eq!(r.array, "c");
    assert!(r.a.atomic != r.b.atomic, "{r:?}");
}

#[test]
fn atomics_do_not_race_with_each_other_and_count_right() {
    let src = "__global__ void k(int* c, int* out) {
  int old = atomicAdd(&c[0], 1);
  __syncthreads();
  // After the barrier every thread of the block has added its 1 (blocks
  // run one after the other, in some order).
  int now = atomicAdd(c, 0);
  if (now == 0 || now % 64 != 0) out[100000] = 1;
  if (threadIdx.x == 0) out[blockIdx.x] = old;
}
";
    for order in [Order::Forward, Order::Reverse, Order::Seeded(7)] {
        let opts = SimOptions {
            order,
            ..SimOptions::default()
        };
        for grid in [1, 3] {
            assert_eq!(
                sim_with(src, launch(grid, 64), &Inputs::default(), &opts),
                Outcome::Clean
            );
        }
    }
    // The same counter written plainly by two blocks races.
    let plain = src.replace("atomicAdd(&c[0], 1)", "c[0]++");
    assert_eq!(race(sim(&plain, launch(2, 64))).array, "c");
}

#[test]
fn an_index_past_the_end_is_out_of_bounds_not_a_race() {
    let src = "__global__ void k(float* a) {
  __shared__ float s[32];
  s[threadIdx.x + 1] = a[threadIdx.x];
}
";
    match sim(src, launch(1, 32)) {
        Outcome::OutOfBounds {
            array,
            index,
            line,
            thread,
            ..
        } => {
            assert_eq!((array.as_str(), index, line), ("s", 32, 3));
            assert_eq!(thread, [31, 0, 0]);
        }
        other => panic!("{other:?}"),
    }
    let global = "__global__ void k(float* a) { a[threadIdx.x * 100] = 1.0f; }\n";
    let small = Inputs {
        buffer_len: 1000,
        ..Inputs::default()
    };
    assert!(matches!(
        sim_with(global, launch(1, 32), &small, &SimOptions::default()),
        Outcome::OutOfBounds { index: 1000, .. }
    ));
}

#[test]
fn a_false_precondition_makes_the_launch_vacuous() {
    let src = "__global__ void k(int* a) {
  __requires(blockDim.x == 64);
  __shared__ int s[64];
  s[threadIdx.x] = 1;
  __syncthreads();
  a[threadIdx.x] = s[63 - threadIdx.x];
}
";
    assert_eq!(sim(src, launch(1, 64)), Outcome::Clean);
    assert_eq!(sim(src, launch(1, 32)), Outcome::Vacuous);
    assert_eq!(sim(src, launch(1, 128)), Outcome::Vacuous);
}

#[test]
fn a_define_with_a_trailing_comment() {
    let src = "#define HALO 16 // the halo
__global__ void k(int* a) {
  __shared__ int s[64 + HALO];
  s[threadIdx.x + HALO] = 1;
  __syncthreads();
  a[threadIdx.x] = s[threadIdx.x];
}
";
    assert_eq!(sim(src, launch(1, 64)), Outcome::Clean);
    assert!(matches!(
        sim(src, launch(1, 128)),
        Outcome::OutOfBounds { index: 80, .. }
    ));
}

#[test]
fn an_included_device_helper() {
    let dir = std::env::temp_dir().join(format!("syncscope-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("local.cuh"),
        "#pragma once\n__device__ int neighbour(int i) {\n  return (i + 1) % 32;\n}\n",
    )
    .unwrap();
    let src = "#include \"local.cuh\"
__global__ void k(int* a) {
  __shared__ int s[32];
  s[threadIdx.x] = 1;
  SYNC
  a[threadIdx.x] = s[neighbour(threadIdx.x)];
}
";
    let file = dir.join("k.cu");
    let run = |text: &str| {
        simulate(
            &file,
            text,
            "k",
            &launch(1, 32),
            &Inputs::default(),
            &SimOptions::default(),
        )
    };
    assert_eq!(
        run(&src.replace("SYNC", "__syncthreads();")),
        Outcome::Clean
    );
    let r = race(run(&src.replace("SYNC", "")));
    assert_eq!(lines(&r), (4, 6));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_barrier_inside_a_device_function() {
    let src = "__device__ void stage(int* s, int v) {
  s[threadIdx.x] = v;
  __syncthreads();
}
__global__ void k(int* out) {
  __shared__ int s[32];
  stage(s, 3);
  out[threadIdx.x] = s[31 - threadIdx.x];
}
";
    let k = kernels(src);
    assert_eq!(k, ["k"]);
    let o = simulate(
        Path::new("k.cu"),
        src,
        "k",
        &launch(1, 32),
        &Inputs::default(),
        &SimOptions::default(),
    );
    assert_eq!(o, Outcome::Clean);
}

#[test]
fn shuffles_exchange_values_between_lanes() {
    let src = "__global__ void k(int* out) {
  int v = threadIdx.x;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
  if (threadIdx.x == 0) out[0] = v;
  if (threadIdx.x == 0 && v != 496) out[100000] = 1;
}
";
    assert_eq!(sim(src, launch(1, 32)), Outcome::Clean);
}

#[test]
fn an_early_return_before_a_barrier_is_divergence() {
    let src = "__global__ void k(int* a, int n) {
  if (threadIdx.x >= n) return;
  a[threadIdx.x] = 1;
  __syncthreads();
}
";
    let n = |v: i64| Inputs {
        scalars: [("n".to_string(), Scalar::Int(v))].into(),
        ..Inputs::default()
    };
    assert!(matches!(
        sim_with(src, launch(1, 32), &n(16), &SimOptions::default()),
        Outcome::Divergence { line: 4, .. }
    ));
    assert_eq!(
        sim_with(src, launch(1, 32), &n(32), &SimOptions::default()),
        Outcome::Clean
    );
}

#[test]
fn an_endless_loop_stops_at_the_step_limit() {
    let src = "__global__ void k(int* a) {
  while (a[0] == 0) { }
}
";
    let opts = SimOptions {
        max_steps: 10_000,
        ..SimOptions::default()
    };
    assert_eq!(
        sim_with(src, launch(1, 4), &Inputs::default(), &opts),
        Outcome::StepLimit
    );
}

#[test]
fn fences_are_unsupported_not_a_silent_answer() {
    let src = "__global__ void k(int* a, int* flag) {
  a[0] = 1;
  __threadfence();
  atomicExch(flag, 1);
}
";
    assert!(matches!(sim(src, launch(1, 1)), Outcome::Unsupported(w) if w.contains("fence")));
}

#[test]
fn garbage_is_unsupported_and_never_panics() {
    let inputs = Inputs::default();
    let opts = SimOptions::default();
    for text in [
        "",
        "}}}{{{",
        "__global__ void k( { int x = ; }",
        "__global__ void k(int* a) { a[0] = @; }",
        "__global__ void k(int* a) { a[0] = 1 / 0; }",
        "#if\n#endif",
        "#define F(x) x\n__global__ void k(int* a) { a[0] = F(1",
        "__global__ void k(int* a) { a[threadIdx.x] = 1 << 40; }",
        "__global__ void k(int* a) { int* p = 0; *p = 1; }",
        "__global__ void k(int* a) { k(a); }",
    ] {
        let o = simulate(Path::new("g.cu"), text, "k", &launch(1, 4), &inputs, &opts);
        assert!(
            matches!(o, Outcome::Unsupported(_) | Outcome::StepLimit),
            "{text:?}: {o:?}"
        );
    }
}

#[test]
fn kernels_lists_the_global_functions() {
    let src = "__device__ int f(int x) { return x; }
__global__ void first(int* a) { a[0] = f(1); }
template <int N> __global__ void second(int* a) { a[0] = N; }
";
    assert_eq!(kernels(src), ["first", "second"]);
    let macro_declared = "#define KERNEL extern \"C\" __global__\nKERNEL void third(int* a) { a[0] = 1; }\n#if 0\n__global__ void hidden() {}\n#endif\n";
    assert_eq!(kernels(macro_declared), ["third"]);
}

/// A kernel that writes `out[100000]` (past every buffer) when its own
/// check fails: the simulator's values are then asserted by the outcome.
fn values_hold(src: &str, l: Launch) {
    assert_eq!(sim(src, l), Outcome::Clean, "{src}");
}

#[test]
fn statements_and_values() {
    values_hold(
        "__device__ int twice(int x) { return 2 * x; }
__device__ unsigned char narrow(int x) { return x; }
__global__ void k(int* out) {
  int t = threadIdx.x;
  auto d = twice(t);
  int sum = 0;
  int i = 0;
  do { sum += i; i++; } while (i < 4);
  int kind = 0;
  switch (t % 3) {
    case 0: kind = 10; break;
    case 1: kind = 20;
    default: kind += 1;
  }
  int local[4] = {1, 2};
  local[3] = 7;
  float f = 1.0f / 3.0f;
  double g = 1.0 / 3.0;
  bool ok = d == 2 * t && sum == 6 && narrow(300) == 44 && local[1] + local[2] + local[3] == 9
      && (t % 3 == 0 ? kind == 10 : t % 3 == 1 ? kind == 21 : kind == 1)
      && (double)f != g && (t >= 0 ? 3 : 2.0f) / 2 == 1.5f && -7 / 2 == -3 && -7 % 2 == -1 && (5u - 6u) > 0 && (1 << 31) < 0;
  if (!ok) out[100000] = 1;
}
",
        launch(1, 6),
    );
}

#[test]
fn two_dimensional_shared_arrays_and_blocks() {
    let src = "#define T 8
__global__ void k(float* out) {
  __shared__ float tile[T][T + 1];
  tile[threadIdx.y][threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[(blockIdx.x * T + threadIdx.y) * T + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
  if (tile[threadIdx.x][threadIdx.y] != threadIdx.y) out[100000] = 1;
}
";
    let l = Launch {
        grid: [2, 1, 1],
        block: [8, 8, 1],
    };
    assert_eq!(sim(src, l), Outcome::Clean);
    let racy = src.replace("__syncthreads();", "");
    let r = race(sim(&racy, l));
    assert_eq!(r.array, "tile");
    assert_eq!(lines(&r), (4, 6));
}

#[test]
fn barrier_counts_and_votes() {
    values_hold(
        "__global__ void k(int* out) {
  int n = __syncthreads_count(threadIdx.x % 4 == 0);
  int all = __syncthreads_and(threadIdx.x < 64);
  int any = __syncthreads_or(threadIdx.x == 63);
  if (__syncthreads_and(threadIdx.x < 63) != 0 || __syncthreads_or(threadIdx.x > 63) != 0
      || all != 1 || any != 1) out[100000] = 1;
  unsigned b = __ballot_sync(0xffffffff, threadIdx.x % 2);
  if (n != 16 || !all || !any || b != 0xaaaaaaaau || __popc(b) != 16) out[100000] = 1;
}
",
        launch(1, 64),
    );
}

#[test]
fn a_partial_last_warp_synchronises_without_its_missing_lanes() {
    let src = "__global__ void k(int* out) {
  __shared__ int s[48];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = s[32 + (threadIdx.x + 1) % 16];
}
";
    // Warp 1 (threads 32..47) orders its own lanes; warp 0 reads them too.
    assert_eq!(race(sim(src, launch(1, 48))).array, "s");
    let own = src.replace(
        "32 + (threadIdx.x + 1) % 16",
        "threadIdx.x / 32 * 32 + (threadIdx.x + 1) % 16",
    );
    assert_eq!(sim(&own, launch(1, 48)), Outcome::Clean);
}

#[test]
fn a_lane_missing_from_a_warp_sync_is_divergence() {
    let src = "__global__ void k(int* out) {
  if (threadIdx.x % 32 < 16) return;
  __syncwarp();
  out[threadIdx.x] = 1;
}
";
    assert!(matches!(
        sim(src, launch(1, 32)),
        Outcome::Divergence { line: 3, .. }
    ));
}

#[test]
fn unmodelled_types_are_unsupported() {
    for src in [
        "struct P { int x; __device__ int get() { return x; } };\n__global__ void k(P* a) { a[0].x = 1; }\n",
        "union U { int x; float f; };\n__global__ void k(U* a) { a[0].x = 1; }\n",
        "__global__ void k(float* a) { int* v = (int*)a; v[0] = 1; }\n",
        "__global__ void k(int* a) { asm(\"trap;\"); }\n",
    ] {
        assert!(
            matches!(sim(src, launch(1, 2)), Outcome::Unsupported(_)),
            "{src}"
        );
    }
}

#[test]
fn same_value_writes_are_a_race_marked_as_such_and_reported_last() {
    let src = "__global__ void k(int* flag, int* out) {
  flag[0] = VALUE;
  out[threadIdx.x] = 1;
}
";
    let same = race(sim(&src.replace("VALUE", "1"), launch(1, 4)));
    assert!(same.same_value, "{same:?}");
    assert_eq!(
        (same.array.as_str(), same.a.line, same.b.line),
        ("flag", 2, 2)
    );
    let different = race(sim(&src.replace("VALUE", "threadIdx.x"), launch(1, 4)));
    assert!(!different.same_value, "{different:?}");
    // A real race elsewhere in the run wins over a same-value one.
    let both = "__global__ void k(int* flag, int* out) {
  flag[0] = 1;
  out[0] = threadIdx.x;
}
";
    let r = race(sim(both, launch(1, 4)));
    assert!(!r.same_value);
    assert_eq!(r.array, "out");
}

#[test]
fn extern_shared_arrays_share_one_buffer() {
    let src = "__global__ void k(int* out) {
  extern __shared__ int a[];
  extern __shared__ int b[];
  a[threadIdx.x] = threadIdx.x;
  SYNC
  out[threadIdx.x] = b[(threadIdx.x + 1) % 32];
}
";
    assert_eq!(
        sim(&src.replace("SYNC", "__syncthreads();"), launch(1, 32)),
        Outcome::Clean
    );
    let r = race(sim(&src.replace("SYNC", ""), launch(1, 32)));
    assert_eq!(lines(&r), (4, 6));
}

#[test]
fn cooperative_groups_block_and_tiles() {
    let src = "#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  __shared__ int s[64];
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  unsigned r = block.thread_rank();
  s[r] = r;
  SYNC;
  out[block.group_index().x * 64 + r] = s[OTHER];
  int v = tile.thread_rank();
  for (int d = tile.size() / 2; d > 0; d /= 2) v += tile.shfl_down(v, d);
  if (tile.thread_rank() == 0 && v != 120) out[1000000] = 1;
}
";
    let run = |sync: &str, other: &str| {
        sim(
            &src.replace("SYNC", sync).replace("OTHER", other),
            launch(2, 64),
        )
    };
    assert_eq!(run("block.sync()", "63 - r"), Outcome::Clean);
    assert_eq!(run("cg::sync(block)", "63 - r"), Outcome::Clean);
    assert_eq!(race(run("tile.sync()", "63 - r")).array, "s");
    // A tile's sync orders the lanes of that tile only.
    assert_eq!(run("tile.sync()", "r ^ 15"), Outcome::Clean);
    assert_eq!(race(run("tile.sync()", "r ^ 16")).array, "s");
}

#[test]
fn interleaving_atomics_finds_races_that_need_two_winners() {
    let src = "__global__ void k(int* winner, int* flag_a, int* flag_b) {
  if (atomicCAS(flag_a, 0, 1) == 0) winner[0] = threadIdx.x;
  if (atomicCAS(flag_b, 0, 1) == 0) winner[0] = threadIdx.x + 100;
}
";
    // Run to completion one at a time, one thread wins both elections.
    assert_eq!(sim(src, launch(1, 8)), Outcome::Clean);
    let found = (0..20).any(|seed| {
        let opts = SimOptions {
            order: Order::Interleaved(seed),
            ..SimOptions::default()
        };
        matches!(
            sim_with(src, launch(1, 8), &Inputs::default(), &opts),
            Outcome::Race(r) if r.array == "winner" && !r.same_value
        )
    });
    assert!(found);
    // One election: one winner whatever the interleaving.
    let one = "__global__ void k(int* winner, int* flag_a, int* flag_b) {
  if (atomicCAS(flag_a, 0, 1) == 0) winner[0] = threadIdx.x;
}
";
    for seed in 0..20 {
        let opts = SimOptions {
            order: Order::Interleaved(seed),
            ..SimOptions::default()
        };
        assert_eq!(
            sim_with(one, launch(1, 8), &Inputs::default(), &opts),
            Outcome::Clean
        );
    }
}

#[test]
fn template_kernels_and_explicit_template_calls() {
    let src = "template <int N>
__global__ void fold(float* out, const float* in) {
  __shared__ float s[N];
  s[threadIdx.x % N] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[N - 1 - threadIdx.x % N];
}
template __global__ void fold<64>(float* out, const float* in);
";
    let run = |kernel: &str, block: u32| {
        simulate(
            Path::new("t.cu"),
            src,
            kernel,
            &launch(1, block),
            &Inputs::default(),
            &SimOptions::default(),
        )
    };
    // The explicit instantiation: N = 64.
    assert_eq!(run("fold", 64), Outcome::Clean);
    assert_eq!(race(run("fold", 128)).array, "s");
    // Asked for by name with its argument.
    assert_eq!(run("fold<128>", 128), Outcome::Clean);
    assert_eq!(race(run("fold<32>", 64)).array, "s");

    let typed = "template <typename T, int K = 2>
__device__ T scale(T v) { return v * K; }
template <typename T>
__global__ void k(T* out) {
  T v = scale<T>(threadIdx.x);
  T w = scale<T, 3>(1.5);
  if (v != 2 * threadIdx.x || w != (T)1.5 * 3) out[100000] = 1;
  out[threadIdx.x] = v + w;
}
";
    for kernel in ["k<int>", "k<float>", "k<unsigned int>"] {
        let o = simulate(
            Path::new("t.cu"),
            typed,
            kernel,
            &launch(1, 32),
            &Inputs::default(),
            &SimOptions::default(),
        );
        assert_eq!(o, Outcome::Clean, "{kernel}");
    }
    // Without arguments and without an instantiation: unsupported, named.
    let o = simulate(
        Path::new("t.cu"),
        typed,
        "k",
        &launch(1, 32),
        &Inputs::default(),
        &SimOptions::default(),
    );
    assert!(matches!(o, Outcome::Unsupported(w) if w.contains("template")));
}

#[test]
fn template_arguments_deduced_from_the_call() {
    let src = "template <typename T>
__device__ T sum_op(T a, T b) { return a + b; }
template <typename T>
__device__ void load_block(T* sdata, const T* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = i < n ? in[i] : T(0);
}
__global__ void k(float* out, const float* in, unsigned n) {
  __shared__ float s[64];
  load_block(s, in, n);
  SYNC
  float half = 0.5f;
  out[blockIdx.x * 64 + threadIdx.x] = sum_op(s[63 - threadIdx.x], half);
  if (sum_op(1u, 2u) != 3u) out[1000000] = 1;
}
";
    assert_eq!(
        sim(&src.replace("SYNC", "__syncthreads();"), launch(2, 64)),
        Outcome::Clean
    );
    let r = race(sim(&src.replace("SYNC", ""), launch(2, 64)));
    assert_eq!((r.array.as_str(), lines(&r)), ("s", (6, 13)));
}

#[test]
fn the_order_also_orders_blocks() {
    let src = "__global__ void k(int* c, int* out) {
  if (threadIdx.x == 0 && atomicAdd(c, 1) == 0 && blockIdx.x == 1) out[100000] = 1;
}
";
    assert_eq!(sim(src, launch(2, 32)), Outcome::Clean);
    let rev = SimOptions {
        order: Order::Reverse,
        ..SimOptions::default()
    };
    assert!(matches!(
        sim_with(src, launch(2, 32), &Inputs::default(), &rev),
        Outcome::OutOfBounds {
            block: [1, 0, 0],
            ..
        }
    ));
}

#[test]
fn structs_and_vector_types() {
    let src = "struct Acc { float sum; int count; float hist[2]; };
typedef struct { int lo; int hi; } Range;
__device__ Acc bump(Acc a, float v) { a.sum += v; a.count++; return a; }
__global__ void k(float4* in, Acc* out, Range* r) {
  __shared__ Acc s[32];
  float4 v = in[threadIdx.x];
  float4 w = make_float4(v.x, v.y, v.z, v.w + 1.0f);
  Acc a = {0.0f, 0, {1.0f, 2.0f}};
  a = bump(a, w.x + w.y + w.z + w.w);
  if (a.count != 1 || a.hist[1] != 2.0f || a.sum != w.x + w.y + w.z + w.w || w.w != v.w + 1.0f) out[1000000].count = 1;
  s[threadIdx.x] = a;
  s[threadIdx.x].hist[0] = 5.0f;
  SYNC
  out[threadIdx.x] = s[OTHER];
  r[threadIdx.x].lo = threadIdx.x;
  r[(threadIdx.x + 1) % 32].hi = threadIdx.x;
}
";
    let run = |sync: &str, other: &str| {
        let inputs = Inputs {
            fill: Fill::Random(5),
            ..Inputs::default()
        };
        sim_with(
            &src.replace("SYNC", sync).replace("OTHER", other),
            launch(1, 32),
            &inputs,
            &SimOptions::default(),
        )
    };
    // Different members of one element are different cells.
    assert_eq!(run("__syncthreads();", "31 - threadIdx.x"), Outcome::Clean);
    let r = race(run("", "31 - threadIdx.x"));
    assert_eq!(r.array, "s");
    assert_eq!(lines(&r), (11, 14));
    // The by-value parameter was a copy: the caller's `a` changed only by
    // the assignment of the result (checked in the kernel), and a
    // thread's own element copied back and forth is no race.
    assert_eq!(run("", "threadIdx.x"), Outcome::Clean);
}

#[test]
fn a_vector_view_of_a_scalar_buffer() {
    let src = "__global__ void k(float* a, float* out) {
  const float4* v = reinterpret_cast<const float4*>(a);
  float4 x = v[threadIdx.x];
  out[threadIdx.x] = x.x + x.w;
  a[4 * ((threadIdx.x + OFF) % 32) + 3] = 1.0f;
}
";
    // Thread t reads a[4t..4t+3] and writes a[4(t+OFF)+3].
    assert_eq!(sim(&src.replace("OFF", "0"), launch(1, 32)), Outcome::Clean);
    let r = race(sim(&src.replace("OFF", "1"), launch(1, 32)));
    assert_eq!((r.array.as_str(), r.index % 4, lines(&r)), ("a", 3, (3, 5)));
    let bytes = "__global__ void k(float* a) { char* c = (char*)a; c[threadIdx.x] = 0; }\n";
    assert!(matches!(sim(bytes, launch(1, 4)), Outcome::Unsupported(_)));
}

#[test]
fn hostile_nesting_is_unsupported_not_a_crash() {
    let deep = format!(
        "__global__ void k(int* a) {{ a[0] = {}1{}; }}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(matches!(sim(&deep, launch(1, 2)), Outcome::Unsupported(w) if w.contains("nesting")));
    let blocks = format!(
        "__global__ void k(int* a) {{ {} a[0] = 1; {} }}\n",
        "{".repeat(50_000),
        "}".repeat(50_000)
    );
    assert!(matches!(
        sim(&blocks, launch(1, 2)),
        Outcome::Unsupported(_)
    ));
    // A long but shallow kernel runs.
    let long = format!(
        "__global__ void k(int* a) {{ {} }}\n",
        "a[threadIdx.x] += 1;\n".repeat(2_000)
    );
    assert_eq!(sim(&long, launch(1, 2)), Outcome::Clean);
}

/// Token soup around a kernel: whatever comes back, it is an answer of the
/// simulator, never a panic or an internal error.
#[test]
fn token_soup_never_panics_nor_fails_internally() {
    let tokens = [
        "__global__",
        "void",
        "k",
        "(",
        ")",
        "{",
        "}",
        "int",
        "*",
        "a",
        ",",
        ";",
        "=",
        "[",
        "]",
        "threadIdx.x",
        "__syncthreads()",
        "__shared__",
        "float",
        "s",
        "if",
        "for",
        "while",
        "+",
        "-",
        "/",
        "%",
        "<<",
        "1",
        "0",
        "32",
        "return",
        "atomicAdd",
        "&",
        "__syncwarp",
        "0xffff",
        "#define",
        "#if",
        "#endif",
        "\n",
        "template",
        "<",
        ">",
        "typename",
        "T",
        "struct",
        ".",
        "->",
        "__shfl_sync",
        "unsigned",
        "break",
        "continue",
        "?",
        ":",
        "do",
        "switch",
        "case",
    ];
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let opts = SimOptions {
        max_steps: 100_000,
        ..SimOptions::default()
    };
    for _ in 0..300 {
        let n = 5 + next() % 60;
        let mut text = String::from("__global__ void k(int* a) {\n");
        for _ in 0..n {
            text.push_str(tokens[(next() % tokens.len() as u64) as usize]);
            text.push(' ');
        }
        text.push_str("\n}\n");
        let o = simulate(
            Path::new("soup.cu"),
            &text,
            "k",
            &launch(2, 33),
            &Inputs::default(),
            &opts,
        );
        assert!(
            !matches!(&o, Outcome::Unsupported(w) if w.contains("internal")),
            "{text}: {o:?}"
        );
    }
}

#[test]
fn assertions_and_bit_casts() {
    let src = "__global__ void k(float* a, int* out) {
  __assert(__implies(threadIdx.x < 4, threadIdx.x < 8));
  if (__float_as_int(1.0f) != 0x3f800000 || __int_as_float(0x40000000) != 2.0f) out[100000] = 1;
  assert(threadIdx.x != LIMIT);
}
";
    assert_eq!(
        sim(&src.replace("LIMIT", "100"), launch(1, 8)),
        Outcome::Clean
    );
    assert_eq!(
        sim(&src.replace("LIMIT", "5"), launch(1, 8)),
        Outcome::AssertionFailed {
            thread: [5, 0, 0],
            block: [0, 0, 0],
            line: 4
        }
    );
}

#[test]
fn goto_forward_out_of_loops_and_backward() {
    let src = "__global__ void k(int* out, int stop) {
  __shared__ int s[32];
  int i = 0;
  for (int r = 0; r < 4; r++) {
    for (int j = 0; j < 4; j++) {
      if (r == stop) goto finish;
      s[threadIdx.x] = r;
      __syncthreads();
    }
  }
finish:
  __syncthreads();
  out[threadIdx.x] = s[31 - threadIdx.x];
again:
  i++;
  if (i < 3) goto again;
  if (i != 3) out[100000] = 1;
}
";
    let stop = |v: i64| Inputs {
        scalars: [("stop".to_string(), Scalar::Int(v))].into(),
        ..Inputs::default()
    };
    // Every thread leaves in the same iteration: the barrier after the
    // label is one barrier for all.
    for v in [0, 2, 9] {
        assert_eq!(
            sim_with(src, launch(1, 32), &stop(v), &SimOptions::default()),
            Outcome::Clean,
            "stop = {v}"
        );
    }
    // Leaving in a thread-dependent iteration: divergence.
    let diverge = src.replace("r == stop", "r == threadIdx.x % 2");
    assert!(matches!(
        sim_with(&diverge, launch(1, 32), &stop(0), &SimOptions::default()),
        Outcome::Divergence { .. }
    ));
}

#[test]
fn printf_arguments_are_read() {
    let src = "__global__ void k(int* out) {
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  printf(\"%d \" \"%d\\n\", threadIdx.x, s[(threadIdx.x + 1) % 32]);
}
";
    let r = race(sim(src, launch(1, 32)));
    assert_eq!((r.array.as_str(), lines(&r)), ("s", (3, 4)));
}

#[test]
fn initialised_file_scope_tables() {
    let src = "__constant__ int offsets[] = {0, 1, -1, 2};
__device__ float weights[4] = {0.5f, 0.25f};
__device__ int counter = 7;
__global__ void k(int* out) {
  int i = threadIdx.x % 4;
  if (offsets[3] != 2 || weights[1] != 0.25f || weights[3] != 0.0f || counter != 7) out[100000] = 1;
  out[threadIdx.x + offsets[i] + 1] = i;
}
";
    // Thread t writes out[t + offsets[t % 4] + 1]: 1, 3, 2, 6, 5, 7, 6, 10
    // for threads 0..8, so threads 3 and 6 both write out[6].
    let r = race(sim(src, launch(1, 8)));
    assert_eq!(
        (r.array.as_str(), r.index, r.a.line, r.b.line),
        ("out", 6, 7, 7)
    );
    assert_eq!(
        (
            r.a.thread[0].min(r.b.thread[0]),
            r.a.thread[0].max(r.b.thread[0])
        ),
        (3, 6)
    );
    assert_eq!(sim(src, launch(1, 6)), Outcome::Clean);
}

/// Which accesses race does not depend on the order the threads ran in:
/// every order finds the race of a racy kernel and none in its fixed twin.
#[test]
fn the_verdict_does_not_depend_on_the_order() {
    let src = "__global__ void k(float* out, int n) {
  __shared__ float s[128];
  unsigned t = threadIdx.x;
  s[t] = t;
  SYNC
  for (int d = 64; d > 0; d /= 2) {
    if (t < d) s[t] += s[t + d];
    SYNC
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
";
    let fixed = src.replace("SYNC", "__syncthreads();");
    let racy = src
        .replacen("SYNC", "__syncthreads();", 1)
        .replace("SYNC", "");
    for order in [
        Order::Forward,
        Order::Reverse,
        Order::Seeded(1),
        Order::Seeded(2),
        Order::Interleaved(3),
    ] {
        let opts = SimOptions {
            order,
            ..SimOptions::default()
        };
        let run = |text: &str| sim_with(text, launch(2, 128), &Inputs::default(), &opts);
        assert_eq!(run(&fixed), Outcome::Clean, "{order:?}");
        let r = race(run(&racy));
        assert_eq!(
            (r.array.as_str(), r.a.line, r.b.line),
            ("s", 7, 7),
            "{order:?}"
        );
        // The same seed, the same run.
        assert_eq!(run(&racy), Outcome::Race(r));
    }
}

#[test]
fn warp_exchanges_and_atomics_compute_their_values() {
    values_hold(
        "__global__ void k(int* out, unsigned* c) {
  int lane = threadIdx.x % 32;
  int up = __shfl_up_sync(0xffffffff, lane, 1);
  int x = __shfl_xor_sync(0xffffffff, lane, 3);
  int idx = __shfl_sync(0xffffffff, lane, 5, 16);
  int down = __shfl_down_sync(0xffffffff, lane, 4, 8);
  int all = __all_sync(0xffffffff, lane < 32);
  int any = __any_sync(0xffffffff, lane == 7);
  bool ok = up == (lane == 0 ? 0 : lane - 1) && x == (lane ^ 3) && idx == lane / 16 * 16 + 5
      && down == (lane % 8 < 4 ? lane + 4 : lane) && all == 1 && any == 1;
  if (!ok) out[100000] = 1;
  if (threadIdx.x == 0) {
    c[0] = 5;
    bool a = atomicMax(c, 9u) == 5 && atomicMin(c, 2u) == 9 && atomicExch(c, 7u) == 2
        && atomicCAS(c, 7u, 1u) == 7 && atomicCAS(c, 7u, 3u) == 1 && atomicInc(c, 1u) == 1
        && atomicInc(c, 1u) == 0 && atomicDec(c, 4u) == 1 && atomicDec(c, 4u) == 0
        && atomicSub(c, 1u) == 4 && atomicAnd(c, 6u) == 3 && atomicOr(c, 8u) == 2
        && atomicXor(c, 15u) == 10 && c[0] == 5;
    if (!a) out[100001] = 1;
  }
}
",
        launch(1, 64),
    );
}

#[test]
fn integer_widths_and_conversions() {
    values_hold(
        "__global__ void k(int* out) {
  char c = 127; c++;
  unsigned char uc = 250; uc += 10;
  short sh = -32768; sh--;
  long long big = 1LL << 40;
  unsigned long long ub = 0; ub--;
  size_t z = 3000000000u; z *= 2;
  unsigned u = 7; u /= 2;
  int neg = -7; neg >>= 1;
  float f = 2.75f; int fi = (int)f; int fn = (int)-2.75f;
  double d = 1e300 * 1e10;
  bool ok = c == -128 && uc == 4 && sh == 32767 && big == 1099511627776LL
      && ub == 18446744073709551615ull && z == 6000000000ull && u == 3 && neg == -4
      && fi == 2 && fn == -2 && d > 1e308 && (unsigned)-1 == 4294967295u
      && sizeof(long long) == 8 && sizeof(short) == 2;
  if (!ok) out[100000] = 1;
}
",
        launch(1, 1),
    );
}

#[test]
fn loops_with_break_and_continue() {
    values_hold(
        "__global__ void k(int* out) {
  int sum = 0;
  for (int i = 0; i < 10; i++) {
    if (i % 2) continue;
    for (int j = 0; ; j++) {
      if (j == 3) break;
      sum += 1;
    }
    switch (i) { case 4: continue; default: break; }
    sum += 100;
  }
  int w = 0;
  while (true) { if (++w >= 5) break; }
  int d = 0;
  do { d++; if (d < 3) continue; break; } while (d < 100);
  if (sum != 15 + 400 || w != 5 || d != 3) out[100000] = 1;
}
",
        launch(1, 1),
    );
}

#[test]
fn a_signed_overflow_is_reported_as_such_and_unsigned_arithmetic_wraps() {
    let src = "__global__ void k(int* out, int pitch) {
  int row = blockIdx.x;
  out[(row * pitch) % 4 + threadIdx.x * 0] = 1;
}
";
    let inputs = |pitch: i64| Inputs {
        scalars: [("pitch".to_string(), Scalar::Int(pitch))].into(),
        ..Inputs::default()
    };
    let big = sim_with(
        src,
        launch(3, 1),
        &inputs(i64::from(i32::MAX)),
        &SimOptions::default(),
    );
    assert!(
        matches!(
            big,
            Outcome::SignedOverflow {
                line: 3,
                block: [2, 0, 0],
                ..
            }
        ),
        "{big:?}"
    );
    let small = sim_with(src, launch(3, 1), &inputs(1), &SimOptions::default());
    assert_eq!(small, Outcome::Clean);
    let wraps = "__global__ void k(unsigned* out, unsigned base) {
  out[threadIdx.x] = base + threadIdx.x;
}
";
    let inputs = Inputs {
        scalars: [("base".to_string(), Scalar::Int(i64::from(u32::MAX)))].into(),
        ..Inputs::default()
    };
    let o = sim_with(wraps, launch(1, 4), &inputs, &SimOptions::default());
    assert_eq!(o, Outcome::Clean);
}

#[test]
fn a_run_may_go_on_past_an_out_of_bounds_access_to_its_race() {
    // Thread 0 writes s[-1] first; threads 0 and 1 both write s[0].
    let src = "__global__ void k(int* out, int off) {
  __shared__ int s[64];
  int t = threadIdx.x; s[t] = 1;
  s[t + off] = 2;
}
";
    let inputs = Inputs {
        scalars: [("off".to_string(), Scalar::Int(-1))].into(),
        ..Inputs::default()
    };
    let stops = sim_with(src, launch(1, 2), &inputs, &SimOptions::default());
    assert!(
        matches!(
            stops,
            Outcome::OutOfBounds {
                line: 4,
                index: -1,
                ..
            }
        ),
        "{stops:?}"
    );
    let goes_on = SimOptions {
        continue_out_of_bounds: true,
        ..SimOptions::default()
    };
    let r = race(sim_with(src, launch(1, 2), &inputs, &goes_on));
    assert_eq!(lines(&r), (3, 4));
    // Without a race, the first out-of-bounds access is the outcome.
    let alone = sim_with(src, launch(1, 1), &inputs, &goes_on);
    assert!(
        matches!(
            alone,
            Outcome::OutOfBounds {
                line: 4,
                index: -1,
                ..
            }
        ),
        "{alone:?}"
    );
}

#[test]
fn an_alternating_fill_gives_neighbours_all_bits_and_none() {
    let src = "__global__ void k(const unsigned* w, int* slots) {
  int t = threadIdx.x;
  slots[t * 32 + __popc(w[t])] = t;
}
";
    let fill = |fill| Inputs {
        fill,
        ..Inputs::default()
    };
    let o = sim_with(src, launch(1, 2), &fill(Fill::Zero), &SimOptions::default());
    assert_eq!(o, Outcome::Clean);
    let r = race(sim_with(
        src,
        launch(1, 2),
        &fill(Fill::Alternating(-1, 0)),
        &SimOptions::default(),
    ));
    assert_eq!(r.array, "slots");
}

/// A launch too large to run whole runs some of its blocks: `gridDim` is
/// still the launch's, and a race between two blocks that ran is found.
#[test]
fn some_blocks_of_a_large_launch_run_with_the_launchs_grid() {
    let src = "__global__ void k(int *out) {\n  if (gridDim.x > 65536) out[0] = blockIdx.x;\n}\n";
    let big = launch(70000, 1);
    assert!(matches!(sim(src, big), Outcome::Unsupported(_)));
    let opts = SimOptions {
        blocks_run: Some([2, 1, 1]),
        ..SimOptions::default()
    };
    let r = race(sim_with(src, big, &Inputs::default(), &opts));
    assert_eq!(lines(&r), (2, 2));
    assert_ne!(r.a.block, r.b.block);
}

/// Only a race on one of `race_lines` ends a run; another race is the
/// outcome only when none of those lines races.
#[test]
fn race_lines_pass_over_races_on_other_lines() {
    let src =
        "__global__ void k(int *a, int *b) {\n  a[0] = threadIdx.x;\n  b[0] = threadIdx.x;\n}\n";
    let on = |lines: Vec<usize>| {
        let opts = SimOptions {
            race_lines: Some(lines),
            ..SimOptions::default()
        };
        race(sim_with(src, launch(1, 2), &Inputs::default(), &opts))
    };
    assert_eq!(lines(&on(vec![3])), (3, 3));
    assert_eq!(lines(&on(vec![2])), (2, 2));
    // No race on line 5: the first other race is the outcome.
    assert_eq!(lines(&on(vec![5])), (2, 2));
}
