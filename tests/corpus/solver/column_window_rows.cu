// A running window down each column of an image whose row width is a
// kernel parameter: every thread owns column `col` and writes its rows
// `col + row * width` in three loops (top edge, middle, bottom edge).
// Without a bound on `col`, two threads `width` columns apart write the
// same cells: the race queries multiply the run-time `width` by loop rows
// and stay nonlinear at the small launch, where Z3 searched for millions
// of resource units. With `width` and the rows held small the products
// split into linear cases and a witness comes at once
// (`small_factors::small_values_restriction`). Guarded by `col < width`
// the columns are disjoint: verified.
// expect-kernel: window_down_columns racy
// expect-kernel: window_down_columns_guarded verified

__global__ void window_down_columns(const float *src, float *dst, int width, int height, int reach)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int row = 0; row < reach; row++) {
        acc += src[col + row * width];
        dst[col + row * width] = acc; //~ data-race
    }
    for (int row = reach; row < height - reach; row++) {
        acc += src[col + (row + reach) * width] - src[col + (row - reach) * width];
        dst[col + row * width] = acc; //~ data-race
    }
    for (int row = height - reach; row < height; row++) {
        acc -= src[col + (row - reach) * width];
        dst[col + row * width] = acc; //~ data-race
    }
}

__global__ void window_down_columns_guarded(const float *src, float *dst, int width, int height, int reach)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= width)
        return;
    float acc = 0.0f;
    for (int row = 0; row < reach; row++) {
        acc += src[col + row * width];
        dst[col + row * width] = acc;
    }
    for (int row = reach; row < height - reach; row++) {
        acc += src[col + (row + reach) * width] - src[col + (row - reach) * width];
        dst[col + row * width] = acc;
    }
    for (int row = height - reach; row < height; row++) {
        acc -= src[col + (row - reach) * width];
        dst[col + row * width] = acc;
    }
}
