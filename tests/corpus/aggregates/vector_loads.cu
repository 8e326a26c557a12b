// Reinterpretation that changes the element size: a pointer cast to
// `float4*`/`float2*`/`char*` counts bytes, and the array it points into
// becomes byte-addressed, so a `float4` write and a `float` read collide
// exactly when their bytes overlap.
//  * stage_float4:        each thread stores a float4 (floats 4t..4t+3) and,
//                         after the barrier, reads a float another thread
//                         stored: verified.
//  * stage_float4_own:    no barrier, but each thread reads only the last
//                         float of its own float4: verified (the element-index
//                         model called this racy: index t against 4t+3).
//  * stage_generic:       the same through a template helper whose type
//                         parameter the model does not bind: the float4's size
//                         is unknown, so `stage` is accessed in units the
//                         model cannot relate: not-verified (never guessed).
//  * stage_float4_racy:   no barrier, and thread t reads float 4t+5, which
//                         thread t+1's float4 covers: racy.
//  * first_warp_stages_racy: the first warp stores 32 float4s (floats 0..127)
//                         and the last warp reads floats 64..95 with no
//                         barrier: racy (counting a float4 as one float, the
//                         stores end at float 31 and the race was missed).
//  * pack_pairs_racy:     a float2 store (floats 2i, 2i+1) and a float store
//                         to float 2i+2 of the same global array: racy.
//  * shifted_bytes_racy:  `(char *)g + sizeof(float)` seen as floats: thread
//                         i writes float i+1, which thread i+1 reads: racy.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: stage_float4 verified
// expect-kernel: stage_float4_own verified
// expect-kernel: stage_generic not-verified
// expect-kernel: stage_float4_racy racy
// expect-kernel: pack_pairs_racy racy
// expect-kernel: first_warp_stages_racy racy
// expect-kernel: shifted_bytes_racy racy

#define THREADS 128
#define VEC 4

__device__ __forceinline__ float4 *as_float4(float *p) { return reinterpret_cast<float4 *>(p); }

template <typename V>
__device__ __forceinline__ V *as_vector(float *p) { return reinterpret_cast<V *>(p); }

__global__ void stage_float4(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float stage[THREADS * VEC];
    const float4 *src = reinterpret_cast<const float4 *>(in) + blockIdx.x * THREADS;
    reinterpret_cast<float4 *>(stage)[threadIdx.x] = src[threadIdx.x];
    __syncthreads();
    out[blockIdx.x * THREADS * VEC + threadIdx.x] = stage[(threadIdx.x * VEC + VEC) % (THREADS * VEC)];
}

__global__ void stage_float4_own(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float stage[THREADS * VEC];
    float4 v = reinterpret_cast<const float4 *>(in)[blockIdx.x * THREADS + threadIdx.x];
    as_float4(stage)[threadIdx.x] = v;
    out[blockIdx.x * THREADS + threadIdx.x] = stage[threadIdx.x * VEC + VEC - 1];
}

__global__ void stage_generic(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float stage[THREADS * VEC];
    float4 v = reinterpret_cast<const float4 *>(in)[blockIdx.x * THREADS + threadIdx.x];
    as_vector<float4>(stage)[threadIdx.x] = v; //~ not-verified
    out[blockIdx.x * THREADS + threadIdx.x] = stage[threadIdx.x * VEC + VEC - 1];
}

__global__ void stage_float4_racy(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float stage[THREADS * VEC + VEC];
    float4 v = reinterpret_cast<const float4 *>(in)[blockIdx.x * THREADS + threadIdx.x];
    reinterpret_cast<float4 *>(stage)[threadIdx.x] = v; //~ data-race
    out[blockIdx.x * THREADS + threadIdx.x] = stage[threadIdx.x * VEC + 5]; //~ data-race
}

__global__ void pack_pairs_racy(float *g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float2 *pairs = (float2 *)g;
    pairs[i] = make_float2(0.0f, 0.0f); //~ data-race
    g[2 * i + 2] = 1.0f; //~ data-race
}

__global__ void shifted_bytes_racy(float *g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    char *bytes = (char *)g + sizeof(float);
    float *shifted = (float *)bytes;
    shifted[i] = g[i] * 0.5f; //~ data-race
}

__global__ void first_warp_stages_racy(const float4 *__restrict__ in, float *__restrict__ out)
{
    __shared__ float stage[THREADS * VEC];
    if (threadIdx.x < 32)
        reinterpret_cast<float4 *>(stage)[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x]; //~ data-race
    if (threadIdx.x >= 96)
        out[blockIdx.x * THREADS + threadIdx.x] = stage[threadIdx.x - 32]; //~ data-race
}
