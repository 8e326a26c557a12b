// syncscope-args: --block-dim 16,16 --grid-dim 1
// Pitched rows of an element type named through a typedef (`typedef float2
// cell_t;`): `(cell_t *)((char *)v + y * pitch) + x` is the byte range
// [y * pitch + 8x, y * pitch + 8x + 8) of `v`, the typedef's size being the
// float2's. Rows are disjoint when the pitch holds a row of the block
// (verified under that assumption, whatever its remainder by 8); a pitch the
// kernel knows nothing of may be smaller than a row: rows overlap (racy).
// expect-kernel: pitched_own_cell verified
// expect-kernel: pitched_any_pitch racy
// expect-kernel: pitched_next_row racy

typedef float2 cell_t;

__global__ void pitched_own_cell(cell_t* v, size_t pitch, float f) {
    __requires(pitch >= 128);
    cell_t* row = (cell_t*)((char*)v + threadIdx.y * pitch) + threadIdx.x;
    cell_t c = *row;
    c.x += f;
    *row = c;
}

__global__ void pitched_any_pitch(cell_t* v, size_t pitch, float f) {
    cell_t* row = (cell_t*)((char*)v + threadIdx.y * pitch) + threadIdx.x;
    cell_t c = *row; //~ data-race
    c.x += f;
    *row = c; //~ data-race
}

// Each thread writes its own cell and reads the one below it.
__global__ void pitched_next_row(cell_t* v, size_t pitch) {
    __requires(pitch >= 128);
    cell_t* mine = (cell_t*)((char*)v + threadIdx.y * pitch) + threadIdx.x;
    cell_t* below = (cell_t*)((char*)v + (threadIdx.y + 1) * pitch) + threadIdx.x;
    mine->y = below->y; //~ data-race
}
