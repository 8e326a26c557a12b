// Stream compaction with an atomic ticket: each selected element takes a
// slot with atomicAdd and stores into out[slot].  At run time the slots are
// distinct, but Syncscope treats the value an atomic returns like any value
// read from memory -- arbitrary -- so two threads may get the same slot and
// the plain stores race.  This pins down the documented imprecision (see
// docs/diagnostics.md#data-race); the usual fix is to state the kernel's
// contract elsewhere or to compute slots with a scan.
// expect-kernel: compact_with_ticket racy

__global__ void compact_with_ticket(float *out, int *count, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] != 0.0f) {
        int slot = atomicAdd(count, 1);
        out[slot] = in[i]; //~ data-race
    }
}
