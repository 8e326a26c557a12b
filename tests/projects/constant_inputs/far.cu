// A `__constant__` symbol of this unit that another unit (launcher.cu)
// declares for itself and copies 2 into before launching the kernel: that
// copy writes launcher.cu's own symbol, not this one (no fact: the stride
// stays unknown, not verified).
// expect-kernel: far_cells not-verified
#include <cuda_runtime.h>

__constant__ int c_far;

__global__ void far_cells(int *cells)
{
    cells[threadIdx.x * c_far] = threadIdx.x; //~ not-verified
}
