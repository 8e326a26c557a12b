// Just enough of CUDA for a host C++ compiler to check a kernel file's
// syntax (`c++ -x c++ -fsyntax-only -include cuda_host_shim.h`): the
// annotation tests compile their fixtures with it to show that a real
// build accepts the annotations `include/syncscope.h` defines away. It is
// no model of CUDA; only names the fixtures use are here.
#pragma once
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline
struct dim3 {
    unsigned x, y, z;
};
extern const dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads();
