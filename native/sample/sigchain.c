/* Sharing the sampling signal with the program.
 *
 * Programs (and libraries) install their own SIGPROF handlers, e.g. for setitimer(ITIMER_PROF).
 * Without care, that would replace our handler and stop sampling, or our handler would swallow
 * their signals. So sigaction(), signal(), bsd_signal() and sysv_signal() are interposed (sigset()
 * is not: a program using it for the sampling signal replaces our handler). For the sampling
 * signal, once our handler is in place, the program's handler is recorded here instead of being
 * installed, and our handler forwards every signal that is not from our timers to it — with
 * SA_SIGINFO or plain calling convention, its sa_mask, SA_RESETHAND, and SIG_IGN / SIG_DFL
 * honoured. The program reads back its own handler, never ours, so it can never chain back into us
 * (and we check anyway).
 *
 * The program's handlers of the other asynchronous signals are wrapped while sampling runs: a
 * trampoline counts, per thread, every delivery that reaches one of them (hp_sigcounts, beside the
 * count of our own sampling signals) and calls the program's handler with the same arguments; the
 * kernel still applies the program's flags and sa_mask, and the program reads back its own handler.
 * The waits (waits.c) compare the counts around a call that failed with EINTR, to tell an
 * interruption by our sampling signal (waited again) from one by the program's own signals
 * (returned). The synchronous signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS) are never
 * wrapped: they come from the thread's own instruction, never in the middle of a wait, and the
 * handlers of sanitizers, JITs and crash reporters stay exactly as installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "sample_int.h"

#define HP_VISIBLE __attribute__((visibility("default")))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;
static volatile int installed;           /* our handler owns hp_scfg.signo */
static struct sigaction app[2];          /* the program's action, double-buffered for the handler */
static volatile int app_idx;

/* Per-thread counts of signal deliveries (sample_int.h); each is written only by handlers running on
 * its own thread and read by that thread. */
__thread hp_sig_counts hp_sigcounts __attribute__((tls_model("initial-exec")));

/* The program's action for each wrapped signal, double-buffered like app[] for the trampoline. */
static struct sigaction prog[NSIG][2];
static volatile unsigned char prog_idx[NSIG];
static int wrapping;   /* the program's handlers are wrapped (set once, before `installed`) */

static sigaction_fn get_real(void) {
  if (!real_sigaction) real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  return real_sigaction;
}

/* Resolved at load, unconditionally (also with sampling off), so the interposed sigaction / signal
 * do not call dlsym (not async-signal-safe) on first use, possibly from a program's signal handler.
 * get_real() stays as the fallback for calls made before this constructor runs. */
__attribute__((constructor)) static void resolve_sigaction(void) { get_real(); }

static void set_app(const struct sigaction *a) {
  int next = 1 - app_idx;
  app[next] = *a;
  __atomic_store_n(&app_idx, next, __ATOMIC_RELEASE);
}

void hp_sigchain_init(void) { get_real(); }

int hp_sigchain_active(void) { return __atomic_load_n(&installed, __ATOMIC_ACQUIRE); }

static int has_function(const struct sigaction *a) {
  if (a->sa_flags & SA_SIGINFO) return a->sa_sigaction != NULL;
  return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

/* Signals whose program handlers are wrapped: every catchable asynchronous signal but ours. */
static int wrappable(int sig) {
  switch (sig) {
    case SIGKILL: case SIGSTOP:
    case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP: case SIGSYS:
      return 0;
    default:
      return sig > 0 && sig < NSIG && sig != hp_scfg.signo;
  }
}

static void set_prog(int sig, const struct sigaction *a) {
  int next = 1 - prog_idx[sig];
  prog[sig][next] = *a;
  __atomic_store_n(&prog_idx[sig], (unsigned char)next, __ATOMIC_RELEASE);
}

/* Installed in place of a program's handler of a wrapped signal, with the program's own sa_mask and
 * flags (plus SA_SIGINFO), so the kernel blocks, restarts and resets exactly as for the program's
 * handler. Async-signal-safe: a TLS increment (initial-exec), two loads, the call. */
static void trampoline(int sig, siginfo_t *si, void *uc) {
  hp_sigcounts.program++;
  const struct sigaction *a = &prog[sig][__atomic_load_n(&prog_idx[sig], __ATOMIC_ACQUIRE)];
  void (*sa_sig)(int, siginfo_t *, void *) = a->sa_sigaction;
  void (*h)(int) = a->sa_handler;
  int siginfo = (a->sa_flags & SA_SIGINFO) != 0;
  if (a->sa_flags & SA_RESETHAND) {
    /* the kernel reset the disposition on delivery: the record follows (never a data race: the
     * handler is the only writer of its own signal's record at this moment unless the program
     * changes the action concurrently, when either order is one the program could see) */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    set_prog(sig, &dfl);
  }
  if (siginfo) {
    if (sa_sig) sa_sig(sig, si, uc);
  } else if (h != SIG_DFL && h != SIG_IGN) {
    h(sig);
  }
}

static int is_trampoline(const struct sigaction *a) {
  return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == trampoline;
}

/* sigaction for a wrapped signal while sampling runs: the program's action is recorded, and
 * installed with the trampoline in place of its handler function; the previous action read back
 * is the program's own (or whatever is installed, when it was set by a path we do not see). */
static int wrapped_sigaction(sigaction_fn sa, int sig, const struct sigaction *act, struct sigaction *old) {
  struct sigaction prev = prog[sig][prog_idx[sig]], now;
  int rc;
  if (act) {
    struct sigaction put = *act;
    if (has_function(act)) {
      put.sa_sigaction = trampoline;
      put.sa_flags |= SA_SIGINFO;
    }
    set_prog(sig, act);   /* before the handler is in place: a delivery right after finds it */
    rc = sa(sig, &put, &now);
    if (rc != 0) set_prog(sig, &prev);
  } else {
    rc = sa(sig, NULL, &now);
  }
  if (rc == 0 && old) *old = is_trampoline(&now) ? prev : now;
  return rc;
}

/* Wrap the handlers already installed (before sampling started); later ones are wrapped by the
 * interposed sigaction. */
static void wrap_installed(sigaction_fn sa) {
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction cur;
    if (!wrappable(sig) || sa(sig, NULL, &cur) != 0) continue;
    set_prog(sig, &cur);
    if (!has_function(&cur) || is_trampoline(&cur)) continue;
    struct sigaction put = cur;
    put.sa_sigaction = trampoline;
    put.sa_flags |= SA_SIGINFO;
    sa(sig, &put, NULL);
  }
}

int hp_sigchain_install(void) {
  sigaction_fn sa = get_real();
  if (!sa) return -1;
  struct sigaction ours, old;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = hp_sample_handler;
  ours.sa_flags = SA_SIGINFO | SA_RESTART;
  /* Every signal but the synchronous ones is blocked while the handler runs: inside it, libunwind's
   * own sigprocmask protection of its cache lock is skipped (unwind.c), so no other handler may
   * interrupt ours and call libunwind or our interposed sigprocmask meanwhile. Faults in the
   * handler itself must still be delivered (blocked, they would kill the process silently). */
  sigfillset(&ours.sa_mask);
  sigdelset(&ours.sa_mask, SIGSEGV);
  sigdelset(&ours.sa_mask, SIGBUS);
  sigdelset(&ours.sa_mask, SIGILL);
  sigdelset(&ours.sa_mask, SIGFPE);
  sigdelset(&ours.sa_mask, SIGTRAP);
  if (sa(hp_scfg.signo, &ours, &old) != 0) return -1;
  /* a handler the program installed before we started keeps receiving its signals */
  if (!(old.sa_flags & SA_SIGINFO) || old.sa_sigaction != hp_sample_handler) set_app(&old);
  /* Only where the program's sigaction calls reach ours (preloaded, linked): inside the Node addon
   * (RTLD_LOCAL) they do not, the waits are not interposed either, and the program would read our
   * trampoline back as its handler. */
  if (dlsym(RTLD_DEFAULT, "sigaction") == (void *)sigaction) {
    wrap_installed(sa);
    wrapping = 1;
  }
  __atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
  return 0;
}

static int chain_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  sigaction_fn sa = get_real();
  if (!sa) {
    errno = ENOSYS;
    return -1;
  }
  /* A program resetting SIGINT / SIGTERM to their default keeps the runtime's dump on them (init.c). */
  if (hp_signal_dump_sigaction(sig, act, old)) return 0;
  if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE)) return sa(sig, act, old);
  if (sig != hp_scfg.signo) return wrapping && wrappable(sig) ? wrapped_sigaction(sa, sig, act, old) : sa(sig, act, old);
  struct sigaction prev = app[app_idx];
  if (act) {
    if ((act->sa_flags & SA_SIGINFO) && act->sa_sigaction == hp_sample_handler) {
      /* someone handing our own handler back: keep the program's, do not loop */
    } else {
      set_app(act);
    }
  }
  if (old) *old = prev;
  return 0;
}

HP_VISIBLE int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  return chain_sigaction(sig, act, old);
}

/* signal() and its BSD / System V variants: glibc implements them with its internal sigaction,
 * which our interposer never sees, so each is interposed with the semantics it documents. */
static sighandler_t set_handler(int sig, sighandler_t h, int flags, int block_self) {
  if (sig <= 0 || sig >= NSIG || h == SIG_ERR) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction a, o;
  memset(&a, 0, sizeof a);
  a.sa_handler = h;
  a.sa_flags = flags;
  sigemptyset(&a.sa_mask);
  if (block_self) sigaddset(&a.sa_mask, sig);
  if (__atomic_load_n(&installed, __ATOMIC_ACQUIRE) && sig == hp_scfg.signo) {
    struct sigaction prev = app[app_idx];
    set_app(&a);
    return (prev.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)prev.sa_sigaction : prev.sa_handler;
  }
  if (chain_sigaction(sig, &a, &o) != 0) return SIG_ERR;
  return (o.sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)o.sa_sigaction : o.sa_handler;
}

/* glibc's signal() and bsd_signal(): BSD semantics (SA_RESTART, the signal blocked in its handler) */
HP_VISIBLE sighandler_t signal(int sig, sighandler_t h) { return set_handler(sig, h, SA_RESTART, 1); }
HP_VISIBLE sighandler_t bsd_signal(int sig, sighandler_t h) { return set_handler(sig, h, SA_RESTART, 1); }
/* System V semantics: the handler is reset on delivery and the signal not blocked in it */
HP_VISIBLE sighandler_t sysv_signal(int sig, sighandler_t h) {
  return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

static int ignored_by_default(int sig) {
  return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

/* Called from hp_sample_handler for a signal that is not ours. Async-signal-safe: sigaction and
 * pthread_sigmask are system calls, tgkill too. */
void hp_sigchain_forward(int sig, siginfo_t *si, void *uc) {
  const struct sigaction *a = &app[__atomic_load_n(&app_idx, __ATOMIC_ACQUIRE)];
  int siginfo = (a->sa_flags & SA_SIGINFO) != 0;
  void (*h)(int) = a->sa_handler;
  if (siginfo && a->sa_sigaction == hp_sample_handler) return;   /* never recurse */
  if (!siginfo && h == SIG_IGN) return;
  if ((!siginfo && h == SIG_DFL) || (siginfo && !a->sa_sigaction)) {
    if (ignored_by_default(sig)) return;
    /* the default action (terminate): give the signal back to the kernel. It is blocked while we
     * run, so it is delivered, with its default action, as soon as this handler returns. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    if (real_sigaction) real_sigaction(sig, &dfl, NULL);
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
    return;
  }
  /* The program's handler runs with the mask the kernel would have given it: the interrupted
   * mask, its sa_mask, and the signal itself unless SA_NODEFER; not with ours (nearly everything
   * blocked). Restored to ours afterwards. */
  sigset_t want, old;
  if (uc) want = ((const ucontext_t *)uc)->uc_sigmask;
  else pthread_sigmask(SIG_SETMASK, NULL, &want);
  sigorset(&want, &want, &a->sa_mask);
  if (a->sa_flags & SA_NODEFER) sigdelset(&want, sig);
  else sigaddset(&want, sig);
  pthread_sigmask(SIG_SETMASK, &want, &old);
  hp_sigcounts.program++;
  void (*sa_sig)(int, siginfo_t *, void *) = a->sa_sigaction;
  if (a->sa_flags & SA_RESETHAND) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    set_app(&dfl);
  }
  if (siginfo) sa_sig(sig, si, uc);
  else h(sig);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}
