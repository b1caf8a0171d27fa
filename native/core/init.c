/* Runtime start-up and shut-down: configuration, process metadata, the root event, exit and signal
 * dumps, fork handling. Initialisation happens on first use (a probe or a preloaded constructor). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "functions.h"
#include "throttle.h"
#include "metrics.h"
#include "fold.h"
#include "events.h"
#include "exec.h"
#include "meta.h"
#include "module.h"
#include "rank.h"
#include "rank_end.h"
#include "runtime.h"
#include "trace.h"

#ifndef HYPROF_VERSION
#define HYPROF_VERSION "0.1.0"
#endif

hp_runtime hp_rt;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static struct sigaction previous_int, previous_term;
/* The dump is in place on SIGINT ([0]) / SIGTERM ([1]) and keeps it (hp_signal_dump_sigaction). */
static volatile sig_atomic_t dump_holds[2];

static void read_file_line(const char *path, const char *prefix, char *out, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  size_t plen = strlen(prefix);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, prefix, plen) != 0) continue;
    char *v = strchr(line, ':');
    if (!v) continue;
    v++;
    while (*v == ' ' || *v == '\t') v++;
    v[strcspn(v, "\n")] = 0;
    snprintf(out, cap, "%s", v);
    break;
  }
  fclose(f);
}

static void command_line(char *out, size_t cap) {
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f) return;
  size_t n = fread(out, 1, cap - 1, f);
  fclose(f);
  out[n] = 0;
  for (size_t i = 0; n && i < n - 1; i++)
    if (!out[i]) out[i] = ' ';
}

static void format_time(uint64_t wall_ns, int utc, char *out, size_t cap) {
  time_t secs = (time_t)(wall_ns / 1000000000u);
  struct tm tm;
  if (utc) {
    gmtime_r(&secs, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
  } else {
    localtime_r(&secs, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%S%z", &tm);
  }
}

/* Metadata TAU writes (TAU-FORMAT.md), collected once, off any signal path. */
static void collect_metadata(void) {
  char buf[4096];
  struct utsname u;
  if (uname(&u) == 0) {
    hp_meta_add("Hostname", u.nodename);
    hp_meta_add("Node Name", u.nodename);
    hp_meta_add("OS Name", u.sysname);
    hp_meta_add("OS Release", u.release);
    hp_meta_add("OS Version", u.version);
    hp_meta_add("OS Machine", u.machine);
  }
  hp_meta_add_long("CPU Cores", sysconf(_SC_NPROCESSORS_ONLN));
  hp_schedstat_process_start();
  buf[0] = 0;
  read_file_line("/proc/cpuinfo", "model name", buf, sizeof buf);
  if (buf[0]) hp_meta_add("CPU Type", buf);
  buf[0] = 0;
  read_file_line("/proc/meminfo", "MemTotal", buf, sizeof buf);
  if (buf[0]) hp_meta_add("Memory Size", buf);
  buf[0] = 0;
  command_line(buf, sizeof buf);
  hp_meta_add("Command Line", buf);
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    hp_meta_add("Executable", buf);
  }
  if (getcwd(buf, sizeof buf)) hp_meta_add("CWD", buf);
  hp_meta_add_long("pid", hp_rt.pid);
  hp_meta_add_long("Starting Timestamp", (long long)(hp_rt.start_wall_ns / 1000));
  format_time(hp_rt.start_wall_ns, 0, buf, sizeof buf);
  hp_meta_add("Local Time", buf);
  format_time(hp_rt.start_wall_ns, 1, buf, sizeof buf);
  hp_meta_add("UTC Time", buf);
  hp_meta_add("hyprof Version", HYPROF_VERSION);
  /* The configuration in force, under hyprof's names and TAU's. */
  hp_meta_add("HYPROF_DIR", hp_cfg.dir);
  hp_meta_add("HYPROF_CALLPATH", hp_cfg.callpath ? "on" : "off");
  hp_meta_add("TAU_CALLPATH", hp_cfg.callpath ? "on" : "off");
  hp_meta_add_long("HYPROF_CALLPATH_DEPTH", hp_cfg.callpath_depth);
  hp_meta_add_long("TAU_CALLPATH_DEPTH", hp_cfg.callpath_depth);
  /* which threads of a Node process have profiles (core/node_threads.c) */
  if (hp_node_threads_setting()) hp_meta_add("HYPROF_NODE_THREADS", hp_node_threads_setting());
  hp_meta_add("TAU_PROFILE", "on");
  hp_meta_add("TAU_PROFILE_FORMAT", "profile");
}

int hp_dump_blocking_signals(int why) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int rc = hp_dump(why);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  /* Memory ended threads retired while this flush ran (thread.h): a program that flushes often
   * would otherwise hold it until a thread ends between two flushes. */
  if (why == HP_DUMP_FLUSH) hp_thread_release_retired();
  return rc;
}

/* Whether process `pid` is ending: gone, or a zombie. Async-signal-safe (system calls only). A process
 * killed with SIGKILL sends the parent-death signal as its spawning thread ends, while its other threads
 * still run: getppid() is then unchanged, but that thread, the group leader, already shows as a zombie. */
static int process_ending(pid_t pid) {
  char path[32] = "/proc/", digits[12];
  int n = 0;
  for (unsigned long v = (unsigned long)pid; n == 0 || v; v /= 10) digits[n++] = (char)('0' + v % 10);
  size_t at = 6;
  while (n) path[at++] = digits[--n];
  memcpy(path + at, "/stat", 6);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1;
  char buf[512];
  ssize_t got = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (got <= 0) return 1;
  buf[got] = 0;
  const char *state = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold ')' */
  return state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

/* The root process of a `hyprof run` whose hyprof has gone (killed with SIGKILL by a time limit or a
 * batch scheduler): nobody will resolve its raw file, so the program says where it is. */
static int run_parent_gone(void) {
  return hp_rt.run_root && (getppid() != hp_rt.ppid || process_ending(hp_rt.ppid));
}

static void dump_on_signal(int sig, siginfo_t *info, void *uc) {
  int saved = errno;
  hp_rank_end_mark();
  hp_thread *t = hp_thread_current();
  if (t) t->in_tool = 1;
  /* Another thread may be writing the file (a flush, or exit): let it finish (bounded) rather than
   * end the process under it, then write the final state. Dumps on this thread hold SIGINT/SIGTERM
   * back (hp_dump_blocking_signals), so the owner is never this thread. */
  for (int waited = 0; hp_dump(1) != 0 && hp_dump_owner() != 0 && waited < 3000; waited++) {
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
  const char *raw = hp_dump_last_path();
  int orphaned = run_parent_gone();
  if (raw[0] && (hp_cfg.resolve || orphaned)) {
    static const char msg[] = "hyprof: measurements written to ";
    static const char gone[] = "hyprof: the hyprof run that started this program has ended; measurements written to ";
    ssize_t w = orphaned ? write(2, gone, sizeof gone - 1) : write(2, msg, sizeof msg - 1);
    w = write(2, raw, strlen(raw));
    static const char with[] = "; turn them into a TAU profile with: ", tail[] = " <that file> -o <dir>";
    w = write(2, with, sizeof with - 1);
    w = write(2, hp_resolve_command(), strlen(hp_resolve_command()));
    w = write(2, tail, sizeof tail - 1);
    w = write(2, hp_resolve_command_hint(), strlen(hp_resolve_command_hint()));
    w = write(2, "\n", 1);
    (void)w;
  }
  /* Written: wait for the other ranks of the node, so that the first to end does not get them
   * SIGKILLed in the middle of their write (rank_end.c). */
  hp_rank_end_wait();
  /* Let the default action (or the program's earlier handler) proceed: the dump lets go of the
   * signal first, so that the interposed sigaction installs `prev` for real. */
  struct sigaction *prev = sig == SIGINT ? &previous_int : &previous_term;
  dump_holds[sig == SIGTERM] = 0;
  if (prev->sa_flags & SA_RESETHAND) {
    /* A handler that resets itself on delivery (node's): delivered now, it would be reset to the
     * default before running, so the default goes in place and the handler is called below. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
  } else {
    sigaction(sig, prev, NULL);
  }
  errno = saved;
  if (prev->sa_handler == SIG_DFL || prev->sa_handler == SIG_IGN) {
    raise(sig);
  } else if (prev->sa_flags & SA_SIGINFO) {
    prev->sa_sigaction(sig, info, uc);
  } else {
    prev->sa_handler(sig);
  }
}

/*
 * The dump on SIGINT / SIGTERM must outlive a program that sets these signals up as it starts, after
 * this runtime's constructor installed the dump: node resets every signal to its default, then
 * installs on both a handler that resets the terminal and re-raises the signal with its default action
 * (SignalExit, SA_RESETHAND), so a Node server stopped by SIGTERM under `hyprof run` ended with no raw
 * file and no profile. While the dump is in place on a signal (dump_holds), a program's SIG_DFL, or
 * a handler that resets itself on delivery (a last word before the default action), is not installed:
 * it becomes the action the dump hands the signal on to once the measurements are written
 * (previous_int / previous_term), and the program reads it back as its own. Any other action (a
 * handler that stays, such as libuv's for `process.on('SIGTERM')`; SIG_IGN) is installed as asked and
 * the dump lets go of that signal: the program decides what the signal does (a handler that exits has
 * its measurements written at exit). The dump handler reads the previous action when it runs; a
 * program sets these actions as it starts, long before a signal comes, in practice.
 */

int hp_signal_dump_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (sig != SIGINT && sig != SIGTERM) return 0;
  int i = sig == SIGTERM;
  if (!dump_holds[i]) return 0;
  int dfl = !(act && (act->sa_flags & SA_SIGINFO)) && act && act->sa_handler == SIG_DFL;
  int last_word = act && (act->sa_flags & SA_RESETHAND) && !dfl && ((act->sa_flags & SA_SIGINFO) || act->sa_handler != SIG_IGN);
  if (act && !dfl && !last_word) {
    dump_holds[i] = 0;
    return 0;
  }
  struct sigaction *prev = i ? &previous_term : &previous_int;
  if (old) *old = *prev;
  if (act) *prev = *act;
  return 1;
}

static void install_signal_dump(int sig, struct sigaction *prev) {
  struct sigaction current;
  if (sigaction(sig, NULL, &current) != 0) return;
  /* Only where the program keeps the default: a program's own handler decides what happens. */
  if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = dump_on_signal;
  /* Not SA_RESETHAND: a second SIGTERM while the file is written (an MPI launcher signals the
   * process group, and `hyprof run` passes its own copy on) lands on another thread, where the
   * default action would end the process mid-dump. It enters this handler instead and waits for the
   * dump; the handler restores the previous disposition itself before re-raising. */
  sa.sa_flags = SA_SIGINFO;
  /* The other of the two waits until this dump is written. */
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  *prev = current;
  if (sigaction(sig, &sa, NULL) == 0) dump_holds[sig == SIGTERM] = 1;
}

static void at_exit(void) {
  if (hp_rt.disabled) return;
  hp_thread *t = hp_thread_current();
  if (t) hp_tool_enter(t);
  if (hp_dump_blocking_signals(0) != 0) return;
  if (hp_cfg.resolve)
    hp_resolve_at_exit(hp_dump_last_path(), hp_exec_predecessors());
  else if (run_parent_gone())
    hp_warn("the hyprof run that started this program has ended; measurements written to %s; turn them into a "
            "TAU profile with: %s %s -o <dir>%s",
            hp_dump_last_path(), hp_resolve_command(), hp_dump_last_path(), hp_resolve_command_hint());
}

/* ---- quick_exit ---- */

/* quick_exit runs the at_quick_exit handlers instead of the atexit ones. quick_exit is
 * async-signal-safe and programs call it from signal handlers, so this handler is too (no way tells
 * it whether it runs in one): the dump as on SIGTERM (no memory-map refresh under the loader's lock),
 * and where the at-exit handler would start the resolver (calloc, posix_spawn), the command to run
 * instead, written with write(2). */
static void at_quick_exit_dump(void) {
  if (hp_rt.disabled || !hp_rt.initialised) return;
  int saved = errno;
  hp_thread *t = hp_thread_current();
  if (t) hp_tool_enter(t);
  /* Another thread may be writing the file (a flush): let it finish (bounded), then write. Not when
   * the writer is this thread (quick_exit from a signal handler that interrupted it, or a metadata add
   * holding the dump: -me): nothing then. */
  int rc, owner, me = (int)syscall(SYS_gettid);
  for (int waited = 0; (rc = hp_dump_blocking_signals(HP_DUMP_QUICK_EXIT)) != 0 && (owner = hp_dump_owner()) != 0 &&
                       owner != me && owner != -me && waited < 3000;
       waited++) {
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
  const char *raw = hp_dump_last_path();
  int orphaned = run_parent_gone();
  if (rc == 0 && raw[0] && (hp_cfg.resolve || orphaned)) {
    hp_exec_say_resolve(orphaned ? "hyprof: the hyprof run that started this program has ended; measurements written to "
                                 : "hyprof: measurements written to ",
                        orphaned ? NULL : hp_exec_predecessors(), raw);
  }
  errno = saved;
}

static void fork_prepare(void) {
  hp_modules_lock();
  hp_events_lock();
}
static void fork_parent(void) {
  hp_events_unlock();
  hp_modules_unlock();
}
static void fork_child(void) {
  hp_events_reset_lock_in_child();
  hp_func_reset_lock_in_child();
  hp_modules_reset_lock_in_child();
  hp_dump_reset_in_child();
  hp_rt.forked_child = 1;
  hp_rt.run_root = 0;
  hp_rt.ppid = hp_rt.pid;
  hp_rt.pid = getpid();
  hp_rt.start_wall_ns = hp_wall_ns();
  hp_rt.start_mono_ns = hp_now_ns();
  hp_meta_add_long("pid", hp_rt.pid);
  hp_meta_add_long("Starting Timestamp", (long long)(hp_rt.start_wall_ns / 1000));
  hp_thread_after_fork_child();
}

/* The root process of a `hyprof run` leaves `started.<pid>` in its private raw directory: a run
 * that finds no raw file can then tell a program that ended without exit handlers (_exit) from one
 * the runtime was never loaded into (static, setuid, AddressSanitizer: cmd-run.ts). */
static void mark_started(void) {
  char path[sizeof hp_cfg.raw_dir + 32];
  int n = snprintf(path, sizeof path, "%s/started.%ld", hp_cfg.raw_dir, (long)hp_rt.pid);
  if (n <= 0 || (size_t)n >= sizeof path) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
}

/* Secure-execution mode (AT_SECURE: a setuid or setgid program, or one with file capabilities, run
 * by someone its privileges are not theirs): the environment belongs to the caller, who must not get
 * the program's privileges through it. hyprof's variables name files it writes (HYPROF_DIR,
 * PROFILEDIR, HYPROF_RAW_DIR), files it reads (HYPROF_SELECT_FILE, HYPROF_EXEC_RAW) and a program it
 * runs at exit (HYPROF_NODE, or `node` from the caller's PATH), and the current directory is the
 * caller's too. Rather than decide variable by variable what is safe, the runtime measures nothing
 * here (as glibc ignores LD_PRELOAD there): inert like HYPROF_DISABLE=1, nothing read, written or
 * run, and says so once (the line's words are in docs/cli.md: `hyprof run` may read them). */
static int secure_execution(void) {
  if (!getauxval(AT_SECURE)) return 0;
  char comm[32];
  if (hp_read_small_file("/proc/self/comm", comm, sizeof comm) < 0) strcpy(comm, "the program");
  hp_warn("secure-execution mode: %s (pid %ld) runs with privileges its caller does not have (setuid, setgid or "
          "capabilities); hyprof measures nothing in it and ignores its HYPROF_* and TAU variables",
          comm, (long)getpid());
  return 1;
}

static void init_once_body(void) {
  hp_stderr_note();
  if (secure_execution()) {
    hp_rt.disabled = 1;
    return;
  }
  if (hp_env_bool("HYPROF_DISABLE", NULL, 0)) {
    hp_rt.disabled = 1;
    return;
  }
  /* mpirun and its daemons carry the LD_PRELOAD of `hyprof run -- mpirun ...` to the ranks; they
   * themselves are not the program. Inert: no thread state, no raw file, nothing said. */
  char launcher[64];
  if (hp_is_launcher(launcher, sizeof launcher)) {
    hp_rt.launcher = 1;
    hp_rt.disabled = 1;
    if (hp_env_bool("HYPROF_VERBOSE", "TAU_VERBOSE", 0)) hp_warn("%s is an MPI launcher: not measured", launcher);
    /* `hyprof run -- mpirun ...` starts the launcher in a session of its own (cmd-run.ts: a signal to
     * hyprof's group reaches it once, through hyprof), so a SIGKILL of that group no longer reaches it:
     * SIGTERM when hyprof dies, on which launchers stop their ranks, and the ranks write (below). */
    const char *run_parent = getenv("HYPROF_RUN_PARENT");
    if (run_parent && atol(run_parent) == (long)getppid()) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (atol(run_parent) != (long)getppid()) raise(SIGTERM); /* hyprof died before the line above */
    }
    return;
  }
  hp_stderr_keep();
  hp_clock_calibrate_begin(); /* the rest of initialisation is most of the calibration window */
  hp_rt.pid = getpid();
  hp_rt.ppid = getppid();
  hp_rt.start_wall_ns = hp_wall_ns();
  hp_rt.start_mono_ns = hp_now_ns();
  /* Threads inherit this name; one that differs at the dump was named by the program. */
  if (hp_read_small_file("/proc/self/comm", hp_rt.process_comm, sizeof hp_rt.process_comm) < 0) hp_rt.process_comm[0] = '\0';
  const char *run_parent = getenv("HYPROF_RUN_PARENT");
  hp_rt.under_run = run_parent != NULL;
  hp_rt.run_root = run_parent && atol(run_parent) == (long)hp_rt.ppid;
  hp_config_read();
  hp_node_threads_read();
  hp_exec_read_predecessors();
  hp_throttle_read();
  hp_metrics_configure();
  hp_fold_configure();
  hp_event *root = hp_event_intern(".TAU application", "TAU_UTILITY", HP_KIND_ROOT, 0);
  if (!root) {
    hp_rt.disabled = 1;
    hp_warn("cannot allocate the event registry; measurement is off");
    return;
  }
  hp_rt.root_event = root->id;
  collect_metadata();
  hp_rank_from_env();
  hp_rank_end_init();
  hp_config_warn_unsupported();
  hp_trace_process_start();
  hp_modules_process_start();
  hp_resolve_command_init();
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  atexit(at_exit);
  /* quick_exit runs its own handlers instead of the atexit ones: the measurements are written there
   * too, by a handler safe in a signal handler. */
  at_quick_exit(at_quick_exit_dump);
  install_signal_dump(SIGINT, &previous_int);
  install_signal_dump(SIGTERM, &previous_term);
  hp_clock_calibrate_end();
  hp_rt.initialised = 1;
  /* The program must not outlive its `hyprof run` unnoticed: SIGTERM when hyprof dies, because that is
   * the signal programs end on cleanly and on which the runtime writes the measurements (above). */
  if (hp_rt.run_root) {
    mark_started();
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != hp_rt.ppid) raise(SIGTERM); /* hyprof died before the line above */
  }
}

int hp_init(void) {
  pthread_once(&init_once, init_once_body);
  return !hp_rt.disabled && hp_rt.initialised;
}
