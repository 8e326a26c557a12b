// syncscope-args: --block-dim 128 --grid-dim 4
// Lambdas that capture by reference, called where they are in scope: the
// body is inlined at the call and sees each captured variable as it is
// then. A capture by value, and a call where a name of the body means
// another variable, are outside the model.
// expect-kernel: slots_from_lambda verified
// expect-kernel: slots_from_lambda_overlap racy
// expect-kernel: offset_set_after_capture verified
// expect-kernel: offset_set_after_capture_overlap racy
// expect-kernel: lambda_writes_tile verified
// expect-kernel: lambda_writes_tile_unsynced racy
// expect-kernel: lambda_selects_member verified
// expect-kernel: capture_by_value not-verified
// expect-kernel: captured_name_shadowed not-verified

struct Four {
    int a, b, c, d;
};

// Each thread's two cells, named by a lambda of its index.
__global__ void slots_from_lambda(int *out)
{
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 256;
    auto slot = [&](unsigned k) { return base + 2 * t + k; };
    out[slot(0)] = 1;
    out[slot(1)] = 2;
}

// One cell per thread apart: thread t's second cell is thread t + 1's first.
__global__ void slots_from_lambda_overlap(int *out)
{
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 256;
    auto slot = [&](unsigned k) { return base + t + k; };
    out[slot(0)] = 1; //~ data-race
    out[slot(1)] = 2; //~ data-race
}

// The offset is set after the lambda is made: a reference capture reads it
// at the call (2 * t), not as it was (0).
__global__ void offset_set_after_capture(int *out)
{
    unsigned t = threadIdx.x;
    unsigned offset = 0;
    auto at = [&offset](unsigned k) -> unsigned { return blockIdx.x * 256 + offset + k; };
    offset = 2 * t;
    out[at(0)] = 1;
    out[at(1)] = 2;
}

__global__ void offset_set_after_capture_overlap(int *out)
{
    unsigned t = threadIdx.x;
    unsigned offset = 0;
    auto at = [&offset](unsigned k) -> unsigned { return blockIdx.x * 256 + offset + k; };
    offset = t;
    out[at(0)] = 1; //~ data-race
    out[at(1)] = 2; //~ data-race
}

// A lambda that writes shared memory through its captures; the neighbour's
// cell is read after the barrier.
__global__ void lambda_writes_tile(int *out, const int *in)
{
    __shared__ int tile[128];
    unsigned t = threadIdx.x;
    auto stage = [&](int v) { tile[t] = v; };
    stage(in[blockIdx.x * 128 + t]);
    __syncthreads();
    out[blockIdx.x * 128 + t] = tile[(t + 1) % 128];
}

__global__ void lambda_writes_tile_unsynced(int *out, const int *in)
{
    __shared__ int tile[128];
    unsigned t = threadIdx.x;
    auto stage = [&](int v) { tile[t] = v; }; //~ data-race
    stage(in[blockIdx.x * 128 + t]);
    out[blockIdx.x * 128 + t] = tile[(t + 1) % 128]; //~ data-race
}

// A member chosen by a switch inside the lambda; the cells are the thread's own.
__global__ void lambda_selects_member(int *out, const int *in)
{
    unsigned i = blockIdx.x * 128 + threadIdx.x;
    Four f;
    f.a = in[i];
    f.b = f.a + 1;
    f.c = f.a + 2;
    f.d = f.a + 3;
    auto member = [&f](unsigned k) -> int {
        switch (k) {
        case 0:
            return f.a;
        case 1:
            return f.b;
        case 2:
            return f.c;
        }
        return f.d;
    };
    out[4 * i + 0] = member(threadIdx.x & 3);
    out[4 * i + 1] = member((threadIdx.x + 1) & 3);
}

// A copy of `t` made when the lambda is made: not modelled.
__global__ void capture_by_value(int *out)
{
    unsigned t = threadIdx.x;
    auto slot = [=](unsigned k) { return blockIdx.x * 256 + 2 * t + k; }; //~ not-verified
    out[slot(0)] = (int)t; //~ not-verified
}

// The call is where a local `t` hides the one the lambda captured.
__global__ void captured_name_shadowed(int *out)
{
    unsigned t = threadIdx.x;
    auto slot = [&](unsigned k) { return blockIdx.x * 256 + 2 * t + k; };
    {
        unsigned t = 0;
        out[slot(t)] = (int)threadIdx.x; //~ not-verified
    }
}
