/* The exec family, interposed: an image that replaces itself by exec writes its measurements first
 * (the raw file, INFO flag bit 7: docs/raw-format.md), as a flush does, open timers counted up to
 * that moment. The exec then runs; when it fails and returns, measurement goes on, and the write at
 * exit replaces the file (same name) without the flag.
 *
 * Not written: in a vfork child (it shares the parent's memory, and the runtime's state is the
 * parent's: getpid() differs from the pid the runtime knows, because no fork handler ran), when the
 * runtime is off, and in a forked child that entered no timer since the fork (the fork-and-exec of a
 * shell or a launcher: nothing of its own to keep).
 *
 * A program that resolves its own profile at exit (linked with -lhyprof, not under `hyprof run`)
 * hands the raw files of its earlier images to the new one in HYPROF_EXEC_RAW (one path per line, as
 * the runtime wrote them: relative to the working directory, which exec keeps, when HYPROF_DIR is),
 * when the new image loads the runtime (exec_target.c); the new image reads and clears it at start
 * (init.c) and resolves them with its own at exit. When the new image will not load the runtime, the
 * old one says where its measurements are and how to resolve them.
 *
 * Everything on the way to the real exec is async-signal-safe (exec is, and programs call it from
 * signal handlers and vfork children): the dump is, the new environment is built in mmap'ed memory,
 * and the real functions are looked up at load time, never in a vfork child. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "exec.h"
#include "module.h"
#include "runtime.h"

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static execve_fn real_execve, real_execvpe;
static fexecve_fn real_fexecve;
static execveat_fn real_execveat;

static void find_real(void) {
  if (real_execve) return;
  real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
  real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
  real_execveat = (execveat_fn)dlsym(RTLD_NEXT, "execveat");
  __atomic_store_n(&real_execve, (execve_fn)dlsym(RTLD_NEXT, "execve"), __ATOMIC_RELEASE);
}

/* At load: a vfork child, or a signal handler, must never be the first to call dlsym. */
__attribute__((constructor)) static void find_real_at_load(void) { find_real(); }

/* ---- the earlier images' raw files (HYPROF_EXEC_RAW) ---- */

static char *predecessors; /* newline-separated paths, or NULL */

const char *hp_exec_predecessors(void) { return predecessors; }

/* Why `path` is not a raw file this image may hand to its resolve, or NULL when it is one. The
 * variable comes from the environment, so anything may stand there: a FIFO (a read would block the
 * program's exit), /dev/zero (a read never ends), a directory, a file of another kind. Opened without
 * blocking and checked on the descriptor: a regular file that starts with the raw magic. Runs at
 * start (init.c), not in a signal handler. */
static const char *raw_file_problem(const char *path) {
  static char text[160];
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    snprintf(text, sizeof text, "it cannot be read (%s)", strerror(errno));
    return text;
  }
  struct stat st;
  const char *why = NULL;
  char magic[8];
  if (fstat(fd, &st) != 0) {
    snprintf(text, sizeof text, "it cannot be read (%s)", strerror(errno));
    why = text;
  } else if (S_ISDIR(st.st_mode)) {
    why = "it is a directory, not a raw file";
  } else if (!S_ISREG(st.st_mode)) {
    why = S_ISFIFO(st.st_mode) ? "it is a FIFO, not a raw file" : "it is a device or socket, not a raw file";
  } else if (pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic || memcmp(magic, "HYPROFRW", sizeof magic) != 0) {
    why = "it is not a hyprof raw file";
  }
  close(fd);
  return why;
}

void hp_exec_read_predecessors(void) {
  const char *v = getenv(HP_EXEC_RAW_ENV);
  if (!v) return;
  size_t cap = strlen(v) + 1, n = 0;
  char *keep = malloc(cap);
  const char *p = v;
  while (keep && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len > 0) {
      char path[4400];
      if (len >= sizeof path) {
        hp_warn("%s holds a path of %zu bytes, longer than any raw file's: left out of this profile", HP_EXEC_RAW_ENV, len);
      } else {
        memcpy(path, p, len);
        path[len] = 0;
        const char *why = raw_file_problem(path);
        if (why) {
          hp_warn("%s names %s, the raw file of the image this program replaced by exec, but %s: left out of this profile",
                  HP_EXEC_RAW_ENV, path, why);
        } else {
          if (n) keep[n++] = '\n';
          memcpy(keep + n, path, len);
          n += len;
        }
      }
    }
    p += len;
    if (*p == '\n') p++;
  }
  if (keep) keep[n] = 0;
  if (keep && n) predecessors = keep;
  else free(keep);
  /* Cleared: a program this one starts (not an exec) must not resolve these files again. */
  unsetenv(HP_EXEC_RAW_ENV);
}

/* ---- before and after the real exec ---- */

typedef struct exec_plan {
  char *const *envp;  /* the environment to hand the new image */
  void *map;          /* mmap'ed memory of a rebuilt environment, or NULL */
  size_t map_len;
  hp_thread *thread;
  int dumped;         /* the dump ran (the modules stopped what must not outlive the exec) */
  int saved_errno;
} exec_plan;

static void say(const char *s) { hp_stderr_write(s, strlen(s)); }

/* The old environment without HYPROF_EXEC_RAW, with HYPROF_EXEC_RAW=<earlier files>\n<this file>. */
static void hand_over(exec_plan *p, const char *raw) {
  const char *before = predecessors;
  size_t n_env = 0, bytes = 0;
  for (char *const *e = p->envp; e && *e; e++) n_env++;
  size_t value = sizeof HP_EXEC_RAW_ENV + 1 + (before ? strlen(before) + 1 : 0) + strlen(raw) + 1;
  bytes = (n_env + 2) * sizeof(char *) + value;
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return;
  char **env = m;
  char *var = (char *)(env + n_env + 2);
  size_t at = 0;
  memcpy(var, HP_EXEC_RAW_ENV "=", sizeof HP_EXEC_RAW_ENV);
  at = sizeof HP_EXEC_RAW_ENV;
  if (before) {
    memcpy(var + at, before, strlen(before));
    at += strlen(before);
    var[at++] = '\n';
  }
  memcpy(var + at, raw, strlen(raw) + 1);
  size_t j = 0;
  for (char *const *e = p->envp; e && *e; e++)
    if (strncmp(*e, HP_EXEC_RAW_ENV "=", sizeof HP_EXEC_RAW_ENV) != 0) env[j++] = *e;
  env[j++] = var;
  env[j] = NULL;
  p->envp = env;
  p->map = m;
  p->map_len = bytes;
}

/* `earlier` (newline-separated files, or NULL) and `raw`, separated by spaces. */
static void say_files(const char *earlier, const char *raw) {
  for (const char *f = earlier; f && *f;) {
    const char *nl = strchr(f, '\n');
    size_t len = nl ? (size_t)(nl - f) : strlen(f);
    hp_stderr_write(f, len);
    say(" ");
    f += len + (nl ? 1 : 0);
  }
  say(raw);
}

void hp_exec_say_resolve(const char *what, const char *earlier, const char *raw) {
  say(what);
  say_files(earlier, raw);
  say("; turn them into a TAU profile with: ");
  say(hp_resolve_command());
  say(" ");
  say_files(earlier, raw);
  say(" -o ");
  say(hp_cfg.dir);
  say(hp_resolve_command_hint());
  say("\n");
}

/* The new image will not load the runtime: say (once) where this image's measurements went. */
static void tell_where(const char *raw) {
  static int told;
  if (told) return;
  told = 1;
  hp_exec_say_resolve("hyprof: this program replaces itself by exec with a program that is not measured; its "
                      "measurements so far are written to ",
                      predecessors, raw);
}

/* `target`: what the exec names (`search`: looked up on PATH as execvp does), for exec_target.c. */
static void before_exec(exec_plan *p, char *const envp[], const char *target, int search, int dirfd) {
  p->envp = envp;
  p->map = NULL;
  p->thread = NULL;
  p->dumped = 0;
  p->saved_errno = errno;
  if (!hp_rt.initialised || hp_rt.disabled) return;
  /* A vfork child (the parent's memory, the parent's measurements), or a child cloned without the
   * fork handlers: not this runtime's process. */
  if (getpid() != hp_rt.pid) return;
  p->thread = hp_thread_current();
  if (p->thread) hp_tool_enter(p->thread);
  /* Another thread may be writing the file (a flush): let it finish (bounded), then write. Not when
   * the writer is this thread (an exec from a signal handler that interrupted it, or a metadata add
   * holding the dump: -me): nothing then. In a forked child that entered no timer, the dump writes nothing (HP_DUMP_NOTHING: dump.c). */
  int rc, me = (int)syscall(SYS_gettid), owner;
  for (int waited = 0; (rc = hp_dump_blocking_signals(HP_DUMP_EXEC)) != 0 && rc != HP_DUMP_NOTHING &&
                       (owner = hp_dump_owner()) != 0 && owner != me && owner != -me && waited < 3000;
       waited++) {
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
  p->dumped = rc != HP_DUMP_NOTHING;
  const char *raw = hp_dump_last_path();
  if (rc == 0 && raw[0] && hp_cfg.resolve) {
    int measured = hp_exec_target_measured(target, search, dirfd, envp);
    if (measured > 0)
      hand_over(p, raw);
    else if (measured == 0)
      tell_where(raw);
    /* else there is no such program: the exec fails, and the file is written again at exit */
  }
  errno = p->saved_errno;
}

/* The exec failed: measurement goes on in this image. */
static int after_exec(exec_plan *p, int rc) {
  int e = errno;
  if (p->map) munmap(p->map, p->map_len);
  if (p->dumped) hp_modules_exec_failed(p->thread);
  if (p->thread) hp_tool_leave(p->thread);
  errno = e;
  return rc;
}

static int no_function(void) {
  errno = ENOSYS;
  return -1;
}

HP_EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
  find_real();
  exec_plan p;
  before_exec(&p, envp, path, 0, AT_FDCWD);
  return after_exec(&p, real_execve(path, argv, p.envp));
}

HP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
  find_real();
  if (!real_execvpe) return no_function();
  exec_plan p;
  before_exec(&p, envp, file, 1, AT_FDCWD);
  return after_exec(&p, real_execvpe(file, argv, p.envp));
}

HP_EXPORT int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }

HP_EXPORT int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

HP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
  find_real();
  if (!real_fexecve) return no_function();
  exec_plan p;
  before_exec(&p, envp, "", 0, fd);
  return after_exec(&p, real_fexecve(fd, argv, p.envp));
}

/* glibc 2.34 and later have execveat; on older ones the symbol is not found and this one says so. */
HP_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
  find_real();
  if (!real_execveat) return no_function();
  exec_plan p;
  before_exec(&p, envp, path, 0, dirfd);
  return after_exec(&p, real_execveat(dirfd, path, argv, p.envp, flags));
}

/* execl, execlp, execle: their arguments gathered into an array on the stack, as glibc does. */
#define GATHER_ARGS(first, ap, argv, envp_out)                          \
  size_t n_args = 1;                                                    \
  va_start(ap, first);                                                  \
  while (va_arg(ap, char *)) n_args++;                                  \
  va_end(ap);                                                           \
  char *argv[n_args + 1];                                               \
  argv[0] = (char *)first;                                              \
  va_start(ap, first);                                                  \
  for (size_t i = 1; i <= n_args; i++) argv[i] = va_arg(ap, char *);    \
  envp_out;                                                             \
  va_end(ap)

HP_EXPORT int execl(const char *path, const char *arg, ...) {
  va_list ap;
  GATHER_ARGS(arg, ap, argv, (void)0);
  return execve(path, argv, environ);
}

HP_EXPORT int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  GATHER_ARGS(arg, ap, argv, (void)0);
  return execvpe(file, argv, environ);
}

HP_EXPORT int execle(const char *path, const char *arg, ...) {
  va_list ap;
  char **envp;
  GATHER_ARGS(arg, ap, argv, envp = va_arg(ap, char **));
  return execve(path, argv, envp);
}
