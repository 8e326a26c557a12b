// A uniform loop (bounded by a parameter) left early by a thread-dependent
// break: threads that broke out miss the barrier of later iterations.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: search_rounds divergent

__global__ void search_rounds(int *found, const int *keys, int rounds, int target)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    int hit = -1;
    for (int r = 0; r < rounds; r++) {
        int k = keys[r * gridDim.x * blockDim.x + gid];
        if (k == target) {
            hit = r;
            break;
        }
        s[tid] = k;
        __syncthreads(); //~ barrier-divergence
        if (s[127 - tid] == target)
            hit = r;
        __syncthreads(); //~ barrier-divergence
    }
    found[gid] = hit;
}
