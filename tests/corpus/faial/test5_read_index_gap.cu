// Faial Claim 1, Test 5: the abstraction gap.  Each thread stores its own id
// in perm[tid], reads perm[tid] back (its own cell: no barrier needed) and
// scatters to s[x].  At run time x == tid, so the kernel is race-free --
// but proving it needs the CONTENTS of perm.  Like Faial (Table 1, "0/1"),
// Syncscope does not track array elements: a value read from memory is
// arbitrary, so the model finds a race.  Its witness (two threads reading
// one value back) is not an execution: run from source, every thread reads
// its own index and nothing collides, so the race is reported as
// `unconfirmed` (possible, not definite) and the kernel is `unknown`.
// This file pins down that documented imprecision; see
// docs/diagnostics.md#unconfirmed.
// syncscope-args: --block-dim 256 --grid-dim 4
// expect-kernel: read_index_gap unknown

__global__ void read_index_gap(float *out, const float *in)
{
    __shared__ int perm[256];
    __shared__ float s[256];
    const int tid = threadIdx.x;
    const int gid = blockIdx.x * blockDim.x + tid;

    perm[tid] = tid;
    int x = perm[tid];
    s[x] = in[gid]; //~ unconfirmed
    __syncthreads();
    out[gid] = s[tid];
}
