// Each thread owns one column of an image and walks its rows in loops
// (`dst[col + row * width]`), with no bound on `col` in the kernel: the
// bound comes from the launch, stated as `__requires(gridDim.x == width /
// blockDim.x)` (what a launch `<<<width / threads, threads>>>` gives, see
// `tests/projects/launch_columns/`), so `col < gridDim.x * blockDim.x <=
// width`. Equal cells `c1 + r1 * width == c2 + r2 * width` with both
// columns in `[0, width)` are one column, one thread, whatever the rows:
// decided without the solver (`precheck::low_digit_owned`), where the
// nonlinear race queries ran to the kernel's budget. The value packs four
// bytes with shifts and ors (it never decides where a thread writes).
// Racy twins: one block more than the columns, and rows `pitch` apart
// for a `pitch` the launch does not tie to the grid.
// expect-kernel: smear_columns verified
// expect-kernel: smear_columns_packed verified
// expect-kernel: smear_columns_extra_block racy
// expect-kernel: smear_columns_any_pitch racy

__global__ void smear_columns(const float *src, float *dst, int width, int height, int halo)
{
    __requires(gridDim.x == width / blockDim.x);
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    const float *in = src + col;
    float *out = dst + col;
    float sum = in[0] * halo;
    for (int row = 0; row <= halo; row++) {
        sum += in[row * width];
    }
    out[0] = sum;
    for (int row = 1; row <= halo; row++) {
        sum += in[(row + halo) * width] - in[0];
        out[row * width] = sum;
    }
    for (int row = halo + 1; row < height - halo; row++) {
        sum += in[(row + halo) * width] - in[(row - halo - 1) * width];
        out[row * width] = sum;
    }
    for (int row = height - halo; row < height; row++) {
        sum += in[(height - 1) * width] - in[(row - halo) * width - width];
        out[row * width] = sum;
    }
}

__device__ unsigned int pack_bytes(float a, float b, float c, float d)
{
    return ((unsigned int)(d * 255.0f) << 24) | ((unsigned int)(c * 255.0f) << 16)
         | ((unsigned int)(b * 255.0f) << 8) | (unsigned int)(a * 255.0f);
}

__device__ float byte_of(unsigned int word, int k)
{
    return ((word >> (8 * k)) & 0xff) / 255.0f;
}

__global__ void smear_columns_packed(const unsigned int *src, unsigned int *dst, int width, int height)
{
    __requires(gridDim.x == width / blockDim.x);
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    src = &src[col];
    dst = &dst[col];
    float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;
    for (int row = 0; row < height; row++) {
        unsigned int word = src[row * width];
        a = 0.5f * (a + byte_of(word, 0));
        b = 0.5f * (b + byte_of(word, 1));
        c = 0.5f * (c + byte_of(word, 2));
        d = 0.5f * (d + byte_of(word, 3));
        dst[row * width] = pack_bytes(a, b, c, d);
    }
}

__global__ void smear_columns_extra_block(const float *src, float *dst, int width, int height)
{
    __requires(gridDim.x == width / blockDim.x + 1);
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int row = 0; row < height; row++) {
        sum += src[col + row * width];
        dst[col + row * width] = sum; //~ data-race
    }
}

__global__ void smear_columns_any_pitch(const float *src, float *dst, int width, int pitch, int height)
{
    __requires(gridDim.x == width / blockDim.x);
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int row = 0; row < height; row++) {
        sum += src[col + row * width];
        dst[col + row * pitch] = sum; //~ data-race
    }
}
