// bintree_insert_buggy.cu fixed as the paper suggests: the child link is
// installed with atomicCAS and the traversal retries when it loses.  Every
// access to T is atomic now, so no two accesses race.
// expect-kernel: bintree_insert_fixed verified

__global__ void bintree_insert_fixed(int *T, int *tree_size, const int *vals, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int val = vals[i];
    int curr = 0;
    int node = -1;
    while (true) {
        if (atomicAdd(&T[curr], 0) != 0) {
            int child = atomicAdd(&T[curr], 0) <= val ? curr + 2 : curr + 1;
            if (atomicAdd(&T[child], 0) == 0) {
                if (node < 0) {
                    node = atomicAdd(tree_size, 3);
                    atomicExch(&T[node], val);
                }
                if (atomicCAS(&T[child], 0, node) == 0)
                    break;
            }
            curr = atomicAdd(&T[child], 0);
        } else if (atomicCAS(&T[curr], 0, val) == 0) {
            break;
        }
    }
}
