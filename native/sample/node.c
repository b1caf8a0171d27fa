/* In a Node.js process (docs/node.md, "JavaScript frames in samples"), the perf map V8 writes under
 * --perf-basic-prof (/tmp/perf-<pid>.map) is created here first, private to the user (mode 0600,
 * O_EXCL, no link followed): V8 opens it with fopen("w"), which keeps an existing file's mode, so
 * the names of the program's code are not readable by others.
 * Whether the process is Node: core/node_threads.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/config.h"
#include "../core/runtime.h"
#include "sample_int.h"

/* Is V8 asked for a perf map: the flag in NODE_OPTIONS or on node's command line? */
static int perf_map_asked(void) {
  const char *opts = getenv("NODE_OPTIONS");
  if (opts && (strstr(opts, "--perf-basic-prof") || strstr(opts, "--perf_basic_prof"))) return 1;
  char buf[8192];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
    buf[n] = 0;
    if (strncmp(buf + i, "--perf-basic-prof", 17) == 0 || strncmp(buf + i, "--perf_basic_prof", 17) == 0) return 1;
  }
  return 0;
}

void hp_node_prepare_perf_map(void) {
  if (!hp_node_process() || !perf_map_asked()) return;
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    close(fd);
    return;
  }
  /* A file already there is left alone: V8's own map when the runtime started after V8 (the addon
   * loaded by the program), or one left by an earlier process with the same pid, or someone else's;
   * resolve checks whose it is and how old (src/symbolize/perf-map.ts). */
  if (errno != EEXIST)
    hp_warn("%s could not be created privately (%s); V8 creates its perf map there itself", path, strerror(errno));
}
