/* A program linked with -lhyprof and run on its own still leaves a TAU profile: at exit the runtime
 * runs `hyprof resolve` from the package it was built in (it finds it from its own location), or the
 * single executable installed beside a C-only install (<prefix>/bin/hyprof for <prefix>/lib), or
 * prints the one command to run when neither can be found. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
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

/* The command the messages name for turning raw files into a profile, by where this library is:
 * in the npm package, `npx hyprof resolve`; in a C-only install (<prefix>/lib, make install), the
 * single executable installed beside it, <prefix>/bin/hyprof, or, when it is not there yet, `hyprof
 * resolve` and how to get it. Worked out once at start-up, so that the messages of the signal and
 * quick_exit paths only read it. */
static char resolve_cmd[PATH_MAX + 16] = "npx hyprof resolve";
static char resolve_hint[PATH_MAX + 160];

void hp_resolve_command_init(void) {
  char cli[PATH_MAX], exe[PATH_MAX], prefix[PATH_MAX], pc[PATH_MAX + 32];
  if (find_cli(cli, sizeof cli) || !lib_dir_up(prefix, sizeof prefix, 2)) return;
  snprintf(pc, sizeof pc, "%s/lib/pkgconfig/hyprof.pc", prefix);
  if (access(pc, R_OK) != 0) return; /* neither the package nor a make install: npx is the best guess */
  if (find_executable_beside(exe, sizeof exe)) {
    snprintf(resolve_cmd, sizeof resolve_cmd, "%s resolve", exe);
  } else {
    snprintf(resolve_cmd, sizeof resolve_cmd, "hyprof resolve");
    snprintf(resolve_hint, sizeof resolve_hint,
             " (hyprof: the single executable, built by scripts/build-sea.sh and installed as %s/bin/hyprof by make "
             "install, or the npm package's npx hyprof)",
             prefix);
  }
}

const char *hp_resolve_command(void) { return resolve_cmd; }
const char *hp_resolve_command_hint(void) { return resolve_hint; }

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


/* "a b c": the raw files, space-separated, for the messages. */
static void file_list(char *out, size_t cap, char **files) {
  out[0] = 0;
  size_t at = 0;
  for (char **f = files; *f; f++) {
    int n = snprintf(out + at, cap - at, "%s%s", at ? " " : "", *f);
    if (n < 0 || (size_t)n >= cap - at) break;
    at += (size_t)n;
  }
}

/* `raw`: the files, space-separated, as the messages name them. */
/* The trace file of a raw file (HYPROF_TRACE, trace.c: its name with `.trace` for `.raw`), converted
 * into the profile directory's OTF2 archive by the resolve: removed with it. */
static void unlink_trace(const char *raw) {
  size_t n = strlen(raw);
  if (n < 4 || strcmp(raw + n - 4, ".raw") != 0) return;
  char *trace = malloc(n + 3);
  if (!trace) return;
  memcpy(trace, raw, n - 4);
  memcpy(trace + n - 4, ".trace", 7);
  unlink(trace);
  free(trace);
}

static void resolve_files(char **files, const char *raw) {
  char node[PATH_MAX], cli[PATH_MAX], exe[PATH_MAX];
  int with_node = find_node(node, sizeof node) && find_cli(cli, sizeof cli);
  int with_exe = !with_node && find_executable_beside(exe, sizeof exe);
  if (!with_node && !with_exe) {
    hp_warn("measurements written to %s; turn them into a TAU profile with: %s %s -o %s%s", raw, resolve_cmd, raw,
            hp_cfg.dir, resolve_hint);
    return;
  }
  size_t n_files = 0;
  while (files[n_files]) n_files++;
  char **env = resolver_env();
  char **argv = calloc(n_files + 6, sizeof *argv);
  /* Paths may start with '-' (HYPROF_DIR=-out): the output as one --output=<dir> word, the raw files
   * after "--", so that none is ever read as an option. */
  char output[sizeof hp_cfg.dir + 16];
  snprintf(output, sizeof output, "--output=%s", hp_cfg.dir);
  size_t a = 0;
  if (argv) {
    if (with_node) {
      argv[a++] = node;
      argv[a++] = cli;
    } else {
      argv[a++] = exe;
    }
    argv[a++] = "resolve";
    argv[a++] = output;
    argv[a++] = "--";
    for (size_t i = 0; i < n_files; i++) argv[a++] = files[i];
    argv[a] = NULL;
  }
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
  const char *what = with_node ? node : exe;
  /* Its messages go where hyprof's go: the stderr the program started with, not a file the program
   * has put on descriptor 2 since (stderr.c); nowhere when there is none left. */
  posix_spawn_file_actions_t fa;
  int have_fa = posix_spawn_file_actions_init(&fa) == 0, err_fd = hp_stderr_fd();
  if (have_fa && err_fd != 2 &&
      (err_fd >= 0 ? posix_spawn_file_actions_adddup2(&fa, err_fd, 2)
                   : posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0)) != 0) {
    posix_spawn_file_actions_destroy(&fa);
    have_fa = 0;
  }
  if (env && argv && (have_fa || err_fd == 2))
    rc = posix_spawn(&pid, what, have_fa ? &fa : NULL, have_attr ? &attr : NULL, argv, env);
  if (have_fa) posix_spawn_file_actions_destroy(&fa);
  if (have_attr) posix_spawnattr_destroy(&attr);
  if (rc != 0 || waitpid(pid, &status, 0) < 0) {
    hp_warn("could not start %s to resolve %s; run: %s %s -o %s%s", what, raw, resolve_cmd, raw, hp_cfg.dir, resolve_hint);
  } else if (WIFSIGNALED(status)) {
    hp_warn("turning %s into a TAU profile was stopped by signal %d (%s); the measurements are kept there; run: %s %s -o %s%s",
            raw, WTERMSIG(status), strsignal(WTERMSIG(status)), resolve_cmd, raw, hp_cfg.dir, resolve_hint);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    hp_warn("turning %s into a TAU profile failed (see above); the measurements are kept there", raw);
  } else if (!hp_cfg.keep_raw) {
    for (size_t i = 0; i < n_files; i++) {
      unlink(files[i]);
      unlink_trace(files[i]);
    }
  }
  free(argv);
  free(env);
}

void hp_resolve_at_exit(const char *raw, const char *earlier) {
  if (!raw || !raw[0]) return;
  /* The images this process replaced by exec first (they ran first), then this one's. */
  size_t n_files = 2;
  for (const char *c = earlier; c && *c; c++)
    if (*c == '\n') n_files++;
  char *earlier_copy = earlier ? strdup(earlier) : NULL;
  char **files = calloc(n_files + 1, sizeof *files);
  if (!files || (earlier && !earlier_copy)) {
    free(files);
    free(earlier_copy);
    hp_warn("measurements written to %s; turn them into a TAU profile with: %s %s -o %s%s", raw, resolve_cmd, raw,
            hp_cfg.dir, resolve_hint);
    return;
  }
  size_t k = 0;
  for (char *save = NULL, *f = earlier_copy ? strtok_r(earlier_copy, "\n", &save) : NULL; f; f = strtok_r(NULL, "\n", &save))
    files[k++] = f;
  files[k++] = (char *)raw;
  files[k] = NULL;
  char shown[16384];
  file_list(shown, sizeof shown, files);
  resolve_files(files, shown);
  free(files);
  free(earlier_copy);
}
