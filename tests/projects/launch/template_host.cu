// Kernels whose non-type template parameter (the number of shared buffers)
// is bound only where they are launched, from inside a host function
// template whose own parameter is bound by its calls: `launch_rows<kStages>`
// launches `rows_ring<S>` with S = 2. The ring reads buffer i % Stages while
// the next tile goes into buffer (i + 1) % Stages, one barrier per
// iteration: race-free with two buffers or more, racy with one.
//  * rows_ring:        every instantiation of the launcher has 2 stages:
//                      verified.
//  * rows_ring_single: its launcher is also called with 1 stage: racy
//                      under that launch.
// expect-kernel: rows_ring verified
// expect-kernel: rows_ring_single racy

#define TILE 128
constexpr int kStages = 2;

template <int Stages>
__global__ void rows_ring(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[Stages][TILE];
    const int t = threadIdx.x;
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    buf[0][t] = src[t];
    __syncthreads();
    for (int i = 0; i < tiles; ++i) {
        if (i + 1 < tiles)
            buf[(i + 1) % Stages][t] = src[(i + 1) * TILE + t];
        acc += buf[i % Stages][(t + 1) % TILE];
        __syncthreads();
    }
    out[blockIdx.x * TILE + t] = acc;
}

template <int Stages>
__global__ void rows_ring_single(const float *__restrict__ in, float *__restrict__ out, int tiles)
{
    __shared__ float buf[Stages][TILE];
    const int t = threadIdx.x;
    const float *src = in + blockIdx.x * tiles * TILE;
    float acc = 0.0f;
    buf[0][t] = src[t];
    __syncthreads();
    for (int i = 0; i < tiles; ++i) {
        if (i + 1 < tiles)
            buf[(i + 1) % Stages][t] = src[(i + 1) * TILE + t]; //~ data-race
        acc += buf[i % Stages][(t + 1) % TILE]; //~ data-race
        __syncthreads();
    }
    out[blockIdx.x * TILE + t] = acc;
}

template <int S>
void launch_rows(const float *in, float *out, int rows, int tiles)
{
    dim3 block(TILE);
    dim3 grid(rows);
    rows_ring<S><<<grid, block>>>(in, out, tiles);
}

template <int S>
void launch_rows_single(const float *in, float *out, int rows, int tiles)
{
    rows_ring_single<S><<<rows, TILE>>>(in, out, tiles);
}

void smooth_rows(const float *in, float *out, int rows, int tiles)
{
    launch_rows<kStages>(in, out, rows, tiles);
    launch_rows<2>(in, out, rows, tiles);
    launch_rows_single<kStages>(in, out, rows, tiles);
    launch_rows_single<1>(in, out, rows, tiles);
}
