// Issue 17 item 5. A write through an array of pointers held in a struct
// member must not be dropped. Where such a pointer points is not tracked
// (as for a local array of pointers), so every use of one is named and the
// kernel is not verified; before, both kernels were reported verified with
// the write `v.rows[0][0] = ...` (every thread writing `s[0]`) gone.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: pointer_array_member not-verified
// expect-kernel: pointer_array_parameter not-verified

struct Rows {
    int *rows[2];
};

__global__ void pointer_array_member(int *out)
{
    __shared__ int s[64];
    Rows v;
    v.rows[0] = s; //~ not-verified
    v.rows[1] = s + 32; //~ not-verified
    v.rows[0][0] = threadIdx.x; //~ not-verified
    out[threadIdx.x] = 0;
}

__global__ void pointer_array_parameter(Rows v, int *out)
{
    v.rows[0][0] = threadIdx.x; //~ not-verified
    out[threadIdx.x] = 0;
}
