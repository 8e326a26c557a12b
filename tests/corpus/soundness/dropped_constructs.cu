// Issue 17 item 6. Code the model would drop must not leave a kernel
// "verified". A comma expression is evaluated left to right, so the write
// to `s[t + 1]` in it races with the neighbour's `s[t]` (`comma_write`).
// A kernel body that does not parse cannot be trusted at all: the grammar
// cannot parse `(s[t + 1] = a, b)`, the example of the issue, so
// `comma_in_declaration` is not-verified at the code that does not parse
// (today it was reported verified, the hidden write dropped).
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: comma_write racy
// expect-kernel: comma_in_declaration not-verified

__global__ void comma_write(int *out, int a, int b)
{
    __shared__ int s[65];
    int t = threadIdx.x;
    int x;
    s[t + 1] = a, x = b; //~ data-race
    s[t] = x; //~ data-race
    out[t] = x;
}

__global__ void comma_in_declaration(int *out, int a, int b)
{
    __shared__ int s[65];
    int t = threadIdx.x;
    int x = (s[t + 1] = a, b); //~ syntax-error not-verified
    out[t] = x;
}
