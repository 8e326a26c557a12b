// syncscope-args: --block-dim 32
// Per-thread scratch in `__shared__` memory read back by the thread that
// wrote it, in clamped tails (`last` is the index of the last cell): each
// thread computes a few values of its cell into its own slots (`s[k * NT
// + threadIdx.x]`), the block synchronises (the barrier is there for
// other reasons, so the surplus threads must not return), and each thread
// emits up to OUTS outputs, each from one of its own slots chosen by a
// table entry (a texel or a `__constant__` entry) of the cell's code
// (blocks of NT threads: a larger block's slots would overlap). The
// surplus threads redo the last cell: they read their own slots, which
// hold what they computed from the same inputs, so every output they
// write is the value the last cell's thread writes (a benign race). The
// outputs of different cells never meet (OUTS slots per cell).
//
// A vector constructor (`make_float4`) is a function of its members.
//
// The racy twins break one link: a slot value or a vector member that
// mixes in the thread's index, a read of the neighbouring thread's slot, data read at the
// unclamped index (a clamp applied to the output only), a slot another
// thread rewrites between a second pair of barriers, and a field the
// kernel also writes.
// expect-kernel: slots_from_textures verified
// expect-kernel: slots_from_tables verified
// expect-kernel: slots_by_threes verified
// expect-kernel: slots_to_vectors verified
// expect-kernel: vector_mixes_thread racy
// expect-kernel: slot_mixes_thread racy
// expect-kernel: slot_of_neighbour racy
// expect-kernel: clamp_on_output_only racy
// expect-kernel: slot_rewritten_by_other racy
// expect-kernel: field_written racy

#define NT 32
#define EDGES 4
#define OUTS 8

__constant__ unsigned c_count[4];
__constant__ unsigned c_edge[4 * OUTS];

// Counts, edges and the field are texels.
__global__ void slots_from_textures(float *out, const unsigned *cells, cudaTextureObject_t counts,
                        cudaTextureObject_t edges, cudaTextureObject_t field, unsigned last)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > last)
        i = last;
    unsigned cell = cells[i];
    float a = tex1Dfetch<float>(field, cell);
    float b = tex1Dfetch<float>(field, cell + 1);
    unsigned code = (unsigned)(a < 0.5f) + 2 * (unsigned)(b < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a * 0.25f;
    s[NT + threadIdx.x] = b - a;
    s[2 * NT + threadIdx.x] = a + b;
    s[3 * NT + threadIdx.x] = b * 0.75f;
    __syncthreads(); //~ redundant-barrier
    unsigned n = tex1Dfetch<unsigned>(counts, code);
    for (unsigned k = 0; k < n && k < OUTS; k++) {
        unsigned e = tex1Dfetch<unsigned>(edges, code * OUTS + k);
        if (e < EDGES)
            out[cell * OUTS + k] = s[e * NT + threadIdx.x] * 2.0f;
    }
}

// Counts and edges from `__constant__` tables, the field a read-only
// array, the surplus threads clamped by `min`.
__global__ void slots_from_tables(float *out, const unsigned *cells, const float *field, unsigned last)
{
    unsigned cell = cells[min(blockIdx.x * blockDim.x + threadIdx.x, last)];
    float a = field[cell];
    float b = field[cell + 1];
    unsigned code = (unsigned)(a < 0.5f) + 2 * (unsigned)(b < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = b - a;
    s[2 * NT + threadIdx.x] = a * b;
    s[3 * NT + threadIdx.x] = b;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        unsigned e = c_edge[code * OUTS + k] & (EDGES - 1);
        out[cell * OUTS + k] = s[e * NT + threadIdx.x] + 1.0f; //~ benign-race
    }
}

// Outputs in threes, the counter stepping by 3: the three stores of one
// step never meet another step's.
__global__ void slots_by_threes(float *out, const unsigned *cells, const float *field, unsigned last)
{
    unsigned cell = cells[min(blockIdx.x * blockDim.x + threadIdx.x, last)];
    float a = field[cell];
    float b = field[cell + 1];
    unsigned code = (unsigned)(a < 0.5f) + 2 * (unsigned)(b < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = b - a;
    s[2 * NT + threadIdx.x] = a * b;
    s[3 * NT + threadIdx.x] = b;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k + 2 < n && k + 2 < OUTS; k += 3) {
        float p = s[(c_edge[code * OUTS + k] & (EDGES - 1)) * NT + threadIdx.x];
        float q = s[(c_edge[code * OUTS + k + 1] & (EDGES - 1)) * NT + threadIdx.x];
        out[cell * OUTS + k] = p; //~ benign-race
        out[cell * OUTS + k + 1] = q; //~ benign-race
        out[cell * OUTS + k + 2] = p - q; //~ benign-race
    }
}

// Four-wide outputs: the slot, through a pointer to it, and the cell's
// field values packed by `make_float4`.
__global__ void slots_to_vectors(float4 *out, const unsigned *cells, const float *field, unsigned last)
{
    unsigned cell = cells[min(blockIdx.x * blockDim.x + threadIdx.x, last)];
    float a = field[cell];
    float b = field[cell + 1];
    unsigned code = (unsigned)(a < 0.5f) + 2 * (unsigned)(b < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = b - a;
    s[2 * NT + threadIdx.x] = a * b;
    s[3 * NT + threadIdx.x] = b;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        const float *p = &s[(c_edge[code * OUTS + k] & (EDGES - 1)) * NT + threadIdx.x];
        out[cell * OUTS + k] = make_float4(*p, a, b, 1.0f); //~ benign-race
    }
}

// One member of the vector is the thread's index.
__global__ void vector_mixes_thread(float4 *out, const unsigned *cells, const float *field, unsigned last)
{
    unsigned cell = cells[min(blockIdx.x * blockDim.x + threadIdx.x, last)];
    float a = field[cell];
    unsigned code = (unsigned)(a < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = a * a;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        unsigned e = c_edge[code * OUTS + k] & 1;
        out[cell * OUTS + k] = make_float4(s[e * NT + threadIdx.x], a, (float)threadIdx.x, 1.0f); //~ data-race
    }
}

// The slot holds a value of the thread's own index.
__global__ void slot_mixes_thread(float *out, const unsigned *cells, const float *field, unsigned last)
{
    unsigned cell = cells[min(blockIdx.x * blockDim.x + threadIdx.x, last)];
    float a = field[cell];
    unsigned code = (unsigned)(a < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = a + (float)threadIdx.x;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        unsigned e = c_edge[code * OUTS + k] & 1;
        out[cell * OUTS + k] = s[e * NT + threadIdx.x]; //~ data-race
    }
}

// The slot read is the neighbouring thread's, which may hold another
// cell's values.
__global__ void slot_of_neighbour(float *out, const unsigned *cells, const float *field, unsigned last)
{
    unsigned cell = cells[min(blockIdx.x * blockDim.x + threadIdx.x, last)];
    float a = field[cell];
    unsigned code = (unsigned)(a < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = a * a;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        unsigned e = c_edge[code * OUTS + k] & 1;
        out[cell * OUTS + k] = s[e * NT + (threadIdx.x ^ 1)]; //~ data-race
    }
}

// The output slot is clamped, the field read is not: the surplus threads
// write values of the cells past the last.
__global__ void clamp_on_output_only(float *out, const float *field, unsigned last)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned cell = min(g, last);
    float a = field[g];
    unsigned code = (unsigned)(a < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = a * a;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        unsigned e = c_edge[code * OUTS + k] & 1;
        out[cell * OUTS + k] = s[e * NT + threadIdx.x]; //~ data-race
    }
}

// Between two more barriers each thread rewrites its right neighbour's
// first slot: what a thread reads back there is no longer its own value.
__global__ void slot_rewritten_by_other(float *out, const unsigned *cells, const float *field, unsigned last)
{
    unsigned cell = cells[min(blockIdx.x * blockDim.x + threadIdx.x, last)];
    float a = field[cell];
    unsigned code = (unsigned)(a < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = a * a;
    __syncthreads();
    s[(threadIdx.x + 1) % NT] = a * 3.0f;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        unsigned e = c_edge[code * OUTS + k] & 1;
        out[cell * OUTS + k] = s[e * NT + threadIdx.x]; //~ data-race
    }
}

// The field is also written by the kernel: two reads of one cell may see
// different values.
__global__ void field_written(float *out, const unsigned *cells, float *field, unsigned last)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned cell = cells[min(g, last)];
    float a = field[cell];
    unsigned code = (unsigned)(a < 0.5f);
    __shared__ float s[EDGES * NT];
    s[threadIdx.x] = a;
    s[NT + threadIdx.x] = a * a;
    __syncthreads();
    unsigned n = c_count[code];
    for (unsigned k = 0; k < n && k < OUTS; ++k) {
        unsigned e = c_edge[code * OUTS + k] & 1;
        out[cell * OUTS + k] = s[e * NT + threadIdx.x]; //~ data-race
    }
    field[g] = 0.0f; //~ data-race
}
