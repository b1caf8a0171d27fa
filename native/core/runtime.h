/* Process-wide runtime state and the internal entry points shared by the core's files. */
#ifndef HP_RUNTIME_H
#define HP_RUNTIME_H

#include <stdint.h>
#include <sys/types.h>

#include "thread.h"

#define HP_EXPORT __attribute__((visibility("default")))

typedef struct hp_runtime {
  int initialised;
  int disabled;            /* HYPROF_DISABLE=1: measure nothing (e.g. the resolver's own node) */
  int node;                /* MPI rank / hyprof_set_node; 0 by default */
  int node_set;            /* the program chose its node (hyprof_set_node, TAU_PROFILE_SET_NODE) */
  int rank_from_env;       /* node is the rank a launcher gave this process (rank.c) */
  int mpi_rank;            /* MPI_Init ran here: node is this process's rank in MPI_COMM_WORLD */
  int world_size;          /* ranks of the job (launcher or MPI_Comm_size); 0 when unknown */
  int launcher;            /* an MPI launcher or daemon (mpirun, orted, ...): never measured */
  int forked_child;
  int run_root;            /* this is the root process of a `hyprof run` */
  int under_run;           /* started by a `hyprof run` (HYPROF_RUN_PARENT set): its raw directory is private */
  pid_t pid, ppid;
  uint64_t start_wall_ns;  /* CLOCK_REALTIME at start (or fork) */
  uint64_t start_mono_ns;
  uint32_t root_event;
  char process_comm[16];   /* the process's name (/proc/self/comm) at start: a thread whose own name
                            * differs was named by the program (pthread_setname_np, prctl) */
} hp_runtime;

extern hp_runtime hp_rt;

/* Initialise once (idempotent, thread-safe). Returns 0 when measurement is disabled. */
int hp_init(void);

/* node_threads.c: is this process Node.js (its executable exports napi_module_register)? The answer
 * is cached; hp_node_process_known reads the cache only (0 until asked; safe in a signal handler). */
int hp_node_process(void);
int hp_node_process_known(void);
/* Read HYPROF_NODE_THREADS (in a Node process only), once at initialisation. */
void hp_node_threads_read(void);
/* The setting in force ("js", "all"); NULL outside Node. */
const char *hp_node_threads_setting(void);
/* Does a thread the program creates get its state (and sampling) at its start? Not a Node helper
 * thread by default: a Node thread is measured from when it runs JavaScript (node_threads.c). */
int hp_thread_measured_from_start(void);
/* Remember the calling thread's entry stack address for when its state is made later (a Node thread
 * measured from when it runs JavaScript): unwinding then still stops at its start routine. */
void hp_thread_remember_entry(uintptr_t entry_stack_addr);

/* Child side of fork: drop the other threads, clear statistics, restart the clocks. */
void hp_thread_after_fork_child(void);
/* A thread's name as the OS holds it (/proc/self/task/<tid>/comm), when it differs from the
 * process's name at start and from the name the thread inherited from its creator: set by the
 * program (pthread_setname_np). Fills out and returns 1, else 0. Async-signal-safe: open, read and
 * close only (the signal dump calls it). */
int hp_thread_os_name(const hp_thread *t, char *out, size_t cap);
/* stderr.c: the stderr the program started with. Noted once at initialisation; then the descriptor
 * to write hyprof's messages to (2, or a private duplicate when the program put another file on 2),
 * or -1 when none is left; async-signal-safe. */
void hp_stderr_note(void);
/* Keep the private duplicate (a measuring process only; not for an inert runtime). */
void hp_stderr_keep(void);
int hp_stderr_fd(void);
void hp_stderr_write(const char *s, size_t n);
/* Read a small file into out (NUL-terminated, trailing newline dropped); async-signal-safe. Length or -1. */
int hp_read_small_file(const char *path, char *out, size_t cap);
/* Mark the calling thread as ended (its pthread key destructor). */
void hp_thread_end(hp_thread *t);
/* Record a misuse warning on t (printed once per distinct text, kept in the profile). */
void hp_thread_warn(hp_thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Why a raw file is being written. */
enum hp_dump_why {
  HP_DUMP_EXIT = 0,
  HP_DUMP_SIGNAL = 1,
  HP_DUMP_FLUSH = 2,
  HP_DUMP_EXEC = 3,       /* the image is replaced (exec.c) */
  HP_DUMP_QUICK_EXIT = 4, /* quick_exit's at_quick_exit handler (init.c): written as at exit */
};
/* Whether a dump for `why` may run in a signal handler, where the modules' before_dump must be
 * async-signal-safe: SIGINT / SIGTERM, and exec and quick_exit, which programs call from handlers. */
static inline int hp_dump_in_handler(int why) {
  return why == HP_DUMP_SIGNAL || why == HP_DUMP_EXEC || why == HP_DUMP_QUICK_EXIT;
}
/* Write the raw file now (`why`: enum hp_dump_why). Returns 0 on success, HP_DUMP_NOTHING when
 * there was nothing to write (an exec in a forked child that entered no timer), else -1. */
#define HP_DUMP_NOTHING 1
int hp_dump(int why);
/* Turn the raw file just written into a TAU profile (at exit, when the hyprof command is found), with
 * the raw files of the images this process replaced by exec (`earlier`: one path per line, or NULL). */
void hp_resolve_at_exit(const char *raw_path, const char *earlier);
/* The command messages name to resolve raw files ("npx hyprof resolve", "<prefix>/bin/hyprof
 * resolve", ...) and a hint to follow the command ("" or " (...)"): set at start-up by
 * hp_resolve_command_init, read-only afterwards (safe in signal handlers). */
void hp_resolve_command_init(void);
const char *hp_resolve_command(void);
const char *hp_resolve_command_hint(void);
/* The tid of the thread writing a raw file now, 0 when none (minus a tid: a metadata add holds it). */
int hp_dump_owner(void);
/* Take the dump's ownership without dumping (1 when taken), and give it back: metadata added by the
 * program (meta.c) is then never read half-written. */
int hp_dump_try_hold(void);
void hp_dump_release_hold(void);
/* No dump is running (thread.c releases retired memory only then; dump.c says why it holds). */
int hp_dump_idle(void);
/* Fork child: a dump under way in the parent (on another thread) does not exist in the child. */
void hp_dump_reset_in_child(void);
/* hp_dump with SIGINT / SIGTERM held back, so their handler never finds its own thread mid-dump. */
int hp_dump_blocking_signals(int why);
/* Path of the last raw file written (empty before the first). */
const char *hp_dump_last_path(void);
/* Called first by the interposed sigaction (sample/sigchain.c): 1 when it took the call itself (a
 * program's SIG_DFL for SIGINT / SIGTERM while the runtime's dump on that signal is in place, kept as
 * the action the dump hands the signal on to); 0 to let the call go on as usual (init.c). */
int hp_signal_dump_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* 64-bit mix of (parent context, event); never 0. */
static inline uint64_t hp_context_hash(uint64_t parent, uint32_t event) {
  uint64_t x = parent ^ ((uint64_t)(event + 1) * 0x9E3779B97F4A7C15ull);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x ? x : 1;
}

#endif
