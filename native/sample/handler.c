/* The sampling signal handler: turns one timer / counter signal into one sample of the thread it
 * interrupted. Everything it reaches is async-signal-safe, reviewed line by line:
 *   - errno is saved and restored (ioctl / timer syscalls and libunwind may set it);
 *   - hp_thread_current() is one initial-exec TLS read (core contract, thread.h);
 *   - the thread's own hp_sample_thread is only ever written by this handler on this thread (every
 *     signal but the synchronous ones is blocked while the handler runs, sigchain.c); counters a flush on another
 *     thread may read meanwhile are updated with relaxed atomic stores (hp_count), and the
 *     process-wide "no_thread_state" counter, shared by all threads, with an atomic add;
 *   - clock_gettime is async-signal-safe (vDSO);
 *   - unwinding: see unwind.c for what libunwind does inside; the frame-pointer walk only reads
 *     memory inside the thread's own stack bounds;
 *   - the table (table.c) writes preallocated memory only; memcpy / memcmp are async-signal-safe;
 *   - the sample hook (core/module.h; set by the OpenMP tool, async-signal-safe by contract);
 *   - the trace's sample record (core/trace.c, hp_trace_sample): stores into this thread's own
 *     trace buffer, only when the signal did not land inside the runtime (in_tool clear);
 *   - the own-code check reads two addresses set at process start (sample.c);
 *   - ioctl(PERF_EVENT_IOC_REFRESH) re-arms a counter: a system call;
 *   - signals that are not ours go to hp_sigchain_forward (sigchain.c), never back here;
 *   - the count of our own signals (hp_sigcounts) is an initial-exec TLS increment.
 * Nothing here allocates, locks, or prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <ucontext.h>

#include "../core/clock.h"
#include "../core/fold.h"
#include "../core/module.h"
#include "../core/thread.h"
#include "../core/trace.h"
#include "sample_int.h"

volatile uint64_t hp_drops_no_thread_state;

static inline uint64_t sample_clock(const hp_sample_thread *st) {
  if (st->cpu_time) {
    struct timespec ts;
    clock_gettime(st->cpu_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  }
  return hp_now_ns();
}

static inline uint64_t context_pc(void *uc) {
#if defined(__x86_64__)
  return (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uint64_t)((ucontext_t *)uc)->uc_mcontext.pc;
#else
#error "hyprof sampling supports x86_64 and aarch64"
#endif
}

static inline uintptr_t context_sp(void *uc) {
#if defined(__x86_64__)
  return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#else
  return (uintptr_t)((ucontext_t *)uc)->uc_mcontext.sp;
#endif
}

/* Is the interrupted context on the thread's alternate signal stack (the kernel reports it in
 * uc_stack.ss_flags), or is this handler running on it (the program's SA_ONSTACK handler was
 * interrupted, or a signal arrived while on it)? */
static inline int on_altstack(void *uc) {
  const stack_t *ss = &((const ucontext_t *)uc)->uc_stack;
  if (ss->ss_flags & SS_ONSTACK) return 1;
  if (ss->ss_flags & SS_DISABLE) return 0;
  uintptr_t here = (uintptr_t)__builtin_frame_address(0), lo = (uintptr_t)ss->ss_sp;
  return ss->ss_size && here >= lo && here < lo + ss->ss_size;
}

void hp_sample_take(void *uc) {
  hp_thread *t = hp_thread_current();
  hp_sample_thread *st = t ? hp_sample_of(t) : NULL;
  if (!st) {
    __atomic_add_fetch(&hp_drops_no_thread_state, 1, __ATOMIC_RELAXED);
    return;
  }
  hp_count(&st->taken, 1);
  uint64_t now = sample_clock(st);
  uint64_t value = now > st->last_ns ? now - st->last_ns : 0;
  st->last_ns = now;
  if (!st->active) {
    hp_count(&st->drops[HP_DROP_STOPPED], 1);
    return;
  }
  /* In a probe, an OpenMP tool callback, an interposed function: hyprof's own time, never shown as
   * the program's. The flag covers what the runtime does between its enter / leave marks, the
   * address test the rest of its code (a callback's first instructions, an interposer). */
  if (t->in_tool || (uc && hp_maps_is_self((uintptr_t)context_pc(uc)))) {
    hp_count(&st->drops[HP_DROP_IN_TOOL], 1);
    return;
  }
  int32_t top = t->top;
  if (top < 0) top = 0;
  if (top >= HP_MAX_FRAMES) top = HP_MAX_FRAMES - 1;
  const hp_frame *f = &t->frames[top];
  uint64_t context = f->context;
  uintptr_t stack_addr = f->stack_addr;

  uint64_t *pcs = st->work->pcs;   /* not on the stack: it may be a small alternate signal stack */
  uint64_t *cfas = st->work->cfas;
  uint32_t depth;
  int failed = 0, truncated = 0;
  if (!uc) {
    /* PAPI gave no interrupted context: nothing to attribute, but never lost silently */
    hp_count(&st->drops[HP_DROP_UNWIND_FAILED], 1);
    return;
  }
  /* the OpenMP tool: its runtime's frames (where to stop unwinding, what to cut out of the path),
   * the thread's state and its blame bookkeeping; async-signal-safe by its contract
   * (core/module.h); NULL when no OpenMP runtime started the tool */
  const hp_sample_hook *hook = __atomic_load_n(&hp_sample_state_hook, __ATOMIC_ACQUIRE);
  hp_sample_view v = {t, context, value, stack_addr, 0, (uintptr_t)context_pc(uc), pcs, cfas, 0, HP_SAMPLE_MAX_DEPTH,
                      context_sp(uc), st->stack_hi};
  if (hook) hook->before_unwind(&v);
  if (v.leaf_only) {
    pcs[0] = context_pc(uc);
    cfas[0] = 0;
    depth = 1;
  } else if (hp_scfg.unwind && on_altstack(uc)) {
    /* the interrupted code (another signal handler) or this handler runs on a sigaltstack, often
     * a few KB: libunwind's stack use there could overflow it. Only the PC is kept. */
    pcs[0] = context_pc(uc);
    cfas[0] = 0;
    depth = 1;
    failed = 1;
  } else if (hp_scfg.unwind) {
    st->in_handler = 1;
    hp_maps_reader_enter();   /* a concurrent dlclose waits until this unwind is done */
    depth = hp_unwind(uc, v.stop, st, pcs, cfas, &failed, &truncated);
    hp_maps_reader_leave();
    st->in_handler = 0;
  } else {
    pcs[0] = context_pc(uc);
    cfas[0] = 0;
    depth = 1;
  }
  if (failed) hp_count(&st->drops[HP_DROP_UNWIND_FAILED], 1);
  if (truncated) hp_count(&st->drops[HP_DROP_TRUNCATED], 1);
  uint32_t state = 0;
  if (hook) {
    v.depth = depth;
    state = hook->after_unwind(&v);
    if (v.depth >= 1 && v.depth <= HP_SAMPLE_MAX_DEPTH) depth = v.depth;
  }
  if (hp_stable_add(st, context, pcs, depth, value, state) != 0) hp_count(&st->drops[HP_DROP_TABLE_FULL], 1);
  /* HYPROF_TRACE: the sample in the thread's trace too, its time on the run's clock and its innermost
   * frames (core/trace.c argues why sharing the probes' buffer is safe here: in_tool was clear
   * above; stores into this thread's buffer only) */
  if (hp_trace_on) hp_trace_sample(t, st->cpu_time ? hp_now_ns() : now, pcs, depth);
  /* HYPROF_FOLD: the sample's offset in the instances around it (core/fold.c, async-signal-safe:
   * preallocated records, atomic loads, clock and counter reads only) */
  if (hp_fold_series) hp_fold_sample(t, st->cpu_time ? hp_now_ns() : now, context, pcs, depth);
}

#ifdef HYPROF_BENCH_HANDLER
/* Benchmark builds only (bench/sampling.ts): the time each sampling signal spends in this handler. */
#define HP_BENCH_MAX (1u << 20)
static uint64_t bench_ns[HP_BENCH_MAX];
static volatile uint32_t bench_n;
__attribute__((visibility("default"))) uint32_t hp_bench_handler_times(const uint64_t **v) {
  *v = bench_ns;
  uint32_t n = bench_n;
  return n < HP_BENCH_MAX ? n : HP_BENCH_MAX;
}
#endif

/* Installed with SA_SIGINFO | SA_RESTART for hp_scfg.signo (sigchain.c). */
void hp_sample_handler(int sig, siginfo_t *si, void *uc) {
  int saved_errno = errno;
#ifdef HYPROF_BENCH_HANDLER
  uint64_t bench_t0 = hp_now_ns();
#endif
  int ours = 0, perf_fd = -1;
  if (hp_timer_is_ours(si)) {
    ours = 1;
  } else if (si->si_code >= POLL_IN && si->si_code <= POLL_HUP) {
    hp_thread *t = hp_thread_current();
    hp_sample_thread *st = t ? hp_sample_of(t) : NULL;
    if (st && si->si_fd >= 0) {
      int cur = __atomic_load_n(&st->perf_fd, __ATOMIC_ACQUIRE);
      if (si->si_fd == cur) {
        ours = 1;
        perf_fd = cur;
      } else if (si->si_fd == st->perf_fd_last) {
        ours = 1;   /* a late overflow of the stopped event: hp_sample_take counts it after_stop */
      }
    }
  }
  if (!ours) {
    hp_sigchain_forward(sig, si, uc);
  } else {
    hp_sigcounts.own++;   /* a wait this signal interrupted is waited again (waits.c) */
    hp_sample_take(uc);
    if (perf_fd >= 0) {
      hp_thread *t = hp_thread_current();
      hp_sample_thread *st = t ? hp_sample_of(t) : NULL;
      if (st && st->active && __atomic_load_n(&st->perf_fd, __ATOMIC_ACQUIRE) == perf_fd)
        ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, 1);
    }
#ifdef HYPROF_BENCH_HANDLER
    uint32_t k = __atomic_fetch_add(&bench_n, 1, __ATOMIC_RELAXED);
    if (k < HP_BENCH_MAX) bench_ns[k] = hp_now_ns() - bench_t0;
#endif
  }
  errno = saved_errno;
}
