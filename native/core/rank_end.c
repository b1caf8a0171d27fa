/* The ranks of one node end together when Open MPI stops them.
 *
 * Open MPI 4 stops the ranks of a job (on SIGINT / SIGTERM to mpirun, or when a rank fails) with
 * SIGCONT, sleep(timeout), SIGTERM, sleep(timeout), SIGKILL: one plain sleep(), which the first
 * rank's death ends early (SIGCHLD). So the rank that writes its measurements fastest and ends gets
 * every slower rank SIGKILLed a few milliseconds into its write: seen as a rank lost in 1 of 10
 * runs of `hyprof run -- mpirun -np 4` stopped by SIGTERM, all of them when the node is loaded.
 *
 * So each rank, once its measurements are written on that signal, adds one byte to a tally file of
 * its node and its job in the raw directory, and waits until the tally holds every rank of the node
 * (OMPI_COMM_WORLD_LOCAL_SIZE); then they all end within a few milliseconds of each other, each
 * after its write. The wait is bounded (wait_ns): well under mpirun's time before SIGKILL, so a rank
 * that never writes (it ended before the signal, or crashed) delays the others by that bound and
 * costs none of them. The last rank in removes the file, or, when
 * one never comes, each rank whose wait ran out.
 * Other launchers send SIGKILL after a fixed time (Slurm's KillWait, MPICH's Hydra), and their
 * ranks end as soon as they have written.
 *
 * Everything in hp_rank_end_wait is async-signal-safe: the path is built at start; open, write,
 * lseek, fstat, nanosleep, clock_gettime, unlink, close. */
#include "rank_end.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "runtime.h"

#define POLL_NS (5 * 1000 * 1000)

static char tally_path[4400];
static long local_size;
/* How long after the signal a rank may wait: 0.6 of mpirun's time between SIGTERM and SIGKILL
 * (odls_base_sigkill_timeout, inherited by the ranks when set: `hyprof run -- mpirun` sets 3 s; 1 s
 * by default), at most 2 s, so that even a rank that waited for one that never comes ends before the
 * launcher's SIGKILL (under `mpirun hyprof run -- app`, its hyprof process must get to say where the
 * rank's measurements are). */
static unsigned long long wait_ns;
/* When the first signal of the dump arrived (hp_rank_end_mark). */
static unsigned long long signalled_ns;

/* Appends `s` to `out` (cap bytes, NUL-terminated), keeping only [A-Za-z0-9._-] so that a job id or
 * a host name never makes a path of its own. 0 when it did not fit. */
static int append_plain(char *out, size_t cap, const char *s, int keep_slash) {
  size_t n = 0;
  while (out[n]) n++;
  for (; *s; s++) {
    char c = *s;
    int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
                (keep_slash && c == '/');
    if (n + 1 >= cap) return 0;
    out[n++] = plain ? c : '_';
  }
  out[n] = 0;
  return 1;
}

void hp_rank_end_init(void) {
  tally_path[0] = 0;
  const char *size = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const char *job = getenv("OMPI_MCA_ess_base_jobid");
  if (!size || !job || !*job || !hp_rt.rank_from_env) return;
  char *end;
  long n = strtol(size, &end, 10);
  if (*end || n < 2 || n > 1000000) return;
  struct utsname u;
  size_t dir = 0;
  while (hp_cfg.raw_dir[dir]) dir++;
  if (dir == 0 || dir + 1 >= sizeof tally_path) return;
  for (size_t i = 0; i <= dir; i++) tally_path[i] = hp_cfg.raw_dir[i];
  if (!append_plain(tally_path, sizeof tally_path, "/.hyprof-ended.", 1) ||
      !append_plain(tally_path, sizeof tally_path, uname(&u) == 0 ? u.nodename : "host", 0) ||
      !append_plain(tally_path, sizeof tally_path, ".", 0) || !append_plain(tally_path, sizeof tally_path, job, 0)) {
    tally_path[0] = 0;
    return;
  }
  local_size = n;
  long timeout = 1;
  const char *kill_after = getenv("OMPI_MCA_odls_base_sigkill_timeout");
  if (kill_after && *kill_after) {
    long x = strtol(kill_after, &end, 10);
    if (!*end && x >= 0) timeout = x;
  }
  if (timeout > 4) timeout = 4; /* 0.6 of it is past the 2 s bound; and no overflow below */
  wait_ns = (unsigned long long)timeout * 600ull * 1000 * 1000;
  if (wait_ns > 2000ull * 1000 * 1000) wait_ns = 2000ull * 1000 * 1000;
}

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void hp_rank_end_mark(void) {
  if (!tally_path[0]) return;
  unsigned long long none = 0;
  __atomic_compare_exchange_n(&signalled_ns, &none, now_ns(), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Set by the first dump on a signal: a second signal, on another thread, waits without a tally of
 * its own (one byte per rank), and never creates the file again once the last rank removed it. */
static int tallied;

void hp_rank_end_wait(void) {
  if (!tally_path[0]) return;
  int saved = errno;
  int first = !__atomic_exchange_n(&tallied, 1, __ATOMIC_ACQ_REL);
  int fd = open(tally_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (first ? O_CREAT : 0), 0600);
  if (fd < 0) {
    errno = saved;
    return;
  }
  off_t at = !first ? 1 : write(fd, "r", 1) == 1 ? lseek(fd, 0, SEEK_CUR) : -1;
  if (first && at >= local_size) {
    unlink(tally_path); /* the last rank of the node: nobody else opens it */
  } else if (at > 0) {
    unsigned long long since = __atomic_load_n(&signalled_ns, __ATOMIC_ACQUIRE);
    unsigned long long until = (since ? since : now_ns()) + wait_ns;
    struct stat st;
    int full = 0;
    while (fstat(fd, &st) == 0 && !(full = st.st_size >= local_size) && now_ns() < until) {
      struct timespec poll = {0, POLL_NS};
      nanosleep(&poll, NULL);
    }
    /* A rank that never came: nobody reaches the count, so nobody would remove the file. */
    if (!full) unlink(tally_path);
  }
  close(fd);
  errno = saved;
}
