// Inline PTX that computes on registers only (`mov` of a special register,
// SIMD `vabsdiff4`, `add`, `{ .reg ... }` scopes) reads its inputs and
// writes unknown values to its outputs: it touches no memory and orders
// nothing.
//  * lane_id:        each thread stores its own cell: verified.
//  * sad_rows:       a byte-wise sum of absolute differences per thread,
//                    stored to its own cell: verified.
//  * asm_index:      a shared index computed by asm is unknown: threads
//                    may meet on it: racy.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: lane_id verified
// expect-kernel: sad_rows verified
// expect-kernel: asm_index racy

__global__ void lane_id(int *out)
{
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)lane;
}

__device__ unsigned int sad4(unsigned int a, unsigned int b, unsigned int acc)
{
    unsigned int r;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    asm("{\n\t.reg .u32 t;\n\tadd.u32 t, %0, 1;\n\tsub.u32 %0, t, 1;\n}" : "+r"(r));
    return r;
}

__global__ void sad_rows(const unsigned int *left, const unsigned int *right, unsigned int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = sad4(left[i], right[i], 0);
}

__global__ void asm_index(const int *in, int *out)
{
    __shared__ int s[128];
    int slot;
    asm("and.b32 %0, %1, 7;" : "=r"(slot) : "r"(in[threadIdx.x]));
    s[slot] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ data-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
