/* Images replaced by exec (linked with -lhyprof; run under `hyprof run` or on its own).
 *   true N        time "work before exec" N times, then exec /bin/true
 *   self N M      time "first image" N times, then exec this program with "second M"
 *   second M      time "second image" M times and end (the new image of `self`)
 *   self-disabled N  time "first image" N times, then execle this program with "second 1" in an
 *                 environment holding only HYPROF_DISABLE=Enabled (any spelling the runtime reads as true)
 *   chain N       time "image N" once, then exec this program with "chain N-1"; "chain 0" ends
 *   threads       a thread opens "worker" and waits; main times "main before exec" twice, then
 *                 exec's this program with "second 1" while the worker's timer is open
 *   fail N M [then-self]  time "before failed exec" N times, exec a path that does not exist, then
 *                 time "after failed exec" M times and end normally (or exec this program with
 *                 "second 1")
 *   vfork N       time "parent" N times, vfork a child that exec's /bin/true, wait, time "after
 *                 vfork" 60 times (long enough to be sampled), end
 *   static PATH   time "work before exec" 3 times, then exec PATH (a program without the runtime)
 *   handler-self N  time "first image" N times, then exec this program with "second 1" from a SIGUSR1
 *                 handler running on an alternate signal stack of SIGSTKSZ bytes
 *   handler-fail N M  time "before failed exec" N times, exec a path that does not exist from that
 *                 handler, then time "after failed exec" M times and end
 * Output is flushed before each exec: what stdio holds is lost with the image. */
#include <hyprof.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "small_stack.h"

static volatile double sink;

static void spin(long n) {
  double s = 0;
  for (long i = 1; i <= n; i++) s += 1.0 / (double)i;
  sink = s;
}

static void timed(const char *name, long times) {
  hyprof_event_t e = hyprof_event(name, "TAU_USER");
  for (long i = 0; i < times; i++) {
    hyprof_start(e);
    spin(200000);
    hyprof_stop(e);
  }
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t entered = PTHREAD_COND_INITIALIZER;
static int worker_in;

static void *worker(void *arg) {
  (void)arg;
  hyprof_event_t e = hyprof_event("worker", "TAU_USER");
  hyprof_start(e);
  spin(200000);
  pthread_mutex_lock(&lock);
  worker_in = 1;
  pthread_cond_signal(&entered);
  pthread_mutex_unlock(&lock);
  for (;;) pause(); /* the exec ends this thread with its timer open */
  return NULL;
}

/* The exec from a signal handler: what the runtime does before it (the dump) and after a failure
 * (sampling again) must be async-signal-safe and fit a SIGSTKSZ alternate stack, below which an
 * inaccessible page turns an overflow into SIGSEGV. */
extern char **environ;
static char *handler_path, *handler_argv[4];
static volatile sig_atomic_t handler_errno;

static void exec_in_handler(int sig) {
  (void)sig;
  execve(handler_path, handler_argv, environ);
  handler_errno = errno;
}

static void exec_from_handler(char *path, char *mode, char *n) {
  handler_path = path;
  handler_argv[0] = "run_exec";
  handler_argv[1] = mode;
  handler_argv[2] = n;
  fflush(stdout);
  raise_on_small_stack(exec_in_handler);
}

static void exec_self(const char *mode, const char *n) {
  execl("/proc/self/exe", "run_exec", mode, n, (char *)NULL);
  fprintf(stderr, "run_exec: exec of itself failed: %s\n", strerror(errno));
  exit(3);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "true";
  long n = argc > 2 ? atol(argv[2]) : 3;
  long m = argc > 3 ? atol(argv[3]) : 2;
  if (!strcmp(mode, "true")) {
    timed("work before exec", n);
    fflush(stdout);
    execl("/bin/true", "true", (char *)NULL);
    return 3;
  }
  if (!strcmp(mode, "self")) {
    timed("first image", n);
    char next[32];
    snprintf(next, sizeof next, "%ld", m);
    exec_self("second", next);
  }
  if (!strcmp(mode, "chain")) {
    char name[32], next[32];
    snprintf(name, sizeof name, "image %ld", n);
    timed(name, 1);
    if (n == 0) return 0;
    snprintf(next, sizeof next, "%ld", n - 1);
    exec_self("chain", next);
  }
  if (!strcmp(mode, "self-disabled")) {
    timed("first image", n);
    fflush(stdout);
    char *env[] = {"HYPROF_DISABLE=Enabled", NULL};
    execle("/proc/self/exe", "run_exec", "second", "1", (char *)NULL, env);
    return 3;
  }
  if (!strcmp(mode, "second")) {
    timed("second image", n);
    return 0;
  }
  if (!strcmp(mode, "threads")) {
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_mutex_lock(&lock);
    while (!worker_in) pthread_cond_wait(&entered, &lock);
    pthread_mutex_unlock(&lock);
    timed("main before exec", 2);
    exec_self("second", "1");
  }
  if (!strcmp(mode, "fail")) {
    timed("before failed exec", n);
    execl("/nonexistent/hyprof-test-program", "nope", (char *)NULL);
    printf("exec failed: %s\n", strerror(errno));
    timed("after failed exec", m);
    fflush(stdout);
    if (argc > 4 && !strcmp(argv[4], "then-self")) exec_self("second", "1");
    return 0;
  }
  if (!strcmp(mode, "handler-self")) {
    timed("first image", n);
    exec_from_handler("/proc/self/exe", "second", "1");
    fprintf(stderr, "run_exec: exec of itself from a signal handler failed: %s\n", strerror(handler_errno));
    return 3;
  }
  if (!strcmp(mode, "handler-fail")) {
    timed("before failed exec", n);
    exec_from_handler("/nonexistent/hyprof-test-program", "nope", "1");
    printf("exec failed: %s\n", strerror(handler_errno));
    timed("after failed exec", m);
    return 0;
  }
  if (!strcmp(mode, "vfork")) {
    timed("parent", n);
    fflush(stdout);
    pid_t pid = vfork();
    if (pid == 0) {
      execl("/bin/true", "true", (char *)NULL);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    timed("after vfork", 60);
    return 0;
  }
  if (!strcmp(mode, "static") && argc > 2) {
    timed("work before exec", 3);
    execl(argv[2], argv[2], (char *)NULL);
    return 3;
  }
  fprintf(stderr, "run_exec: unknown mode %s\n", mode);
  return 2;
}
