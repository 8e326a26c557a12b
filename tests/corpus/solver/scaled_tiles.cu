// Tile positions made by dividing a scaled position (`(pos * 4) / 64`,
// `(pos * 4) % 64`) in a grid-stride loop over tiles, each warp storing
// 16-byte chunks of its rows: the index is a sum of digits with constant
// place values (the scaled division read as `pos / 16` and `4 * (pos %
// 16)`), and chunks of one width at multiples of that width meet only
// where they start together, so the tiles are decided without the solver.
//  * tile_rows:         every (block position, warp, row, lane) writes its
//                       own chunk: verified.
//  * tile_rows_halved:  lanes start chunks 8 bytes apart, so neighbours'
//                       chunks overlap: racy.
// syncscope-args: --block-dim 128
// expect-kernel: tile_rows verified
// expect-kernel: tile_rows_halved racy

#define WIDTH 2048

__global__ void tile_rows(float *out)
{
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    for (unsigned pos = blockIdx.x;; pos += gridDim.x) {
        const unsigned tile_row = ((pos * 4) / 64) * 4;
        const unsigned tile_col = (pos * 4) % 64;
        if (tile_row >= 64) {
            break;
        }
        float *rows = out + (tile_row + warp) * 8 * WIDTH + tile_col * 32;
        for (int i = 0; i < 8; i++) {
            *((float4 *)(rows + WIDTH * i) + lane) = make_float4(1.0f, 2.0f, 3.0f, (float)i);
        }
    }
}

__global__ void tile_rows_halved(float *out)
{
    const unsigned warp = threadIdx.x / 32;
    const unsigned lane = threadIdx.x % 32;
    for (unsigned pos = blockIdx.x;; pos += gridDim.x) {
        const unsigned tile_row = ((pos * 4) / 64) * 4;
        const unsigned tile_col = (pos * 4) % 64;
        if (tile_row >= 64) {
            break;
        }
        float *rows = out + (tile_row + warp) * 8 * WIDTH + tile_col * 32;
        for (int i = 0; i < 8; i++) {
            *(float4 *)(rows + WIDTH * i + lane * 2) = make_float4(1.0f, 2.0f, 3.0f, (float)lane); //~ data-race
        }
    }
}
