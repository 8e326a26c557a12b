__global__ void k(int *keys) {
    for (int j = k > <<; j > 0;)
        keys[0] = 0;
}
