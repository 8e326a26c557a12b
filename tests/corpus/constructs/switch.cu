// switch on a thread-dependent value, with break, a shared case body and a
// default.  In `lane_roles` every case writes a distinct part of the tile
// (verified).  In `lane_roles_clash` case 1 writes the cell case 0 writes
// (racy: threads 4k and 4k+1 both write s[4k]).
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: lane_roles verified
// expect-kernel: lane_roles_clash racy

__global__ void lane_roles(int *out, const int *in)
{
    __shared__ int s[128];
    int tid = threadIdx.x;
    switch (tid % 4) {
    case 0:
        s[tid] = in[blockIdx.x];
        break;
    case 1:
    case 2:
        s[tid] = tid;
        s[64 + tid] = 1;
        break;
    default:
        s[tid] = 0;
        break;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[63 - tid] + s[64 + (tid / 4) * 4 + 1];
}

__global__ void lane_roles_clash(int *out, const int *in)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    switch (tid % 4) {
    case 0:
        s[tid] = in[blockIdx.x]; //~ data-race
        break;
    case 1:
        s[tid - 1] = tid; //~ data-race
        break;
    default:
        s[tid] = 0;
        break;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[63 - tid];
}
