// Simulee, Figure 4 (an arrayfire nearest-neighbour kernel, before the fix):
// the barrier of the min-reduction loop sits inside `if (sid < i)`, so in
// every step the threads with sid >= i skip it.  The witness shows two
// threads of one block on either side of i.
// A path through the loop body (sid >= i) passes no barrier: such an
// iteration joins the intervals on both sides of it, and between threads
// that both pass the barrier of a step it still orders the steps, so the
// divergence is the finding (status divergent).
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: select_matches_buggy divergent

__global__ void select_matches_buggy(int *best_idx, float *best_dist,
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
            __syncthreads(); //~ barrier-divergence
        }
    }

    if (sid == 0) {
        best_idx[blockIdx.x] = s_idx[0];
        best_dist[blockIdx.x] = s_dist[0];
    }
}
