// Inline PTX that may reach memory or order threads is opaque to the
// analysis: not-verified at the asm statement (a store, an atomic, a
// `"memory"` clobber, a memory operand). PTX that computes on registers
// only is modelled (`constructs/inline_asm_registers.cu`).
// The rest (one cell per thread) is race-free.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: store_asm not-verified
// expect-kernel: atomic_asm not-verified
// expect-kernel: clobber_asm not-verified

__global__ void store_asm(int *out, int *flag)
{
    asm volatile("st.global.u32 [%0], %1;" ::"l"(flag), "r"(1)); //~ not-verified
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void atomic_asm(int *out, int *count)
{
    int old;
    asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(count)); //~ not-verified
    out[blockIdx.x * blockDim.x + threadIdx.x] = old;
}

__global__ void clobber_asm(int *out)
{
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane) : : "memory"); //~ not-verified
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)lane;
}
