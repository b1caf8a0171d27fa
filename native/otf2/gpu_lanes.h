/* A process's GPU activity from its trace file (gpu_lanes.c), for the OTF2 writer: one lane per GPU
 * stream (kernels, copies, sets) and the synchronisations per launching host thread, each sorted by
 * start; times on the run's clock. docs/trace.md, "GPU". */
#ifndef HP_GPU_LANES_H
#define HP_GPU_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "trace_file.h"

/* The CUDA layer's kinds (native/cuda/cuda_int.h). */
enum { GPU_KERNEL = 1, GPU_MEMCPY = 2, GPU_MEMSET = 3, GPU_SYNC = 4 };

typedef struct gpu_slot {
  int defined;
  uint32_t kind, device, context, stream, thread; /* thread: the launching one, UINT32_MAX unknown */
  char name[8 * TF_GPU_NAME_WORDS + 1];           /* as CUPTI gives it (a kernel's mangled) */
} gpu_slot;

typedef struct gpu_interval {
  uint64_t start, end, bytes;
  uint32_t slot;
} gpu_interval;

typedef struct gpu_lane {
  uint32_t device, context, stream;
  gpu_interval *iv;
  size_t n;
} gpu_lane;

typedef struct gpu_host {
  uint32_t thread;
  gpu_interval *iv;
  size_t n;
} gpu_host;

typedef struct gpu_trace {
  gpu_slot *slots;  /* by the layer's slot */
  size_t n_slots;
  gpu_lane *lanes;  /* sorted by device, context, stream (the profile's order of GPU threads) */
  size_t n_lanes;
  gpu_host *hosts;
  size_t n_hosts;
  uint64_t first, last; /* the earliest start and latest end (0: no activity) */
  uint64_t undefined;   /* activities of a slot no record defines: left out */
  uint64_t unplaced;    /* synchronisations whose launching thread is unknown: left out */
} gpu_trace;

void gpu_collect(const tf_file *f, gpu_trace *g);
/* The synchronisations launched from host thread `thread`, or NULL. */
const gpu_host *gpu_host_of(const gpu_trace *g, uint32_t thread);
void gpu_free(gpu_trace *g);

#endif
