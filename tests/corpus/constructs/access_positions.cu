// Accesses in every expression position the front end has to see: an if
// condition, a ternary, a comma expression, a call argument, a loop
// condition.  Each kernel reads the right neighbour's cell while that
// neighbour writes it, in the same barrier interval, so each is racy, and
// the race is reported at the access inside the construct.
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: in_condition racy
// expect-kernel: in_ternary racy
// expect-kernel: in_comma racy
// expect-kernel: in_call_argument racy
// expect-kernel: in_loop_condition racy

__device__ float scale(float v) { return v * 0.5f; }

__global__ void in_condition(int *out)
{
    __shared__ int s[65];
    int tid = threadIdx.x;
    s[tid] = tid; //~ data-race
    if (s[tid + 1] > 3) //~ data-race
        out[blockIdx.x * blockDim.x + tid] = 1;
}

__global__ void in_ternary(int *out, int k)
{
    __shared__ int s[65];
    int tid = threadIdx.x;
    s[tid] = tid; //~ data-race
    int v = k > 0 ? s[tid + 1] : 0; //~ data-race
    out[blockIdx.x * blockDim.x + tid] = v;
}

__global__ void in_comma(int *out)
{
    __shared__ int s[65];
    int tid = threadIdx.x;
    int a, b;
    a = s[tid + 1], s[tid] = tid; //~ data-race
    b = a + 1;
    out[blockIdx.x * blockDim.x + tid] = b;
}

__global__ void in_call_argument(float *out)
{
    __shared__ float s[65];
    int tid = threadIdx.x;
    s[tid] = (float)tid; //~ data-race
    out[blockIdx.x * blockDim.x + tid] = scale(s[tid + 1]); //~ data-race
}

__global__ void in_loop_condition(int *out)
{
    __shared__ int s[65];
    int tid = threadIdx.x;
    int steps = 0;
    s[tid] = tid; //~ data-race
    while (steps < s[tid + 1] && steps < 8) //~ data-race
        steps++;
    out[blockIdx.x * blockDim.x + tid] = steps;
}
