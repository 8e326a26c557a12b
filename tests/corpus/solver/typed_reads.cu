// Issue 20 item 6: in the default integer mode a value read from memory lies
// in the range of the array's declared element type (a pointer parameter
// `const unsigned char *`, a `__shared__ unsigned char` array): an index
// `256 + c` with `c` such a byte is at least 256, so it never meets the
// cells 0..255 the block writes. Before, the read was an unbounded unknown
// and both verified kernels below were reported racy (c = -1 gives 255).
// The racy twins read signed bytes (-128..127), which do reach below 256.
// syncscope-args: --block-dim 256
// expect-kernel: byte_lookup verified
// expect-kernel: signed_byte_lookup racy
// expect-kernel: shared_byte_index verified
// expect-kernel: shared_signed_byte_index racy

// The first half of `s` is written, the second half read at 256 + byte.
__global__ void byte_lookup(const unsigned char* keys, int* out) {
    __shared__ int s[512];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    s[tid] = tid;
    out[g] = s[256 + keys[g]];
}

// A signed byte: 256 + (-1) is thread 255's cell.
__global__ void signed_byte_lookup(const signed char* keys, int* out) {
    __shared__ int s[512];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    s[tid] = tid; //~ data-race
    out[g] = s[256 + keys[g]]; //~ data-race
}

// The bytes come from a `__shared__ unsigned char` array the block filled
// before its barrier.
__global__ void shared_byte_index(const int* in, int* out) {
    __shared__ unsigned char digit[256];
    __shared__ int s[512];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    digit[tid] = in[g] & 255;
    __syncthreads();
    int d = digit[(tid + 1) % 256];
    s[tid] = g;
    out[g] = s[256 + d];
}

// The same with `signed char` digits: a value of 255 is stored as -1.
__global__ void shared_signed_byte_index(const int* in, int* out) {
    __shared__ signed char digit[256];
    __shared__ int s[512];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    digit[tid] = (signed char)in[g];
    __syncthreads();
    int d = digit[(tid + 1) % 256];
    s[tid] = g; //~ data-race
    out[g] = s[256 + d]; //~ data-race
}
