/* Per-thread POSIX timers: the default sampling sources (itimer-wall on CLOCK_MONOTONIC, itimer-cpu
 * on the thread's own CPU clock). SIGEV_THREAD_ID sends each timer's signal to the thread it
 * measures, so a sample always describes the thread that took it. The timer's sigev_value carries
 * the address of a private cookie: that is how the handler tells our signals from the program's own
 * (setitimer / its own timers), which it forwards. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "../core/clock.h"
#include "sample_int.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static const char hp_timer_cookie = 'h';

int hp_timer_is_ours(const siginfo_t *si) {
  return si->si_code == SI_TIMER && si->si_value.sival_ptr == (void *)&hp_timer_cookie;
}

void hp_sample_clock_start(hp_sample_thread *st) {
  if (st->cpu_time) {
    clockid_t clock;
    if (pthread_getcpuclockid(pthread_self(), &clock) != 0) clock = CLOCK_THREAD_CPUTIME_ID;
    st->cpu_clock = clock;
    struct timespec ts;
    clock_gettime(clock, &ts);
    st->last_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  } else {
    st->last_ns = hp_now_ns();
  }
}

int hp_timer_start(hp_sample_thread *st, pid_t tid) {
  hp_sample_clock_start(st);
  clockid_t clock = st->cpu_time ? st->cpu_clock : CLOCK_MONOTONIC;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = hp_scfg.signo;
  sev.sigev_value.sival_ptr = (void *)&hp_timer_cookie;
  sev.sigev_notify_thread_id = tid;
  if (timer_create(clock, &sev, &st->timer) != 0) return -1;
  st->have_timer = 1;
  st->active = 1;
  struct itimerspec its;
  uint64_t ns = hp_scfg.period_us * 1000u;
  its.it_interval.tv_sec = (time_t)(ns / 1000000000u);
  its.it_interval.tv_nsec = (long)(ns % 1000000000u);
  its.it_value = its.it_interval;
  if (timer_settime(st->timer, 0, &its, NULL) != 0) {
    timer_delete(st->timer);
    st->have_timer = 0;
    st->active = 0;
    return -1;
  }
  return 0;
}

/* timer_delete is a plain system call (async-signal-safe in practice; glibc's wrapper for
 * SIGEV_THREAD_ID timers does no locking or allocation). */
void hp_timer_stop(hp_sample_thread *st) {
  st->active = 0;
  /* one of two racing stoppers (stop_all and the ending thread) deletes the timer */
  if (__atomic_exchange_n(&st->have_timer, 0, __ATOMIC_ACQ_REL)) timer_delete(st->timer);
}
