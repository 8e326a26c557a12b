// Kernels of a library whose inputs come from elsewhere (a scan, a sort):
// race-free only because of what an input array holds, which no launch
// site shows. Each race states the property of the array it needs (with
// `--fixes`, and in the editor's hover) and offers the annotation:
// * `scatter_slots` moves element i to `slot[i]`: races unless `slot`
//   holds distinct values (the quick-fix assumes `__distinct(slot)`);
// * `scatter_slots_stated` is the same kernel with that annotation written
//   the way the quick-fix writes it (nvcc compiles it): verified;
// * `merge_places` puts element i after the `rank[i]` elements of another
//   list ranked before it: the places `rank[i] + i` grow with i when the
//   ranks do, so it races unless `rank` is sorted (the quick-fix assumes
//   `__sorted(rank)`; distinct ranks would not do);
// * `halves` collides on an index it computes itself (`i / 2`): a plain
//   race, no property of `slot` is offered.
// syncscope-args: --block-dim 256
// expect-kernel: scatter_slots racy
// expect-kernel: scatter_slots_stated verified
// expect-kernel: merge_places racy
// expect-kernel: halves racy

__global__ void scatter_slots(const int *slot, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[slot[i]] = in[i]; //~ data-race
}

__global__ void scatter_slots_stated(const int *slot, const float *in, float *out, int n)
{
#ifdef __SYNCSCOPE__
    __requires(__distinct(slot));
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[slot[i]] = in[i];
}

__global__ void merge_places(const int *rank, const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[rank[i] + i] = in[i]; //~ data-race
}

__global__ void halves(const int *slot, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i / 2] = slot[i]; //~ data-race
}
