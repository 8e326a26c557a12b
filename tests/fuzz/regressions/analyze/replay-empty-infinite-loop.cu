__global__ void k(int *a) {
    while (1) {}
    a[0] = 1;
}
