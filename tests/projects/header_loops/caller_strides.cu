// A host function's parameter every call passes a power of two: `step`
// launches `pair_step` with its `stride`, and its one caller passes the
// counter of a loop that starts at 64 and doubles (a power of two, or
// zero once it wraps), so `stride` is one at the launch: the pairs
// (a, a + stride) are disjoint (race-free). `step_off` is called with
// `s + 1` (not a power of two: racy).
// expect-kernel: pair_step verified
// expect-kernel: pair_step_off racy

__global__ void pair_step(float *data, unsigned stride)
{
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned low = pos & (stride - 1);
    unsigned a = ((pos - low) << 1) + low;
    float x = data[a];
    float y = data[a + stride];
    data[a] = x + y;
    data[a + stride] = x - y;
}

__global__ void pair_step_off(float *data, unsigned stride)
{
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned low = pos & (stride - 1);
    unsigned a = ((pos - low) << 1) + low;
    float x = data[a]; //~ data-race
    float y = data[a + stride];
    data[a] = x + y; //~ data-race
    data[a + stride] = x - y; //~ data-race
}

static void step(float *d, unsigned stride, unsigned n)
{
    pair_step<<<n / 512, 256>>>(d, stride);
}

static void step_off(float *d, unsigned stride, unsigned n)
{
    pair_step_off<<<n / 512, 256>>>(d, stride);
}

void sweep(float *d, unsigned n)
{
    for (unsigned s = 64; s < n; s <<= 1) {
        step(d, s, n);
        step_off(d, s + 1, n);
    }
}
