// Host code of driver_unknown/kernels.cu.
#include <cuda.h>

void named(CUmodule module, CUdeviceptr out, CUdeviceptr in)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "ring_named");
    void *args[] = {&out, &in};
    cuLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, 0, args, 0);
}

void by_name(CUmodule module, const char *name, CUdeviceptr out, CUdeviceptr in, int threads)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, name);
    void *args[] = {&out, &in};
    cuLaunchKernel(f, 4, 1, 1, threads, 1, 1, 0, 0, args, 0);
}
