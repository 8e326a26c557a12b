// Item 5 of issue 19: a `__shared__` scalar written by one thread and read
// after a barrier holds one value for the whole block, so a loop bounded by
// it is uniform and the barriers inside it are not divergent. The same for
// a `__shared__` array read at a block-uniform index (here the counter of
// an enclosing loop): `s_len[seg]` is one value per segment. Where each
// thread reads its own element (`s_len[threadIdx.x]`), the trip count may
// differ between threads and the barriers inside are divergent.
// syncscope-args: --block-dim 128 --grid-dim 32
// expect-kernel: gather_segments verified
// expect-kernel: stream_segment verified
// expect-kernel: stream_own_length divergent

#define CHUNK 128
#define MAX_SEGMENTS 8

struct SegmentTable {
    const int *offsets;
    const int *lengths;
};

template <typename T>
__device__ T rotate_read(const T *tile, unsigned lane)
{
    return tile[(lane + 1) % CHUNK];
}

// One block per row; each row has up to MAX_SEGMENTS segments, whose lengths
// thread 0..MAX_SEGMENTS-1 stage in shared memory first.
template <typename T>
__global__ void gather_segments(T *out, const T *in, const int *lengths)
{
    __shared__ int s_len[MAX_SEGMENTS];
    __shared__ T tile[CHUNK];
    const unsigned lane = threadIdx.x;

    if (lane < MAX_SEGMENTS)
        s_len[lane] = lengths[blockIdx.x * MAX_SEGMENTS + lane];
    __syncthreads();

    T acc = 0;
    for (int seg = 0; seg < MAX_SEGMENTS; ++seg) {
        for (int base = 0; base < s_len[seg]; base += CHUNK) {
            tile[lane] = in[(blockIdx.x * MAX_SEGMENTS + seg) * 4096 + base + lane];
            __syncthreads();
            acc += rotate_read(tile, lane);
            __syncthreads();
        }
    }
    out[blockIdx.x * CHUNK + lane] = acc;
}

// The row length is read once by thread 0 and broadcast through `s_count`.
__global__ void stream_segment(float *out, const float *in, const int *row_ptr)
{
    __shared__ int s_begin, s_count;
    __shared__ float tile[CHUNK];

    if (threadIdx.x == 0) {
        s_begin = row_ptr[blockIdx.x];
        s_count = row_ptr[blockIdx.x + 1] - s_begin;
    }
    __syncthreads();

    float sum = 0.0f;
    for (int i = 0; i < s_count; i += CHUNK) {
        tile[threadIdx.x] = in[s_begin + i + threadIdx.x];
        __syncthreads();
        sum += tile[CHUNK - 1 - threadIdx.x];
        __syncthreads();
    }
    out[blockIdx.x * CHUNK + threadIdx.x] = sum;
}

// Racy twin: every thread loops over its own length, so the barriers inside
// are reached by some threads of a block and not by others.
__global__ void stream_own_length(float *out, const float *in, const int *lengths)
{
    __shared__ int s_len[CHUNK];
    __shared__ float tile[CHUNK];

    s_len[threadIdx.x] = lengths[blockIdx.x * CHUNK + threadIdx.x];
    __syncthreads();

    float sum = 0.0f;
    for (int i = 0; i < s_len[threadIdx.x]; i += CHUNK) {
        tile[threadIdx.x] = in[blockIdx.x * 4096 + i + threadIdx.x];
        __syncthreads(); //~ barrier-divergence
        sum += tile[CHUNK - 1 - threadIdx.x];
        __syncthreads(); //~ barrier-divergence
    }
    out[blockIdx.x * CHUNK + threadIdx.x] = sum;
}

void launch_gather(float *out, const float *in, const int *lengths, int rows)
{
    gather_segments<float><<<rows, CHUNK>>>(out, in, lengths);
}
