// Issue 15: the final-state comparison runs on request only
// (`--deterministic`, or `deterministic = true` for a kernel in
// syncscope.toml). Without it, the same last-writer kernel as in
// `last_writer.cu` is verified with no finding: it is race-free.
// syncscope-args: --block-dim 64 --grid-dim 8
// expect-kernel: record_last_visitor verified

__global__ void record_last_visitor(int *last_visitor)
{
    atomicExch(&last_visitor[blockIdx.x], threadIdx.x);
}
