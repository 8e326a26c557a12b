// Stream compaction with an atomic ticket: each selected element takes a
// slot with atomicAdd(count, 1) and stores into out[slot]. The kernel
// changes `count` only by adds of 1, so the values the adds return differ
// between any two threads (tickets): the plain stores never collide
// (verified). Issue 19 item 3; tickets/ has the variants.
// expect-kernel: compact_with_ticket verified

__global__ void compact_with_ticket(float *out, int *count, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] != 0.0f) {
        int slot = atomicAdd(count, 1);
        out[slot] = in[i];
    }
}
