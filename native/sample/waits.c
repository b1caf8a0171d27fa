/* Time-based waits complete as they would without hyprof.
 *
 * The sampling signal interrupts whatever the thread is doing. SA_RESTART (sigchain.c) restarts most
 * blocking calls (read and write on pipes and sockets without a timeout, accept, waitpid, sem_wait,
 * pthread_cond_wait and _timedwait, which never report EINTR), but Linux never restarts the sleeps
 * and the waits with a timeout (signal(7)): nanosleep, clock_nanosleep, poll, select, epoll_wait,
 * sigtimedwait, sem_timedwait, ... fail with EINTR, and sleep() returns early. Sampling every
 * millisecond, `sleep(1)` would return after a millisecond.
 *
 * So those calls are interposed here. Each one that fails with EINTR looks at the thread's signal
 * counts (hp_sigcounts, sample_int.h): when at least one sampling signal of ours and no signal of
 * the program arrived during the call, it is called again for the time that is left, measured from
 * a deadline on the clock the kernel measures that call with (taken before the first call, so the
 * handler's own time is not added at each interruption); when any signal of the program reached a
 * handler, EINTR (and the remaining time, where the call reports it) goes back to the program as
 * without hyprof. An absolute deadline (TIMER_ABSTIME, sem_timedwait) is simply waited for again.
 * Between the check and the next call the program's signals are blocked, and the next call installs
 * the caller's mask atomically with its wait (again_blocked: ppoll for poll and the relative sleeps,
 * pselect for select, epoll_pwait, sigsuspend for pause), so a signal of the program that comes in
 * between still ends the wait. The absolute waits, sem_timedwait, sem_clockwait, sigtimedwait and
 * sigwaitinfo have no such form: there a signal in that window of a few hundred instructions is
 * handled and the wait goes on to its deadline.
 * errno is left as the program had it when the wait succeeds in the end.
 *
 * With sampling off (no handler of ours installed) each call goes straight to libc. Inside the Node
 * addon (loaded RTLD_LOCAL) these interposers are not reached; libuv restarts its waits itself.
 * Handlers installed with sigset() or the raw system call are not counted (sigchain.c): a wait one
 * of their signals interrupts while a sampling signal also arrived is waited again.
 *
 * These functions are async-signal-safe where libc's are (programs call nanosleep, poll, select,
 * pause, sigsuspend from signal handlers): they only add clock_gettime (vDSO) and TLS reads; the
 * real functions are resolved in a constructor, never with dlsym on the way of a call (except for a
 * call made before the constructor ran, by another library's constructor).
 *
 * Left out of a ThreadSanitizer build (HP_TSAN): TSan intercepts these calls itself and runs a
 * handler only after its interceptor returned (deferred signals), so the counts cannot tell. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "sample_int.h"

#ifndef HP_TSAN

#define HP_VISIBLE __attribute__((visibility("default")))

/* The real functions, one pointer each, resolved at load. */
#define REAL(name, ret, ...)                                       \
  typedef ret (*name##_fn)(__VA_ARGS__);                           \
  static name##_fn real_##name;                                    \
  static inline name##_fn get_##name(void) {                       \
    if (!real_##name) real_##name = (name##_fn)dlsym(RTLD_NEXT, #name); \
    return real_##name;                                            \
  }
REAL(sleep, unsigned, unsigned)
REAL(usleep, int, useconds_t)
REAL(nanosleep, int, const struct timespec *, struct timespec *)
REAL(clock_nanosleep, int, clockid_t, int, const struct timespec *, struct timespec *)
REAL(poll, int, struct pollfd *, nfds_t, int)
REAL(ppoll, int, struct pollfd *, nfds_t, const struct timespec *, const sigset_t *)
REAL(select, int, int, fd_set *, fd_set *, fd_set *, struct timeval *)
REAL(pselect, int, int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *)
REAL(epoll_wait, int, int, struct epoll_event *, int, int)
REAL(epoll_pwait, int, int, struct epoll_event *, int, int, const sigset_t *)
REAL(sem_timedwait, int, sem_t *, const struct timespec *)
REAL(sem_clockwait, int, sem_t *, clockid_t, const struct timespec *)
REAL(sigtimedwait, int, const sigset_t *, siginfo_t *, const struct timespec *)
REAL(sigwaitinfo, int, const sigset_t *, siginfo_t *)
REAL(pause, int, void)
REAL(sigsuspend, int, const sigset_t *)

__attribute__((constructor)) static void resolve_waits(void) {
  get_sleep(), get_usleep(), get_nanosleep(), get_clock_nanosleep(), get_poll(), get_ppoll();
  get_select(), get_pselect(), get_epoll_wait(), get_epoll_pwait(), get_sem_timedwait();
  get_sem_clockwait(), get_sigtimedwait(), get_sigwaitinfo(), get_pause(), get_sigsuspend();
}

/* One wait: the signal counts at the start of the current call, errno at entry, the deadline. */
typedef struct {
  unsigned long own, program;
  int saved_errno;
  clockid_t clock;
  struct timespec end;
} hp_wait;

static inline void mark(hp_wait *w) {
  w->own = hp_sigcounts.own;
  w->program = hp_sigcounts.program;
}

static inline void wait_begin(hp_wait *w) {
  mark(w);
  w->saved_errno = errno;
}

static inline void deadline(hp_wait *w, clockid_t c, const struct timespec *rel) {
  w->clock = c;
  clock_gettime(c, &w->end);
  w->end.tv_sec += rel->tv_sec;
  w->end.tv_nsec += rel->tv_nsec;
  if (w->end.tv_nsec >= 1000000000L) {
    w->end.tv_sec++;
    w->end.tv_nsec -= 1000000000L;
  }
}

static inline void deadline_ms(hp_wait *w, int ms) {
  struct timespec rel = {ms / 1000, (long)(ms % 1000) * 1000000L};
  deadline(w, CLOCK_MONOTONIC, &rel);
}

/* The time left until the deadline, never negative. */
static struct timespec left(const hp_wait *w) {
  struct timespec now, d;
  clock_gettime(w->clock, &now);
  d.tv_sec = w->end.tv_sec - now.tv_sec;
  d.tv_nsec = w->end.tv_nsec - now.tv_nsec;
  if (d.tv_nsec < 0) {
    d.tv_sec--;
    d.tv_nsec += 1000000000L;
  }
  if (d.tv_sec < 0) d.tv_sec = d.tv_nsec = 0;
  return d;
}

/* Milliseconds left, rounded up (a wait never ends before its deadline). */
static int left_ms(const hp_wait *w) {
  struct timespec d = left(w);
  long long ms = (long long)d.tv_sec * 1000 + (d.tv_nsec + 999999) / 1000000;
  return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/* After a call that failed with error `err`: 1 to call again (the interruption was only ours), else
 * 0. The counts are taken again for the next call. */
static inline int again(hp_wait *w, int err) {
  if (err != EINTR || hp_sigcounts.program != w->program || hp_sigcounts.own == w->own) return 0;
  mark(w);
  return 1;
}

/* The same, closing the window between the check and the next call: a signal of the program whose
 * handler ran after the check but before the next call entered the kernel would find the call not
 * yet waiting, and the call would then wait its whole time (without hyprof it ends early). So every
 * signal is blocked from the check on, and the next call is one that installs the caller's mask
 * (`old`) atomically with its wait (ppoll, pselect, epoll_pwait, sigsuspend): a signal that came in
 * the window is delivered inside it and ends it. The caller unblocks (unblock) after the call.
 * Async-signal-safe (sigfillset, pthread_sigmask). */
static inline int again_blocked(hp_wait *w, int err, sigset_t *old) {
  if (err != EINTR || hp_sigcounts.program != w->program || hp_sigcounts.own == w->own) return 0;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, old);
  if (hp_sigcounts.program != w->program) { /* one of the program's came just before the block */
    pthread_sigmask(SIG_SETMASK, old, NULL);
    errno = EINTR;
    return 0;
  }
  mark(w);
  return 1;
}

/* The caller's mask again after a call again_blocked prepared; errno kept. */
static inline void unblock(const sigset_t *old) {
  int e = errno;
  pthread_sigmask(SIG_SETMASK, old, NULL);
  errno = e;
}

/* The rest of a relative sleep on CLOCK_MONOTONIC after again_blocked: ppoll with no descriptors
 * waits the time left with the caller's mask. Returns 0 or the error number. */
static int sleep_rest(hp_wait *w, sigset_t *old) {
  for (;;) {
    struct timespec d = left(w);
    int e = get_ppoll()(NULL, 0, &d, old) < 0 ? errno : 0;
    unblock(old);
    if (e == 0 || !again_blocked(w, e, old)) return e;
  }
}

/* The result of a wait that returns -1 / errno on failure: errno as at entry on success. */
static inline int done(const hp_wait *w, int r) {
  if (r >= 0) errno = w->saved_errno;
  return r;
}

/* nanosleep, sleep and usleep: a relative sleep on CLOCK_MONOTONIC (Linux measures relative sleeps
 * on CLOCK_REALTIME with the monotonic clock), then absolute sleeps to the same deadline. */
static int sleep_for(const struct timespec *req, struct timespec *rem) {
  hp_wait w;
  wait_begin(&w);
  /* an invalid req is refused by the first call; the deadline is only used after it */
  if (req->tv_nsec >= 0 && req->tv_nsec < 1000000000L && req->tv_sec >= 0) deadline(&w, CLOCK_MONOTONIC, req);
  int r = get_nanosleep()(req, rem);
  sigset_t old;
  if (r == 0 || !again_blocked(&w, errno, &old)) return r;
  int e = sleep_rest(&w, &old);
  if (e == 0) return done(&w, 0);
  if (e == EINTR && rem) *rem = left(&w);
  errno = e;
  return -1;
}

HP_VISIBLE int nanosleep(const struct timespec *req, struct timespec *rem) {
  if (!hp_sigchain_active() || !req) return get_nanosleep()(req, rem);
  return sleep_for(req, rem);
}

/* glibc: the unslept whole seconds when interrupted, errno kept on success */
HP_VISIBLE unsigned sleep(unsigned seconds) {
  if (!hp_sigchain_active()) return get_sleep()(seconds);
  struct timespec ts = {(time_t)seconds, 0};
  if (sleep_for(&ts, &ts) < 0) return (unsigned)ts.tv_sec;
  return 0;
}

HP_VISIBLE int usleep(useconds_t us) {
  if (!hp_sigchain_active()) return get_usleep()(us);
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000L};
  return sleep_for(&ts, NULL);
}

/* Returns the error number (errno untouched), as clock_nanosleep does. */
HP_VISIBLE int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem) {
  if (!hp_sigchain_active() || !req) return get_clock_nanosleep()(clock, flags, req, rem);
  hp_wait w;
  wait_begin(&w);
  int e;
  if (flags & TIMER_ABSTIME) {
    do e = get_clock_nanosleep()(clock, flags, req, rem);
    while (again(&w, e));
    return e;
  }
  /* relative: Linux measures one on CLOCK_REALTIME or CLOCK_TAI with the monotonic clock */
  clockid_t c = clock == CLOCK_REALTIME || clock == CLOCK_TAI ? CLOCK_MONOTONIC : clock;
  if (req->tv_nsec >= 0 && req->tv_nsec < 1000000000L && req->tv_sec >= 0) deadline(&w, c, req);
  e = get_clock_nanosleep()(clock, flags, req, rem);
  sigset_t old;
  if (c == CLOCK_MONOTONIC) { /* ppoll's timeout is on the monotonic clock too */
    int more = e != 0 && again_blocked(&w, e, &old);
    if (more) e = sleep_rest(&w, &old);
    errno = w.saved_errno; /* clock_nanosleep returns its error and leaves errno alone; ppoll does not */
    if (!more) return e;
  } else { /* another clock (CPU time, boot time): waited again on it, the window left open */
    if (e == 0 || !again(&w, e)) return e;
    do e = get_clock_nanosleep()(c, TIMER_ABSTIME, &w.end, NULL);
    while (again(&w, e));
  }
  if (e == EINTR && rem) *rem = left(&w);
  return e;
}

HP_VISIBLE int poll(struct pollfd *fds, nfds_t n, int timeout) {
  if (!hp_sigchain_active() || timeout == 0) return get_poll()(fds, n, timeout);
  hp_wait w;
  wait_begin(&w);
  if (timeout > 0) deadline_ms(&w, timeout);
  int r = get_poll()(fds, n, timeout);
  sigset_t old;
  while (r < 0 && again_blocked(&w, errno, &old)) {
    struct timespec d = left(&w);
    r = get_ppoll()(fds, n, timeout < 0 ? NULL : &d, &old);   /* poll, with a timeout in ns */
    unblock(&old);
  }
  return done(&w, r);
}

/* glibc's ppoll and pselect leave the caller's timeout unchanged */
HP_VISIBLE int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask) {
  if (!hp_sigchain_active() || (tmo && !tmo->tv_sec && !tmo->tv_nsec)) return get_ppoll()(fds, n, tmo, mask);
  hp_wait w;
  wait_begin(&w);
  if (tmo && tmo->tv_nsec >= 0 && tmo->tv_nsec < 1000000000L && tmo->tv_sec >= 0) deadline(&w, CLOCK_MONOTONIC, tmo);
  int r = get_ppoll()(fds, n, tmo, mask);
  sigset_t old;
  while (r < 0 && again_blocked(&w, errno, &old)) {
    struct timespec d = tmo ? left(&w) : (struct timespec){0, 0};
    r = get_ppoll()(fds, n, tmo ? &d : NULL, mask ? mask : &old);
    unblock(&old);
  }
  return done(&w, r);
}

/* Linux's select writes the time left into *tv, on success and on EINTR; the fd sets are left
 * unchanged on EINTR, so the same sets are waited for again. */
HP_VISIBLE int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv) {
  if (!hp_sigchain_active() || (tv && !tv->tv_sec && !tv->tv_usec)) return get_select()(nfds, rd, wr, ex, tv);
  hp_wait w;
  wait_begin(&w);
  if (tv && tv->tv_usec >= 0 && tv->tv_usec < 1000000 && tv->tv_sec >= 0) {
    struct timespec rel = {tv->tv_sec, tv->tv_usec * 1000L};
    deadline(&w, CLOCK_MONOTONIC, &rel);
  }
  int r = get_select()(nfds, rd, wr, ex, tv);
  sigset_t old;
  int restarted = 0;
  while (r < 0 && again_blocked(&w, errno, &old)) {
    struct timespec d = left(&w);
    r = get_pselect()(nfds, rd, wr, ex, tv ? &d : NULL, &old);   /* select, with the caller's mask */
    unblock(&old);
    restarted = 1;
  }
  if (restarted && tv) { /* pselect leaves the timeout as it was: the time left, as select writes it */
    struct timespec d = left(&w);
    tv->tv_sec = d.tv_sec;
    tv->tv_usec = (d.tv_nsec + 999) / 1000;
    if (tv->tv_usec == 1000000) {
      tv->tv_sec++;
      tv->tv_usec = 0;
    }
  }
  return done(&w, r);
}

HP_VISIBLE int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *tmo, const sigset_t *mask) {
  if (!hp_sigchain_active() || (tmo && !tmo->tv_sec && !tmo->tv_nsec)) return get_pselect()(nfds, rd, wr, ex, tmo, mask);
  hp_wait w;
  wait_begin(&w);
  if (tmo && tmo->tv_nsec >= 0 && tmo->tv_nsec < 1000000000L && tmo->tv_sec >= 0) deadline(&w, CLOCK_MONOTONIC, tmo);
  int r = get_pselect()(nfds, rd, wr, ex, tmo, mask);
  sigset_t old;
  while (r < 0 && again_blocked(&w, errno, &old)) {
    struct timespec d = tmo ? left(&w) : (struct timespec){0, 0};
    r = get_pselect()(nfds, rd, wr, ex, tmo ? &d : NULL, mask ? mask : &old);
    unblock(&old);
  }
  return done(&w, r);
}

HP_VISIBLE int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout) {
  if (!hp_sigchain_active() || timeout == 0) return get_epoll_wait()(epfd, ev, max, timeout);
  hp_wait w;
  wait_begin(&w);
  if (timeout > 0) deadline_ms(&w, timeout);
  int r = get_epoll_wait()(epfd, ev, max, timeout);
  sigset_t old;
  while (r < 0 && again_blocked(&w, errno, &old)) {
    r = get_epoll_pwait()(epfd, ev, max, timeout < 0 ? -1 : left_ms(&w), &old);
    unblock(&old);
  }
  return done(&w, r);
}

HP_VISIBLE int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask) {
  if (!hp_sigchain_active() || timeout == 0) return get_epoll_pwait()(epfd, ev, max, timeout, mask);
  hp_wait w;
  wait_begin(&w);
  if (timeout > 0) deadline_ms(&w, timeout);
  int r = get_epoll_pwait()(epfd, ev, max, timeout, mask);
  sigset_t old;
  while (r < 0 && again_blocked(&w, errno, &old)) {
    r = get_epoll_pwait()(epfd, ev, max, timeout < 0 ? -1 : left_ms(&w), mask ? mask : &old);
    unblock(&old);
  }
  return done(&w, r);
}

/* Absolute deadlines: the same call again. */
HP_VISIBLE int sem_timedwait(sem_t *sem, const struct timespec *abstime) {
  if (!hp_sigchain_active()) return get_sem_timedwait()(sem, abstime);
  hp_wait w;
  wait_begin(&w);
  int r;
  do r = get_sem_timedwait()(sem, abstime);
  while (r < 0 && again(&w, errno));
  return done(&w, r);
}

HP_VISIBLE int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime) {
  if (!hp_sigchain_active()) return get_sem_clockwait()(sem, clock, abstime);
  hp_wait w;
  wait_begin(&w);
  int r;
  do r = get_sem_clockwait()(sem, clock, abstime);
  while (r < 0 && again(&w, errno));
  return done(&w, r);
}

/* The timeout is relative, measured on CLOCK_MONOTONIC. */
HP_VISIBLE int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *tmo) {
  if (!hp_sigchain_active() || (tmo && !tmo->tv_sec && !tmo->tv_nsec)) return get_sigtimedwait()(set, info, tmo);
  hp_wait w;
  wait_begin(&w);
  if (tmo && tmo->tv_nsec >= 0 && tmo->tv_nsec < 1000000000L && tmo->tv_sec >= 0) deadline(&w, CLOCK_MONOTONIC, tmo);
  int r = get_sigtimedwait()(set, info, tmo);
  while (r < 0 && again(&w, errno)) {
    struct timespec d = tmo ? left(&w) : (struct timespec){0, 0};
    r = get_sigtimedwait()(set, info, tmo ? &d : NULL);
  }
  return done(&w, r);
}

HP_VISIBLE int sigwaitinfo(const sigset_t *set, siginfo_t *info) {
  if (!hp_sigchain_active()) return get_sigwaitinfo()(set, info);
  hp_wait w;
  wait_begin(&w);
  int r;
  do r = get_sigwaitinfo()(set, info);
  while (r < 0 && again(&w, errno));
  return done(&w, r);
}

/* pause and sigsuspend return when a handler ran: only a handler of the program ends them. */
HP_VISIBLE int pause(void) {
  if (!hp_sigchain_active()) return get_pause()();
  hp_wait w;
  wait_begin(&w);
  int r = get_pause()();
  sigset_t old;
  while (again_blocked(&w, errno, &old)) {
    r = get_sigsuspend()(&old);   /* pause, with the caller's mask */
    unblock(&old);
  }
  return r;
}

HP_VISIBLE int sigsuspend(const sigset_t *mask) {
  if (!hp_sigchain_active()) return get_sigsuspend()(mask);
  hp_wait w;
  wait_begin(&w);
  int r = get_sigsuspend()(mask);
  sigset_t old;
  while (r < 0 && again_blocked(&w, errno, &old)) {
    r = get_sigsuspend()(mask);
    unblock(&old);
  }
  return r;
}

#endif /* HP_TSAN */
