/* A program linked with -lhyprof and run on its own still leaves a TAU profile: at exit the runtime
 * runs `hyprof resolve` from the package it was built in (it finds it from its own location), or the
 * single executable installed beside a C-only install (<prefix>/bin/hyprof for <prefix>/lib), or
 * prints the one command to run when neither can be found. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "runtime.h"

extern char **environ;

static int is_executable(const char *p) { return access(p, X_OK) == 0; }

static int find_node(char *out, size_t cap) {
  const char *explicit_node = getenv("HYPROF_NODE");
  if (explicit_node && *explicit_node) {
    snprintf(out, cap, "%s", explicit_node);
    return is_executable(out);
  }
  const char *path = getenv("PATH");
  if (!path) return 0;
  char dirs[8192];
  snprintf(dirs, sizeof dirs, "%s", path);
  for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    snprintf(out, cap, "%s/node", d);
    if (is_executable(out)) return 1;
  }
  return 0;
}

/* The real path of this library, cut by `up` components: 1 gives its directory. */
static int lib_dir_up(char *out, size_t cap, int up) {
  Dl_info info;
  if (!dladdr((void *)lib_dir_up, &info) || !info.dli_fname) return 0;
  char lib[PATH_MAX];
  if (!realpath(info.dli_fname, lib)) return 0;
  for (int i = 0; i < up; i++) {
    char *slash = strrchr(lib, '/');
    if (!slash) return 0;
    *slash = 0;
  }
  snprintf(out, cap, "%s", lib);
  return 1;
}

/* <package>/build/Release/libhyprof.so or <package>/prebuilds/<platform>/libhyprof.so ->
 * <package>/dist/src/cli/main.js */
static int find_cli(char *out, size_t cap) {
  char root[PATH_MAX];
  if (!lib_dir_up(root, sizeof root, 3)) return 0;
  int n = snprintf(out, cap, "%s/dist/src/cli/main.js", root);
  struct stat st;
  return n > 0 && (size_t)n < cap && stat(out, &st) == 0;
}

/* <prefix>/lib/libhyprof.so -> <prefix>/bin/hyprof (make install puts the single executable there) */
static int find_executable_beside(char *out, size_t cap) {
  char prefix[PATH_MAX];
  if (!lib_dir_up(prefix, sizeof prefix, 2)) return 0;
  int n = snprintf(out, cap, "%s/bin/hyprof", prefix);
  return n > 0 && (size_t)n < cap && is_executable(out);
}

/* The environment of the resolver: measurement off, the runtime not preloaded into node. */
static char **resolver_env(void) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 2, sizeof *env);
  if (!env) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && strncmp(environ[i], "HYPROF_DISABLE=", 15) != 0)
      env[j++] = environ[i];
  env[j++] = "HYPROF_DISABLE=1";
  env[j] = NULL;
  return env;
}

void hp_resolve_at_exit(const char *raw) {
  if (!raw || !raw[0]) return;
  char node[PATH_MAX], cli[PATH_MAX], exe[PATH_MAX];
  int with_node = find_node(node, sizeof node) && find_cli(cli, sizeof cli);
  int with_exe = !with_node && find_executable_beside(exe, sizeof exe);
  if (!with_node && !with_exe) {
    hp_warn("measurements written to %s; turn them into a TAU profile with: npx hyprof resolve %s -o %s", raw, raw,
            hp_cfg.dir);
    return;
  }
  char **env = resolver_env();
  /* Paths may start with '-' (HYPROF_DIR=-out): the output as one --output=<dir> word, the raw file
   * after "--", so that neither is ever read as an option. */
  char output[sizeof hp_cfg.dir + 16];
  snprintf(output, sizeof output, "--output=%s", hp_cfg.dir);
  char *node_argv[] = {node, cli, "resolve", output, "--", (char *)raw, NULL};
  char *exe_argv[] = {exe, "resolve", output, "--", (char *)raw, NULL};
  char **argv = with_node ? node_argv : exe_argv;
  /* The resolver runs in a process group of its own: `timeout`, a batch system or a shell's job
   * control signal the program's whole group, and a program that ends cleanly on that signal (its
   * own handler) would otherwise lose the resolve it starts at exit. It is waited for here. */
  posix_spawnattr_t attr;
  int have_attr = posix_spawnattr_init(&attr) == 0;
  if (have_attr && (posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP) != 0 || posix_spawnattr_setpgroup(&attr, 0) != 0)) {
    posix_spawnattr_destroy(&attr);
    have_attr = 0;
  }
  pid_t pid;
  int status = -1, rc = -1;
  if (env) rc = posix_spawn(&pid, argv[0], NULL, have_attr ? &attr : NULL, argv, env);
  if (have_attr) posix_spawnattr_destroy(&attr);
  if (rc != 0 || waitpid(pid, &status, 0) < 0) {
    hp_warn("could not start %s to resolve %s; run: npx hyprof resolve %s -o %s", argv[0], raw, raw, hp_cfg.dir);
  } else if (WIFSIGNALED(status)) {
    hp_warn("turning %s into a TAU profile was stopped by signal %d (%s); the measurements are kept there; run: npx "
            "hyprof resolve %s -o %s",
            raw, WTERMSIG(status), strsignal(WTERMSIG(status)), raw, hp_cfg.dir);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    hp_warn("turning %s into a TAU profile failed (see above); the measurements are kept there", raw);
  } else {
    if (!hp_cfg.keep_raw) unlink(raw);
  }
  free(env);
}
