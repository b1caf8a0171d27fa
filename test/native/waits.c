/* Time-based waits, as a program sees them: what each call returns, what errno is after it, and
 * whether it waited its whole time. Built without hyprof; the test runs it plain, under `hyprof run`
 * and linked with -lhyprof, sampling at 10 kHz, and compares the lines (test/waits.test.ts).
 *
 *   waits full      each call waits its time out (nothing else happens): the full duration, the
 *                   call's own "timed out" result, errno as before the call on success
 *   waits program   each call, given 2 s, is interrupted after 50 ms by a signal of the program
 *                   (SIGALRM from setitimer, or SIGUSR1 from another thread): EINTR, or what the
 *                   call returns then (sleep: the unslept seconds)
 *
 * Each line: `<call> ret=<r> errno=<name> waited=<full|short|between>`. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SHORT_MS 200    /* the wait of each call in `full` mode */
#define LONG_MS 2000    /* ... in `program` mode, interrupted after: */
#define SIGNAL_MS 50

static volatile sig_atomic_t caught;
static void on_signal(int sig) { caught = sig; }

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct timespec ms_ts(long ms) { return (struct timespec){ms / 1000, (ms % 1000) * 1000000L}; }

static struct timespec abs_in(clockid_t c, long ms) {
  struct timespec t;
  clock_gettime(c, &t);
  t.tv_sec += ms / 1000;
  t.tv_nsec += (ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

/* An absolute deadline `ms` from now, computed inside the call's expression (after its start). */
static struct timespec until_buf;
static const struct timespec *until_in(clockid_t c, long ms) {
  until_buf = abs_in(c, ms);
  return &until_buf;
}

static const char *errname(int e) {
  switch (e) {
    case 0: return "0";
    case EINTR: return "EINTR";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EAGAIN: return "EAGAIN";
    case EDOM: return "unchanged";   /* errno is set to EDOM before every call */
    default: return strerror(e);
  }
}

static long expected_ms;
static double started;

static void begin(void) {
  caught = 0;
  started = now_ms();
  errno = EDOM;
}

static void report(const char *name, long ret, int err) {
  double took = now_ms() - started;
  const char *waited = took >= expected_ms ? "full" : took < expected_ms / 2 ? "short" : "between";
  printf("%s ret=%ld errno=%s waited=%s\n", name, ret, errname(err), waited);
  fprintf(stderr, "%s took %.1f ms\n", name, took);
  fflush(stdout);
}

/* `program` mode: who sends the interrupting signal */
static pthread_t main_thread;
static int use_alarm;

static void *send_usr1(void *arg) {
  (void)arg;
  struct timespec d = ms_ts(SIGNAL_MS);
  while (nanosleep(&d, &d) != 0) {}
  pthread_kill(main_thread, SIGUSR1);
  return NULL;
}

static pthread_t sender;
static void arm(void) {
  if (use_alarm) {
    struct itimerval it = {{0, 0}, {0, SIGNAL_MS * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
  } else {
    pthread_create(&sender, NULL, send_usr1, NULL);
  }
}
static void disarm(void) {
  if (!use_alarm) pthread_join(sender, NULL);
}

/* `full` mode helpers: something happens after SHORT_MS on another thread */
static int pipefd[2];
static void *write_later(void *arg) {
  (void)arg;
  usleep(SHORT_MS * 1000);
  ssize_t w = write(pipefd[1], "x", 1);
  (void)w;
  return NULL;
}
static const char *sock_path;
static void *connect_later(void *arg) {
  (void)arg;
  usleep(SHORT_MS * 1000);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  strncpy(a.sun_path, sock_path, sizeof a.sun_path - 1);
  connect(s, (struct sockaddr *)&a, sizeof a);
  close(s);
  return NULL;
}
static void *post_later(void *sem) {
  usleep(SHORT_MS * 1000);
  sem_post(sem);
  return NULL;
}
static void *kill_later(void *arg) {
  usleep(SHORT_MS * 1000);
  pthread_kill(main_thread, (int)(long)arg);
  return NULL;
}

static int program;   /* the mode */

#define CALL(name, expr)        \
  do {                          \
    if (program) arm();         \
    begin();                    \
    long r_ = (long)(expr);     \
    int e_ = errno;             \
    if (program) disarm();      \
    report(name, r_, e_);       \
  } while (0)

/* A call whose time started before (begin() called before the thread that ends it was created). */
#define CALL_STARTED(name, expr) \
  do {                           \
    errno = EDOM;                \
    long r_ = (long)(expr);      \
    int e_ = errno;              \
    report(name, r_, e_);        \
  } while (0)

static void check_rem(const char *name, const struct timespec *rem, long ms) {
  long left = rem->tv_sec * 1000 + rem->tv_nsec / 1000000;
  printf("%s rem %s\n", name, left > ms - 500 && left <= ms ? "ok" : "wrong");
}

/* Every call that Linux never restarts, with a timeout of `ms`. */
static void timed_calls(long ms) {
  struct timespec ts = ms_ts(ms), rem;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN}, out;
  epoll_ctl(ep, EPOLL_CTL_ADD, pipefd[0], &ev);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);

  {
    /* sleep takes whole seconds: its line says whether it waited at least one */
    long keep = expected_ms;
    expected_ms = ms >= 1000 ? ms : 1000;
    CALL("sleep", sleep(ms >= 1000 ? (unsigned)(ms / 1000) : 1));
    expected_ms = keep;
  }
  CALL("usleep", usleep((useconds_t)ms * 1000));
  rem = (struct timespec){0, 0};
  CALL("nanosleep", nanosleep(&ts, &rem));
  if (program) check_rem("nanosleep", &rem, ms);
  CALL("nanosleep-norem", nanosleep(&ts, NULL));
  rem = (struct timespec){0, 0};
  CALL("clock_nanosleep-monotonic", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &rem));
  if (program) check_rem("clock_nanosleep-monotonic", &rem, ms);
  CALL("clock_nanosleep-realtime", clock_nanosleep(CLOCK_REALTIME, 0, &ts, NULL));
  CALL("clock_nanosleep-abstime", clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, until_in(CLOCK_MONOTONIC, ms), NULL));
  struct pollfd pfd = {.fd = pipefd[0], .events = POLLIN};
  CALL("poll", poll(&pfd, 1, (int)ms));
  CALL("ppoll", ppoll(&pfd, 1, &ts, NULL));
  {
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(pipefd[0], &rd);
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    CALL("select", select(pipefd[0] + 1, &rd, NULL, NULL, &tv));
    FD_ZERO(&rd);
    FD_SET(pipefd[0], &rd);
    CALL("pselect", pselect(pipefd[0] + 1, &rd, NULL, NULL, &ts, NULL));
  }
  CALL("epoll_wait", epoll_wait(ep, &out, 1, (int)ms));
  CALL("epoll_pwait", epoll_pwait(ep, &out, 1, (int)ms, NULL));
  {
    sem_t sem;
    sem_init(&sem, 0, 0);
    CALL("sem_timedwait", sem_timedwait(&sem, until_in(CLOCK_REALTIME, ms)));
    CALL("sem_clockwait", sem_clockwait(&sem, CLOCK_MONOTONIC, until_in(CLOCK_MONOTONIC, ms)));
    sem_destroy(&sem);
  }
  CALL("sigtimedwait", sigtimedwait(&usr2, NULL, &ts));
  {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    pthread_mutex_lock(&m);
    /* returns the error number; POSIX forbids EINTR, glibc waits again itself */
    CALL("pthread_cond_timedwait", pthread_cond_timedwait(&cv, &m, until_in(CLOCK_REALTIME, ms)));
    pthread_mutex_unlock(&m);
  }
  close(ep);
}

/* Waits without a timeout that end when another thread acts after SHORT_MS (full mode only): what
 * SA_RESTART keeps whole (read, accept, sem_wait, waitpid) and what only a handler of the program ends
 * (pause, sigsuspend) or a signal waited for (sigwaitinfo). */
static void untimed_calls(void) {
  pthread_t th;
  char c;
  begin();
  pthread_create(&th, NULL, write_later, NULL);
  CALL_STARTED("read-pipe", read(pipefd[0], &c, 1));
  pthread_join(th, NULL);

  int ls = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  strncpy(a.sun_path, sock_path, sizeof a.sun_path - 1);
  unlink(sock_path);
  bind(ls, (struct sockaddr *)&a, sizeof a);
  listen(ls, 1);
  begin();
  pthread_create(&th, NULL, connect_later, NULL);
  int cs;
  CALL_STARTED("accept", (cs = accept(ls, NULL, NULL)) >= 0);
  if (cs >= 0) close(cs);
  pthread_join(th, NULL);
  close(ls);
  unlink(sock_path);

  sem_t sem;
  sem_init(&sem, 0, 0);
  begin();
  pthread_create(&th, NULL, post_later, &sem);
  CALL_STARTED("sem_wait", sem_wait(&sem));
  pthread_join(th, NULL);
  sem_destroy(&sem);

  begin();
  pid_t child = fork();
  if (child == 0) {
    struct timespec d = ms_ts(SHORT_MS);
    while (nanosleep(&d, &d) != 0) {}
    _exit(7);
  }
  int status = 0;
  CALL_STARTED("waitpid", waitpid(child, &status, 0) == child && WEXITSTATUS(status) == 7);

  begin();
  pthread_create(&th, NULL, kill_later, (void *)(long)SIGUSR1);
  CALL_STARTED("pause", pause());
  pthread_join(th, NULL);
  printf("pause caught %s\n", caught == SIGUSR1 ? "SIGUSR1" : "nothing");

  sigset_t none;
  sigemptyset(&none);
  begin();
  pthread_create(&th, NULL, kill_later, (void *)(long)SIGUSR1);
  CALL_STARTED("sigsuspend", sigsuspend(&none));
  pthread_join(th, NULL);

  begin();
  pthread_create(&th, NULL, kill_later, (void *)(long)SIGUSR2);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  CALL_STARTED("sigwaitinfo", sigwaitinfo(&usr2, NULL));
  pthread_join(th, NULL);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: waits full|program SOCKET_PATH\n");
    return 2;
  }
  program = strcmp(argv[1], "program") == 0;
  sock_path = argc > 2 ? argv[2] : "waits.sock";
  main_thread = pthread_self();
  if (pipe(pipefd) != 0) return 2;
  /* SIGUSR2 is only ever waited for; the program's handlers have no SA_RESTART */
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &usr2, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGALRM, &sa, NULL);
  /* what the program reads back is its own action (hyprof counts deliveries through a trampoline) */
  struct sigaction back;
  sigaction(SIGUSR1, NULL, &back);
  printf("sigaction reads back %s\n", back.sa_handler == on_signal && !(back.sa_flags & SA_SIGINFO) ? "the program's handler" : "another");
  printf("signal returns %s\n", signal(SIGALRM, on_signal) == on_signal ? "the program's handler" : "another");
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGURG, &sa, NULL);
  raise(SIGURG);
  sigaction(SIGURG, NULL, &back);
  printf("SA_RESETHAND: handler ran %s, then %s\n", caught == SIGURG ? "yes" : "no", back.sa_handler == SIG_DFL ? "SIG_DFL" : "still set");
  sa.sa_flags = 0;
  if (!program) {
    expected_ms = SHORT_MS;
    timed_calls(SHORT_MS);
    untimed_calls();
    return 0;
  }
  expected_ms = LONG_MS;
  for (use_alarm = 1; use_alarm >= 0; use_alarm--) {
    printf("-- interrupted by %s\n", use_alarm ? "SIGALRM" : "SIGUSR1");
    timed_calls(LONG_MS);
  }
  return 0;
}
