/* From CUPTI's activity records to the CUDA section: each kernel, copy, set or synchronisation is
 * added to one aggregate per (kind, name, device, context, stream, launching thread, launching
 * context), with calls, time (sum, min, max, on the run's clock), bytes, and the first launch's grid
 * and block. The launching thread and context come from the correlation id CUPTI gives both the API
 * call (hp_cuda_note_launch, in CUPTI's callback on the launching thread) and the activity record.
 *
 * Nothing here calls CUPTI: the same code is fed CUPTI's buffers in a CUDA program and recorded
 * fixtures in the tests (test/native/cuda-fixture.c). */
#define _GNU_SOURCE
#include <string.h>

#include "cuda_int.h"

/* Correlation ids are consecutive per process: a ring indexed by the id keeps the last CORR launches,
 * far more than the records CUPTI holds in its buffers between two flushes of a real program. A
 * record whose launch was overwritten (or never seen) goes to the GPU thread only, counted. */
#define CORR 65536u
typedef struct corr_slot {
  volatile uint32_t corr;      /* published last (release): 0 = empty */
  uint32_t thread;
  uint64_t context;
} corr_slot;
static corr_slot corr_ring[CORR];

#define AGGS 4096u             /* aggregates kept (power of two); more are counted */
#define NAME 256
typedef struct agg {
  volatile uint32_t used;      /* 1 once filled; 2 while a taker writes it */
  uint32_t kind, device, context, stream, thread;
  uint64_t host_context;
  char name[NAME];
  uint64_t count, ns, ns_min, ns_max, bytes, bytes_min, bytes_max, first_start, last_end;
  double us2, bytes2;          /* sums of squares (µs², bytes²): TAU's user events keep them */
  int32_t grid[3], block[3];
} agg;
static agg aggs[AGGS];
static volatile int lock;      /* takers serialise: records come from CUPTI's thread and from dumps */
static uint64_t drops_table, drops_uncorrelated, drops_cupti;
static uint64_t not_traced;    /* traced run: records handed over on a thread the runtime does not measure */

/* The trace (HYPROF_TRACE): record kinds of core/trace.h (HP_TREC_GPU_DEF, HP_TREC_GPU). Each record
 * goes into the trace buffer of the thread that hands CUPTI's records over (CUPTI's own thread, or a
 * dump's), stamped with that moment, so the thread's records stay in time order; the GPU's start and
 * end are in the payload and the OTF2 writer puts them on their stream's location. An aggregate is
 * defined the first time it is filled, named by its slot from then on. */
enum { TREC_GPU_DEF = 32, TREC_GPU = 33 };
#define NAME_WORDS ((NAME + 7) / 8)

static void trace_record(uint32_t slot, const agg *a, int fresh, uint64_t start, uint64_t end, uint64_t bytes) {
  if (!hyprof_ext_trace_on()) return;
  if (!hyprof_ext_thread_current()) {   /* a thread the runtime does not measure has no trace buffer */
    not_traced++;
    return;
  }
  if (fresh) {
    uint64_t w[3 + NAME_WORDS];
    memset(w, 0, sizeof w);
    w[0] = a->kind | (uint64_t)a->device << 32;
    w[1] = a->context | (uint64_t)a->stream << 32;
    w[2] = a->thread;
    size_t len = strlen(a->name);
    memcpy(&w[3], a->name, len);         /* NUL-padded: the words after the name are zero */
    hyprof_ext_trace(TREC_GPU_DEF, slot, w, 3 + (uint32_t)(len + 8) / 8);
  }
  uint64_t r[3] = {start, end, bytes};
  hyprof_ext_trace(TREC_GPU, slot, r, 3);
}

void hp_cuda_note_launch(uint32_t corr) {
  hp_thread *t = hyprof_ext_thread_current();
  if (!t || corr == 0) return;
  corr_slot *s = &corr_ring[corr % CORR];
  __atomic_store_n(&s->corr, 0, __ATOMIC_RELAXED);
  s->thread = t->index;
  s->context = hyprof_ext_context();
  __atomic_store_n(&s->corr, corr, __ATOMIC_RELEASE);
}

void hp_cuda_count_cupti_drops(uint64_t n) { __atomic_add_fetch(&drops_cupti, n, __ATOMIC_RELAXED); }

static uint64_t hash(const char *name, const uint32_t *k, int n, uint64_t c) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  for (int i = 0; i < n; i++) h = (h ^ k[i]) * 1099511628211ull;
  return (h ^ c) * 1099511628211ull;
}

static const char *copy_name(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "[CUDA memcpy HtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "[CUDA memcpy DtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "[CUDA memcpy DtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "[CUDA memcpy HtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "[CUDA memcpy PtoP]";
    default: return "[CUDA memcpy]";
  }
}

/* A synchronisation by what it waited for (CUPTI's type), as the CUDA call that made it. */
#define STREAM_WAIT_EVENT "[CUDA stream wait event]"
static const char *sync_name(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "[CUDA event synchronize]";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return STREAM_WAIT_EVENT;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "[CUDA stream synchronize]";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "[CUDA context synchronize]";
    default: return "[CUDA synchronize]";
  }
}

static void add(uint32_t kind, const char *name, uint32_t device, uint32_t context, uint32_t stream,
                uint32_t corr, uint64_t start, uint64_t end, uint64_t bytes, const int32_t *grid,
                const int32_t *block) {
  /* the host waits in a synchronisation, but not in cudaStreamWaitEvent (the GPU's stream waits) */
  if (kind != HP_CUDA_SYNC) hp_cuda_span_add(HP_SPAN_BUSY, start, end);
  else if (strcmp(name, STREAM_WAIT_EVENT) != 0) hp_cuda_span_add(HP_SPAN_WAIT, start, end);
  uint32_t thread = UINT32_MAX;
  uint64_t host = 0;
  corr_slot *s = &corr_ring[corr % CORR];
  if (corr != 0 && __atomic_load_n(&s->corr, __ATOMIC_ACQUIRE) == corr) {
    thread = s->thread;
    host = s->context;
    if (__atomic_load_n(&s->corr, __ATOMIC_ACQUIRE) != corr) thread = UINT32_MAX, host = 0;
  }
  if (thread == UINT32_MAX && kind != HP_CUDA_SYNC) drops_uncorrelated++;
  uint32_t key[5] = {kind, device, context, stream, thread};
  uint64_t ns = end > start ? end - start : 0;
  for (uint32_t i = (uint32_t)hash(name, key, 5, host) & (AGGS - 1), n = 0; n < AGGS / 2; n++, i = (i + 1) & (AGGS - 1)) {
    agg *a = &aggs[i];
    if (a->used && (a->kind != kind || a->device != device || a->context != context || a->stream != stream ||
                    a->thread != thread || a->host_context != host || strcmp(a->name, name) != 0))
      continue;
    __atomic_store_n(&a->used, 2, __ATOMIC_RELAXED);   /* a dump in a signal handler skips it now */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (a->count == 0) {
      a->kind = kind, a->device = device, a->context = context, a->stream = stream, a->thread = thread;
      a->host_context = host;
      strncpy(a->name, name, NAME - 1);
      a->ns_min = ns, a->bytes_min = bytes, a->first_start = start;
      if (grid) memcpy(a->grid, grid, sizeof a->grid), memcpy(a->block, block, sizeof a->block);
    }
    a->count++;
    a->ns += ns;
    a->bytes += bytes;
    a->us2 += (double)ns / 1e3 * ((double)ns / 1e3);
    a->bytes2 += (double)bytes * (double)bytes;
    if (ns < a->ns_min) a->ns_min = ns;
    if (ns > a->ns_max) a->ns_max = ns;
    if (bytes < a->bytes_min) a->bytes_min = bytes;
    if (bytes > a->bytes_max) a->bytes_max = bytes;
    if (start < a->first_start) a->first_start = start;
    if (end > a->last_end) a->last_end = end;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    int fresh = a->count == 1;
    __atomic_store_n(&a->used, 1, __ATOMIC_RELEASE);
    trace_record(i, a, fresh, start, end, bytes);
    return;
  }
  drops_table++;
}

void hp_cuda_take(const CUpti_Activity *r, int64_t offset) {
  while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) { /* spin: takers are short */ }
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
      int32_t grid[3] = {k->gridX, k->gridY, k->gridZ}, block[3] = {k->blockX, k->blockY, k->blockZ};
      add(HP_CUDA_KERNEL, k->name ? k->name : "<unnamed kernel>", k->deviceId, k->contextId, k->streamId,
          k->correlationId, k->start + offset, k->end + offset, 0, grid, block);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
      add(HP_CUDA_MEMCPY, copy_name(m->copyKind), m->deviceId, m->contextId, m->streamId, m->correlationId,
          m->start + offset, m->end + offset, m->bytes, NULL, NULL);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
      add(HP_CUDA_MEMSET, "[CUDA memset]", m->deviceId, m->contextId, m->streamId, m->correlationId,
          m->start + offset, m->end + offset, m->bytes, NULL, NULL);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)r;
      add(HP_CUDA_SYNC, sync_name(s->type), 0, s->contextId, s->streamId == (uint32_t)-1 ? 0 : s->streamId,
          s->correlationId, s->start + offset, s->end + offset, 0, NULL, NULL);
      break;
    }
    default: break;
  }
  __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

void hp_cuda_write(hp_buf *b) {
  size_t at = hyprof_ext_section_begin(b, HP_SEC_CUDA);
  uint64_t busy = 0;
  hyprof_ext_buf_u64(b, __atomic_load_n(&drops_cupti, __ATOMIC_RELAXED));
  hyprof_ext_buf_u64(b, drops_uncorrelated);
  size_t n_at = b->len;
  hyprof_ext_buf_u32(b, 0);
  uint32_t n = 0;
  for (uint32_t i = 0; i < AGGS; i++) {
    const agg *a = &aggs[i];
    uint32_t used = __atomic_load_n(&a->used, __ATOMIC_ACQUIRE);
    if (used == 2) busy++;
    if (used != 1) continue;
    hyprof_ext_buf_u32(b, a->kind);
    hyprof_ext_buf_str(b, a->name);
    hyprof_ext_buf_u32(b, a->device);
    hyprof_ext_buf_u32(b, a->context);
    hyprof_ext_buf_u32(b, a->stream);
    hyprof_ext_buf_u32(b, a->thread);
    hyprof_ext_buf_u64(b, a->host_context);
    hyprof_ext_buf_u64(b, a->count);
    hyprof_ext_buf_u64(b, a->ns);
    hyprof_ext_buf_u64(b, a->ns_min);
    hyprof_ext_buf_u64(b, a->ns_max);
    hyprof_ext_buf_u64(b, a->bytes);
    hyprof_ext_buf_u64(b, a->bytes_min);
    hyprof_ext_buf_u64(b, a->bytes_max);
    hyprof_ext_buf_u64(b, a->first_start);
    hyprof_ext_buf_u64(b, a->last_end);
    hyprof_ext_buf_u64(b, (uint64_t)a->us2);
    hyprof_ext_buf_u64(b, (uint64_t)a->bytes2);
    for (int d = 0; d < 3; d++) hyprof_ext_buf_u32(b, (uint32_t)a->grid[d]);
    for (int d = 0; d < 3; d++) hyprof_ext_buf_u32(b, (uint32_t)a->block[d]);
    n++;
  }
  hyprof_ext_buf_patch_u32(b, n_at, n);
  hyprof_ext_buf_u64(b, drops_table + busy);
  hyprof_ext_buf_u64(b, not_traced);
  hp_cuda_spans_write(b);
  hyprof_ext_section_end(b, at);
}
