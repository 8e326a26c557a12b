// Induction variables read after a counted loop: a loop that leaves only by
// a condition linear in its counter (`i >= 0` counting down, `i < N`) ran a
// known number of trips, so the index it advanced is its closed form there.
// syncscope-args: --block-dim 32,4 --grid-dim 2,2
// expect-kernel: after_countdown verified
// expect-kernel: after_countdown_short racy
// expect-kernel: after_count_up verified

// Each thread's cell of the plane after three preload steps.
__global__ void after_countdown(float *out, const float *in) {
    int idx = (blockIdx.y * blockDim.y + threadIdx.y) * 64 + blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 2; i >= 0; i--) {
        idx += 512;
    }
    out[idx] = in[idx];
}

// The row width is one column short of the threads along x: two threads
// of neighbouring rows meet after the loop too.
__global__ void after_countdown_short(float *out, const float *in) {
    int idx = (blockIdx.y * blockDim.y + threadIdx.y) * 63 + blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 2; i >= 0; i--) {
        idx += 512;
    }
    out[idx] = in[threadIdx.x]; //~ data-race
}

__global__ void after_count_up(int *out) {
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int slot = tid;
    for (int i = 0; i < 4; i++) {
        slot += 128;
    }
    out[blockIdx.y * gridDim.x * 1024 + blockIdx.x * 1024 + slot] = tid;
}
