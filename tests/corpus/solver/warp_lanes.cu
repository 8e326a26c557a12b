// Must-show kernel 7 of issue 20: the warp-lane layout with `tid & 31` and
// `tid >> 5`, symbolic launch sizes. (warp, lane) is a bijection of the
// thread id, so each thread owns slot warp * 32 + lane; lane 0 of each warp
// writes the warp's partial sum after the barrier, and thread 0 reads them
// all after a second one: verified. `lane_only` indexes by the lane alone,
// so lane l of warp 0 and of warp 1 write the same slot: racy.
// expect-kernel: warp_partials verified
// expect-kernel: lane_only racy

__global__ void warp_partials(const float *in, float *out)
{
    __shared__ float slots[1024];
    __shared__ float warp_sum[32];
    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    slots[warp * 32 + lane] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    if (lane == 0) {
        float s = 0.0f;
        for (int j = 0; j < 32; ++j)
            s += slots[warp * 32 + j];
        warp_sum[warp] = s;
    }
    __syncthreads();
    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < (blockDim.x + 31) / 32; ++w)
            total += warp_sum[w];
        out[blockIdx.x] = total;
    }
}

__global__ void lane_only(float *out)
{
    __shared__ float slots[32];
    int lane = threadIdx.x & 31;
    slots[lane] = out[threadIdx.x]; //~ data-race
}
