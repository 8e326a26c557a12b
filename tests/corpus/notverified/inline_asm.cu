// Inline PTX is opaque to the analysis: not-verified at the asm statement.
// The rest (one cell per thread) is race-free.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: lane_id_asm not-verified

__global__ void lane_id_asm(int *out)
{
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane)); //~ not-verified
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)lane;
}
