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
 * Other signals pass straight through to libc. */
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
  __atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
  return 0;
}

HP_VISIBLE int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  sigaction_fn sa = get_real();
  if (!sa) {
    errno = ENOSYS;
    return -1;
  }
  if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE) || sig != hp_scfg.signo) return sa(sig, act, old);
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
  sigaction_fn sa = get_real();
  if (!sa || sa(sig, &a, &o) != 0) return SIG_ERR;
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
