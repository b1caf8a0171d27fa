/* What the interposed waits (native/sample/waits.c) cost when no signal arrives: N calls of one
 * wait that returns at once (a readable pipe, a zero sleep, a posted semaphore), timed on the
 * thread's CPU clock and on CLOCK_MONOTONIC; bench/waits.ts runs it plain and under the runtime.
 * Usage: waits CALL N   (CALL: poll select epoll_wait nanosleep sem_timedwait)
 * Prints: "<ns per call, wall> <ns per call, thread CPU>". */
#define _GNU_SOURCE
#include <poll.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static double ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

/* the loop callgrind counts (--toggle-collect=run_calls) */
__attribute__((noinline)) long run_calls(const char *call, long n, int rd, int ep, sem_t *sem) {
  long ok = 0;
  if (!strcmp(call, "poll")) {
    struct pollfd p = {.fd = rd, .events = POLLIN};
    for (long i = 0; i < n; i++) ok += poll(&p, 1, 1000) == 1;
  } else if (!strcmp(call, "select")) {
    for (long i = 0; i < n; i++) {
      fd_set s;
      FD_ZERO(&s);
      FD_SET(rd, &s);
      struct timeval tv = {1, 0};
      ok += select(rd + 1, &s, NULL, NULL, &tv) == 1;
    }
  } else if (!strcmp(call, "epoll_wait")) {
    struct epoll_event e;
    for (long i = 0; i < n; i++) ok += epoll_wait(ep, &e, 1, 1000) == 1;
  } else if (!strcmp(call, "nanosleep")) {
    struct timespec z = {0, 0};
    for (long i = 0; i < n; i++) ok += nanosleep(&z, NULL) == 0;
  } else if (!strcmp(call, "sem_timedwait")) {
    struct timespec until = {2000000000, 0};   /* far away: the semaphore is always posted */
    for (long i = 0; i < n; i++) {
      sem_post(sem);
      ok += sem_timedwait(sem, &until) == 0;
    }
  }
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: waits poll|select|epoll_wait|nanosleep|sem_timedwait N\n");
    return 2;
  }
  long n = atol(argv[2]);
  int fd[2];
  if (pipe(fd) != 0 || write(fd[1], "x", 1) != 1) return 1;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  epoll_ctl(ep, EPOLL_CTL_ADD, fd[0], &ev);
  sem_t sem;
  sem_init(&sem, 0, 0);
  double w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);
  long ok = run_calls(argv[1], n, fd[0], ep, &sem);
  double w1 = ns(CLOCK_MONOTONIC), c1 = ns(CLOCK_THREAD_CPUTIME_ID);
  if (ok != n) {
    fprintf(stderr, "%s: %ld of %ld calls did not return at once\n", argv[1], n - ok, n);
    return 1;
  }
  printf("%.1f %.1f\n", (w1 - w0) / n, (c1 - c0) / n);
  return 0;
}
