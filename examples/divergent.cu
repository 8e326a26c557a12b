// A barrier that not every thread reaches.
//
//   syncscope examples/divergent.cu
//
// The kernel normalises each row of a matrix by the row maximum, one block
// per row; rows are padded to blockDim.x floats.  The bounds check
// `if (col < cols)` wraps the whole body -- including the __syncthreads().
// When a row is shorter than the block, the threads past its end skip the
// barrier while the others wait at it: undefined behaviour (typically a
// hang or silent corruption).
// Syncscope reports barrier divergence with a witness such as
//
//   thread 1: threadIdx.x = 0     (col < cols, reaches the barrier)
//   thread 2: threadIdx.x = 255   (col >= cols, skips it)
//   cols = 1
//
// and offers the quick-fix "hoist the barrier out of the branch": close the
// `if` before the barrier and re-open it after, so that every thread of the
// block reaches the __syncthreads().
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
