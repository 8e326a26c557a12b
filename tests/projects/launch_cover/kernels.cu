// Kernels launched twice by host.cu with the same sizes, the second launch
// under one more fact (`repeat > 1`): every run of the second is a run of
// the first, so the first covers it and each kernel is verified once,
// under the first launch, which names the second. `stamp` writes one cell
// per thread of a 64-thread block into at least 64 cells (verified);
// `halve` folds the block onto half as many cells (racy under both).
// expect-kernel: stamp verified
// expect-kernel: halve racy

__global__ void stamp(int *cells, int n)
{
    cells[threadIdx.x % n] = threadIdx.x;
}

__global__ void halve(int *cells, int n)
{
    cells[threadIdx.x % 32] = threadIdx.x; //~ data-race
}
