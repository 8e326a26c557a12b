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
  // After the barrier every thread of the block has added its 1.
  if (atomicAdd(c, 0) < blockDim.x * (blockIdx.x + 1)) out[100000] = 1;
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
}
