/* See log_fd.h. Called once, from the preload on the main thread (not a signal handler). */
#define _GNU_SOURCE
#include "log_fd.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* `path` is `dir`/isolate-<anything>-v8.log */
static int is_v8_log(const char *path, const char *dir) {
  size_t n = strlen(dir);
  if (strncmp(path, dir, n) != 0 || path[n] != '/') return 0;
  const char *name = path + n + 1;
  size_t len = strlen(name);
  return strchr(name, '/') == NULL && strncmp(name, "isolate-", 8) == 0 && len > 15 && strcmp(name + len - 7, "-v8.log") == 0;
}

int hp_v8_log_cloexec(const char *dir) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int marked = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (*e->d_name == '\0' || *end != '\0' || fd == dirfd(d)) continue;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
    ssize_t got = readlink(link, target, sizeof target - 1);
    if (got <= 0) continue;
    target[got] = '\0';
    if (!is_v8_log(target, dir)) continue;
    int flags = fcntl((int)fd, F_GETFD);
    if (flags >= 0 && fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC) == 0) marked++;
  }
  closedir(d);
  return marked;
}
