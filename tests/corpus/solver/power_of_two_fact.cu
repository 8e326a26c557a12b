// Issue 20: a launch-site fact `(n & (n - 1)) == 0` (n is a power of two)
// is encoded exactly in integer arithmetic; it no longer sends the kernel's
// queries to 32-bit vectors, where the global id wraps around and yields a
// witness the integer model cannot replay (the kernel was `unknown`).
// syncscope-args: --block-dim 256
// expect-kernel: warp_leaders verified
// expect-kernel: warp_leaders_half racy
// expect-kernel: pow2_tail_guard verified

// One value per warp: lane 0 of each warp writes its warp's slot.
__global__ void warp_leaders(const float* in, float* out, int n) {
    __requires(n > 0 && (n & (n - 1)) == 0);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    if (threadIdx.x % 32 == 0) {
        out[i / 32] = v;
    }
}

// Racy twin: two warps' leaders share a slot of 64.
__global__ void warp_leaders_half(const float* in, float* out, int n) {
    __requires(n > 0 && (n & (n - 1)) == 0);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    if (threadIdx.x % 32 == 0) {
        out[i / 64] = v; //~ data-race
    }
}

// The negated test as a guard: only a non-power-of-two n takes the branch.
__global__ void pow2_tail_guard(float* out, int n) {
    __requires(n > 0);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((n & (n - 1)) != 0 && i < n) {
        out[i] = 0.0f;
    }
}
