// Colours packed into one word by shifts and ors (`(a << 24) | (b << 16)
// | (g << 8) | r`, each channel a float scaled to 0..255): the race
// queries need the written value only to tell two threads' values equal
// or not, so the packed value stays opaque (no 32-bit vectors for the
// whole query, where the rows' products cost Z3 millions of units), and
// two values are equal only as one computation of equal inputs. Rows per
// thread verified; one word per block from a kernel parameter a benign
// race; a word from each thread's own pixel, and rows one cell too long,
// racy.
// expect-kernel: packed_rows verified
// expect-kernel: packed_rows_overlap racy
// expect-kernel: packed_broadcast verified
// expect-kernel: packed_per_thread racy

__device__ unsigned pack(float4 c)
{
    return ((unsigned)(c.w * 255.0f) << 24) | ((unsigned)(c.z * 255.0f) << 16)
         | ((unsigned)(c.y * 255.0f) << 8) | ((unsigned)(c.x * 255.0f));
}

__global__ void packed_rows(unsigned *out, const float4 *in, int w, int h)
{
    unsigned y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y < h) {
        for (int x = 0; x < w; x++)
            out[y * w + x] = pack(in[y * w + x]);
    }
}

// Each row one cell longer than the width: its last cell is the next
// row's first.
__global__ void packed_rows_overlap(unsigned *out, const float4 *in, int w, int h)
{
    unsigned y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y < h) {
        for (int x = 0; x <= w; x++)
            out[y * w + x] = pack(in[y * w]); //~ data-race
    }
}

// One computation of one input for every thread: the same word.
__global__ void packed_broadcast(unsigned *out, float4 c)
{
    out[blockIdx.x] = pack(c); //~ benign-race
}

// Each thread packs its own pixel into one cell of its block.
__global__ void packed_per_thread(unsigned *out, const float4 *in)
{
    out[blockIdx.x] = pack(in[blockIdx.x * blockDim.x + threadIdx.x]); //~ data-race
}
