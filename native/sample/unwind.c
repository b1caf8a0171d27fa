/* Unwinding a sample's stack from the signal's context, inside the handler.
 *
 * Two unwinders: libunwind (default; DWARF CFI, needed because -O2 code and Debian's libraries keep
 * no frame pointers, PLATFORM-FACTS.md) and a frame-pointer walk (HYPROF_UNWINDER=fp, for code known
 * to keep frame pointers).
 *
 * The stopping rule: every probe frame records the CFA of its probe call (the caller's stack pointer
 * before it called hyprof_start). Walking outward, the first frame whose own CFA is above that
 * address is the function that started the timer: it is kept and the walk ends. After stepping from
 * frame i to frame i+1, the stack pointer of frame i+1 is CFA(frame i), which is what is compared.
 *
 * Why libunwind is safe enough inside the handler (libunwind 1.6 as shipped by Debian):
 *   - one-time initialisation (tdep_init, which takes a mutex) is forced here at process init by a
 *     first unwind outside any handler;
 *   - Debian builds libunwind without the per-thread cache (its TLS segment is 16 bytes, not a
 *     register-state cache), so UNW_CACHE_PER_THREAD would silently become the global cache. We keep
 *     the global cache: outside our handler (the program's own use of libunwind) its lock is taken
 *     with every signal blocked (lock_acquire does sigprocmask first), so our handler can never
 *     interrupt a thread that holds it; inside our handler our own signal is blocked anyway (which is
 *     why the sigprocmask calls are skipped there, below); another thread holds the lock only for a
 *     lookup: a short wait, never a deadlock. The cache makes repeated PCs cheap and avoids
 *     dl_iterate_phdr on hits. UNW_CACHE_NONE would call dl_iterate_phdr on every step instead;
 *   - on a miss libunwind calls dl_iterate_phdr, which in glibc takes the loader's lock. maps.c
 *     interposes dl_iterate_phdr: while this handler runs on a thread, the call is served from our
 *     lock-free snapshot of the loaded objects (empty while a dlclose may be unmapping some: a
 *     sample then is kept with a partial stack and counted as unwind_failed);
 *   - unw_step validates addresses before dereferencing them when DWARF information is missing and
 *     it falls back to the frame chain (x86_64 Gstep), so garbage frame pointers do not fault.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "../core/thread.h"
#include "sample_int.h"

/* libunwind blocks every signal around each cache lookup and each dl_iterate_phdr call: two
 * sigprocmask system calls per frame, which measured as most of the handler's time on these VMs
 * (bench/RESULTS.md, "Sampling handler"). Inside our handler that protection is not needed for our own
 * signal (it is blocked while the handler runs), so sigprocmask is interposed and, only on a thread
 * that is inside the sampling handler's unwind, answers without the system call (the old mask it
 * reports is "everything blocked", and the restore that follows is answered the same way). No
 * other handler can run on the thread meanwhile (call libunwind while ours holds its cache lock, or
 * have its own sigprocmask calls skipped): the handler is installed with every asynchronous signal
 * blocked (sigchain.c); only a fault in the handler itself could. Everyone else gets glibc's
 * sigprocmask (pthread_sigmask before our constructor resolved it).
 * Left out under ThreadSanitizer, like dl_iterate_phdr in maps.c (TSan intercepts it itself). */

typedef int (*sigprocmask_fn)(int, const sigset_t *, sigset_t *);
static sigprocmask_fn real_sigprocmask;

#ifndef HP_TSAN
__attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  hp_thread *t = hp_thread_current();
  hp_sample_thread *st = t ? hp_sample_of(t) : NULL;
  if (st && st->in_handler) {
    if (old) sigfillset(old);
    return 0;
  }
  sigprocmask_fn real = real_sigprocmask;
  if (real) return real(how, set, old);
  /* not resolved yet (a call before our constructor ran): pthread_sigmask, which libc exports, we
   * do not interpose, and which keeps glibc's internal signals out of the mask as sigprocmask
   * does (the raw system call would not); async-signal-safe */
  int e = pthread_sigmask(how, set, old);
  if (e) {
    errno = e;
    return -1;
  }
  return 0;
}
#endif

/* Resolved at load, unconditionally (also with sampling off): resolving on first use would call
 * dlsym, which is not async-signal-safe, possibly from a program's signal handler. */
__attribute__((constructor)) static void resolve_sigprocmask(void) {
  if (!real_sigprocmask) real_sigprocmask = (sigprocmask_fn)dlsym(RTLD_NEXT, "sigprocmask");
}

static int warm_up(int n) {
  unw_context_t ctx;
  unw_cursor_t c;
  if (unw_getcontext(&ctx) != 0 || unw_init_local(&c, &ctx) != 0) return -1;
  while (n-- > 0 && unw_step(&c) > 0) {
  }
  return 0;
}

void hp_unwind_init(void) {
  if (!real_sigprocmask) real_sigprocmask = (sigprocmask_fn)dlsym(RTLD_NEXT, "sigprocmask");
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL);
  warm_up(64);
}

static inline uint32_t depth_limit(void) {
  uint32_t d = hp_scfg.unwind_depth;
  return d == 0 || d > HP_SAMPLE_MAX_DEPTH ? HP_SAMPLE_MAX_DEPTH : d;
}

/* Thread entry unknown (stack_addr 0): drop trailing frames of libc / loader start-up code
 * (_start, __libc_start_main, __libc_start_call_main, start_thread, clone), found by the address
 * ranges maps.c computed at init. Only frames at the very end of the stack are start-up code. */
static uint32_t trim_startup(uint64_t *pcs, uint32_t n) {
  while (n > 1 && hp_maps_is_startup((uintptr_t)pcs[n - 1])) n--;
  return n;
}

_Static_assert(sizeof(unw_cursor_t) <= sizeof(((hp_sample_work *)0)->unw_cursor),
               "hp_sample_work.unw_cursor too small for unw_cursor_t");

static uint32_t unwind_libunwind(void *uc, uintptr_t stack_addr, hp_sample_thread *st, uint64_t *pcs,
                                 uint64_t *cfas, int *failed, int *truncated) {
  /* the cursor (about 1 KB) lives in the thread's sampling state, not on the interrupted stack */
  unw_cursor_t *cp = (unw_cursor_t *)(void *)st->work->unw_cursor;
  unw_word_t ip = 0, sp = 0;
  uint32_t limit = depth_limit(), n = 0;
  int at_end = 0;
  if (unw_init_local2(cp, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) != 0 ||
      unw_get_reg(cp, UNW_REG_IP, &ip) != 0) {
#if defined(__x86_64__)
    pcs[0] = (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#else
    pcs[0] = (uint64_t)((ucontext_t *)uc)->uc_mcontext.pc;
#endif
    cfas[0] = 0;
    *failed = 1;
    return 1;
  }
  cfas[n] = 0;
  pcs[n++] = ip;
  for (;;) {
    int r = unw_step(cp);
    if (r == 0) { at_end = 1; break; }
    if (r < 0) { *failed = 1; at_end = 1; break; }
    if (unw_get_reg(cp, UNW_REG_SP, &sp) != 0) { *failed = 1; break; }
    cfas[n - 1] = sp;   /* the caller's stack pointer at the call: frame n-1's CFA */
    if (stack_addr && sp > stack_addr) break;   /* frame n-1 started the timer */
    if (n >= limit) {
      if (hp_scfg.unwind_depth == 0) *truncated = 1;
      if (!stack_addr) {
        /* is the rest only start-up code? then what we cut at is the end of the stack */
        int rest_startup = 1;
        for (int k = 0; k < 4 && rest_startup; k++) {
          if (unw_get_reg(cp, UNW_REG_IP, &ip) != 0 || !hp_maps_is_startup(ip)) rest_startup = 0;
          else if (unw_step(cp) <= 0) { at_end = 1; break; }
        }
        if (!at_end) rest_startup = 0;
        if (rest_startup) *truncated = 0;
        at_end = rest_startup;
      }
      break;
    }
    if (unw_get_reg(cp, UNW_REG_IP, &ip) != 0 || ip == 0) { at_end = 1; break; }
    cfas[n] = 0;
    pcs[n++] = ip;
  }
  if (!stack_addr && at_end) n = trim_startup(pcs, n);
  return n;
}

static uint32_t unwind_fp(void *uc, uintptr_t stack_addr, const hp_sample_thread *st, uint64_t *pcs,
                          uint64_t *cfas, int *failed, int *truncated) {
#if defined(__x86_64__)
  const ucontext_t *u = uc;
  uintptr_t bp = (uintptr_t)u->uc_mcontext.gregs[REG_RBP];
  pcs[0] = (uint64_t)u->uc_mcontext.gregs[REG_RIP];
#else
  const ucontext_t *u = uc;
  uintptr_t bp = (uintptr_t)u->uc_mcontext.regs[29];
  pcs[0] = (uint64_t)u->uc_mcontext.pc;
#endif
  uint32_t limit = depth_limit(), n = 1;
  int at_end = 0;
  uintptr_t lo = st->stack_lo, hi = st->stack_hi;
  cfas[0] = 0;
  for (;;) {
    if (bp == 0) { at_end = 1; break; }
    if ((bp & 7) || bp < lo || bp + 16 > hi) { *failed = 1; at_end = 1; break; }
    uintptr_t cfa = bp + 16;   /* CFA of the frame whose PC is pcs[n-1] */
    cfas[n - 1] = cfa;
    if (stack_addr && cfa > stack_addr) break;
    if (n >= limit) {
      if (hp_scfg.unwind_depth == 0) *truncated = 1;
      break;
    }
    uintptr_t ret = ((const uintptr_t *)bp)[1];
    uintptr_t next = ((const uintptr_t *)bp)[0];
    if (ret == 0) { at_end = 1; break; }
    cfas[n] = 0;
    pcs[n++] = ret;
    if (next != 0 && next <= bp) { *failed = 1; at_end = 1; break; }
    bp = next;
  }
  if (!stack_addr && at_end) n = trim_startup(pcs, n);
  return n;
}

/* ---- the fast path of the DWARF unwinder: the per-thread table of simple rules (cfi.c) ---- */

typedef struct {
  uintptr_t ip, sp, bp;
  uintptr_t lookup;   /* where the frame's rule is looked up: ip for the interrupted frame, ip - 1
                         (inside the call) for the others, as libunwind does */
} regs;

/* One step outward through a frame of code without call-frame information (JIT code, V8's
 * builtins: cfi.c, HP_CFI_CHAIN), by the frame-pointer chain: V8 keeps rbp as the frame pointer in
 * all its code, with the caller's rbp at [rbp] and the return address at [rbp + 8]; the caller's
 * stack pointer is rbp + 16.
 *
 * Why the two reads can never fault, with no system call to check them (libunwind checks each
 * address it reads here with mincore, or a write and a read on a pipe, which was about 44 system
 * calls per sample of a Node stack):
 *   - st->stack_lo / stack_hi are the thread's stack as pthread_getattr_np gave it at thread start
 *     (sample.c), outside any handler;
 *   - r->sp is the interrupted stack pointer or a caller's, and every step only moves it up
 *     (cfi_step requires CFA > sp, this step requires rbp >= sp and sets sp = rbp + 16); it is
 *     checked to lie inside the thread's stack, so [r->sp, stack_hi) is the live part of that
 *     stack: the frames of the calls under way, between the stack pointer and the top. A thread's
 *     stack is one mapping (glibc maps it whole; the main thread's [stack] mapping reaches from
 *     below its stack pointer to the top);
 *   - the reads are [rbp, rbp + 16) with r->sp <= rbp and rbp + 16 <= stack_hi, 8-byte aligned.
 * A stale or garbage rbp can only give wrong frames, never a fault: the values read are used as
 * addresses only after the same checks. The handler's own signal is blocked meanwhile and the stack
 * is the interrupted thread's own, so nothing unmaps it under the read.
 * 1: stepped; 0: the end of the chain (rbp 0, or not above the stack pointer: libunwind's end too);
 * -1: the stack pointer or rbp is outside the thread's stack (another stack): libunwind's. */
static inline int chain_step(const hp_sample_thread *st, regs *r) {
  uintptr_t bp = r->bp;
  if (r->sp < st->stack_lo || r->sp >= st->stack_hi) return -1;
  if (bp == 0) return 0;
  if (bp < st->stack_lo || bp > st->stack_hi - 16) return -1;
  if ((bp & 7) || bp < r->sp) return 0;
  const uintptr_t *frame = (const uintptr_t *)bp;
  r->ip = frame[1];
  r->bp = frame[0];
  r->sp = bp + 16;
  r->lookup = r->ip - 1;
  return 1;
}

/* One step outward with the frame's simple rule, reading only the thread's own stack.
 * 1: stepped; 0: the outermost frame (unw_step's 0); -1: not for the fast path. */
static inline int cfi_step(hp_sample_thread *st, regs *r) {
  const hp_cfi_rule *rule = hp_cfi_lookup(st, r->lookup);
  uint32_t flags = rule->flags;
  if (!(flags & HP_CFI_OK)) return (flags & HP_CFI_CHAIN) ? chain_step(st, r) : -1;
  if (flags & HP_CFI_END) return 0;
  if ((flags & HP_CFI_PLT) && r->lookup != r->ip) return -1;   /* a PLT rule for a caller's frame */
  uintptr_t cfa = ((flags & HP_CFI_CFA_RBP) ? r->bp : r->sp) + (intptr_t)rule->cfa_off;
  /* every frame's CFA is above the stack pointer it was computed from (the stack only unwinds
   * upward); anything else is a stale rbp, whose reads could fall below the mapped stack */
  if (cfa <= r->sp) return -1;
  uintptr_t ra_at = cfa + (intptr_t)rule->ra_off;
  if (ra_at < st->stack_lo || ra_at > st->stack_hi - sizeof(uintptr_t)) return -1;
  uintptr_t bp = r->bp;
  if (flags & HP_CFI_RBP_SAVED) {
    uintptr_t bp_at = cfa + (intptr_t)rule->rbp_off;
    if (bp_at < st->stack_lo || bp_at > st->stack_hi - sizeof(uintptr_t)) return -1;
    bp = *(const uintptr_t *)bp_at;
  }
  r->ip = *(const uintptr_t *)ra_at;
  r->sp = cfa;
  r->bp = bp;
  r->lookup = r->ip - 1;
  return 1;
}

/* The libunwind walk of unwind_libunwind, step for step, over the table's rules. Returns the depth,
 * or 0 when a frame is not for the fast path: then the caller unwinds the sample with libunwind. */
static uint32_t unwind_cfi(void *uc, uintptr_t stack_addr, hp_sample_thread *st, uint64_t *pcs, uint64_t *cfas,
                           int *truncated) {
#if defined(__x86_64__)
  const ucontext_t *u = uc;
  regs r = {(uintptr_t)u->uc_mcontext.gregs[REG_RIP], (uintptr_t)u->uc_mcontext.gregs[REG_RSP],
            (uintptr_t)u->uc_mcontext.gregs[REG_RBP], (uintptr_t)u->uc_mcontext.gregs[REG_RIP]};
  if (!st->stack_lo || st->stack_hi - st->stack_lo < 64) return 0;   /* bounds unknown */
  if (!hp_cfi_prepare(st)) return 0;
  uint32_t limit = depth_limit(), n = 0;
  int at_end = 0, trunc = 0;
  cfas[n] = 0;
  pcs[n++] = r.ip;
  for (;;) {
    int s = cfi_step(st, &r);
    if (s < 0) return 0;
    if (s == 0) { at_end = 1; break; }
    cfas[n - 1] = r.sp;   /* the caller's stack pointer at the call: frame n-1's CFA */
    if (stack_addr && r.sp > stack_addr) break;   /* frame n-1 started the timer */
    if (n >= limit) {
      if (hp_scfg.unwind_depth == 0) trunc = 1;
      if (!stack_addr) {
        /* is the rest only start-up code? then what we cut at is the end of the stack */
        int rest_startup = 1;
        for (int k = 0; k < 4 && rest_startup; k++) {
          if (!hp_maps_is_startup(r.ip)) rest_startup = 0;
          else if ((s = cfi_step(st, &r)) < 0) return 0;
          else if (s == 0) { at_end = 1; break; }
        }
        if (!at_end) rest_startup = 0;
        if (rest_startup) trunc = 0;
        at_end = rest_startup;
      }
      break;
    }
    if (r.ip == 0) { at_end = 1; break; }
    cfas[n] = 0;
    pcs[n++] = r.ip;
  }
  if (!stack_addr && at_end) n = trim_startup(pcs, n);
  *truncated = trunc;
  return n;
#else
  (void)uc, (void)stack_addr, (void)st, (void)pcs, (void)cfas, (void)truncated;
  return 0;
#endif
}

#ifdef HYPROF_UNWIND_CROSSCHECK
/* Test builds only (test/sampling-unwind.test.ts): every sample the table unwinds is unwound by
 * libunwind too, and any difference is counted. */
static volatile uint64_t check_fast, check_slow, check_differ;
static __thread uint64_t check_pcs[HP_SAMPLE_MAX_DEPTH] __attribute__((tls_model("initial-exec")));
static __thread uint64_t check_cfas[HP_SAMPLE_MAX_DEPTH] __attribute__((tls_model("initial-exec")));
__attribute__((visibility("default"))) void hp_unwind_crosscheck(uint64_t *fast, uint64_t *slow, uint64_t *differ) {
  *fast = check_fast;
  *slow = check_slow;
  *differ = check_differ;
}
static void crosscheck(void *uc, uintptr_t stack_addr, hp_sample_thread *st, const uint64_t *pcs, uint32_t n,
                       int truncated) {
  int failed2 = 0, truncated2 = 0;
  uint32_t n2 = unwind_libunwind(uc, stack_addr, st, check_pcs, check_cfas, &failed2, &truncated2);
  int same = n == n2 && !failed2 && truncated == truncated2 && memcmp(pcs, check_pcs, n * sizeof *pcs) == 0;
  __atomic_add_fetch(same ? &check_fast : &check_differ, 1, __ATOMIC_RELAXED);
}
#endif

uint32_t hp_unwind(void *uc, uintptr_t stack_addr, hp_sample_thread *st, uint64_t *pcs, uint64_t *cfas,
                   int *failed, int *truncated) {
  if (hp_scfg.unwinder == HP_UNW_FP) return unwind_fp(uc, stack_addr, st, pcs, cfas, failed, truncated);
  uint32_t n = unwind_cfi(uc, stack_addr, st, pcs, cfas, truncated);
  if (n) {
#ifdef HYPROF_UNWIND_CROSSCHECK
    crosscheck(uc, stack_addr, st, pcs, n, *truncated);
#endif
    return n;
  }
#ifdef HYPROF_UNWIND_CROSSCHECK
  __atomic_add_fetch(&check_slow, 1, __ATOMIC_RELAXED);
#endif
  *truncated = 0;
  return unwind_libunwind(uc, stack_addr, st, pcs, cfas, failed, truncated);
}
