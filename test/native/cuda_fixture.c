/* FIXTURE, not a GPU run: CUPTI's own record structures (CUpti_ActivityKernel10, CUpti_ActivityMemcpy6,
 * CUpti_ActivityMemset4, CUpti_ActivitySynchronization2), filled by hand with the values a CUDA
 * program of this shape gives, and handed to libhyprof_cuda.so's record processing (the function
 * CUPTI's buffers go through) with the correlation ids noted on the launching thread as CUPTI's
 * callback would. It tests correlation to the host context, clock mapping and the section; it does
 * not test CUPTI itself (scripts/device-check.sh does, on a GPU).
 *
 * Host side: phase "Iteration 1" => solve [ <n> = <4096> ] launches saxpy twice (stream 7) and copies
 * 4 MiB in (stream 7); phase "Iteration 2" => solve [ <n> = <8192> ] launches saxpy once and scale
 * once (stream 13), copies 8 MiB out and synchronises (the host waits); a memset on no launch context;
 * one record whose launch was never seen (counted as uncorrelated). GPU clock: base 5e12 ns; the
 * records' GPU times fall after the host's phases (a traced run, HYPROF_TRACE=1, puts the
 * synchronisation on the host thread at those times). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti_activity.h>
#include <hyprof.h>

int hyprof_cuda_fixture_register(void);
void hyprof_cuda_fixture_launch(uint32_t corr);
void hyprof_cuda_fixture_take(const void *record, int64_t offset);

#define GPU_BASE 5000000000000ull

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void kernel(const char *name, uint32_t stream, uint32_t corr, uint64_t start, uint64_t ns, int grid, int block, int64_t offset) {
  CUpti_ActivityKernel10 k;
  memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.deviceId = 0, k.contextId = 1, k.streamId = stream, k.correlationId = corr;
  k.start = GPU_BASE + start, k.end = GPU_BASE + start + ns;
  k.gridX = grid, k.gridY = 1, k.gridZ = 1, k.blockX = block, k.blockY = 1, k.blockZ = 1;
  hyprof_cuda_fixture_take(&k, offset);
}

static void copy(uint8_t kind, uint32_t stream, uint32_t corr, uint64_t start, uint64_t ns, uint64_t bytes, int64_t offset) {
  CUpti_ActivityMemcpy6 m;
  memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = kind, m.bytes = bytes;
  m.deviceId = 0, m.contextId = 1, m.streamId = stream, m.correlationId = corr;
  m.start = GPU_BASE + start, m.end = GPU_BASE + start + ns;
  hyprof_cuda_fixture_take(&m, offset);
}

static void launch(uint32_t corr) {
  hyprof_start_named("cudaLaunchKernel");
  hyprof_cuda_fixture_launch(corr);
  hyprof_stop_named("cudaLaunchKernel");
}

static void sync_of(CUpti_ActivitySynchronizationType type, uint32_t corr, uint64_t start, uint64_t ns, int64_t offset) {
  CUpti_ActivitySynchronization2 y;
  memset(&y, 0, sizeof y);
  y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, y.type = type;
  y.contextId = 1, y.streamId = (uint32_t)-1, y.correlationId = corr;
  y.start = GPU_BASE + start, y.end = GPU_BASE + start + ns;
  hyprof_cuda_fixture_take(&y, offset);
}

static void sync_record(uint32_t corr, uint64_t start, uint64_t ns, int64_t offset) {
  sync_of(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, corr, start, ns, offset);
}

/* `cuda_fixture many N`: then a second hand-over of N kernels of 2 µs, 1 µs apart, on stream 21,
 * every second one followed by a host wait of 1.5 µs from 1 µs into it: more intervals than the
 * layer keeps (4,096), so that it adds up what lies before the middle of a full set; before them a
 * template kernel in a namespace (its name demangled) and a cudaStreamWaitEvent (no host wait),
 * after them a copy that ran with the first kernel, handed over last (late). */
static void many(int n) {
  for (int i = 0; i < n; i += 2) hyprof_cuda_fixture_launch(1000 + (uint32_t)i);
  hyprof_cuda_fixture_launch(999);
  uint64_t base = 2000000, last = base + (uint64_t)n * 3000;
  /* after the host's records, as above: its waits fall inside none of its regions */
  struct timespec pause = {0, (long)(last - base) + 1000000};
  nanosleep(&pause, NULL);
  int64_t offset = (int64_t)(mono_ns() - (GPU_BASE + last + 1000));
  /* a template kernel in a namespace, on stream 22 while the second of them runs */
  kernel("_ZN6solver6reduceILi256EEEvPKfPfi", 22, 0, base + 3000, 2000, 8, 256, offset);
  /* cudaStreamWaitEvent between the first wait and the second kernel: the host does not wait in it */
  sync_of(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 999, base + 2600, 300, offset);
  for (int i = 0; i < n; i++) {
    uint64_t s = base + (uint64_t)i * 3000;
    kernel("_Z4tinyv", 21, 0, s, 2000, 1, 32, offset);
    if (i % 2 == 0) sync_record(1000 + (uint32_t)i, s + 1000, 1500, offset);
  }
  /* Late: a copy on stream 22 while the first of them ran, handed over after that time was added up. */
  copy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 22, 0, base, 2000, 4096, offset);
}

int main(int argc, char **argv) {
  if (!hyprof_cuda_fixture_register()) { fprintf(stderr, "cuda_fixture: the CUDA layer did not register\n"); return 1; }
  hyprof_event_t solve = hyprof_event("solve", "SOLVER");

  hyprof_phase_start("Iteration 1");
  hyprof_start(solve);
  hyprof_param("n", 4096);
  hyprof_cuda_fixture_launch(1);                    /* cudaMemcpyAsync HtoD */
  launch(2);
  launch(3);
  hyprof_stop(solve);
  hyprof_phase_stop("Iteration 1");

  hyprof_phase_start("Iteration 2");
  hyprof_start(solve);
  hyprof_param("n", 8192);
  launch(4);
  launch(5);
  hyprof_cuda_fixture_launch(6);                    /* cudaMemcpy DtoH */
  hyprof_cuda_fixture_launch(7);                    /* cudaDeviceSynchronize */
  hyprof_stop(solve);
  hyprof_phase_stop("Iteration 2");
  /* The GPU's records below are the last 0.7 ms of the GPU clock before the flush: 2 ms after the
   * phases, so that they fall after the host's records. */
  struct timespec pause = {0, 2000000};
  nanosleep(&pause, NULL);

  /* The flush: GPU clock → run clock as the module does it (run clock now - GPU clock now), with the
   * GPU clock taken to read GPU_BASE + 0.7 ms at this moment. */
  int64_t offset = (int64_t)(mono_ns() - (GPU_BASE + 700000));
  copy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 7, 1, 1000, 40000, 4u << 20, offset);
  kernel("_Z5saxpyifPKfPf", 7, 2, 50000, 100000, 16, 256, offset);
  kernel("_Z5saxpyifPKfPf", 7, 3, 160000, 120000, 16, 256, offset);
  kernel("_Z5saxpyifPKfPf", 7, 4, 300000, 200000, 32, 256, offset);
  kernel("_Z5scaleiPf", 13, 5, 300000, 50000, 32, 128, offset);
  copy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 13, 6, 520000, 80000, 8u << 20, offset);
  copy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 13, 99, 620000, 10000, 4096, offset);   /* launch never seen */
  CUpti_ActivityMemset4 s;
  memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET, s.bytes = 1u << 20, s.contextId = 1, s.streamId = 7;
  s.start = GPU_BASE + 650000, s.end = GPU_BASE + 660000;
  hyprof_cuda_fixture_take(&s, offset);
  sync_record(7, 500000, 100000, offset);
  if (argc == 3 && strcmp(argv[1], "many") == 0) many(atoi(argv[2]));
  return 0;
}
