// __device__ (module-scope global) arrays and scalars.  `fill_table` writes
// one cell per thread (verified).  `last_writer` stores every thread's id
// into one __device__ scalar (racy).  `per_block_slot` has every thread of a
// block write the block's slot: different blocks use different slots, but
// the threads of one block collide (racy).
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: fill_table verified
// expect-kernel: last_writer racy
// expect-kernel: per_block_slot racy

__device__ int table[4096];
__device__ int last_id;
__device__ float block_sums[16];

__global__ void fill_table(const int *in)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    table[g] = in[g] * 2;
}

__global__ void last_writer()
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    last_id = g; //~ data-race
}

__global__ void per_block_slot(const float *in)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    block_sums[blockIdx.x] = in[g]; //~ data-race
}
