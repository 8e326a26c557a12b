// syncscope-args: --block-dim 64 --grid-dim 1
// Local arrays of pointers indexed by constants: each element is a pointer
// the model keeps (`float *v[3]; v[1] = &tile[..]; *v[1]`, `float *planes[3]
// = {r, g, b}; planes[2][i]`). An element chosen by a value that is not a
// constant stays a pointer the model does not follow (not-verified).
// expect-kernel: corners_after_barrier verified
// expect-kernel: corners_without_barrier racy
// expect-kernel: planes_by_constant verified
// expect-kernel: planes_overlapping racy
// expect-kernel: planes_by_channel not-verified

__global__ void corners_after_barrier(float* out, const float* in) {
    __shared__ float corners[3 * 64];
    float* v[3];
    corners[threadIdx.x] = in[threadIdx.x];
    corners[64 + threadIdx.x] = in[64 + threadIdx.x];
    corners[128 + threadIdx.x] = in[128 + threadIdx.x];
    __syncthreads();
    v[0] = &corners[threadIdx.x];
    v[1] = &corners[64 + (threadIdx.x + 1) % 64];
    v[2] = &corners[128 + threadIdx.x];
    out[threadIdx.x] = *v[0] + *v[1] + *v[2];
}

// The neighbour's corner is read while the neighbour writes it.
__global__ void corners_without_barrier(float* out, const float* in) {
    __shared__ float corners[3 * 64];
    float* v[3];
    corners[threadIdx.x] = in[threadIdx.x];
    corners[64 + threadIdx.x] = in[64 + threadIdx.x]; //~ data-race
    corners[128 + threadIdx.x] = in[128 + threadIdx.x];
    v[0] = &corners[threadIdx.x];
    v[1] = &corners[64 + (threadIdx.x + 1) % 64];
    v[2] = &corners[128 + threadIdx.x];
    out[threadIdx.x] = *v[0] + *v[1] + *v[2]; //~ data-race
}

__global__ void planes_by_constant(float* r, float* g, float* b) {
    float* planes[3] = {r, g, b};
    planes[0][threadIdx.x] = 0.0f;
    planes[1][threadIdx.x] = 1.0f;
    planes[2][threadIdx.x] = planes[0][threadIdx.x];
}

// Every thread writes the first cell of the green plane.
__global__ void planes_overlapping(float* r, float* g, float* b) {
    float* planes[3] = {r, g, b};
    planes[1][0] = threadIdx.x; //~ data-race
}

__global__ void planes_by_channel(float* r, float* g, float* b, int c) {
    float* planes[3] = {r, g, b};
    planes[c][threadIdx.x] = 0.0f; //~ not-verified
}
