// Kernels over pitched planes whose row pitch and grid are only known from
// host.cu: the pitch `cudaMallocPitch` returned for rows of `width` floats
// (at least `width` elements once divided by the element size), the grid
// `width / 16` blocks wide. Race-free when every column a block touches is
// below the pitch; the twins launch one block too many per row or pass a
// pitch the host halved or moved, and their rows overlap.
// expect-kernel: scale_plane verified
// expect-kernel: scale_plane_rounded racy
// expect-kernel: scale_plane_halved racy
// expect-kernel: scale_plane_moved racy
// expect-kernel: scale_plane_resized racy
// expect-kernel: stage_rows verified
// expect-kernel: stage_rows_narrow racy

__global__ void scale_plane(float* img, int pitch) {
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    img[y * pitch + x] *= 2.0f;
}

// The grid rounds the width up: the last block of a row reaches past the
// pitch into the next row, which another block scales too.
__global__ void scale_plane_rounded(float* img, int pitch) {
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    img[y * pitch + x] *= 2.0f; //~ data-race
}

// The host divides the pitch by twice the element size: half a row.
__global__ void scale_plane_halved(float* img, int pitch) {
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    img[y * pitch + x] *= 2.0f; //~ data-race
}

// The host moves the pitch after the division: no bound is known.
__global__ void scale_plane_moved(float* img, int pitch) {
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    img[y * pitch + x] *= 2.0f; //~ data-race
}

// The host calls a method of its plane between the allocation and the
// grid: the width the grid is made of need not be the one allocated.
__global__ void scale_plane_resized(float* img, int pitch) {
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    img[y * pitch + x] *= 2.0f; //~ data-race
}

extern __shared__ unsigned char staged[];

// Rows of `width` bytes staged at `pitch`, a host constant rounded up to
// 64 with `~0x3f & (width + 0x3f)`, then written back reversed.
__global__ void stage_rows(const unsigned char* in, unsigned char* out, int width, int pitch) {
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    for (int i = threadIdx.x; i < width; i += blockDim.x)
        staged[threadIdx.y * pitch + i] = in[row * width + i];
    __syncthreads();
    for (int i = threadIdx.x; i < width; i += blockDim.x)
        out[row * width + i] = staged[threadIdx.y * pitch + (width - 1 - i)];
}

// The pitch rounds down (`~0x3f & width`): rows overlap in shared memory.
__global__ void stage_rows_narrow(const unsigned char* in, unsigned char* out, int width, int pitch) {
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    for (int i = threadIdx.x; i < width; i += blockDim.x)
        staged[threadIdx.y * pitch + i] = in[row * width + i]; //~ data-race
    __syncthreads();
    for (int i = threadIdx.x; i < width; i += blockDim.x)
        out[row * width + i] = staged[threadIdx.y * pitch + (width - 1 - i)];
}
