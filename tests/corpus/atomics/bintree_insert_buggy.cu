// GKLEE-atm's bintree benchmark (Fig. 7), rewritten: threads insert their
// values into a binary tree stored in a global array T (three cells per node:
// value, left child, right child; 0 means empty).  Reads and links use
// atomics, but the link of a new node into an empty child slot is a PLAIN
// store -- the paper's planted bug: two threads that both found the same
// child slot empty both link their node (a real race; one node is lost).
// The plain store races with the atomic accesses to T and with itself.
// expect-kernel: bintree_insert_buggy racy

__global__ void bintree_insert_buggy(int *T, int *tree_size, const int *vals, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int val = vals[i];
    int curr = 0;
    while (true) {
        if (atomicAdd(&T[curr], 0) != 0) {
            int child = atomicAdd(&T[curr], 0) <= val ? curr + 2 : curr + 1;
            if (atomicAdd(&T[child], 0) == 0) {
                int node = atomicAdd(tree_size, 3);
                atomicExch(&T[node], val);
                T[child] = node; //~ data-race
                break;
            }
            curr = atomicAdd(&T[child], 0);
        } else if (atomicCAS(&T[curr], 0, val) == 0) {
            break;
        }
    }
}
