// Host code of driver_api/kernels.cu: the driver API loads each kernel by
// name from a module and launches the handle.
#include <cuda.h>

#define RING_THREADS 64

CUfunction g_escaped;

void direct(CUmodule module, CUdeviceptr out, CUdeviceptr in, int n)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "ring_direct");
    void *args[] = {&out, &in};
    cuLaunchKernel(f, n / 64, 1, 1, 64, 1, 1, 0, 0, args, 0);

    CUfunction wide;
    cuModuleGetFunction(&wide, module, "ring_wide");
    cuLaunchKernel(wide, n / 128, 1, 1, 128, 1, 1, 0, 0, args, 0);
}

void table(CUmodule module, CUdeviceptr out, CUdeviceptr in, int i)
{
    const char *names[] = {"ring_table_a", "ring_table_b"};
    CUfunction f;
    cuModuleGetFunction(&f, module, names[i]);
    void *args[] = {&out, &in};
    if (i == 0) {
        cuLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, 0, args, 0);
    } else {
        cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0, args, 0);
    }
}

void dims(CUmodule module, CUdeviceptr out, CUdeviceptr in, int n, bool again)
{
    CUfunction f;
    // Either kernel may be loaded: each gets this launch.
    cuModuleGetFunction(&f, module, again ? "ring_direct" : "ring_dims");
    dim3 block(RING_THREADS);
    dim3 grid(n / RING_THREADS);
    void *args[] = {&out, &in};
    cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, 0, args, 0);
}

void cooperative(CUmodule module, CUdeviceptr out, CUdeviceptr in)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "ring_coop");
    void *args[] = {&out, &in};
    cuLaunchCooperativeKernel(f, 8, 1, 1, 96, 1, 1, 0, 0, args);
}

void rows(CUmodule module, CUdeviceptr out, int blocks)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "rows_bound");
    int width = 128;
    void *args[] = {&out, &width};
    cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, 0, args, 0);
}

void short_rows(CUmodule module, CUdeviceptr out, int blocks)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "rows_short");
    int half = 32;
    void *args[] = {&out, &half};
    cuLaunchKernel(f, blocks, 1, 1, 64, 1, 1, 0, 0, args, 0);
}

void escaped(CUmodule module)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "ring_escaped");
    g_escaped = f;
}

static void load_ring(CUmodule module, CUfunction *out)
{
    CUfunction f;
    cuModuleGetFunction(&f, module, "ring_out_param");
    *out = f;
}

void out_param(CUmodule module, CUdeviceptr out, CUdeviceptr in)
{
    CUfunction ring;
    load_ring(module, &ring);
    void *args[] = {&out, &in};
    cuLaunchKernel(ring, 16, 1, 1, 32, 1, 1, 0, 0, args, 0);
}
