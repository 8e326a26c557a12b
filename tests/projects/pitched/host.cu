// Host code of pitched/planes.cu: the pitches and grids are only written here.
#include <cuda_runtime.h>

struct Plane {
    int width;
    int height;
    void widen() { width *= 2; }
};

__global__ void scale_plane(float* img, int pitch);
__global__ void scale_plane_rounded(float* img, int pitch);
__global__ void scale_plane_halved(float* img, int pitch);
__global__ void scale_plane_moved(float* img, int pitch);
__global__ void scale_plane_resized(float* img, int pitch);
__global__ void stage_rows(const unsigned char* in, unsigned char* out, int width, int pitch);
__global__ void stage_rows_narrow(const unsigned char* in, unsigned char* out, int width, int pitch);

void scale(Plane size) {
    float* img;
    size_t pitch;
    cudaMallocPitch((void**)&img, &pitch, size.width * sizeof(float), size.height);
    pitch /= sizeof(float);
    dim3 threads(16, 16);
    dim3 grid(size.width / 16, size.height / 16);
    for (int pass = 0; pass < 3; ++pass) {
        scale_plane<<<grid, threads>>>(img, (int)pitch);
    }
    cudaFree(img);
}

void scale_rounded(Plane size) {
    float* img;
    size_t pitch;
    cudaMallocPitch((void**)&img, &pitch, size.width * sizeof(float), size.height);
    pitch /= sizeof(float);
    dim3 threads(16, 16);
    dim3 grid((size.width + 15) / 16, size.height / 16);
    scale_plane_rounded<<<grid, threads>>>(img, (int)pitch);
    cudaFree(img);
}

void scale_halved(Plane size) {
    float* img;
    size_t pitch;
    cudaMallocPitch((void**)&img, &pitch, size.width * sizeof(float), size.height);
    pitch /= 2 * sizeof(float);
    dim3 threads(16, 16);
    dim3 grid(size.width / 16, size.height / 16);
    scale_plane_halved<<<grid, threads>>>(img, (int)pitch);
    cudaFree(img);
}

void scale_moved(Plane size) {
    float* img;
    size_t pitch;
    cudaMallocPitch((void**)&img, &pitch, size.width * sizeof(float), size.height);
    pitch /= sizeof(float);
    pitch -= 16;
    dim3 threads(16, 16);
    dim3 grid(size.width / 16, size.height / 16);
    scale_plane_moved<<<grid, threads>>>(img, (int)pitch);
    cudaFree(img);
}

void scale_resized(Plane size) {
    float* img;
    size_t pitch;
    cudaMallocPitch((void**)&img, &pitch, size.width * sizeof(float), size.height);
    pitch /= sizeof(float);
    size.widen();
    dim3 threads(16, 16);
    dim3 grid(size.width / 16, size.height / 16);
    scale_plane_resized<<<grid, threads>>>(img, (int)pitch);
    cudaFree(img);
}

void stage(const unsigned char* in, unsigned char* out, int rows) {
    int width = 82;
    int pitch = ~0x3f & (width + 0x3f);
    dim3 threads(32, 4);
    stage_rows<<<rows / 4, threads, 4 * pitch>>>(in, out, width, pitch);
}

void stage_narrow(const unsigned char* in, unsigned char* out, int rows) {
    int width = 82;
    int pitch = ~0x3f & width;
    dim3 threads(32, 4);
    stage_rows_narrow<<<rows / 4, threads, 4 * pitch>>>(in, out, width, pitch);
}
