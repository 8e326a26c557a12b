/* stand-in for the system header <cuda_runtime.h> */
typedef unsigned long cuda_size_t;
