/* hyprof's messages go to the stderr the program started with, never to a file the program later put
 * on descriptor 2. A program may close its stderr and open a data file, which then gets descriptor
 * 2; a warning or the at-exit resolver's line written to "2" would land in the program's data.
 *
 * At start the runtime notes what descriptor 2 is (device and inode) and keeps a private duplicate
 * of it (close-on-exec, at or above descriptor 200 so that the program's own opens still get the
 * low numbers they would get without hyprof). Before each message: descriptor 2 when it is still
 * that file, else the duplicate when it still is (a program that closes every descriptor may have
 * closed it, and the number may name another file since), else nothing is written. A forked child
 * inherits both; an exec closes the duplicate and the new image's runtime notes its own stderr.
 * Async-signal-safe: fstat and write only (the dump in a signal handler and the exec path write). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

#define PRIVATE_MIN_FD 200

static int noted;             /* descriptor 2 was open at start */
static dev_t dev0;
static ino_t ino0;
static int private_fd = -1;

static int same(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_dev == dev0 && st.st_ino == ino0;
}

void hp_stderr_note(void) {
  struct stat st;
  if (fstat(2, &st) != 0) return;   /* no stderr at start: nothing is ever written */
  dev0 = st.st_dev;
  ino0 = st.st_ino;
  noted = 1;
}

void hp_stderr_keep(void) {
  if (noted && private_fd < 0 && same(2)) private_fd = fcntl(2, F_DUPFD_CLOEXEC, PRIVATE_MIN_FD);
}

int hp_stderr_fd(void) {
  if (!noted) return -1;
  if (same(2)) return 2;
  if (private_fd >= 0 && same(private_fd)) return private_fd;
  return -1;
}

void hp_stderr_write(const char *s, size_t n) {
  int fd = hp_stderr_fd();
  if (fd < 0) return;
  ssize_t w = write(fd, s, n);
  (void)w;
}
