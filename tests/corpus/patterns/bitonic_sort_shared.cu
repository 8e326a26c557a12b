// Bitonic sort of 256 keys in shared memory, one key per thread.  In step
// (k, j) thread t compares its key with the key of thread t ^ j, and only the
// lower thread of each pair (t ^ j > t) touches the two cells, so the pairs
// of different threads are disjoint.  The barrier ends every step; the one
// after the load is needed too.
// (Proving the pairs disjoint needs the bitwise meaning of ^ and &.)
// syncscope-args: --block-dim 256 --grid-dim 16
// expect-kernel: bitonic_sort_block verified

__global__ void bitonic_sort_block(int *keys)
{
    __shared__ int s[256];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + t;

    s[t] = keys[g];
    __syncthreads();

    for (unsigned int k = 2; k <= 256; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int partner = t ^ j;
            if (partner > t) {
                int a = s[t];
                int b = s[partner];
                bool ascending = (t & k) == 0;
                if ((a > b) == ascending) {
                    s[t] = b;
                    s[partner] = a;
                }
            }
            __syncthreads();
        }
    }

    keys[g] = s[t];
}
