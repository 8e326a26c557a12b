// Different atomic operations on the same global cells (min, max, exch, CAS,
// bitwise and inc/dec, block- and system-scoped variants): atomic vs atomic
// never races, whatever the operation.
// No launch sizes: holds for any launch.
// expect-kernel: atomic_stats verified

__global__ void atomic_stats(int *stats, unsigned int *ring, const int *values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = values[i];
    atomicMin(&stats[0], v);
    atomicMax(&stats[1], v);
    atomicAdd_block(&stats[2], v);
    atomicSub_system(&stats[3], v);
    atomicExch(&stats[4], v);
    atomicCAS(&stats[5], 0, v);
    atomicAnd(&stats[6], v);
    atomicOr(&stats[6], v);
    atomicXor(&stats[7], v);
    atomicInc(&ring[0], 1023u);
    atomicDec(&ring[1], 1023u);
    atomicMax(&stats[0], v);
}
