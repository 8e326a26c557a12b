// Host code of host_facts/caller_values.cu in another file: it calls that
// file's `fill_shared` with another span than the file's own call.
#include <cuda_runtime.h>

void fill_shared(float *out, int span, int n);

void fill_wide(float *out)
{
    fill_shared(out, 512, 8192);
}
