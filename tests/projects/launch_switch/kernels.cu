// Kernels launched from `switch (threads)` labels (host.cu): the launch
// under `case 256:` holds `blockDim.x == 256`, which ties the template
// argument to the block it runs with. Each block stamps its own row of
// `Width` cells: no two blocks meet when the block is at most `Width`
// threads wide (verified). A label the one before it falls through into
// (no `break`) also runs with that label's size: the 128-wide instance
// with 256 threads, whose blocks overlap (racy); so does a `default:`,
// any size (racy). Two labels of one launch (`case 32: case 64:`) hold
// either size, both within the 64-wide row (verified).
// expect-kernel: stamp_rows verified
// expect-kernel: stamp_fallthrough racy
// expect-kernel: stamp_default racy
// expect-kernel: stamp_grouped verified

template <unsigned int Width> __global__ void stamp_rows(int *rows)
{
    rows[blockIdx.x * Width + threadIdx.x] = threadIdx.x;
}

template <unsigned int Width> __global__ void stamp_fallthrough(int *rows)
{
    rows[blockIdx.x * Width + threadIdx.x] = threadIdx.x; //~ data-race
}

template <unsigned int Width> __global__ void stamp_default(int *rows)
{
    rows[blockIdx.x * Width + threadIdx.x] = threadIdx.x; //~ data-race
}

template <unsigned int Width> __global__ void stamp_grouped(int *rows)
{
    rows[blockIdx.x * Width + threadIdx.x] = threadIdx.x;
}
