// `cuda::pipeline` with `cuda::memcpy_async` (modelled since issue 19, see
// tests/corpus/async/): `ring_overrun` reads a neighbour's element of the
// buffer right after its own `consumer_wait`, with no barrier, while the
// neighbour's copy may still be landing: racy.  It also waits only from
// the third iteration on, so a stage may be in flight longer than one
// iteration, which the model names (not-verified) besides the race.
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: ring_overrun racy

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__global__ void ring_overrun(const float *in, float *out, int tiles)
{
    __shared__ float ring[2][128];
    auto pipe = cuda::make_pipeline();
    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) { //~ not-verified
        pipe.producer_acquire();
        cuda::memcpy_async(&ring[t % 2][threadIdx.x], &in[(blockIdx.x * tiles + t) * 128 + threadIdx.x], sizeof(float), pipe); //~ data-race
        pipe.producer_commit();
        if (t >= 2) {
            pipe.consumer_wait();
            acc += ring[t % 2][(threadIdx.x + 1) % 128]; //~ data-race
            pipe.consumer_release();
        }
    }
    out[blockIdx.x * 128 + threadIdx.x] = acc;
}
