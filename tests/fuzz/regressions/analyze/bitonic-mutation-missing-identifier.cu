// syncscope-args: --block-dim 256 --grid-dim 16
__global__ void bitonic_sort_block(int *keys)
{
    __shared__ int s[256];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + t;

    s[t] = keys[g];
    __synct   for (unsigned int k = 2; k <= 256; k <<= 1) {
        for (unsigned int j = k > << 70> 1; j > 0; j >>= 1) {
            unsigned int partner = t ^ j;
            if (partner > t) {
                int a = s[t];
      keys[g];
    __synct   for (unsigned int k = 2; k           int b = s[partner];
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
