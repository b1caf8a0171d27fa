/* The life cycle of sampling, as the core drives it through the module table (sample.h, at the end
 * of this file): process start (configuration, source check, handler), one source per thread from
 * thread start to thread end, the fork child's restart, and before a dump stopping everything (the
 * final dump) and refreshing the memory map (exit, flush). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/config.h"
#include "sample_int.h"

static int sampling_on;      /* process init succeeded: threads get sources */
static int start_warned;

int hp_sample_is_on(void) { return sampling_on; }

static void check_source(void) {
  if (hp_scfg.kind == HP_SRC_PERF) {
    int err = hp_perf_open_check();
    if (err) {
      char wanted[64];
      strcpy(wanted, hp_scfg.source);
      hp_sample_config_use_wall();
      hp_warn("sampling source '%s' cannot be opened here: perf_event_open failed (%s)%s; "
              "sampling with itimer-wall every %llu us instead",
              wanted, strerror(err),
              err == ENOENT || err == EOPNOTSUPP ? " - this machine exposes no such counter (virtual machine?)"
              : err == EACCES || err == EPERM ? " - not permitted (see /proc/sys/kernel/perf_event_paranoid)"
                                              : "",
              (unsigned long long)hp_scfg.period_us);
    }
  } else if (hp_scfg.kind == HP_SRC_PAPI) {
    char wanted[64], why[256] = "";
    strcpy(wanted, hp_scfg.source);
#ifdef HYPROF_HAVE_PAPI
    if (hp_papi_init(wanted, why, sizeof why) == 0) return;
#else
    strcpy(why, "this hyprof was built without PAPI");
#endif
    hp_sample_config_use_wall();
    hp_warn("sampling source '%s' cannot be used: %s; sampling with itimer-wall every %llu us instead",
            wanted, why, (unsigned long long)hp_scfg.period_us);
  }
}

static void process_start(void) {
  hp_sample_config_read();
  /* The memory map is kept with sampling off too: OpenMP construct events are named from the code
   * addresses the OpenMP tool records, resolved through it (MAPS). */
  hp_maps_hooks_init();
  hp_node_process();   /* asked here, once, so that dumps may read the answer */
  if (!hp_scfg.enabled) return;
  hp_node_prepare_perf_map();
  hp_sigchain_init();
  hp_unwind_init();
  check_source();
  if (hp_sigchain_install() != 0) {
    hp_warn("cannot install the sampling signal handler for signal %d (%s); sampling is off",
            hp_scfg.signo, strerror(errno));
    hp_scfg.enabled = 0;
    return;
  }
  sampling_on = 1;
}

static void stack_bounds(hp_sample_thread *st) {
  pthread_attr_t a;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &a) != 0) return;
  if (pthread_attr_getstack(&a, &addr, &size) == 0) {
    st->stack_lo = (uintptr_t)addr;
    st->stack_hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&a);
}

static int start_source(hp_sample_thread *st, pid_t tid) {
  switch (hp_scfg.kind) {
    case HP_SRC_PERF: return hp_perf_start(st, tid);
#ifdef HYPROF_HAVE_PAPI
    case HP_SRC_PAPI: return hp_papi_start(st);
#endif
    default: return hp_timer_start(st, tid);
  }
}

static void stop_source(hp_sample_thread *st) {
  st->active = 0;
  hp_timer_stop(st);
  hp_perf_stop(st);
#ifdef HYPROF_HAVE_PAPI
  hp_papi_stop(st);
#endif
}

static void start_thread_sampling(hp_thread *t, hp_sample_thread *st) {
  pid_t tid = gettid();   /* always called on the thread itself */
  if (start_source(st, tid) != 0 && !__atomic_exchange_n(&start_warned, 1, __ATOMIC_ACQ_REL))
    hp_warn("cannot start sampling (%s) on thread %u: %s; that thread is not sampled",
            hp_scfg.source, t->index, strerror(errno));
}

static void thread_start(hp_thread *t) {
  if (!sampling_on || hp_sample_of(t)) return;
  /* libraries dlopen'ed since the last refresh become unwindable (dlopen is not interposed), and
   * the start routine's object is found in the snapshot (service.c) */
  hp_maps_refresh();
  /* a runtime service thread gets its CPU clock, or no source (service.c); decided before its
   * timer exists, so no sample comes under the other clock */
  int clock = hp_service_thread_clock(t);
  if (clock == HP_THREAD_CLOCK_NONE) return;
  hp_sample_thread *st = hp_stable_new();
  if (!st) {
    if (!__atomic_exchange_n(&start_warned, 1, __ATOMIC_ACQ_REL))
      hp_warn("no memory for the sample table of thread %u; that thread is not sampled", t->index);
    return;
  }
  st->cpu_time = hp_scfg.thread_cpu || clock == HP_THREAD_CLOCK_CPU;
  stack_bounds(st);
  /* published before the first signal can arrive */
  __atomic_store_n(&t->module_data[HP_SAMPLE_SLOT], st, __ATOMIC_RELEASE);
  start_thread_sampling(t, st);
}

static void thread_end(hp_thread *t) {
  hp_sample_thread *st = hp_sample_of(t);
  if (!st) return;
  stop_source(st);
#ifdef HYPROF_HAVE_PAPI
  hp_papi_release(st);
#endif
}

/* An ended thread's samples and counters move to a compact copy; the mapping (its work area and
 * tables, hundreds of KB of address space) goes once no dump reads it (core/thread.h). The sampling
 * signal is blocked meanwhile, so a late one counts on the copy, not on the memory left behind. */
static size_t thread_compact(hp_thread *t) {
  hp_sample_thread *st = hp_sample_of(t);
  if (!st || !st->work) return st ? st->mem_len : 0;
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, hp_scfg.signo);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  size_t bytes = 0;
  struct hp_retired *r = hp_thread_retire_record();
  hp_sample_thread *c = r ? hp_stable_compact(st, &bytes) : NULL;
  if (c) {
    __atomic_store_n(&t->module_data[HP_SAMPLE_SLOT], c, __ATOMIC_RELEASE);
    hp_thread_retire(r, st->mem, st->mem_len, hp_stable_unmap);
  } else {
    free(r);
    bytes = st->mem_len;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return bytes;
}

static void fork_child(hp_thread *t) {
  if (!sampling_on || !t) return;
  hp_maps_fork_child();
  /* Timers are not inherited; the perf events still count the parent's threads: close our copies
   * of their descriptors without touching the events. Samples belong to the parent: forget them. */
  for (hp_thread *o = hp_thread_list(); o; o = o->next) {
    hp_sample_thread *st = hp_sample_of(o);
    if (!st) continue;
    st->active = 0;
    __atomic_store_n(&st->have_timer, 0, __ATOMIC_RELEASE);
    int fd = __atomic_exchange_n(&st->perf_fd, -1, __ATOMIC_ACQ_REL);
    if (fd >= 0) close(fd);
    st->perf_fd_last = -1;   /* pending signals are not inherited: the number is free to reuse */
    st->papi_set = -1;
    hp_stable_clear(st);
  }
  hp_sample_thread *own = hp_sample_of(t);
  if (!own) {
    thread_start(t);
    return;
  }
  stack_bounds(own);
  start_thread_sampling(t, own);
}

/* Async-signal-safe: timer_delete, ioctl and close are system calls. */
static void stop_all(void) {
  if (!sampling_on) return;
  for (hp_thread *t = hp_thread_list(); t; t = t->next) {
    hp_sample_thread *st = hp_sample_of_acquire(t);
    if (st) stop_source(st);
  }
}

/* The final dump (exit, signal): stop every source first, so the tables stop changing. Outside a
 * signal handler (exit, flush): libraries loaded since the last refresh appear in MAPS too. Not
 * before an exec nor at quick_exit: both are async-signal-safe, programs call them from signal
 * handlers, and the refresh takes the loader's lock (MAPS is then the last snapshot, as on a signal).
 * Before an exec only the calling thread's source stops: a sampling signal pending on it would
 * outlive the exec and end the new image (its disposition is back to the default there); the other
 * threads, and their pending signals, end with the exec. */
static void before_dump(int why) {
  if (!hp_dump_in_handler(why)) hp_maps_refresh();   /* with sampling off too (process_start) */
  if (why == HP_DUMP_EXEC) {
    hp_thread *t = hp_thread_current();
    hp_sample_thread *st = sampling_on && t ? hp_sample_of(t) : NULL;
    if (st) stop_source(st);
  } else if (why != HP_DUMP_FLUSH) {
    stop_all();
  }
}

/* The exec failed: the calling thread is sampled again. Async-signal-safe, as the exec may have been
 * called in a signal handler: the timer and perf_event sources start with system calls; PAPI's event
 * set was left running (hp_papi_stop clears only `active`), so it is marked active again. A failure
 * is said with write(2), in a fixed text (no formatting, no strerror). */
static void exec_failed(hp_thread *t) {
  hp_sample_thread *st = sampling_on && t ? hp_sample_of(t) : NULL;
  if (!st || st->active) return;
#ifdef HYPROF_HAVE_PAPI
  int rc = hp_scfg.kind == HP_SRC_PAPI ? hp_papi_resume(st) : start_source(st, gettid());
#else
  int rc = start_source(st, gettid());
#endif
  if (rc != 0 && !__atomic_exchange_n(&start_warned, 1, __ATOMIC_ACQ_REL)) {
    static const char msg[] = "hyprof: cannot start sampling again after a failed exec; that thread is not sampled from here on\n";
    hp_stderr_write(msg, sizeof msg - 1);
  }
}

const hp_module hp_sample_module = {
  .name = "sampling",
  .thread_slot = HP_SAMPLE_SLOT,
  .process_start = process_start,
  .thread_start = thread_start,
  .thread_end = thread_end,
  .thread_compact = thread_compact,
  .fork_child = fork_child,
  .before_dump = before_dump,
  .exec_failed = exec_failed,
  .add_metadata = hp_sample_add_metadata,
  .write_drops = hp_sample_write_drops,
  .write_sections = hp_sample_write_sections,
};
