// Persistent blocks blend the pixels of an image that differ from a
// neighbour: block `b` walks tiles `b, b + gridDim.x, ...`, each tile at
// row `tile / across` and column `tile % across` of a run-time `across`,
// and a pixel `width * y + x` is rewritten as `(v * weight + 255 +
// weight / 2) / (weight + 1)`. Done in place, a thread reads its
// neighbours' pixels while they rewrite them: the race queries divide by
// the run-time `across` and `weight + 1` and multiply by `width`, and
// stayed nonlinear at the small launch, where Z3 searched for millions of
// resource units per query (seconds per kernel). With the parameters held
// small and typed so (`across` in 1..16, `weight` in 0..16), the
// divisions become digits and the products case splits: a witness comes
// from a linear query (`small_factors::small_values_restriction`).
// Reading one image and writing another, the pixels are the threads' own:
// verified.
// syncscope-args: --block-dim 16,16
// expect-kernel: blend_in_place racy
// expect-kernel: blend_into_copy verified

__global__ void blend_in_place(int *img, int width, int height, int across, int tiles, int weight)
{
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        unsigned tx = tile % across;
        unsigned ty = tile / across;
        int x = blockDim.x * tx + threadIdx.x;
        int y = blockDim.y * ty + threadIdx.y;
        if (x < width && y < height) {
            int p = width * y + x;
            int v = img[p];
            int edges = 0;
            if (x > 0)
                edges += abs(v - img[p - 1]) > 8; //~ data-race
            if (x + 1 < width)
                edges += abs(v - img[p + 1]) > 8; // races too; the search stops 2M units after the first race (a note says so)
            if (y > 0)
                edges += abs(v - img[p - width]) > 8; // races too, likewise
            if (y + 1 < height)
                edges += abs(v - img[p + width]) > 8; //~ data-race
            if (edges)
                img[p] = (v * weight + 255 + weight / 2) / (weight + 1); //~ data-race
        }
    }
}

__global__ void blend_into_copy(const int *src, int *dst, int width, int height, int across, int tiles, int weight)
{
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        unsigned tx = tile % across;
        unsigned ty = tile / across;
        int x = blockDim.x * tx + threadIdx.x;
        int y = blockDim.y * ty + threadIdx.y;
        if (x < width && y < height) {
            int p = width * y + x;
            int v = src[p];
            int edges = 0;
            if (x > 0)
                edges += abs(v - src[p - 1]) > 8;
            if (x + 1 < width)
                edges += abs(v - src[p + 1]) > 8;
            if (y > 0)
                edges += abs(v - src[p - width]) > 8;
            if (y + 1 < height)
                edges += abs(v - src[p + width]) > 8;
            dst[p] = edges ? (v * weight + 255 + weight / 2) / (weight + 1) : v;
        }
    }
}
