// A loop's integer counter converted to floating point in the body
// (`(float)i`, `float f = i;`, a texture coordinate) stays the integer
// counter: its update is still an induction and its guard still bounds the
// iterations. The conversion once marked the counter's loop-entry value as
// a float, so `i < w` became an unknown boolean and a race needed no
// iteration at all (a witness with `w = 0` where no thread enters the
// loop): a false race in a race-free kernel, a false witness in a racy one.
// expect-kernel: ramp_rows verified
// expect-kernel: ramp_rows_local verified
// expect-kernel: ramp_rows_shared_row racy

__global__ void ramp_rows(float *out, int w, float scale)
{
    float *row = out + blockIdx.x * w;
    for (int i = threadIdx.x; i < w; i += blockDim.x) {
        row[i] = (float)i * scale;
    }
}

__global__ void ramp_rows_local(float *out, int w)
{
    float *row = out + blockIdx.x * w;
    for (int i = threadIdx.x; i < w; i += blockDim.x) {
        float x = i;
        row[i] = x * x;
    }
}

// Every block writes the same row: blocks 0 and 1 both write `out[i]`.
__global__ void ramp_rows_shared_row(float *out, int w, float scale)
{
    for (int i = threadIdx.x; i < w; i += blockDim.x) {
        out[i] = (float)i * scale + (float)blockIdx.x; //~ data-race
    }
}
