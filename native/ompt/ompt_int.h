/* The OpenMP tool's internal state: construct kinds, the per-thread tool state, and what each file of
 * native/ompt provides to the others.
 *
 * Everything an event touches is per thread (PLATFORM-FACTS: shared atomic counters slowed a
 * fine-grained task benchmark by up to 85%). Shared state is written only at rare moments (a new
 * construct address, a new maximum team size) or at sample rate (the lock-wait blame table). */
#ifndef HP_OMPT_INT_H
#define HP_OMPT_INT_H

#include <stdint.h>

#include "../core/events.h"
#include "../core/thread.h"
#include "../core/throttle.h"
#include "../core/trace.h"
#include "../core/writer.h"
#include "ompt.h"
#include "ompt_abi.h"

/* Section tag of the OpenMP tool's data (docs/raw-format.md, "9 OMPT"). */
#define HP_SEC_OMPT 9u

/* Construct kinds: the number written in the OMPT section; the TypeScript side names them
 * (src/analysis/openmp-raw.ts keeps the same table). */
enum hp_omp_kind {
  HP_OMP_PARALLEL = 0,
  HP_OMP_LOOP = 1,
  HP_OMP_SECTIONS = 2,
  HP_OMP_SINGLE_EXECUTOR = 3,
  HP_OMP_SINGLE_OTHER = 4,
  HP_OMP_WORKSHARE = 5,
  HP_OMP_DISTRIBUTE = 6,
  HP_OMP_TASKLOOP = 7,
  HP_OMP_MASKED = 8,
  HP_OMP_BARRIER_IMPLICIT = 9,
  HP_OMP_BARRIER_EXPLICIT = 10,
  HP_OMP_BARRIER_IMPLEMENTATION = 11,
  HP_OMP_TASKWAIT = 12,
  HP_OMP_TASKGROUP = 13,
  HP_OMP_REDUCTION = 14,
  HP_OMP_TASK = 15,
  HP_OMP_WAIT_LOCK = 16,
  HP_OMP_WAIT_CRITICAL = 17,
  HP_OMP_WAIT_ORDERED = 18,
  HP_OMP_WAIT_NEST_LOCK = 19,
  HP_OMP_CRITICAL = 20,
  HP_OMP_LOCK = 21,
  HP_OMP_ORDERED = 22,
  HP_OMP_NEST_LOCK = 23,
  HP_OMP_NKINDS
};

/* basic: regions, implicit tasks, work-sharing, masked, barriers (no event per task: samples name
 * tasks); full: also taskwait / taskgroup / reduction regions, mutexes, and each explicit task as a
 * timer (docs/openmp.md, "Control"). */
enum hp_omp_level { HP_OMP_OFF = 0, HP_OMP_BASIC = 1, HP_OMP_FULL = 2 };

/* What a sample's runtime frames are replaced with (placeholder program counters, core/module.h and
 * docs/raw-format.md: HP_PC_PLACEHOLDER | kind). */
enum hp_omp_placeholder {
  HP_PH_IDLE = 1,         /* <OpenMP idle>: a worker in the pool between parallel regions */
  HP_PH_BARRIER = 2,      /* <OpenMP barrier wait> */
  HP_PH_TASKWAIT = 3,     /* <OpenMP taskwait>: waiting in a taskwait or taskgroup */
  HP_PH_LOCK = 4,         /* <OpenMP lock wait>: lock, critical, ordered, atomic */
  HP_PH_OVERHEAD = 5,     /* <OpenMP overhead>: the runtime's own work (fork, join, scheduling) */
  HP_PH_TASK = 6,         /* <OpenMP task>: an explicit task starts here (after its creation site) */
  HP_PH_DISPATCH = 7,     /* <OpenMP task dispatch>: the runtime starting or ending a task */
  HP_PH_TASK_CREATE = 8,  /* <OpenMP task creation> */
};

#define HP_OMP_STACK 192      /* OpenMP frames pushed by the tool per thread (tied tasks nest at taskwaits) */
#define HP_OMP_LEVELS 16      /* nested parallel regions per thread */
#define HP_OMP_WAITS 64       /* nested waits per thread (taskwaits of tasks run in taskwaits) */
#define HP_OMP_BLAME 2048     /* contexts with samples per thread (power of two) */
#define HP_OMP_REGIONS 128    /* distinct parallel regions per thread */
#define HP_OMP_TASKS 64       /* distinct task constructs per thread */
#define HP_OMP_RELEASES 128   /* distinct lock release sites per thread */
#define HP_OMP_MAX_THREADS 512
/* Task durations (ns) in a log-linear histogram: values below 8 have a bucket each, then every
 * power of two is split into 8 buckets (12.5% wide), up to 2^40 ns (about 18 minutes). A quantile is
 * interpolated inside its bucket (src/analysis/openmp-stats.ts). */
#define HP_OMP_HIST_SUB 8
#define HP_OMP_HIST 304

static inline uint32_t hp_omp_hist_bucket(uint64_t ns) {
  if (ns < HP_OMP_HIST_SUB) return (uint32_t)ns;
  uint32_t b = 63u - (uint32_t)__builtin_clzll(ns); /* >= 3 */
  uint32_t i = ((b - 2u) << 3) + (uint32_t)((ns >> (b - 3u)) & 7u);
  return i < HP_OMP_HIST ? i : HP_OMP_HIST - 1;
}

/* A frame the tool pushed on the core's stack. */
typedef struct hp_omp_frame {
  uint32_t event;
  uint8_t kind;              /* enum hp_omp_kind */
  int32_t level;             /* its level in the core's stack */
} hp_omp_frame;

/* A parallel region as its encountering thread opened it; workers find it through parallel_data. */
typedef struct hp_omp_par {
  uint64_t parent_context;   /* encountering thread's context at parallel begin */
  uint32_t event;            /* the region's event */
  int32_t level;             /* the region's frame in the encountering thread's stack */
  uintptr_t fork_stop;       /* where its samples stop unwinding outside the implicit task */
  uint64_t begin_ns;
  uint64_t end_ns;           /* when the last region opened in this slot ended */
  const void *codeptr;
  uint64_t team;             /* its team instance in the trace (core/trace.h, HP_TREC_OMP_*) */
} hp_omp_par;

/* An implicit task running on this thread. */
typedef struct hp_omp_itask {
  uint32_t region_event;
  uint32_t pushed;           /* 1 when this thread pushed the region frame (workers) */
  int32_t level;             /* the region's frame in this thread's stack, -1 when none */
  uint32_t rank;             /* this thread's number in the team */
  uint64_t begin_ns;
  uint64_t par_begin_ns;
  uint64_t team;             /* the team instance (trace), copied: the encountering slot is reused */
  const void *region_codeptr;
  const hp_omp_par *par;     /* the encountering thread's record (its slot may be reused later) */
  struct hp_omp_region *stat; /* this thread's statistics of the region (NULL: none), looked up once */
} hp_omp_itask;

/* Per context: the sample-based metrics of seed 000, in ns of sampled time and in samples. A wall-clock
 * sample's value holds the time its thread waited to run, so on a loaded machine the values grow where
 * threads were preempted; the counts grow only while they run (the analysis judges by the counts). */
typedef struct hp_omp_blame {
  uint64_t context;          /* 0 = empty slot */
  uint64_t samples;
  uint64_t work_ns, idle_ns, overhead_ns, lockwait_ns, other_ns;
  double work_per_working;   /* sum over work samples of value / working threads at the sample */
  uint64_t lock_blame_ns;    /* lock waiting of others, handed over when this thread released */
  uint64_t work_samples, overhead_samples;
  double per_working;        /* sum over work samples of 1 / working threads at the sample */
  uint64_t lock_blame_samples;
} hp_omp_blame;

/* Per parallel region: execution and the overhead classes of seed 001 (ns). */
typedef struct hp_omp_region {
  uint32_t event;            /* UINT32_MAX = empty */
  uint32_t pad;
  uint64_t count, exec_ns, sync_ns, imbalance_ns, limpar_ns, mgmt_ns;
} hp_omp_region;

/* Per task construct (seed 003): instances created here and executed here, their durations. */
typedef struct hp_omp_taskstat {
  uint32_t event;            /* UINT32_MAX = empty */
  uint32_t pad;
  uint64_t created, executed, sum_ns, max_ns, min_ns;
  uint64_t spawned;          /* tasks created by its instances run here (a generator's many) */
  double sum_sq;             /* sum of squared durations in us^2 (the spread) */
  uint64_t hist[HP_OMP_HIST];
} hp_omp_taskstat;

typedef struct hp_omp_release {
  const void *codeptr;
  uint64_t blame_ns;
  uint64_t count;
} hp_omp_release;

/* A task instance (level full), allocated at task_create and freed when it completes. */
typedef struct hp_omp_task {
  uint64_t parent_context;   /* the task runs under it: its creator's context at creation */
  uint32_t event;
  const struct hp_event *ev; /* the event's record (its throttled flag) */
  int32_t level;             /* its frame's level on `thread`'s stack; -1 before its first run */
  uint8_t untimed;           /* run without a frame: its timer was throttled (HP_OMP_UNTIMED) */
  hp_thread *thread;         /* thread whose stack holds its frame */
  /* Its first run's start, and this thread's task time and untimed task time then: an untimed task's
   * own time leaves out the tasks run meanwhile, as a frame's does; a timed one's statistics leave
   * out the untimed tasks run inside it, which have no frame to suspend it (tasks.c, finish). */
  uint64_t start_ns, task_ns_at_start, untimed_ns_at_start;
  struct hp_omp_taskstat *stat;  /* its construct's statistics on stat_owner's thread */
  const struct hp_omp_thread *stat_owner; /* the creator's until its first run, then the runner's */
  struct hp_omp_task *next_free;
  uint64_t team;             /* its identity in the trace: team instance, creator's number in the */
  uint32_t creator_rank, gen;/* team, creator's count of tasks created (otrace.c) */
} hp_omp_task;

/* (kind, code address) -> event, per thread, so events are interned without the registry lock; task
 * constructs also keep this thread's statistics record. */
typedef struct hp_omp_cached {
  const void *codeptr;
  uint32_t kind;
  uint32_t event1;           /* event + 1; 0 = empty */
  hp_omp_taskstat *task;
  const struct hp_event *ev; /* the event (its throttled flag: HP_OMP_UNTIMED) */
} hp_omp_cached;

typedef struct hp_omp_thread {
  hp_thread *t;
  uint32_t index;            /* slot in the working-flag array */
  volatile int32_t *working; /* its flag there (working_spare beyond the array): hp_omp_set_working */
  int32_t working_spare;
  int kind;                  /* ompt_thread_t */
  /* OpenMP frames pushed by the tool, innermost last: pop what was pushed, whatever codeptr the end
   * event carries (workers get NULL at some ends). */
  hp_omp_frame stack[HP_OMP_STACK];
  int32_t depth;
  uint64_t overflow;
  hp_omp_par pars[HP_OMP_LEVELS];     /* regions this thread encountered, innermost last */
  int32_t npars;
  hp_omp_itask itasks[HP_OMP_LEVELS]; /* implicit tasks this thread runs, innermost last */
  int32_t nitasks;
  int32_t itask_overflow;             /* implicit tasks begun beyond itasks (not followed; their ends skip) */
  uint64_t itask_end_ns;              /* master: when its implicit task ended (join overhead) */
  int last_work;                      /* kind of the last work-sharing construct ended (barrier class) */
  const void *taskloop_codeptr;       /* the taskloop running here: its tasks are named after it */
  /* waits */
  /* waits (sync_region_wait), innermost last: a task run in a taskwait may wait in its own */
  struct {
    uint64_t begin_ns, task_ns_at_begin;
    int kind;
  } waits[HP_OMP_WAITS];
  volatile int32_t in_wait;           /* waits open, read by this thread's samples */
  int32_t wait_overflow;
  volatile uint64_t mutex_wait_id;    /* the lock this thread waits for (read by its own handler) */
  uint64_t mutex_begin_ns;
  int mutex_kind;
  const void *mutex_codeptr;          /* where the innermost mutex was acquired (releases may carry none) */
  /* tasks (full) */
  uint64_t task_ns;                   /* explicit task time executed on this thread (level full) */
  uint64_t untimed_ns;                /* the part of it in untimed tasks (HP_OMP_UNTIMED) */
  uint64_t last_sched_ns;             /* last task completion / switch-out (dispatch gaps) */
  int in_runtime;                     /* 1 between a completion/switch-out and the next schedule */
  uint64_t dispatch_ns, dispatch_count, starve_ns;
  /* Task records freed on this thread, reused by its next task_create: no malloc / free per task
   * (a record created on one thread and completed on another simply changes lists). */
  hp_omp_task *free_tasks;
  uint64_t anchor_context;            /* the last task anchor found (tasks.c, anchor_of) */
  int32_t anchor_level, anchor_region;
  /* tables written at events (and blame from this thread's own handler) */
  hp_omp_blame blame[HP_OMP_BLAME];
  uint64_t blame_full;
  hp_omp_region regions[HP_OMP_REGIONS];
  hp_omp_taskstat tasks[HP_OMP_TASKS];
  hp_omp_release releases[HP_OMP_RELEASES];
  uint64_t table_full;
  hp_omp_cached cache[256];
  /* What the sample hook's first call found for its second (stitch.c; this thread's handler only). */
  struct {
    int state, task_flags;
    int task_framed;         /* the current task is an explicit task with a frame of its own */
    uint64_t wait_id;
    uintptr_t exit_cfa, enter_cfa;
  } smp;
  /* the trace's numbering (otrace.c): parallel regions this thread encountered, tasks it created */
  uint32_t team_seq, task_gen;
  struct hp_omp_thread *next;
} hp_omp_thread;

/* Working flags, one cache line per thread: written only by its thread, read by samples. */
typedef struct { volatile int32_t working; int32_t used; char pad[56]; } hp_omp_flag;
extern hp_omp_flag hp_omp_flags[HP_OMP_MAX_THREADS];

extern int hp_omp_level;
extern int hp_omp_active;            /* the runtime called initialize */
extern int hp_omp_finalized;         /* and then finalize: its entry points may no longer be called */
extern ompt_get_state_t hp_omp_get_state;
extern ompt_get_task_info_t hp_omp_get_task_info;
extern volatile uint32_t hp_omp_max_team;  /* most threads in use at once */
extern volatile uint32_t hp_omp_in_use;
extern char hp_omp_runtime[128];
extern uint32_t hp_omp_nflags;       /* working-flag slots handed out so far */
/* The OpenMP runtime's code (its executable segments): code addresses inside are not construct
 * locations, and frames inside are the runtime's. */
extern uintptr_t hp_omp_rt_lo, hp_omp_rt_hi;

static inline int hp_omp_in_runtime_code(const void *pc) {
  return (uintptr_t)pc >= hp_omp_rt_lo && (uintptr_t)pc < hp_omp_rt_hi;
}

/* tool.c */
/* The calling thread's tool state (initial-exec: one instruction to read, so the sample hook can use
 * it in the signal handler). Every callback starts with it: the test is inline. */
extern __thread hp_omp_thread *hp_omp_tls __attribute__((tls_model("initial-exec")));
hp_omp_thread *hp_omp_self_create(void);          /* not signal-safe */
static inline hp_omp_thread *hp_omp_self(void) {  /* creates on first use (not signal-safe) */
  hp_omp_thread *o = hp_omp_tls;
  return __builtin_expect(o != 0, 1) ? o : hp_omp_self_create();
}
hp_omp_thread *hp_omp_current(void);              /* signal-safe; may be NULL */
hp_omp_thread *hp_omp_thread_list(void);

/* construct.c: the event of (kind, codeptr), interned once per process; its cache entry. */
static inline uint32_t hp_omp_cache_slot(int kind, const void *codeptr) {
  return (uint32_t)((((uintptr_t)codeptr >> 2) ^ (uintptr_t)kind * 131u) & 255u);
}
const hp_omp_cached *hp_omp_lookup_slow(hp_omp_thread *o, int kind, const void *codeptr);
/* Inline: once per construct instance, a task's included. */
static inline const hp_omp_cached *hp_omp_lookup(hp_omp_thread *o, int kind, const void *codeptr) {
  const hp_omp_cached *c = &o->cache[hp_omp_cache_slot(kind, codeptr)];
  if (__builtin_expect(c->codeptr == codeptr && c->kind == (uint32_t)kind && c->event1, 1)) return c;
  return hp_omp_lookup_slow(o, kind, codeptr);
}
static inline uint32_t hp_omp_event(hp_omp_thread *o, int kind, const void *codeptr) {
  const hp_omp_cached *c = hp_omp_lookup(o, kind, codeptr);
  return c ? c->event1 - 1 : HP_NO_EVENT;
}
/* Push a frame for `kind` under parent_context; its unwind stop is the frame below's (a construct
 * runs in the code of the frame below it). Returns the core level or -1. */
int32_t hp_omp_push(hp_omp_thread *o, int kind, uint32_t event, uint64_t parent_context);
/* Where this tool's own code and libc's are, for the call-site search of constructs the runtime gives
 * no code address of their own (hp_omp_user_codeptr); the runtime's is hp_omp_rt_lo..hi. */
void hp_omp_note_runtime(void);
/* Pop the innermost frame the tool pushed for `kind` (and any tool frame above it). Returns its event
 * or HP_NO_EVENT when none is open. */
uint32_t hp_omp_pop_kind(hp_omp_thread *o, int kind);

hp_omp_region *hp_omp_region_stat(hp_omp_thread *o, uint32_t event);
hp_omp_taskstat *hp_omp_task_stat(hp_omp_thread *o, uint32_t event);
uint32_t hp_omp_codeptr_count(void);
void hp_omp_codeptr_get(uint32_t i, uint32_t *event, uint32_t *kind, uint64_t *codeptr);
/* A code address to name a construct by: the call into the runtime recorded in `frame`'s enter
 * address, else `codeptr`, else (both missing or inside the runtime: taskloop's tasks, some gcc entry
 * points) the first return address of the stack outside the runtime and hyprof (when `walk`), else
 * `fallback`. */
const void *hp_omp_user_codeptr_slow(const void *codeptr, const void *fallback, int walk);
static inline const void *hp_omp_user_codeptr(const void *codeptr, const ompt_frame_t *frame, const void *fallback, int walk) {
  /* The runtime's entry function set enter_frame to its frame address: the return address above it
   * is the call in the program. Preferred to codeptr, which libomp takes from a per-thread slot that
   * an earlier entry may have left set (a task then named after the parallel region around it).
   * Inline: once per construct instance, each task's creation included. */
  if (frame && frame->enter_frame.ptr && (frame->enter_frame_flags & 0x30) == ompt_frame_framepointer) {
    const void *ra = ((void *const *)frame->enter_frame.ptr)[1];
    if (ra && !hp_omp_in_runtime_code(ra)) return ra;
  }
  if (codeptr && !hp_omp_in_runtime_code(codeptr)) return codeptr;
  return hp_omp_user_codeptr_slow(codeptr, fallback, walk);
}

/* callbacks.c / tasks.c: register with the runtime. */
void hp_omp_register_basic(ompt_set_callback_t set);
void hp_omp_register_full(ompt_set_callback_t set);
void hp_omp_register_tasks(ompt_set_callback_t set);
/* The overhead class of region r a wait of this kind belongs to (seed 001), NULL for none. */
uint64_t *hp_omp_wait_class(const hp_omp_thread *o, hp_omp_region *r, int sync_region_kind);
/* The innermost region frame's level on this thread (0, the root, outside regions). */
static inline int32_t hp_omp_region_level(const hp_omp_thread *o) {
  const hp_omp_itask *it = o->nitasks > 0 ? &o->itasks[o->nitasks - 1] : NULL;
  return it && it->level > 0 ? it->level : 0;
}

/* otrace.c: the OpenMP records of the event trace (HYPROF_TRACE; core/trace.h, HP_TREC_OMP_*), into
 * the calling thread's own buffer: lock-free and allocation-free as the core's records. Each is
 * called only when hp_trace_on is set (hp_omp_tracing: one load and a predicted branch when off). */
#define hp_omp_tracing() __builtin_expect(hp_trace_on, 0)
uint64_t hp_omp_tr_new_team(hp_omp_thread *o);
uint64_t hp_omp_tr_team_of(const hp_omp_thread *o, uint32_t *rank);
void hp_omp_tr_fork(hp_omp_thread *o, uint64_t team, uint32_t requested);
void hp_omp_tr_join(hp_omp_thread *o, uint64_t team);
void hp_omp_tr_team(hp_omp_thread *o, int begin, uint64_t team, uint32_t rank, uint32_t size);
void hp_omp_tr_task(hp_omp_thread *o, uint32_t kind, const hp_omp_task *k);
void hp_omp_tr_lock(hp_omp_thread *o, uint32_t kind, int mutex_kind, uint64_t wait_id);

/* write.c: the OMPT section, when an OpenMP runtime started the tool. Async-signal-safe. */
void hp_ompt_write_sections(hp_buf *b);

/* blame.c */
/* Whether this thread works (samples of the others count working threads): its own flag's line. */
static inline void hp_omp_set_working(hp_omp_thread *o, int working) { *o->working = working; }
void hp_omp_release_blame(hp_omp_thread *o, uint64_t wait_id, const void *codeptr);
uint64_t hp_omp_unreleased_wait_ns(void);
extern volatile uint64_t hp_omp_wait_table_full;
/* What a sample of a thread was doing (seed 000's metrics). */
enum hp_omp_class { HP_CLASS_WORK, HP_CLASS_IDLE, HP_CLASS_OVERHEAD, HP_CLASS_LOCK, HP_CLASS_OTHER };
int hp_omp_class_of_state(int state);
/* Add one sample of o's thread to its blame table (and lock waiting to the wait table). */
void hp_omp_blame_sample(hp_omp_thread *o, uint64_t context, uint64_t value, int cls, uint64_t wait_id);

/* stitch.c: the sample hook (core/module.h): state, blame, and the call path with the runtime's
 * frames replaced by what the thread was doing. Async-signal-safe. */
struct hp_sample_hook;
extern const struct hp_sample_hook hp_omp_sample_hook;
/* At the tool's start: the runtime's code and entry functions whose frames name what a thread does,
 * and the system libraries it calls. */
void hp_omp_stitch_init(const void *in_runtime);
int hp_omp_in_system_code(uint64_t pc);

/* Throttling (TAU's rule, core/throttle.h) of the timers a fine-grained task program opens once per
 * task: explicit tasks and task waits (taskwait, taskgroup). Once a construct's timer is throttled
 * its later instances run without a timer frame (HP_OMP_UNTIMED): their time goes to the frame they
 * run in, as a throttled probe's goes to its caller, while the task statistics (counts, durations,
 * dispatch gaps) and the waits' overhead classes are still kept for every instance. A traced run
 * (HYPROF_TRACE) keeps every task's and wait's Enter and Leave: it is never throttled. */
#define HP_OMP_UNTIMED 0 /* level of a tool frame with no frame in the core's stack (0 is the root's) */
static inline int hp_omp_throttles(int kind) {
  return kind == HP_OMP_TASK || kind == HP_OMP_TASKWAIT || kind == HP_OMP_TASKGROUP;
}
/* Whether an instance of event `e` (a task or task wait) starts untimed: its timer is throttled. */
static inline int hp_omp_untimed(const hp_event *e) { return !hp_omp_tracing() && e && HP_THROTTLED(e); }
/* A tool frame for `kind` without a frame in the core's stack (its timer is throttled): kept so that
 * its end, which pops by kind, pops it and no frame below. */
void hp_omp_push_untimed(hp_omp_thread *o, int kind, uint32_t event);

#endif
