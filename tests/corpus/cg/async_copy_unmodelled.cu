// `cuda::pipeline` and `cuda::memcpy_async` are outside the model: they are
// reported `not-verified` at each call -- never silently verified.
// `ring_overrun` keeps more copies in flight than it has buffers (a real
// race, which the model cannot see yet).  `cg::memcpy_async` with
// `cg::wait` is modelled: see async_copy.cu.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: ring_overrun not-verified

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__global__ void ring_overrun(const float *in, float *out, int tiles)
{
    __shared__ float ring[2][128];
    auto pipe = cuda::make_pipeline();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        pipe.producer_acquire(); //~ not-verified
        cuda::memcpy_async(&ring[t % 2][threadIdx.x], &in[(blockIdx.x * tiles + t) * 128 + threadIdx.x], sizeof(float), pipe); //~ not-verified
        pipe.producer_commit(); //~ not-verified
        if (t >= 2) {
            pipe.consumer_wait(); //~ not-verified
            acc += ring[t % 2][(threadIdx.x + 1) % 128];
            pipe.consumer_release(); //~ not-verified
        }
    }
    out[blockIdx.x * 128 + threadIdx.x] = acc;
}
