// Clamped tails (`last` is the index of the last element): a launch
// rounds the thread count up to whole blocks and the surplus threads,
// instead of returning (they must reach a barrier, or
// the author liked it that way), take the last element's index and redo
// its work. They write the cells the last element's thread writes, with
// values computed the same way from the same inputs: tables no thread of
// the kernel writes (a `__constant__` array, a `const` input, a texture),
// floating-point arithmetic on what was read, one loop iteration's slot.
// Equal operands give equal results on the machine (each operation is a
// deterministic function of its operands; no algebraic identity is
// assumed), so these are benign races and the kernels verified.
//
// The racy twins break one link of that chain: a value that mixes in the
// thread's own index, a table the kernel also writes (another thread may
// change the cell between the two reads), a value read one element past
// the clamped one by the surplus threads only, a float sum whose order
// depends on the thread, and a slot count large enough for two elements'
// slots to overlap (a real collision of different values).
// expect-kernel: emit_clamped verified
// expect-kernel: emit_clamped_texture verified
// expect-kernel: scaled_tail verified
// expect-kernel: tail_mixes_thread racy
// expect-kernel: tail_table_written racy
// expect-kernel: tail_reads_past_clamp racy
// expect-kernel: tail_sum_order racy
// expect-kernel: slots_overlap racy

#define SLOTS 8

__constant__ unsigned c_counts[256];
__constant__ float c_weights[256 * SLOTS];

// Up to SLOTS outputs per element: how many and their weights come from
// constant tables indexed by the element's code.
__global__ void emit_clamped(float *out, const unsigned *codes, const float *base, unsigned last)
{
    unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e > last)
        e = last;
    unsigned code = codes[e] & 255;
    unsigned n = c_counts[code];
    float b = base[e];
    for (unsigned k = 0; k < n && k < SLOTS; ++k) {
        float w = c_weights[code * SLOTS + k];
        out[e * SLOTS + k] = b * w + 0.5f; //~ benign-race
    }
}

// The same through textures: the count and the weights are texels.
__global__ void emit_clamped_texture(float *out, cudaTextureObject_t counts,
                                     cudaTextureObject_t weights, unsigned last)
{
    unsigned e = min(blockIdx.x * blockDim.x + threadIdx.x, last);
    unsigned n = tex1Dfetch<unsigned>(counts, e);
    for (unsigned k = 0; k < n && k < SLOTS; ++k) {
        float w = tex1Dfetch<float>(weights, e * SLOTS + k);
        out[e * SLOTS + k] = w * w;
    }
}

// One output per element, the surplus threads clamped by `min`.
__global__ void scaled_tail(float *out, const float *in, float scale, unsigned last)
{
    unsigned e = min(blockIdx.x * blockDim.x + threadIdx.x, last);
    float v = in[e];
    out[e] = v * scale - v; //~ benign-race
}

// The value mixes in the thread's own index: the surplus threads write
// other values.
__global__ void tail_mixes_thread(float *out, const float *in, unsigned last)
{
    unsigned e = min(blockIdx.x * blockDim.x + threadIdx.x, last);
    out[e] = in[e] + (float)threadIdx.x; //~ data-race
}

// The table is also written by the kernel: two reads of one cell may see
// different values.
__global__ void tail_table_written(float *out, float *table, unsigned last)
{
    unsigned e = min(blockIdx.x * blockDim.x + threadIdx.x, last);
    out[e] = table[e] * 2.0f; //~ data-race
    table[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; //~ data-race
}

// The surplus threads read one element past the one they write.
__global__ void tail_reads_past_clamp(float *out, const float *in, unsigned last)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned e = min(g, last);
    unsigned from = g > last ? e + 1 : e;
    out[e] = in[from]; //~ data-race
}

// One sum in two orders (rounding differs): chosen by the thread.
__global__ void tail_sum_order(float *out, const float *a, const float *b, const float *c,
                               unsigned last)
{
    unsigned e = min(blockIdx.x * blockDim.x + threadIdx.x, last);
    float s = (threadIdx.x & 1) ? (a[e] + b[e]) + c[e] : a[e] + (b[e] + c[e]);
    out[e] = s; //~ data-race
}

// Up to 2 * SLOTS outputs in SLOTS-wide rows: element e's later slots are
// element e + 1's first ones, written with its other weights.
__global__ void slots_overlap(float *out, const unsigned *codes, unsigned last)
{
    unsigned e = min(blockIdx.x * blockDim.x + threadIdx.x, last);
    unsigned code = codes[e] & 255;
    unsigned n = c_counts[code];
    for (unsigned k = 0; k < n && k < 2 * SLOTS; ++k)
        out[e * SLOTS + k] = c_weights[code * SLOTS + (k & (SLOTS - 1))]; //~ data-race
}
