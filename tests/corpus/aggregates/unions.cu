// `__shared__` unions: one block of shared memory reused under several
// element types (a staging buffer read back as bits, as bytes, as
// vectors). The members of a union share its bytes: the union is one array
// of bytes and each member a view of it from byte 0 with its element size,
// so a write through one member and a read through another collide exactly
// when their bytes do. Members the model cannot lay out (here a
// two-dimensional array) make the kernel not-verified, naming the union.
//  * float_bits:          floats written, a barrier, the neighbour's bits
//                         read as int: verified.
//  * float_bits_racy:     the same without the barrier: racy.
//  * pack_bytes:          each thread reads back the four bytes of its own
//                         float as a uchar4: verified without a barrier.
//  * pack_bytes_racy:     the bytes of the next float: racy.
//  * sort_keys:           a named union of double and int words; each
//                         thread writes one double and reads its own two
//                         words: verified.
//  * sort_keys_racy:      a thread reads the words of the double another
//                         thread wrote: racy.
//  * block_flag:          a scalar union member set by thread 0 and read as
//                         bits after the barrier: verified.
//  * block_flag_racy:     read before the barrier: racy.
//  * scratch_bits:        a file-scope `__shared__` union (one per block),
//                         barrier between the members: verified.
//  * scratch_bits_racy:   without the barrier: racy.
//  * tagged_stage:        a union inside a `__shared__` struct (beside other
//                         members), barrier between its members: verified.
//  * tagged_stage_racy:   without the barrier: racy.
//  * radix_digits:        a thread-local union (float to bits) in a device
//                         function: private memory, verified.
//  * radix_digits_racy:   its bits pick a shared counter every thread writes
//                         without an atomic: racy.
//  * tile_overlay:        a 2-D member: not-verified.
// syncscope-args: --block-dim 256 --grid-dim 64
// expect-kernel: float_bits verified
// expect-kernel: float_bits_racy racy
// expect-kernel: pack_bytes verified
// expect-kernel: pack_bytes_racy racy
// expect-kernel: sort_keys verified
// expect-kernel: sort_keys_racy racy
// expect-kernel: block_flag verified
// expect-kernel: block_flag_racy racy
// expect-kernel: scratch_bits verified
// expect-kernel: scratch_bits_racy racy
// expect-kernel: tagged_stage verified
// expect-kernel: tagged_stage_racy racy
// expect-kernel: radix_digits verified
// expect-kernel: radix_digits_racy racy
// expect-kernel: tile_overlay not-verified

#define THREADS 256

union KeyWords {
    double key[THREADS];
    int word[2 * THREADS];
};

__shared__ union {
    float value[THREADS];
    unsigned bits[THREADS];
} scratch;

struct TaggedStage {
    int tag[THREADS];
    union {
        float as_float[THREADS];
        unsigned as_bits[THREADS];
    } payload;
};

__device__ __forceinline__ unsigned flip_sign(int bits)
{
    return bits < 0 ? ~bits : bits ^ 0x80000000;
}

__global__ void float_bits(const float *in, unsigned *out)
{
    __shared__ union {
        float f[THREADS];
        int i[THREADS];
        uchar4 c[THREADS];
    } stage;
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    stage.f[t] = in[g];
    __syncthreads();
    out[g] = flip_sign(stage.i[t ^ 1]);
}

__global__ void float_bits_racy(const float *in, unsigned *out)
{
    __shared__ union {
        float f[THREADS];
        int i[THREADS];
        uchar4 c[THREADS];
    } stage;
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    stage.f[t] = in[g]; //~ data-race
    out[g] = flip_sign(stage.i[t ^ 1]); //~ data-race
}

__global__ void pack_bytes(const float *in, unsigned char *out)
{
    __shared__ union {
        float f[THREADS];
        uchar4 c[THREADS];
    } stage;
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    stage.f[t] = in[g];
    uchar4 b = stage.c[t];
    out[4 * g] = b.w;
    out[4 * g + 1] = b.z;
    out[4 * g + 2] = b.y;
    out[4 * g + 3] = b.x;
}

__global__ void pack_bytes_racy(const float *in, unsigned char *out)
{
    __shared__ union {
        float f[THREADS];
        unsigned char bytes[4 * THREADS];
    } stage;
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    stage.f[t] = in[g]; //~ data-race
    if (t + 1 < THREADS)
        out[g] = stage.bytes[4 * t + 4]; //~ data-race
}

__global__ void sort_keys(const double *keys, int *hi_words, int *lo_words)
{
    __shared__ KeyWords kw;
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    kw.key[t] = keys[g];
    lo_words[g] = kw.word[2 * t];
    hi_words[g] = kw.word[2 * t + 1];
}

__global__ void sort_keys_racy(const double *keys, int *hi_words, int *lo_words)
{
    __shared__ KeyWords kw;
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    kw.key[t] = keys[g]; //~ data-race
    lo_words[g] = kw.word[t]; //~ data-race
    hi_words[g] = kw.word[t + THREADS]; //~ data-race
}

__global__ void block_flag(const float *in, float *out)
{
    __shared__ union {
        float scale;
        int bits;
    } flag;
    int g = blockIdx.x * THREADS + threadIdx.x;
    if (threadIdx.x == 0)
        flag.scale = in[blockIdx.x];
    __syncthreads();
    out[g] = (flag.bits & 0x7f800000) ? in[g] : 0.0f;
}

__global__ void block_flag_racy(const float *in, float *out)
{
    __shared__ union {
        float scale;
        int bits;
    } flag;
    int g = blockIdx.x * THREADS + threadIdx.x;
    if (threadIdx.x == 0)
        flag.scale = in[blockIdx.x]; //~ data-race
    out[g] = (flag.bits & 0x7f800000) ? in[g] : 0.0f; //~ data-race
}

__global__ void scratch_bits(const float *in, unsigned *out)
{
    int t = threadIdx.x;
    scratch.value[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    out[blockIdx.x * THREADS + t] = scratch.bits[THREADS - 1 - t] >> 31;
}

__global__ void scratch_bits_racy(const float *in, unsigned *out)
{
    int t = threadIdx.x;
    scratch.value[t] = in[blockIdx.x * THREADS + t]; //~ data-race
    out[blockIdx.x * THREADS + t] = scratch.bits[THREADS - 1 - t] >> 31; //~ data-race
}

__global__ void tagged_stage(const float *in, unsigned *out)
{
    __shared__ TaggedStage st;
    int t = threadIdx.x;
    st.tag[t] = t & 1;
    st.payload.as_float[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    int peer = (t + 32) % THREADS;
    out[blockIdx.x * THREADS + t] = st.tag[peer] ? st.payload.as_bits[peer] : 0u;
}

__global__ void tagged_stage_racy(const float *in, unsigned *out)
{
    __shared__ TaggedStage st;
    int t = threadIdx.x;
    st.tag[t] = t & 1; //~ data-race
    st.payload.as_float[t] = in[blockIdx.x * THREADS + t]; //~ data-race
    int peer = (t + 32) % THREADS;
    out[blockIdx.x * THREADS + t] = st.tag[peer] ? st.payload.as_bits[peer] : 0u; //~ data-race
}

__device__ unsigned float_key(float v)
{
    union {
        float f;
        unsigned u;
    } conv;
    conv.f = v;
    return conv.u ^ ((conv.u >> 31) ? 0xffffffffu : 0x80000000u);
}

__global__ void radix_digits(const float *in, unsigned char *digits)
{
    int g = blockIdx.x * THREADS + threadIdx.x;
    digits[g] = float_key(in[g]) >> 24;
}

__global__ void radix_digits_racy(const float *in, unsigned *counts)
{
    __shared__ unsigned local_counts[256];
    int g = blockIdx.x * THREADS + threadIdx.x;
    unsigned digit = float_key(in[g]) >> 24;
    local_counts[digit] += 1; //~ data-race
    __syncthreads();
    counts[blockIdx.x * 256 + threadIdx.x] = local_counts[threadIdx.x];
}

__global__ void tile_overlay(const float *in, float *out)
{
    __shared__ union {
        float tile[16][16];
        float flat[THREADS];
    } buf;
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    buf.flat[t] = in[g];
    __syncthreads();
    out[g] = buf.tile[t % 16][t / 16]; //~ not-verified
}
