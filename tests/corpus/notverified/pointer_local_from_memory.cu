// The same as pointer_from_memory.cu with the pointer first stored in a local
// (`float *p = ptrs[i]; p[tid] = ...`).  Declaration and use share a line so
// the finding may name either.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: scale_rows not-verified

__global__ void scale_rows(float **rows, float factor)
{
    float *p = rows[blockIdx.x]; p[threadIdx.x] *= factor; //~ not-verified
}
