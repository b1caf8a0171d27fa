/* Per-thread measurement state: the event-context stack and the per-context statistics.
 *
 * The sampling module's signal handler reads this structure on its own thread (never another's):
 * `in_tool`, `top`, the frames at or below `top`, and its own module slot. Probes therefore publish a
 * frame before raising `top`, and set `in_tool` around every change (hp_tool_enter / hp_tool_leave).
 */
#ifndef HP_THREAD_H
#define HP_THREAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HP_MAX_FRAMES 256       /* timers nested deeper than this are counted, not measured */
#define HP_MAX_WARNINGS 16      /* warning texts kept per thread; the rest are counted */
#define HP_MAX_METRICS 4
#define HP_MODULE_SLOTS 4       /* per-thread pointers modules may own (module.h) */

/* probe.c's cache of names to events, by the name's address: [0] timers, [1] phases. */
typedef struct hp_name_cache {
  struct {
    const char *ptr;
    void *event;
  } slot[2][64];
} hp_name_cache;

/* Statistics of one context on one thread: 40 bytes, and 16 per metric the run measures. */
typedef struct hp_stat {
  uint64_t context;
  uint64_t parent;
  uint32_t event;
  uint32_t used;                /* 1 when the slot holds a context */
  uint64_t calls;
  uint64_t child_calls;
  struct {
    uint64_t incl, excl;
  } metric[];                   /* hp_n_metrics of them (metrics.h), [0] TIME: a table's slots are
                                   as large as the run needs (hp_stat_table.stride), not room for
                                   HP_MAX_METRICS whatever it measures */
} hp_stat;

/* Open-addressing table context -> hp_stat. Grown by building a new table and swapping the pointer;
 * the old table is freed once no dump can be reading it (stats.c says why that is safe). */
typedef struct hp_stat_table {
  uint32_t capacity;            /* power of two */
  uint32_t count;
  uint32_t stride;              /* bytes per slot: sizeof(hp_stat) + the run's metrics, fixed at
                                   initialisation (metrics are configured before any thread) */
  struct hp_stat_table *retired; /* a table this one replaced that could not be retired (no memory
                                    for the record): kept reachable, so a leak checker
                                    (LeakSanitizer) sees memory kept on purpose, not lost */
  uint64_t slots[];             /* capacity slots of `stride` bytes: hp_stat_slot */
} hp_stat_table;

/* Slot i of a table. */
static inline hp_stat *hp_stat_slot(const hp_stat_table *tb, uint32_t i) {
  return (hp_stat *)((char *)tb->slots + (size_t)i * tb->stride);
}

typedef struct hp_frame {
  uint64_t context;             /* what children and samples see: the specialised context if a
                                   parameter was set, else the timer's own context */
  uint64_t base_context;        /* the timer's own context */
  uint64_t parent_context;      /* context it was started under: usually the frame below's, but an
                                   OpenMP worker's implicit task or a resumed async region is
                                   started under another thread's / an earlier context */
  uint32_t event;               /* the timer's event id */
  uint32_t param_event;         /* specialised event id, or HP_NO_EVENT */
  uint64_t start_ns;
  uint64_t child_ns;            /* inclusive time of children so far */
  uint64_t param_start_ns;      /* when the parameter was set */
  uint64_t child_ns_at_param;   /* child_ns when the parameter was set */
  uint64_t child_calls;
  uint64_t child_calls_at_param;
  uintptr_t stack_addr;         /* caller's stack pointer at start: unwinding stops at the frame
                                   that holds this address */
  uint32_t flags;               /* HP_FRAME_*, and the count of HP_FRAME_SKIP_ONE */
  int32_t anchor;               /* HP_FRAME_DETACHED: the level whose child time this frame's is */
  /* Detached frames (below) that ran above this one while it was open: the thread's detached_ns
   * when it was pushed (and when its parameter was set), and sub_ns, the part of their time that
   * was anchored at this frame or above it, so inside its own time. The rest ran while it was
   * suspended: its inclusive time leaves it out. */
  uint64_t detached_at_push, detached_at_param;
  uint64_t sub_ns, sub_at_param;
} hp_frame;

/* The frame gives samples its context and its time to the frame below as child time, but records no
 * statistics of its own (a resumed async region or task whose statistics are recorded whole). */
#define HP_FRAME_NO_STATS 1u
/* The frame runs while the frames between its anchor and itself are suspended (an OpenMP task run at
 * a taskwait or a barrier, on top of the waiting construct or of a suspended task): its time is child
 * time of the anchor, and is left out of the frames between, so no interval of the thread is in the
 * inclusive time of two frames that are not each other's ancestors (stack.h,
 * hp_stack_push_detached). Constant work per frame, whatever the depth: each frame keeps how much
 * detached time the thread had closed when it was pushed (hp_frame.detached_at_push) and how much
 * of what closed since was its own (sub_ns). */
#define HP_FRAME_DETACHED 2u
/* Starts made above the frame while instrumentation was disabled, not yet matched by a stop
 * (probe.c, hyprof_disable_instrumentation), counted in the high bits of its flags: a field of its
 * own would make hp_frame 136 bytes instead of 128, and every frame index a multiply. */
#define HP_FRAME_SKIP_ONE (1u << 8)
#define HP_FRAME_SKIPPED (~(HP_FRAME_SKIP_ONE - 1u))

#define HP_NO_EVENT UINT32_MAX

typedef struct hp_user_stat {
  uint32_t event;
  uint32_t used;
  uint64_t count;
  double min, max, sum, sumsqr;
} hp_user_stat;

typedef struct hp_thread {
  volatile sig_atomic_t in_tool;   /* non-zero while inside a probe or the runtime */
  volatile int32_t top;            /* index of the innermost frame; 0 is the root frame */
  uint64_t detached_ns;            /* inclusive time of the detached frames closed so far */
  uint32_t seq;                    /* odd while the thread writes its frames or statistics (HP_PUT) */
  /* The context stack: HP_MAX_FRAMES frames while the thread runs, a separate allocation so that an
   * ended thread keeps only its open frames (frame_cap of them: thread.c, compaction). A push above
   * frame_cap on an ended thread (a probe in a later thread-exit destructor) makes it whole again.
   * Published before top is raised above the old capacity: a reader loads top, then frames. */
  hp_frame *volatile frames;
  int32_t frame_cap;               /* atomic: a dump reads it to bound frames (thread.c, resize_frames) */
  uint32_t compacted;              /* 1 once its end released what only a running thread needs */
  uint64_t kept_bytes;             /* an ended thread: the memory its state keeps (thread.c) */
  uint64_t overflow_depth;         /* frames pushed beyond HP_MAX_FRAMES and not yet popped */

  hp_stat_table *volatile stats;
  uint32_t n_stats;                /* contexts in stats: for readers that are not dumps (exec.c),
                                      which must not load another thread's table (stats.c) */
  hp_user_stat *user_stats;        /* indexed by user event id, grown like stats */
  uint32_t user_capacity;
  uint32_t user_seq;               /* odd while the thread writes a user statistic (userevent.c) */
  hp_user_stat *user_retired[16];  /* tables user_stats replaced (capacity doubles from 16 up to
                                      65,536 events): kept, and reachable like stats' */

  uint32_t index;                  /* 0.. in order of first appearance */
  pid_t tid;
  char name[64];
  char born_comm[16];              /* the OS name the thread had when its state was made (inherited) */
  uint64_t start_ns, stop_ns;      /* CLOCK_REALTIME */
  uint64_t sched_run_ns, sched_wait_ns; /* the scheduler's account at the thread's end (schedstat.c) */
  uint64_t sched_run0_ns, sched_wait0_ns; /* and when it was first measured, taken off */
  uint64_t stop_mono_ns;           /* CLOCK_MONOTONIC when the thread ended: open timers close then */
  int ended;
  uintptr_t entry_stack_addr;      /* stack pointer at the thread's entry (main / start routine) */

  uint64_t drops_depth;            /* starts beyond HP_MAX_FRAMES */
  uint64_t drops_alloc;            /* statistics lost because memory could not be had */
  uint32_t n_warnings;
  uint64_t warnings_not_kept;
  char *warnings[HP_MAX_WARNINGS];

  /* One pointer per module slot (module.h), owned by that module: its data for this thread, or NULL.
   * A fixed index, so a module's signal handler reaches its data in one load. */
  void *module_data[HP_MODULE_SLOTS];
  /* probe.c: name -> event cache of start_named / stop_named, read and written by this thread only;
   * released at its end (NULL then: names are looked up without it). */
  struct hp_name_cache *name_cache;
  /* metrics.c, used only when several metrics are measured (HYPROF_METRICS): per frame the extra
   * metrics' start and child values, the thread's perf group, the values at the thread's end. */
  struct hp_mframe *mframes;
  /* trace.c: the thread's trace buffer (HYPROF_TRACE), NULL when the run records no trace. */
  struct hp_trace_buf *trace;
  int perf_fd;                     /* the group's leader, -1 when none */
  int perf_fds[HP_MAX_METRICS];
  uint64_t m_end[HP_MAX_METRICS];
  struct hp_fold_thread *volatile fold; /* fold.c: this thread's fold records, NULL when not folding */
  struct hp_thread *next;          /* registry list, newest first */
} hp_thread;

/* An ended thread's state keeps what the dump writes and releases the rest (thread.c). Memory a dump
 * may still be reading is retired: taken a record first (NULL when none could be had: keep the old
 * memory then), replace the pointers to it, then hand it over; it is released (`release(p, len)`,
 * or free(p) when release is NULL) once no dump that could have read it runs. A record not used
 * goes back with free(). Not async-signal-safe. */
struct hp_retired *hp_thread_retire_record(void);
void hp_thread_retire(struct hp_retired *r, void *p, size_t len, void (*release)(void *p, size_t len));
/* Release what was retired, when no dump is running (else it waits for a later call): at a thread's
 * end, and after a flush (not in a signal handler). */
void hp_thread_release_retired(void);

/* A push above an ended thread's kept frames (thread.h, frames): give it HP_MAX_FRAMES again.
 * Returns 0 when it already has them or memory could not be had. */
int hp_thread_frames_regrow(hp_thread *t);

/* The calling thread's state (thread.c). initial-exec: reading it is one instruction, safe in a
 * signal handler (no __tls_get_addr). */
extern __thread hp_thread *hp_tls_thread __attribute__((tls_model("initial-exec")));

/* The start routine the calling thread was created with (intercept.c's pthread_create), NULL for the
 * main thread and for threads created before the runtime was loaded. Set by the thread itself before
 * its state exists, so modules' thread_start see it (sampling tells runtime service threads apart
 * by it: native/sample/service.c). */
extern __thread void *hp_tls_start_routine __attribute__((tls_model("initial-exec")));

/* Create the calling thread's state; entry_stack_addr as in hp_thread (0 = unknown). */
hp_thread *hp_thread_create(uintptr_t entry_stack_addr);
/* The calling thread's state, created on first use (not async-signal-safe). Inline: every probe
 * starts with it. */
static inline hp_thread *hp_thread_self(void) {
  hp_thread *t = hp_tls_thread;
  return __builtin_expect(t != 0, 1) ? t : hp_thread_create(0);
}
/* The calling thread's state or NULL; async-signal-safe (one initial-exec TLS read). */
hp_thread *hp_thread_current(void);
/* First thread of the registry (newest first); walk with ->next. */
hp_thread *hp_thread_list(void);
/* dump.c: during a dump, the threads it wrote THREAD sections for (the list's head when that pass
 * began; threads started since are pushed before it and left out). Per-thread sections written after
 * that pass (samples, folds, trace buffers) walk this list, so none names a thread the file lacks. */
hp_thread *hp_dump_thread_list(void);

/* Frames and statistics are written by their thread only, and read meanwhile by a dump on another
 * thread (hyprof_flush, the exit dump while threads run). The owner brackets each change with its
 * `seq` (odd while it writes: hp_write_begin / hp_write_end) and writes every field a dump reads with
 * HP_PUT (a release store: a plain store on x86, none seen before the odd seq); the dump reads them
 * with HP_GET and takes one moment's values, reading again while seq is odd or moved (dump.c), as
 * user events do (userevent.c). The owner reads its own fields plainly. No fence: ThreadSanitizer
 * cannot follow one. */
#define HP_PUT(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELEASE)
#define HP_ADD(field, v) HP_PUT(field, (field) + (v))
#define HP_GET(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)
static inline uint32_t hp_write_begin(hp_thread *t) {
  uint32_t seq = t->seq;
  __atomic_store_n(&t->seq, seq + 1, __ATOMIC_RELAXED);
  return seq;
}
static inline void hp_write_end(hp_thread *t, uint32_t seq) { __atomic_store_n(&t->seq, seq + 2, __ATOMIC_RELEASE); }

/* Mark entry to / exit from runtime code, so that a sample landing in between is dropped. */
static inline void hp_tool_enter(hp_thread *t) {
  t->in_tool = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void hp_tool_leave(hp_thread *t) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t->in_tool = 0;
}

/* "/proc/self/task/<tid>/<leaf>", built without snprintf (async-signal-safe); thread.c. */
void hp_task_file_path(pid_t tid, const char *leaf, char path[64]);

/* schedstat.c: the scheduler's account of the measured threads (run time, run-queue wait). */
void hp_schedstat_thread_start(hp_thread *t);
void hp_schedstat_thread_end(hp_thread *t);
void hp_schedstat_add_metadata(void);
void hp_schedstat_process_start(void);
void hp_schedstat_idle_start(void);

#endif
