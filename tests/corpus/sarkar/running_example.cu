// The running example of Sarkar et al. (Figure 1, Examples 1-3), rebuilt
// from the paper's description and its predicated formulas (IR 2-9).  Three
// shared arrays A, B, C; one block of 64 threads.  Expected findings, all in
// one run:
//   IR 2        A[tid % 2] is written by every thread: threads 0, 2, 4, ...
//               all write A[0] (write/write race with itself).
//   IR 2 / IR 3 thread 1 writes A[1] while thread 0 reads A[0 + 1].
//   IR 4        the barrier inside `if (tid % 2 == 0)` is reached by the even
//               threads only: barrier divergence.
//   IR 5 / IR 6 thread 2 reads A[2] while thread 1 writes A[1 + 1]
//               (`tid % 1 == 0` is always true, as in the paper).
//   IR 8 / IR 9 the loop writes A[(tid + i) % 64]: thread 0 at i = 1 and
//               thread 1 at i = 0 both write A[1]; it also collides with
//               IR 5 and IR 6.
// The write to B before the divergent barrier only makes that barrier
// necessary (even threads t and t+2 meet on B[t+2] without it).
// syncscope-args: --block-dim 64 --grid-dim 1
// expect-kernel: running_example divergent

#define N 64

__global__ void running_example(int *out)
{
    __shared__ int A[N + 1];
    __shared__ int B[N + 2];
    __shared__ int C[N + 1];
    int tid = threadIdx.x;

    A[tid % 2] = tid;              // IR 2 //~ data-race
    C[tid] = A[tid + 1];           // IR 3 //~ data-race
    __syncthreads();

    if (tid % 2 == 0) {
        B[tid + 2] = C[tid + 1];
        __syncthreads();           // IR 4 //~ barrier-divergence
        B[tid] = A[tid] + 10;      // IR 5 //~ data-race
    }
    if (tid % 1 == 0)
        A[tid + 1] = 10;           // IR 6 //~ data-race

    for (int i = 0; i < 100; i++)  // IR 8
        A[(tid + i) % N] = i + 10; // IR 9 //~ data-race

    out[tid] = B[tid];
}
