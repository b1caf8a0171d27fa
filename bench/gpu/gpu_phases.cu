// The GPU check's program (scripts/device-check.sh, docs/gpu.md): phases "Iteration 1..3", each a
// timer `solve` with the parameter n, which copies n floats in (stream 1), runs the kernels `spin`
// with 1x, 2x and 4x the work (stream 1) and `scale` (stream 2), and copies 2n floats out (stream 2).
// Every kernel is timed with CUDA events on its own stream; the timings go to argv[1] as JSON lines
// {"kernel", "stream", "n", "ms"} with the copies' bytes, to be compared with hyprof's records.
// argv[2] = "quiet": no events (the overhead run, with and without hyprof).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <hyprof.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return 2; } } while (0)

__global__ void spin(float *x, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < rounds; r++) v = v * 0.999f + 0.001f;
  x[i] = v;
}

__global__ void scale(float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main(int argc, char **argv) {
  FILE *out = argc > 1 ? std::fopen(argv[1], "w") : stdout;
  bool quiet = argc > 2 && std::strcmp(argv[2], "quiet") == 0;
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  const int max_n = 1 << 22;
  float *h = nullptr, *d1 = nullptr, *d2 = nullptr;
  CHECK(cudaMallocHost(&h, 2 * sizeof(float) * max_n));
  CHECK(cudaMalloc(&d1, sizeof(float) * max_n));
  CHECK(cudaMalloc(&d2, 2 * sizeof(float) * max_n));
  std::memset(h, 0, 2 * sizeof(float) * max_n);
  hyprof_event_t solve = hyprof_event("solve", "SOLVER");
  long launches = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int it = 1; it <= 3; it++) {
    char phase[32];
    std::snprintf(phase, sizeof phase, "Iteration %d", it);
    int n = max_n >> (3 - it);                       /* 1M, 2M, 4M floats */
    hyprof_phase_start(phase);
    hyprof_start(solve);
    hyprof_param("n", n);
    CHECK(cudaMemcpyAsync(d1, h, sizeof(float) * n, cudaMemcpyHostToDevice, s1));
    if (!quiet) std::fprintf(out, "{\"copy\": \"HtoD\", \"n\": %d, \"bytes\": %zu}\n", n, sizeof(float) * n);
    const int rounds[3] = {2000, 4000, 8000};
    for (int k = 0; k < 3; k++) {
      for (int rep = 0; rep < 5; rep++) {
        cudaEvent_t a, b;
        if (!quiet) { CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b)); CHECK(cudaEventRecord(a, s1)); }
        spin<<<(n + 255) / 256, 256, 0, s1>>>(d1, n, rounds[k]);
        launches++;
        if (!quiet) {
          CHECK(cudaEventRecord(b, s1));
          CHECK(cudaEventSynchronize(b));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, a, b));
          std::fprintf(out, "{\"kernel\": \"spin\", \"rounds\": %d, \"stream\": 1, \"n\": %d, \"ms\": %.6f}\n", rounds[k], n, ms);
          cudaEventDestroy(a), cudaEventDestroy(b);
        }
      }
    }
    scale<<<(2 * n + 255) / 256, 256, 0, s2>>>(d2, 2 * n, 0.5f);
    launches++;
    CHECK(cudaMemcpyAsync(h, d2, 2 * sizeof(float) * n, cudaMemcpyDeviceToHost, s2));
    if (!quiet) std::fprintf(out, "{\"copy\": \"DtoH\", \"n\": %d, \"bytes\": %zu}\n", n, 2 * sizeof(float) * n);
    CHECK(cudaDeviceSynchronize());
    hyprof_stop(solve);
    hyprof_phase_stop(phase);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(out, "{\"launches\": %ld, \"seconds\": %.6f}\n", launches, s);
  if (out != stdout) std::fclose(out);
  return 0;
}
