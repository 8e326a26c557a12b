// Pointers chosen among arrays that the model does not join, named, and a
// pointer a loop points into another array.
//  * unlike_layouts:     a pointer into a 128-element or a 64-element
//                        array: their layouts differ, so the access
//                        through it is not-verified, naming both.
//  * atomic_choice:      an atomic counter chosen among two arrays: a
//                        counter is followed by its array, so the update
//                        is not-verified, naming both.
//  * loop_moves_pointer: a pointer that starts in `first` and is pointed
//                        into `second` at the end of each iteration: the
//                        second iteration writes `second`, which threads
//                        read without a barrier: racy (the loop's pointer
//                        may point into either array).
// syncscope-args: --block-dim 128 --grid-dim 1
// expect-kernel: unlike_layouts not-verified
// expect-kernel: atomic_choice not-verified
// expect-kernel: loop_moves_pointer racy

__global__ void unlike_layouts(float *out)
{
    __shared__ float wide[128];
    __shared__ float narrow[64];
    const int t = threadIdx.x;
    float *p = (t < 64) ? wide : narrow;
    p[t % 64] = 1.0f; //~ not-verified
    __syncthreads();
    out[t] = wide[t] + narrow[t % 64];
}

__global__ void atomic_choice(int *out)
{
    __shared__ int evens[4];
    __shared__ int odds[4];
    const int t = threadIdx.x;
    if (t < 4) {
        evens[t] = 0;
        odds[t] = 0;
    }
    __syncthreads();
    int *counter = (t % 2 == 0) ? evens : odds;
    atomicAdd(counter + t % 4, 1); //~ not-verified
    __syncthreads();
    if (t < 4) {
        out[t] = evens[t] + odds[t];
    }
}

__global__ void loop_moves_pointer(int *out)
{
    __shared__ int first[128];
    __shared__ int second[128];
    const int t = threadIdx.x;
    int *p = first;
    for (int k = 0; k < 2; k++) {
        p[t] = k; //~ data-race
        p = second;
    }
    out[t] = second[(t + 1) % 128]; //~ data-race
}
