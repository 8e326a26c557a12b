// Kernels launched inside host `while` loops (host.cu): the loop's test
// holds at a launch when nothing between the test and the launch writes
// what it reads (the loop's update after the launch, in the body).
// `while (stride > 0) { spread<<<..>>>(.., stride); stride >>= 1; }` makes
// `stride > 0` a fact (each thread its own cell: verified); a loop that
// halves the stride before the launch can launch it with 0 (racy), and so
// can one whose stride a pointer taken before the loop may change. A
// global tested by the loop holds at a launch no call precedes in the body
// (verified); a helper called before the launch may write it (`g_level /=
// 4` leaves 0): racy.
// expect-kernel: spread_tested verified
// expect-kernel: spread_halved_first racy
// expect-kernel: spread_aliased racy
// expect-kernel: spread_global verified
// expect-kernel: spread_global_helper racy

__global__ void spread_tested(int *cells, unsigned stride)
{
    cells[threadIdx.x * stride] = threadIdx.x;
}

__global__ void spread_halved_first(int *cells, unsigned stride)
{
    cells[threadIdx.x * stride] = threadIdx.x; //~ data-race
}

__global__ void spread_aliased(int *cells, unsigned stride)
{
    cells[threadIdx.x * stride] = threadIdx.x; //~ data-race
}

__global__ void spread_global(int *cells, unsigned stride)
{
    cells[threadIdx.x * stride] = threadIdx.x;
}

__global__ void spread_global_helper(int *cells, unsigned stride)
{
    cells[threadIdx.x * stride] = threadIdx.x; //~ data-race
}
