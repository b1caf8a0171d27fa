// A CUDA program that asks for its devices and says what it found: on a machine without a GPU driver
// cudaGetDeviceCount fails, and it must fail the same way with and without hyprof (test/cuda-fixture.test.ts).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  std::printf("cudaGetDeviceCount: %s, %d device(s)\n", cudaGetErrorName(rc), n);
  if (rc != cudaSuccess) return 3;
  float *x = nullptr;
  cudaMalloc(&x, 1024 * sizeof(float));
  scale<<<4, 256>>>(x, 2.0f, 1024);
  cudaDeviceSynchronize();
  cudaFree(x);
  return 0;
}
