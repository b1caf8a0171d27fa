/* Executable file mappings that are not where the loader put their object: copies of an object's
 * code mapped again elsewhere. V8 does this with its embedded builtins (`--short-builtin-calls`, on
 * by default on x86_64 with 4 GB of memory or more): it maps the part of node's own file that holds
 * them a second time, next to its JIT code, and runs them from there. Such a mapping is in no
 * segment dl_iterate_phdr reports, so without it every sample in a builtin (and the JavaScript frames
 * only reachable through one) stays UNRESOLVED.
 *
 * Read from /proc/self/maps at the dump, which may run in a signal handler: open / read / close only
 * (async-signal-safe system calls), parsed in static buffers, no stdio, no allocation. Dumps do not
 * run concurrently (the writer serialises them), so the static buffers are not shared. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "sample_int.h"

static char chunk[4096];
static char line[HP_MOVED_PATH + 128];

static uint64_t hex(const char **p) {
  uint64_t v = 0;
  for (;; (*p)++) {
    char c = **p;
    if (c >= '0' && c <= '9') v = v * 16 + (uint64_t)(c - '0');
    else if (c >= 'a' && c <= 'f') v = v * 16 + (uint64_t)(c - 'a' + 10);
    else return v;
  }
}

/* One line: "start-end perms offset dev inode   path". Kept when executable, file-backed, and
 * `keep` says so. */
static int parse(const char *l, hp_moved_map *m, int (*keep)(uint64_t, uint64_t)) {
  const char *p = l;
  m->start = hex(&p);
  if (*p++ != '-') return 0;
  m->end = hex(&p);
  if (*p++ != ' ') return 0;
  if (p[0] != 'r' || p[2] != 'x') return 0;
  p += 4;
  if (*p++ != ' ') return 0;
  m->offset = hex(&p);
  for (int field = 0; field < 2; field++) {   /* dev, inode */
    while (*p == ' ') p++;
    while (*p && *p != ' ') p++;
  }
  while (*p == ' ') p++;
  if (*p != '/') return 0;
  size_t n = strlen(p);
  if (n >= sizeof m->path) return 0;
  if (!keep(m->start, m->end)) return 0;
  memcpy(m->path, p, n + 1);
  return 1;
}

uint32_t hp_moved_read(hp_moved_map *out, uint32_t max, int (*keep)(uint64_t start, uint64_t end)) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint32_t n = 0;
  size_t len = 0;   /* bytes of the current line gathered in `line` */
  int overlong = 0;
  for (;;) {
    ssize_t r = read(fd, chunk, sizeof chunk);
    if (r <= 0) break;
    for (ssize_t i = 0; i < r; i++) {
      char c = chunk[i];
      if (c != '\n') {
        if (len + 1 < sizeof line) line[len++] = c;
        else overlong = 1;
        continue;
      }
      line[len] = 0;
      if (!overlong && n < max && parse(line, &out[n], keep)) n++;
      len = 0;
      overlong = 0;
    }
  }
  close(fd);
  return n;
}
