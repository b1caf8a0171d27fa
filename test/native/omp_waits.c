/* OpenMP threads that wait (TAU's throttling example: the odd threads sleep for a second), as the
 * program sees it; test/waits.test.ts runs it plain and sampled at 10 kHz and compares the lines.
 *   omp_waits full      sleep(1) on odd threads, nanosleep and poll of 200 ms on every thread
 *   omp_waits program   every thread's 2 s nanosleep ends early: SIGUSR1 from another thread
 * One line per thread and call, sorted by thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <omp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
static char lines[MAX_THREADS][3][96];
static pthread_t threads[MAX_THREADS];
static volatile int nthreads;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void on_usr1(int sig) { (void)sig; }

static void *interrupt_all(void *arg) {
  (void)arg;
  struct timespec d = {0, 300000000L};   /* every thread is in its nanosleep by then */
  while (nanosleep(&d, &d) != 0) {}
  for (int i = 0; i < nthreads; i++) pthread_kill(threads[i], SIGUSR1);
  return NULL;
}

static const char *waited(double took, double ms) { return took >= ms ? "full" : took < ms / 2 ? "short" : "between"; }

int main(int argc, char **argv) {
  int program = argc > 1 && strcmp(argv[1], "program") == 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  pthread_t sender;
  int n = omp_get_max_threads();
  if (n > MAX_THREADS) n = MAX_THREADS;
  nthreads = n;
#pragma omp parallel num_threads(n)
  {
    int tid = omp_get_thread_num();
    threads[tid] = pthread_self();
#pragma omp barrier
#pragma omp single
    if (program) pthread_create(&sender, NULL, interrupt_all, NULL);
    if (!program) {
      double t0 = now_ms();
      unsigned left = (tid & 1) ? sleep(1) : 0;
      snprintf(lines[tid][0], sizeof lines[tid][0], "thread %d sleep ret=%u waited=%s", tid, left,
               (tid & 1) ? waited(now_ms() - t0, 1000) : "none");
      struct timespec d = {0, 200000000L};
      t0 = now_ms();
      int r = nanosleep(&d, NULL);
      snprintf(lines[tid][1], sizeof lines[tid][1], "thread %d nanosleep ret=%d waited=%s", tid, r, waited(now_ms() - t0, 200));
      t0 = now_ms();
      r = poll(NULL, 0, 200);
      snprintf(lines[tid][2], sizeof lines[tid][2], "thread %d poll ret=%d waited=%s", tid, r, waited(now_ms() - t0, 200));
    } else {
      struct timespec d = {2, 0};
      double t0 = now_ms();
      int r = nanosleep(&d, NULL);
      int e = errno;
      snprintf(lines[tid][0], sizeof lines[tid][0], "thread %d nanosleep ret=%d errno=%s waited=%s", tid, r,
               r ? (e == EINTR ? "EINTR" : strerror(e)) : "0", waited(now_ms() - t0, 2000));
    }
  }
  if (program) pthread_join(sender, NULL);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      if (lines[i][k][0]) printf("%s\n", lines[i][k]);
  return 0;
}
