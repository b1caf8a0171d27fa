/* Sample-based OpenMP metrics (seed 000, HPCToolkit's blame shifting).
 *
 * Each sample is classified by the thread's OMPT state (work, idleness, overhead, lock waiting).
 * Idleness is blamed on the threads that work (undirected blame, equation 1): a work sample of value v
 * taken while w threads work adds v / w to `work_per_working`, and 1 / w to `per_working` (the same
 * metrics are kept in samples: a sample's value includes the time its thread waited to run). At the
 * end, with T the maximum number of threads in use and C the number of cores,
 *     thread idleness = T * work_per_working - work      core idleness = C * work_per_working - work
 * so both are computed from one accumulator. w is counted from per-thread working flags, each written
 * only by its own thread at state changes (implicit task, waits, tasks, mutex waits) and read here.
 *
 * Lock waiting is blamed on the holder (directed blame): waiting samples add their value to a fixed
 * process-wide table keyed by the wait id (the lock the thread is waiting for, recorded in
 * mutex_acquire, because the wait id the state query returns for omp_lock_t is a runtime-internal
 * object); the thread that releases that lock takes the accumulated value into the context it holds
 * the lock in, and into its release site.
 *
 * hp_omp_blame_sample runs in the sampling signal handler (from stitch.c): it takes no lock,
 * allocates nothing, touches only the sampled thread's own tables, the flags (reads) and the wait
 * table (atomic operations). */
#include <stddef.h>

#include "../core/stack.h"
#include "ompt_int.h"

#define WAIT_SLOTS 4096u

typedef struct wait_slot {
  volatile uint64_t wait_id; /* 0 = empty */
  volatile uint64_t ns;
  volatile uint64_t samples;
} wait_slot;

static wait_slot waits[WAIT_SLOTS];
volatile uint64_t hp_omp_wait_table_full;


static uint32_t count_working(void) {
  uint32_t n = __atomic_load_n(&hp_omp_nflags, __ATOMIC_RELAXED), w = 0;
  if (n > HP_OMP_MAX_THREADS) n = HP_OMP_MAX_THREADS;
  for (uint32_t i = 0; i < n; i++)
    if (hp_omp_flags[i].used && hp_omp_flags[i].working) w++;
  return w ? w : 1;
}

static wait_slot *wait_find(uint64_t wait_id, int insert) {
  uint64_t h = wait_id * 0x9E3779B97F4A7C15ull;
  for (uint32_t i = (uint32_t)(h >> 52) % WAIT_SLOTS, n = 0; n < WAIT_SLOTS; i = (i + 1) % WAIT_SLOTS, n++) {
    uint64_t cur = __atomic_load_n(&waits[i].wait_id, __ATOMIC_ACQUIRE);
    if (cur == wait_id) return &waits[i];
    if (cur == 0) {
      if (!insert) return NULL;
      uint64_t expected = 0;
      if (__atomic_compare_exchange_n(&waits[i].wait_id, &expected, wait_id, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return &waits[i];
      if (expected == wait_id) return &waits[i];
    }
  }
  return NULL;
}

static hp_omp_blame *blame_slot(hp_omp_thread *o, uint64_t context) {
  uint64_t h = context * 0x9E3779B97F4A7C15ull;
  for (uint32_t i = (uint32_t)(h >> 40) & (HP_OMP_BLAME - 1), n = 0; n < HP_OMP_BLAME; i = (i + 1) & (HP_OMP_BLAME - 1), n++) {
    hp_omp_blame *b = &o->blame[i];
    if (b->context == context) return b;
    if (b->context == 0) {
      __atomic_store_n(&b->context, context, __ATOMIC_RELEASE);
      return b;
    }
  }
  o->blame_full++;
  return NULL;
}

int hp_omp_class_of_state(int state) {
  if (state >= ompt_state_work_serial && state <= ompt_state_work_reduction) return HP_CLASS_WORK;
  if (state >= ompt_state_wait_barrier && state <= ompt_state_wait_taskgroup) return HP_CLASS_IDLE;
  if (state == ompt_state_idle) return HP_CLASS_IDLE;
  if (state >= ompt_state_wait_mutex && state <= ompt_state_wait_ordered) return HP_CLASS_LOCK;
  if (state == ompt_state_overhead) return HP_CLASS_OVERHEAD;
  return HP_CLASS_OTHER;
}

void hp_omp_blame_sample(hp_omp_thread *o, uint64_t context, uint64_t value, int cls, uint64_t wid) {
  /* taskwait and barrier spinning may read as work (PLATFORM-FACTS): the thread's own flag, set by
   * the wait callbacks, decides. */
  if (cls == HP_CLASS_WORK && o->index < HP_OMP_MAX_THREADS && !hp_omp_flags[o->index].working) cls = HP_CLASS_IDLE;
  hp_omp_blame *b = blame_slot(o, context);
  if (b) {
    b->samples++;
    switch (cls) {
      case HP_CLASS_WORK: {
        double w = (double)count_working();
        b->work_ns += value;
        b->work_samples++;
        b->work_per_working += (double)value / w;
        b->per_working += 1.0 / w;
        break;
      }
      case HP_CLASS_IDLE: b->idle_ns += value; break;
      case HP_CLASS_OVERHEAD:
        b->overhead_ns += value;
        b->overhead_samples++;
        break;
      case HP_CLASS_LOCK: b->lockwait_ns += value; break;
      default: b->other_ns += value; break;
    }
  }
  if (cls == HP_CLASS_LOCK) {
    uint64_t lock = __atomic_load_n(&o->mutex_wait_id, __ATOMIC_RELAXED);
    if (!lock) lock = wid;
    wait_slot *w = lock ? wait_find(lock, 1) : NULL;
    if (w) {
      __atomic_add_fetch(&w->ns, value, __ATOMIC_RELAXED);
      __atomic_add_fetch(&w->samples, 1, __ATOMIC_RELAXED);
    } else
      __atomic_add_fetch(&hp_omp_wait_table_full, 1, __ATOMIC_RELAXED);
  }
}

void hp_omp_release_blame(hp_omp_thread *o, uint64_t wait_id, const void *codeptr) {
  wait_slot *w = wait_find(wait_id, 0);
  if (!w) return;
  uint64_t ns = __atomic_exchange_n(&w->ns, 0, __ATOMIC_ACQ_REL);
  uint64_t samples = __atomic_exchange_n(&w->samples, 0, __ATOMIC_ACQ_REL);
  if (!ns) return;
  hp_omp_blame *b = blame_slot(o, hp_stack_context(o->t));
  if (b) {
    b->lock_blame_ns += ns;
    b->lock_blame_samples += samples;
  }
  for (uint32_t i = ((uintptr_t)codeptr >> 2) % HP_OMP_RELEASES, n = 0; n < HP_OMP_RELEASES;
       i = (i + 1) % HP_OMP_RELEASES, n++) {
    hp_omp_release *r = &o->releases[i];
    if (r->codeptr == codeptr || r->codeptr == NULL) {
      r->blame_ns += ns;
      r->count++;
      __atomic_store_n(&r->codeptr, codeptr, __ATOMIC_RELEASE);
      return;
    }
  }
  o->table_full++;
}

/* Lock waiting still in the table at the end: waits whose holder never released after them. */
uint64_t hp_omp_unreleased_wait_ns(void) {
  uint64_t s = 0;
  for (uint32_t i = 0; i < WAIT_SLOTS; i++) s += __atomic_load_n(&waits[i].ns, __ATOMIC_RELAXED);
  return s;
}
