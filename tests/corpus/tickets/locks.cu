// Item 3 of issue 19: locks built from atomicCAS/atomicExch. Mutual
// exclusion is not modelled, so accesses that two threads make while both
// hold the same lock are reported not-verified (naming the lock), never a
// definite race and never silently safe: a spin lock (`while (atomicCAS(..)
// != 0);` ... `atomicExch(.., 0)`) and a try-lock in a retry loop. An
// access outside the lock racing with one inside it is a definite race
// (`publish_after_unlock` reads the total after releasing the lock).
// syncscope-args: --block-dim 128 --grid-dim 16
// expect-kernel: accumulate_spin_lock not-verified
// expect-kernel: accumulate_try_lock not-verified
// expect-kernel: publish_after_unlock racy

__device__ void lock(int *m)
{
    while (atomicCAS(m, 0, 1) != 0)
        ;
}

__device__ void unlock(int *m)
{
    __threadfence();
    atomicExch(m, 0);
}

__global__ void accumulate_spin_lock(float *total, int *mutex, const float *in)
{
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (threadIdx.x == 0) {
        lock(mutex);
        total[0] += v; //~ not-verified
        unlock(mutex);
    }
}

__global__ void accumulate_try_lock(float *total, int *mutex, const float *in)
{
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (threadIdx.x == 0) {
        bool done = false;
        while (!done) {
            if (atomicExch(mutex, 1) == 0) {
                total[0] += v; //~ not-verified
                __threadfence();
                atomicExch(mutex, 0);
                done = true;
            }
        }
    }
}

__global__ void publish_after_unlock(float *total, float *out, int *mutex, const float *in)
{
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (threadIdx.x == 0) {
        while (atomicCAS(mutex, 0, 1) != 0)
            ;
        total[0] += v; //~ data-race not-verified
        __threadfence();
        atomicExch(mutex, 0);
        out[blockIdx.x] = total[0]; //~ data-race
    }
}
