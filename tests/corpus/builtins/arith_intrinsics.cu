// `__mul24`/`__umul24`, `min`/`max` and `__ldg` as index arithmetic and
// reads, and enum constants as sizes.
//  * saxpy_mul24:    the global index written with `__umul24`: verified.
//  * clamp_tail:     indices clamped with `min(gid, n - 1)`: every thread
//                    past the end writes the last element, the value the
//                    last thread writes (`x` is read-only): a benign race,
//                    verified.
//  * ldg_copy:       reads through `__ldg` from the input, writes the
//                    output: verified.
//  * ldg_shift:      reads the neighbour's output element through `__ldg`
//                    while the neighbour writes it: racy.
// syncscope-args: --block-dim 128 --grid-dim 64
// expect-kernel: saxpy_mul24 verified
// expect-kernel: clamp_tail verified
// expect-kernel: ldg_copy verified
// expect-kernel: ldg_shift racy

enum Layout { ROW_BLOCK = 128, HALO = 1 };

__global__ void saxpy_mul24(float a, const float *x, float *y)
{
    unsigned gid = __umul24(blockIdx.x, ROW_BLOCK) + threadIdx.x;
    y[gid] = a * x[gid] + y[gid];
}

__global__ void clamp_tail(const float *x, float *y, int n)
{
    int gid = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    int i = max(0, min(gid, n - 1));
    y[i] = 2.0f * x[i]; //~ benign-race
}

__global__ void ldg_copy(const float *__restrict__ in, float *__restrict__ out)
{
    int gid = blockIdx.x * ROW_BLOCK + threadIdx.x;
    out[gid] = __ldg(&in[gid]);
}

__global__ void ldg_shift(float *buf)
{
    int gid = blockIdx.x * ROW_BLOCK + threadIdx.x;
    buf[gid] = __ldg(&buf[gid + HALO]) * 0.5f; //~ data-race
}
