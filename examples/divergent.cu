// A barrier that not every thread reaches.
//
//   syncscope check examples/divergent.cu
//
// The kernel normalises each row of a matrix by the row maximum, one block
// per row; rows are padded to blockDim.x floats.  The bounds check
// `if (col < cols)` wraps the whole body -- including the __syncthreads().
// When a row is shorter than the block, the threads past its end skip the
// barrier while the others wait at it: undefined behaviour (typically a
// hang or silent corruption).
// Syncscope reports barrier divergence with a witness: with cols = 1,
// thread (0,0,0) reaches the barrier and thread (1,0,0) of the same block
// does not. With `--fixes` it shows the verified fix "Hoist
// `__syncthreads()` out of the thread-dependent branch": close the `if`
// before the barrier and re-open it after, so that every thread of the
// block reaches the __syncthreads().
//
// The `syncscope-args` line below fixes the launch for this file:
// `syncscope check` applies it when the command line gives no launch sizes
// or macros. The `expect-kernel` line and the `~ barrier-divergence` comment at the
// end of a line in the kernel are test markers: the test suite
// (tests/corpus.rs) expects that verdict, and a finding of that kind on
// that line.
//
// syncscope-args: --block-dim 256 --grid-dim 4096
// expect-kernel: normalise_rows divergent

__global__ void normalise_rows(float *m, const float *row_max, int cols)
{
    __shared__ float scale;
    int col = threadIdx.x;
    float *row = m + blockIdx.x * blockDim.x;

    if (col < cols) {
        if (col == 0)
            scale = 1.0f / row_max[blockIdx.x];
        __syncthreads(); //~ barrier-divergence
        row[col] *= scale;
    }
}
