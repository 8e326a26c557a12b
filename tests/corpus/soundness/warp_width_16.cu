//--blockDim=[64,1] --gridDim=[1,1] --warp-sync=16
// Issue 17 item 9. The GPUVerify header asks for lockstep warps of 16
// threads: threads 0 and 16 are in different warps, so the exchange races.
// With warps of 32 it would be lockstep and race-free.
// expect-kernel: exchange_halves racy

__global__ void exchange_halves(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    if (t < 32) {
        int v = s[t ^ 16]; //~ data-race
        s[t] = v; //~ data-race
    }
    __syncthreads();
    out[t] = s[t];
}
