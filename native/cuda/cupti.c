/* The CUDA layer as a module of the core (libhyprof_cuda.so): CUPTI's activity API records every
 * kernel, copy, set and synchronisation into CUPTI's own buffers; a CUPTI callback on entry to every
 * driver API call notes the calling thread's context under the call's correlation id, so each record
 * is put under the host context (parameters included) that launched it (records.c).
 *
 * How it is loaded: `hyprof run` names it in CUDA_INJECTION64_PATH, the CUDA driver's own way to load
 * a tool (as Nsight Systems does): the driver loads it and calls InitializeInjection when the program
 * initialises CUDA, so a program that never uses CUDA never loads it, and a machine without a driver
 * never loads it (the program runs as without it; `hyprof run` says so once: docs/gpu.md).
 *
 * Timestamps: CUPTI's are on the GPU clock; at each flush the offset to the run's clock is taken as
 * hyprof_ext_now() - cuptiGetTimestamp() read back to back, and added to the records of that flush.
 *
 * It lives in a library of its own (built only where CUDA is installed: scripts/build-cuda.sh) and
 * registers late through core/ext_module.h, as the MPI layer does. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include <cupti.h>

#include "cuda_int.h"

#define BUFFER (8u << 20)      /* CUPTI's buffers: 8 MiB each, as CUPTI's samples use */

static int active;

static void CUPTIAPI on_api(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
  (void)user, (void)id;
  const CUpti_CallbackData *d = data;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && d->callbackSite == CUPTI_API_ENTER) hp_cuda_note_launch(d->correlationId);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = aligned_alloc(8, BUFFER);
  *size = *buffer ? BUFFER : 0;
  *max_records = 0;
}

static int64_t clock_offset(void) {
  uint64_t gpu = 0;
  uint64_t host = hyprof_ext_now();
  if (cuptiGetTimestamp(&gpu) != CUPTI_SUCCESS) return 0;
  return (int64_t)(host - gpu);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
  (void)ctx, (void)stream, (void)size;
  int64_t offset = clock_offset();
  CUpti_Activity *r = NULL;
  while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) hp_cuda_take(r, offset);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) hp_cuda_count_cupti_drops(dropped);
  free(buffer);
}

static void say(const char *what, CUptiResult rc) {
  const char *s = NULL;
  cuptiGetResultString(rc, &s);
  char line[256];
  snprintf(line, sizeof line, "CUDA: %s failed (%s): GPU activity is not measured", what, s ? s : "?");
  hyprof_ext_note(line);
}

static void process_start(void) {
  CUpti_SubscriberHandle sub;
  CUptiResult rc;
  if ((rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) return say("cuptiActivityRegisterCallbacks", rc);
  static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                             CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if ((rc = cuptiActivityEnable(kinds[i])) != CUPTI_SUCCESS) return say("cuptiActivityEnable", rc);
  if ((rc = cuptiSubscribe(&sub, on_api, NULL)) != CUPTI_SUCCESS) return say("cuptiSubscribe", rc);
  if ((rc = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API)) != CUPTI_SUCCESS) return say("cuptiEnableDomain", rc);
  active = 1;
}

/* At a dump that is not in a signal handler, CUPTI hands over what its buffers hold (the records
 * of kernels still running come at a later flush). A dump in a signal handler writes what was
 * handed over before: cuptiActivityFlushAll is not async-signal-safe. */
static void before_dump(int why) {
  if (active && (why == HP_DUMP_EXIT || why == HP_DUMP_FLUSH)) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

static void write_sections(hp_buf *b) { hp_cuda_write(b); }

static const hp_module hp_cuda_module = {
  .name = "cuda",
  .thread_slot = HP_NO_SLOT,
  .process_start = process_start,
  .before_dump = before_dump,
  .write_sections = write_sections,
};

/* The driver's entry point for an injected tool (CUDA_INJECTION64_PATH). Returns 1 on success. */
__attribute__((visibility("default"))) int InitializeInjection(void) {
  hyprof_ext_module_register(&hp_cuda_module);
  return 1;
}

/* For the fixture tests (test/native/cuda-fixture.c): register without a driver, note a launch on
 * the calling thread, and hand one CUPTI record to the same processing CUPTI's buffers go through. */
__attribute__((visibility("default"))) int hyprof_cuda_fixture_register(void) {
  static const hp_module fixture = {.name = "cuda", .thread_slot = HP_NO_SLOT, .write_sections = write_sections};
  return hyprof_ext_module_register(&fixture);
}
__attribute__((visibility("default"))) void hyprof_cuda_fixture_launch(uint32_t corr) { hp_cuda_note_launch(corr); }
__attribute__((visibility("default"))) void hyprof_cuda_fixture_take(const void *record, int64_t offset) {
  hp_cuda_take((const CUpti_Activity *)record, offset);
}
