// Reverses a row in shared memory, one thread per element. The host code
// (host.cu) launches `mirror` and `mirror_synced` with exactly `width`
// threads, so every thread passes `t < width`. `mirror` lacks the barrier
// between the stores and the mirrored loads: its fix, a barrier inside the
// `if`, is verified only under that launch (under a launch of any size the
// barrier would be divergent), so the editor must use the launch the CLI
// uses. `mirror_unlaunched` is launched nowhere: its report says so.
// expect-kernel: mirror racy
// expect-kernel: mirror_synced verified
// expect-kernel: mirror_unlaunched racy

__global__ void mirror(float *row, int width) {
    __shared__ float s[256];
    int t = threadIdx.x;
    if (t < width) {
        s[t] = row[t]; //~ data-race
        row[t] = s[width - 1 - t];
    }
}

__global__ void mirror_synced(float *row, int width) {
    __shared__ float s[256];
    int t = threadIdx.x;
    if (t < width) {
        s[t] = row[t];
        __syncthreads();
        row[t] = s[width - 1 - t];
    }
}

__global__ void mirror_unlaunched(float *row, int width) {
    __shared__ float s[256];
    int t = threadIdx.x;
    if (t < width) {
        s[t] = row[t]; //~ data-race
        row[t] = s[width - 1 - t]; //~ data-race
    }
}
