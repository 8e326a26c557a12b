// break, continue and early return in barrier-free code.  `bounded_copy`
// returns early outside the data (verified).  `first_negative` breaks out of
// a search loop and skips entries with continue; it only reads the input
// and writes its own output cell (verified).  `return_then_collide` returns
// for odd threads, and the even threads all write the block's cell
// (racy: threads 0 and 2 of a block).
// syncscope-args: --block-dim 128 --grid-dim 8
// expect-kernel: bounded_copy verified
// expect-kernel: first_negative verified
// expect-kernel: return_then_collide racy

__global__ void bounded_copy(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = in[i];
}

__global__ void first_negative(int *pos, const float *rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int found = -1;
    for (int c = 0; c < cols; c++) {
        float v = rows[row * cols + c];
        if (v == 0.0f)
            continue;
        if (v < 0.0f) {
            found = c;
            break;
        }
    }
    pos[row] = found;
}

__global__ void return_then_collide(int *per_block)
{
    if (threadIdx.x % 2 == 1)
        return;
    per_block[blockIdx.x] = threadIdx.x; //~ data-race
}
