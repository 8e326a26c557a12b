// Item 3 of issue 19: `atomicInc(&c, N)` wraps at N, so the slots it hands
// out are distinct only while N + 1 covers every increment. Outside the
// last-block pattern (one increment per block, `tickets/last_block.cu`)
// that is not modelled: a possible race that depends on its values is
// not-verified, naming atomicInc, never a definite race nor verified
// (`ring_push`: 1024 slots for a launch of any size). A race that does not
// depend on them stays definite (`ring_push_stamp`: every thread stamps
// slot 0 of the ring with its own index).
// syncscope-args: --block-dim 256
// expect-kernel: ring_push not-verified
// expect-kernel: ring_push_stamp racy

#define RING 1024u

__device__ unsigned g_ring_head = 0;

__global__ void ring_push(float *ring, const float *in)
{
    unsigned slot = atomicInc(&g_ring_head, RING - 1);
    ring[slot] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ not-verified
}

__global__ void ring_push_stamp(float *ring, unsigned *stamp, const float *in)
{
    unsigned slot = atomicInc(&g_ring_head, RING - 1);
    ring[slot] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ not-verified
    stamp[0] = threadIdx.x; //~ data-race
}
