// Build: nvcc -O3 --use_fast_math -DOFFSET=0 build_comment_not_directive.cu
// Issue 17 item 8. The first line above is a comment that merely contains
// `--`: it is not a launch directive, so `OFFSET` keeps its default of 1 and
// neighbouring threads race. Directives have one strict syntax
// (`docs/diagnostics.md`).
// expect-kernel: offset_write racy

#ifndef OFFSET
#define OFFSET 1
#endif

__global__ void offset_write(int *out)
{
    __shared__ int s[65];
    __requires(blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1 && gridDim.x == 1 && gridDim.y == 1 && gridDim.z == 1);
    int t = threadIdx.x;
    s[t + OFFSET] = t; //~ data-race
    out[t] = s[t]; //~ data-race
}
