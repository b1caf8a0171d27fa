/* The OpenMP tool's internal state: construct kinds, the per-thread tool state, and what each file of
 * native/ompt provides to the others.
 *
 * Everything an event touches is per thread (PLATFORM-FACTS: shared atomic counters slowed a
 * fine-grained task benchmark by up to 85%). Shared state is written only at rare moments (a new
 * construct address, a new maximum team size) or at sample rate (the lock-wait blame table). */
#ifndef HP_OMPT_INT_H
#define HP_OMPT_INT_H

#include <stdint.h>

#include "../core/thread.h"
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

enum hp_omp_level { HP_OMP_OFF = 0, HP_OMP_BASIC = 1, HP_OMP_FULL = 2 };

#define HP_OMP_STACK 192      /* OpenMP frames pushed by the tool per thread (tied tasks nest at taskwaits) */
#define HP_OMP_LEVELS 16      /* nested parallel regions per thread */
#define HP_OMP_BLAME 2048     /* contexts with samples per thread (power of two) */
#define HP_OMP_REGIONS 128    /* distinct parallel regions per thread */
#define HP_OMP_TASKS 256      /* distinct task constructs per thread */
#define HP_OMP_RELEASES 128   /* distinct lock release sites per thread */
#define HP_OMP_MAX_THREADS 512
#define HP_OMP_HIST 40        /* log2 buckets of task durations (ns), up to about 18 minutes */

/* A parallel region as its encountering thread opened it; workers find it through parallel_data. */
typedef struct hp_omp_par {
  uint64_t parent_context;   /* encountering thread's context at parallel begin */
  uint32_t event;            /* the region's event */
  uint32_t pad;
  uint64_t begin_ns;
  uint64_t end_ns;           /* when the last region opened in this slot ended */
  const void *codeptr;
} hp_omp_par;

/* An implicit task running on this thread. */
typedef struct hp_omp_itask {
  uint32_t region_event;
  uint32_t pushed;           /* 1 when this thread pushed the region frame (workers) */
  uint64_t begin_ns;
  uint64_t par_begin_ns;
  const void *region_codeptr;
  const hp_omp_par *par;     /* the encountering thread's record (its slot may be reused later) */
} hp_omp_itask;

/* Per context: the sample-based metrics of seed 000 (values in ns of sampled time). */
typedef struct hp_omp_blame {
  uint64_t context;          /* 0 = empty slot */
  uint64_t samples;
  uint64_t work_ns, idle_ns, overhead_ns, lockwait_ns, other_ns;
  double work_per_working;   /* sum over work samples of value / working threads at the sample */
  uint64_t lock_blame_ns;    /* lock waiting of others, handed over when this thread released */
} hp_omp_blame;

/* Per parallel region: execution and the overhead classes of seed 001 (ns). */
typedef struct hp_omp_region {
  uint32_t event;            /* UINT32_MAX = empty */
  uint32_t pad;
  uint64_t count, exec_ns, sync_ns, imbalance_ns, limpar_ns, mgmt_ns;
} hp_omp_region;

/* Per task construct (seed 003). */
typedef struct hp_omp_taskstat {
  uint32_t event;            /* UINT32_MAX = empty */
  uint32_t pad;
  uint64_t created, executed, sum_ns, max_ns, min_ns;
  uint64_t hist[HP_OMP_HIST];  /* instances by duration: bucket b holds [2^b, 2^(b+1)) ns */
} hp_omp_taskstat;

typedef struct hp_omp_release {
  const void *codeptr;
  uint64_t blame_ns;
  uint64_t count;
} hp_omp_release;

/* A task instance, allocated at task_create and freed when it completes. */
typedef struct hp_omp_task {
  uint64_t parent_context;   /* creator's context at creation: the task runs under it */
  uint32_t event;
  uint32_t on_stack;         /* 1 while its frame is on some thread's stack */
  uint64_t run_ns;           /* running time so far (suspensions excluded) */
  uint64_t child_ns;         /* time of children inside its running intervals */
  uint64_t resumed_ns;       /* start of the current running interval */
  uint64_t suspended_ns;     /* start of the current suspension (task still on the stack) */
  uint64_t susp_total_ns;    /* suspended while on the stack (a tied task at a taskwait) */
  uint64_t frame_start_ns;
  hp_thread *thread;         /* thread whose stack holds its frame */
  struct hp_omp_task *next_free;
} hp_omp_task;

typedef struct hp_omp_thread {
  hp_thread *t;
  uint32_t index;            /* slot in the working-flag array */
  int kind;                  /* ompt_thread_t */
  /* OpenMP frames pushed by the tool, innermost last: pop what was pushed, whatever codeptr the end
   * event carries (workers get NULL at some ends). */
  uint32_t stack[HP_OMP_STACK];
  uint8_t stack_kind[HP_OMP_STACK];
  int32_t depth;
  uint64_t overflow;
  hp_omp_par pars[HP_OMP_LEVELS];     /* regions this thread encountered, innermost last */
  int32_t npars;
  hp_omp_itask itasks[HP_OMP_LEVELS]; /* implicit tasks this thread runs, innermost last */
  int32_t nitasks;
  uint64_t itask_end_ns;              /* master: when its implicit task ended (join overhead) */
  int last_work;                      /* kind of the last work-sharing construct ended (barrier class) */
  /* waits */
  uint64_t wait_begin_ns, wait_task_ns_at_begin;
  int wait_kind;
  int in_wait;                        /* inside a sync_region_wait (barrier, taskwait, taskgroup) */
  volatile uint64_t mutex_wait_id;    /* the lock this thread waits for (read by its own handler) */
  uint64_t mutex_begin_ns;
  int mutex_kind;
  const void *mutex_codeptr;          /* where the innermost mutex was acquired (releases may carry none) */
  /* tasks */
  uint64_t task_ns;                   /* explicit task time executed on this thread */
  uint64_t last_sched_ns;             /* last task completion / switch-out (dispatch gaps) */
  int in_runtime;                     /* 1 between a completion/switch-out and the next schedule */
  uint64_t dispatch_ns, dispatch_count, starve_ns;
  /* Task records freed on this thread, reused by its next task_create: no malloc / free per task
   * (a record created on one thread and completed on another simply changes lists). */
  hp_omp_task *free_tasks;
  /* tables written at events (and blame from this thread's own handler) */
  hp_omp_blame blame[HP_OMP_BLAME];
  uint64_t blame_full;
  hp_omp_region regions[HP_OMP_REGIONS];
  hp_omp_taskstat tasks[HP_OMP_TASKS];
  hp_omp_release releases[HP_OMP_RELEASES];
  uint64_t table_full;
  /* (kind, codeptr) -> event cache, so events are interned without the registry lock */
  struct { const void *codeptr; uint32_t kind, event; } cache[256];
  struct hp_omp_thread *next;
} hp_omp_thread;

/* Working flags, one cache line per thread: written only by its thread, read by samples. */
typedef struct { volatile int32_t working; int32_t used; char pad[56]; } hp_omp_flag;
extern hp_omp_flag hp_omp_flags[HP_OMP_MAX_THREADS];

extern int hp_omp_level;
extern int hp_omp_active;            /* the runtime called initialize */
extern ompt_get_state_t hp_omp_get_state;
extern volatile uint32_t hp_omp_max_team;  /* most threads in use at once */
extern volatile uint32_t hp_omp_in_use;
extern char hp_omp_runtime[128];
extern uint32_t hp_omp_nflags;       /* working-flag slots handed out so far */

/* tool.c */
hp_omp_thread *hp_omp_self(void);                 /* creates on first use (not signal-safe) */
hp_omp_thread *hp_omp_current(void);              /* signal-safe; may be NULL */
hp_omp_thread *hp_omp_thread_list(void);

/* construct.c: the event of (kind, codeptr), interned once per process. */
uint32_t hp_omp_event(hp_omp_thread *o, int kind, const void *codeptr);
/* Where the OpenMP runtime's code is (any address in it), for hp_omp_event's call-site search. */
void hp_omp_note_runtime(const void *in_runtime);
/* True for an address inside the OpenMP runtime (a code address that names the runtime, not the
 * program). */
int hp_omp_in_runtime(const void *codeptr);
void hp_omp_push(hp_omp_thread *o, int kind, uint32_t event, uint64_t parent_context, uint32_t flags);
/* Pop the innermost frame the tool pushed for `kind` (and any tool frame above it). Returns its event
 * or HP_NO_EVENT when none is open. */
uint32_t hp_omp_pop_kind(hp_omp_thread *o, int kind);
hp_omp_region *hp_omp_region_stat(hp_omp_thread *o, uint32_t event);
hp_omp_taskstat *hp_omp_task_stat(hp_omp_thread *o, uint32_t event);
uint32_t hp_omp_codeptr_count(void);
void hp_omp_codeptr_get(uint32_t i, uint32_t *event, uint32_t *kind, uint64_t *codeptr);

/* callbacks.c / tasks.c: register with the runtime. */
void hp_omp_register_basic(ompt_set_callback_t set);
void hp_omp_register_full(ompt_set_callback_t set);
void hp_omp_register_tasks(ompt_set_callback_t set);

/* write.c: the OMPT section, when an OpenMP runtime started the tool. Async-signal-safe. */
void hp_ompt_write_sections(hp_buf *b);

/* blame.c */
void hp_omp_set_working(hp_omp_thread *o, int working);
void hp_omp_release_blame(hp_omp_thread *o, uint64_t wait_id, const void *codeptr);
uint32_t hp_omp_sample(hp_thread *t, uint64_t context, uint64_t value_ns);
uint64_t hp_omp_unreleased_wait_ns(void);
extern volatile uint64_t hp_omp_wait_table_full;

#endif
