// The running example of Sarkar et al. with every reported problem fixed:
//   IR 2  each thread writes its own cell A[tid];
//   IR 3  reads the neighbour's cell only after a barrier;
//   IR 4  the barrier is hoisted out of `if (tid % 2 == 0)`;
//   IR 6  A is written into a second buffer instead of in place;
//   IR 9  the loop only reads A2 and accumulates in a register.
// Every remaining barrier is needed.
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: running_example_fixed verified

#define N 64

__global__ void running_example_fixed(int *out)
{
    __shared__ int A[N + 1];
    __shared__ int A2[N + 1];
    __shared__ int B[N];
    __shared__ int C[N];
    int tid = threadIdx.x;

    A[tid] = tid;
    if (tid == 0)
        A[N] = 0;
    __syncthreads();
    C[tid] = A[tid + 1];

    if (tid % 2 == 0)
        B[tid] = A[tid] + 10;
    A2[tid + 1] = 10;
    __syncthreads();

    int acc = 0;
    for (int i = 0; i < 100; i++)
        acc += A2[(tid + i) % N + 1];

    out[tid] = B[tid] + C[tid] + acc;
}
