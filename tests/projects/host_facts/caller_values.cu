// Values of a host function's parameters given by its callers: `fill`
// picks the template instance by its `span` parameter and launches blocks
// of `span` threads; its one caller passes a local that holds 256, so the
// `<256>` launch runs 256-thread blocks (race-free). `fill_mixed` is
// called with 256 and with 512: the 512 call runs `<256>` under blocks of
// 512 threads, which overlap the next block's span (racy). `fill_escaped`'s
// address is also stored, so a call through the pointer may pass any span:
// nothing is bound (racy). `fill_shared` is called here with 256 only, but
// `elsewhere.cu` names it (and calls it with 512): nothing is bound (racy).
// expect-kernel: spans verified
// expect-kernel: spans_mixed racy
// expect-kernel: spans_escaped racy
// expect-kernel: spans_shared racy
#include <cuda_runtime.h>

template <int SPAN>
__global__ void spans(float *out)
{
    out[SPAN * blockIdx.x + threadIdx.x] = (float)threadIdx.x;
}

template <int SPAN>
__global__ void spans_mixed(float *out)
{
    out[SPAN * blockIdx.x + threadIdx.x] = (float)threadIdx.x; //~ data-race
}

template <int SPAN>
__global__ void spans_escaped(float *out)
{
    out[SPAN * blockIdx.x + threadIdx.x] = (float)threadIdx.x; //~ data-race
}

template <int SPAN>
__global__ void spans_shared(float *out)
{
    out[SPAN * blockIdx.x + threadIdx.x] = (float)threadIdx.x; //~ data-race
}

void fill(float *out, int span, int n)
{
    if (span == 128) {
        spans<128><<<n / span, span>>>(out);
    } else {
        spans<256><<<n / span, span>>>(out);
    }
}

static void fill_mixed(float *out, int span, int n)
{
    if (span == 128) {
        spans_mixed<128><<<n / span, span>>>(out);
    } else {
        spans_mixed<256><<<n / span, span>>>(out);
    }
}

static void fill_escaped(float *out, int span, int n)
{
    if (span == 128) {
        spans_escaped<128><<<n / span, span>>>(out);
    } else {
        spans_escaped<256><<<n / span, span>>>(out);
    }
}

void fill_shared(float *out, int span, int n)
{
    if (span == 128) {
        spans_shared<128><<<n / span, span>>>(out);
    } else {
        spans_shared<256><<<n / span, span>>>(out);
    }
}

int main()
{
    int span = 256;
    float *out;
    cudaMalloc((void **)&out, sizeof(float) * 4096);
    fill(out, span, 4096);
    fill_mixed(out, 256, 4096);
    fill_mixed(out, 512, 4096);
    void (*later)(float *, int, int) = fill_escaped;
    fill_escaped(out, 256, 4096);
    later(out, 256, 4096);
    fill_shared(out, 256, 4096);
    return 0;
}
