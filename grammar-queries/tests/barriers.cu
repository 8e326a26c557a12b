// Snippets for barriers.scm; each capture is marked on its line (see syntax/queries/tests.rs).
__global__ void k(int *a) {
    __syncthreads(); //~ @barrier.block "__syncthreads"
    int n = __syncthreads_count(a[0] > 0); //~ @barrier.block.counting "__syncthreads_count"
    __syncthreads_and(1); //~ @barrier.block.counting "__syncthreads_and"
    __syncthreads_or(0); //~ @barrier.block.counting "__syncthreads_or"
    __syncwarp(); //~ @barrier.warp "__syncwarp"
    __syncwarp(0xffff); //~ @barrier.warp "__syncwarp"
    block.sync(); //~ @barrier.group.method "sync"
    tile.barrier_wait(); //~ @barrier.group.method "barrier_wait"
    cg::sync(block); //~ @barrier.group.function "sync"
    synchronize(tile); //~ @barrier.group.function "synchronize"
    // Not barriers: a fence, a look-alike, an unrelated method.
    __threadfence();
    __syncthreads_all();
    block.size();
}
