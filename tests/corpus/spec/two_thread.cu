// GPUVerify's two-thread predicates: `__other_int(x)` is x in the other
// thread of the pair being checked, `__uniform_int(x)` says both threads
// hold the same x, `__distinct_int(x)` that they hold different ones, and
// `__same_group` that both are in one block.
//  * gather_tiles:       every assertion holds: the tile base is uniform in
//                        a block, the global index is distinct for any two
//                        threads and ordered like the thread index within
//                        a block: verified.
//  * gather_tiles_wrong: claims the thread index alone is distinct across
//                        the whole grid; thread 0 of block 0 and thread 0
//                        of block 1 falsify it: assertion-failed.
//  * gather_tiles_racy:  every block writes the same tile (no blockIdx in the
//                        index): racy, and its uniformity assertion holds.
//--blockDim=128 --gridDim=16
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: gather_tiles verified
// expect-kernel: gather_tiles_wrong assertion-failed
// expect-kernel: gather_tiles_racy racy

#define TILE 128

__global__ void gather_tiles(const int *in, int *out)
{
    int base = blockIdx.x * TILE;
    int gid = base + threadIdx.x;
    __assert(__implies(__same_group, __uniform_int(base)));
    __assert(__distinct_int(gid));
    __assert(__implies(__same_group && threadIdx.x < __other_int(threadIdx.x),
                       gid < __other_int(gid)));
    out[gid] = in[gid] + 1;
}

__global__ void gather_tiles_wrong(const int *in, int *out)
{
    int gid = blockIdx.x * TILE + threadIdx.x;
    __assert(__distinct_int(threadIdx.x)); //~ assertion
    out[gid] = in[gid] + 1;
}

__global__ void gather_tiles_racy(const int *in, int *out)
{
    int base = 0;
    __assert(__uniform_int(base));
    out[base + threadIdx.x] = in[blockIdx.x * TILE + threadIdx.x]; //~ data-race
}
