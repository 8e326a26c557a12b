// A pointer loaded from memory (here a row of an array of row pointers) may
// point anywhere, so the store through it cannot be attributed to an array:
// not-verified.  The load of the pointer and the store through it are on one
// line, so the finding is on that line whichever of the two it names.
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: clear_rows not-verified

__global__ void clear_rows(float **rows, int cols)
{
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        rows[blockIdx.x][c] = 0.0f; //~ not-verified
}
