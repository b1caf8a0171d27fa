/* In a Node.js process (docs/node.md, "JavaScript frames in samples"), the perf map V8 writes under
 * --perf-basic-prof (/tmp/perf-<pid>.map) is created here first, private to the user (mode 0600,
 * O_EXCL, no link followed): V8 opens it with fopen("w"), which keeps an existing file's mode, so
 * the names of the program's code are not readable by others.
 *
 * V8's fopen follows a symbolic link and writes into whatever file is there. So when the path
 * already exists before V8 started, V8 is not let open it: a regular file of this user with one
 * link (left by an earlier process with the same pid) is replaced by a private one; anything else
 * (a link, someone else's file) is left alone, the flag is taken out of NODE_OPTIONS (where
 * `hyprof run` put it) and a line names the path. A map the process has open is V8's own (the
 * runtime started after V8, as the addon): left alone.
 * Whether the process is Node: core/node_threads.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "../core/config.h"
#include "../core/runtime.h"
#include "sample_int.h"

/* Is V8 asked for a perf map: the flag in NODE_OPTIONS (ASKED_ENV) or on node's command line
 * (ASKED_ARGV)? */
enum { ASKED_ENV = 1, ASKED_ARGV = 2 };
static int perf_map_asked(void) {
  int asked = 0;
  const char *opts = getenv("NODE_OPTIONS");
  if (opts && (strstr(opts, "--perf-basic-prof") || strstr(opts, "--perf_basic_prof"))) asked |= ASKED_ENV;
  char buf[8192];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return asked;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
    buf[n] = 0;
    if (strncmp(buf + i, "--perf-basic-prof", 17) == 0 || strncmp(buf + i, "--perf_basic_prof", 17) == 0) asked |= ASKED_ARGV;
  }
  return asked;
}

/* Is the file `st` open in this process (V8 writing its map already)? */
static int open_here(const struct stat *st) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return 0;
  int found = 0, self = dirfd(d);
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    int fd = atoi(e->d_name);
    struct stat o;
    if (e->d_name[0] == '.' || fd == self || fstat(fd, &o) != 0) continue;
    found = o.st_dev == st->st_dev && o.st_ino == st->st_ino;
  }
  closedir(d);
  return found;
}

static int is_perf_map_flag(const char *w, size_t n) {
  static const char *const flags[] = {"--perf-basic-prof", "--perf_basic_prof", "--perf-basic-prof-only-functions",
                                      "--perf_basic_prof_only_functions"};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
    if (strlen(flags[i]) == n && !strncmp(w, flags[i], n)) return 1;
  return 0;
}

/* NODE_OPTIONS without the perf map flags; 1 when one was taken out. Called at process start, before
 * node reads the variable and before any thread of the program exists. */
static int strip_node_options(void) {
  const char *opts = getenv("NODE_OPTIONS");
  if (!opts) return 0;
  size_t len = strlen(opts);
  char *out = malloc(len + 1);
  if (!out) return 0;
  size_t o = 0;
  int stripped = 0;
  for (const char *p = opts; *p;) {
    const char *w = p;
    while (*p && *p != ' ') p++;
    if (is_perf_map_flag(w, (size_t)(p - w))) {
      stripped = 1;
    } else if (p > w) {
      if (o) out[o++] = ' ';
      memcpy(out + o, w, (size_t)(p - w));
      o += (size_t)(p - w);
    }
    while (*p == ' ') p++;
  }
  out[o] = 0;
  if (stripped) setenv("NODE_OPTIONS", out, 1);
  free(out);
  return stripped;
}

void hp_node_prepare_perf_map(void) {
  int asked = hp_node_process() ? perf_map_asked() : 0;
  if (!asked) return;
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISREG(st.st_mode) && open_here(&st)) return;   /* V8's own, the runtime started after V8 */
    /* one this user left (an earlier process with the same pid): replaced by a private one */
    if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 && unlink(path) == 0)
      fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
      char what[64];
      if (S_ISLNK(st.st_mode)) snprintf(what, sizeof what, "a symbolic link");
      else if (st.st_uid != geteuid()) snprintf(what, sizeof what, "a file of uid %ld", (long)st.st_uid);
      else snprintf(what, sizeof what, S_ISREG(st.st_mode) ? "a file with other links" : "not a regular file");
      if (asked & ASKED_ENV) strip_node_options();
      if (!(asked & ASKED_ARGV))
        hp_warn("%s already exists (%s): V8's perf map is not started (its flag is taken out of NODE_OPTIONS), "
                "so that V8 does not write through it; JavaScript frames are not named in this process",
                path, what);
      else
        hp_warn("%s already exists (%s) and V8's perf map is asked for on node's command line: V8 will open it as "
                "it is; JavaScript frames are not named from it", path, what);
      return;
    }
  }
  if (fd >= 0) {
    close(fd);
    return;
  }
  hp_warn("%s could not be created privately (%s); V8 creates its perf map there itself", path, strerror(errno));
}
