__global__ void k(int *a) {
    for (int i = 0; i < 10; i += 0) a[threadIdx.x] = i;
    a[0] += 1;
}
