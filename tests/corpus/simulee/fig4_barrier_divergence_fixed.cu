// Simulee, Figure 4 after the fix: the barrier is moved out of the branch,
// so every thread of the block reaches it in every step.
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: select_matches_fixed verified

__global__ void select_matches_fixed(int *best_idx, float *best_dist,
                                     const float *dists, int n)
{
    __shared__ float s_dist[256];
    __shared__ int s_idx[256];
    unsigned sid = threadIdx.x;
    unsigned gid = blockIdx.x * blockDim.x + sid;

    float dist = gid < n ? dists[gid] : 3.4e38f;
    s_dist[sid] = dist;
    s_idx[sid] = gid;
    __syncthreads();

    for (unsigned i = blockDim.x / 2; i > 0; i >>= 1) {
        if (sid < i) {
            float other = s_dist[sid + i];
            if (other < dist) {
                dist = other;
                s_dist[sid] = dist;
                s_idx[sid] = s_idx[sid + i];
            }
        }
        __syncthreads();
    }

    if (sid == 0) {
        best_idx[blockIdx.x] = s_idx[0];
        best_dist[blockIdx.x] = s_dist[0];
    }
}
