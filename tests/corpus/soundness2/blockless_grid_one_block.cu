// The kernels of `blockless_grid.cu` launched as one block (the launch says
// so): thread 0 is then one thread, and its update is verified.
// syncscope-args: --grid-dim 1
// expect-kernel: total verified

__global__ void total(int *t) {
    if (threadIdx.x == 0) *t += 1;
}
