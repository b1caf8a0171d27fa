/* Internal interface between the files of native/sample/: the effective configuration, the
 * per-thread sampling state kept in the module's slot of hp_thread, and the functions each file
 * provides. Nothing here is seen by the core; the core sees only the module table (sample.h).
 */
#ifndef HP_SAMPLE_INT_H
#define HP_SAMPLE_INT_H

#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <link.h>

#include "../core/runtime.h"
#include "../core/thread.h"
#include "../core/writer.h"
#include "sample.h"

/* HP_TSAN: a ThreadSanitizer test build, where the interposers TSan provides itself are left out. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HP_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define HP_TSAN 1
#endif

#define HP_SAMPLE_MAX_DEPTH 256   /* hard cap on kept frames (depth 0 = "auto" stops here too,
                                     counted as unwind_truncated) */

/* The module's slot of hp_thread.module_data: its hp_sample_thread (core/module.h). */
#define HP_SAMPLE_SLOT 0

/* This module's section tags (docs/raw-format.md). */
enum { HP_SEC_SAMPLES = 6, HP_SEC_MAPS = 7, HP_SEC_SAMPLING = 8 };

/* Where samples come from. */
typedef enum {
  HP_SRC_ITIMER_WALL = 0,   /* POSIX timer on CLOCK_MONOTONIC */
  HP_SRC_ITIMER_CPU,        /* POSIX timer on the thread's CPU clock */
  HP_SRC_PERF,              /* perf_event_open overflow (software or hardware event) */
  HP_SRC_PAPI               /* PAPI overflow (only with HYPROF_HAVE_PAPI) */
} hp_src_kind;

typedef enum { HP_UNW_LIBUNWIND = 0, HP_UNW_FP = 1 } hp_unwinder;

typedef struct hp_sample_config {
  int enabled;
  hp_src_kind kind;
  char source[64];          /* the effective source's name as written to the file */
  uint32_t perf_type;       /* for HP_SRC_PERF */
  uint64_t perf_config;
  uint64_t period_us;       /* as configured (event count for counter sources) */
  uint64_t period_ns;       /* written to SAMPLING: timer period in ns, or the event count */
  int thread_cpu;           /* the source runs on the thread's CPU time (itimer-cpu, task-clock, cpu-clock) */
  int unwind;
  uint32_t unwind_depth;    /* 0 = auto (stop rule only, capped at HP_SAMPLE_MAX_DEPTH) */
  hp_unwinder unwinder;
  int signo;
  uint32_t table_entries;   /* sample records per thread */
  uint32_t arena_pcs;       /* program counters per thread (shared by all records) */
  int service_mode;         /* HYPROF_SERVICE_THREADS: HP_SERVICE_* (service.c) */
} hp_sample_config;

/* How runtime service threads are sampled (service.c). */
enum { HP_SERVICE_CPU = 0, HP_SERVICE_WALL = 1, HP_SERVICE_OFF = 2 };
/* What one thread gets (hp_service_thread_clock). */
enum { HP_THREAD_CLOCK_DEFAULT = 0, HP_THREAD_CLOCK_CPU, HP_THREAD_CLOCK_NONE };

extern hp_sample_config hp_scfg;

/* Drop reasons counted per thread. */
enum {
  HP_DROP_IN_TOOL = 0,
  HP_DROP_TABLE_FULL,
  HP_DROP_UNWIND_FAILED,    /* the sample is kept with a partial stack; counted here */
  HP_DROP_TRUNCATED,        /* depth 0 reached the fixed cap before the stop frame (kept) */
  HP_DROP_STOPPED,          /* arrived after sampling was stopped for the dump */
  HP_DROP_NREASONS
};
extern const char *const hp_drop_names[HP_DROP_NREASONS];

/* One distinct {context, callpath} on one thread. */
typedef struct hp_srec {
  uint64_t context;
  uint64_t hash;
  volatile uint64_t count;
  volatile uint64_t value;  /* TIME, ns */
  uint32_t pc_off;          /* index of pc[0] in the thread's arena */
  uint16_t depth;
  uint16_t state;
} hp_srec;

/* The unwind rule of one program counter, when it has the simple form (cfi.c): CFA = rsp or rbp +
 * cfa_off, return address at CFA + ra_off, rbp unchanged or at CFA + rbp_off. One slot of the
 * per-thread table (16 bytes). */
typedef struct hp_cfi_rule {
  uint64_t pc;        /* the key; 0 = empty slot */
  int32_t cfa_off;
  int16_t rbp_off;
  int8_t ra_off;
  uint8_t flags;      /* HP_CFI_*; without HP_CFI_OK the pc is left to libunwind */
} hp_cfi_rule;
#define HP_CFI_OK 1u
#define HP_CFI_CFA_RBP 2u     /* CFA = rbp + cfa_off (else rsp + cfa_off) */
#define HP_CFI_RBP_SAVED 4u   /* the caller's rbp is at CFA + rbp_off (else unchanged) */
#define HP_CFI_END 8u         /* the return address is undefined: the outermost frame */
#define HP_CFI_CHAIN 16u      /* without HP_CFI_OK: no call-frame information for this code (JIT code,
                                 V8's builtins): the frame-pointer chain (unwind.c, chain_step) */
#define HP_CFI_PLT 32u        /* with HP_CFI_OK: a PLT entry's rule, right only where rip is the pc
                                 looked up (the interrupted frame; cfi.c, plt_expression) */
#define HP_CFI_CACHE_BITS 10
#define HP_CFI_CACHE (1u << HP_CFI_CACHE_BITS)   /* slots per thread */

/* The handler's working memory, kept in the thread's mapping rather than on the stack it interrupted
 * (which may be a small alternate signal stack): only this thread's handler uses it, never nested
 * (every asynchronous signal is blocked while it runs). A running thread's only: released at its
 * end (table.c, hp_stable_compact). */
typedef struct hp_sample_work {
  uint64_t pcs[HP_SAMPLE_MAX_DEPTH];
  uint64_t cfas[HP_SAMPLE_MAX_DEPTH];     /* each frame's canonical frame address, 0 = unknown */
  uint64_t unw_cursor[160] __attribute__((aligned(16)));   /* an unw_cursor_t (unwind.c checks) */
  uint64_t cfi_gen;                       /* the maps snapshot cfi_cache was filled under */
  hp_cfi_rule cfi_cache[HP_CFI_CACHE];    /* unwind rules by program counter (cfi.c) */
} hp_sample_work;

/* Per-thread sampling state (the module's slot of hp_thread). Allocated with mmap at thread start,
 * with its work area and tables; an ended thread's is replaced by a compact copy of what the dump
 * writes (table.c, hp_stable_compact). */
typedef struct hp_sample_thread {
  volatile sig_atomic_t active;   /* 1 while the timer is armed and samples should be recorded */
  volatile sig_atomic_t in_handler;
  int have_timer;                 /* taken with an atomic exchange before timer_delete */
  timer_t timer;
  int perf_fd;                    /* -1 when not a perf source (taken with an atomic exchange by
                                     whoever stops it: the thread itself or the dump's stop_all) */
  int perf_fd_last;               /* the last perf descriptor, kept after stopping so a late
                                     overflow signal from it is still recognised as ours */
  int papi_set;                   /* PAPI event set, -1 when none */
  clockid_t cpu_clock;            /* the thread's CPU clock (hp_sample_clock_start) */
  int cpu_time;                   /* samples weigh cpu_clock's time: itimer-cpu, task-clock, cpu-clock,
                                     or a runtime service thread under itimer-wall (service.c), whose
                                     timer then runs on it; set before the source starts */
  uint64_t last_ns;               /* clock reading at the previous sample (or start) */
  uintptr_t stack_lo, stack_hi;   /* the thread's stack, for the frame-pointer walk */

  volatile uint64_t taken;        /* signals that reached this thread for sampling */
  volatile uint64_t drops[HP_DROP_NREASONS];

  /* table: open addressing over `slots` (indexes+1 into recs, 0 = empty) */
  uint32_t n_slots;               /* in use: power of two, >= 2 * n_recs (grows up to max_slots) */
  uint32_t max_slots;             /* power of two, >= 2 * table_entries: the room mapped for slots */
  uint32_t n_recs;
  uint32_t cap_recs;
  uint32_t pcs_used;
  uint32_t cap_pcs;
  uint32_t *slots;
  hp_srec *recs;
  uint64_t *pcs;
  void *mem;                      /* the one mapping holding all of the above */
  size_t mem_len;

  hp_sample_work *work;           /* in the mapping, after this; NULL once the thread ended */
} hp_sample_thread;

/* Thread t's sampling state, NULL when it is not sampled: one load at a fixed offset of the thread
 * state (what the signal handler does on its own thread). */
static inline hp_sample_thread *hp_sample_of(const hp_thread *t) {
  return (hp_sample_thread *)t->module_data[HP_SAMPLE_SLOT];
}
/* The same for another thread's state (a dump, the fork child): pairs with the release store at
 * thread start, so the table is seen initialised. */
static inline hp_sample_thread *hp_sample_of_acquire(const hp_thread *t) {
  return (hp_sample_thread *)__atomic_load_n(&t->module_data[HP_SAMPLE_SLOT], __ATOMIC_ACQUIRE);
}

/* A counter written only by its own thread's handler and read by a dump on another thread: a
 * relaxed load and store (no locked instruction needed, but no torn or racy access either). */
static inline void hp_count(volatile uint64_t *c, uint64_t n) {
  __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}
static inline uint64_t hp_read(const volatile uint64_t *c) { return __atomic_load_n(c, __ATOMIC_RELAXED); }

/* config.c */
void hp_sample_config_read(void);
void hp_sample_config_use_wall(void);   /* after a source could not be opened */
int hp_sample_is_on(void);              /* sample.c: process init succeeded */

/* service.c: runtime service threads. The clock the calling thread t is sampled by (HP_THREAD_CLOCK_*),
 * from its start routine; not in a signal handler. The metadata half is async-signal-safe. */
void hp_service_config_read(void);
int hp_service_thread_clock(const hp_thread *t);
void hp_service_add_metadata(void);

/* write.c: the module's part of the raw file (module.h: add_metadata, write_drops, write_sections) */
void hp_sample_add_metadata(void);
uint32_t hp_sample_write_drops(const hp_thread *t, hp_buf *b);
void hp_sample_write_sections(hp_buf *b);

/* table.c */
hp_sample_thread *hp_stable_new(void);
void hp_stable_clear(hp_sample_thread *st);
/* A thread that ended (its source stopped): a copy of st holding its counters and samples only, in
 * memory of its own (malloc); NULL when none could be had. The size it keeps in *bytes. */
hp_sample_thread *hp_stable_compact(const hp_sample_thread *st, size_t *bytes);
/* Release a mapping made by hp_stable_new (hp_thread_retire's release). */
void hp_stable_unmap(void *mem, size_t len);
/* Add one sample; returns 0, or -1 when the table or arena is full (caller counts the drop). */
int hp_stable_add(hp_sample_thread *st, uint64_t context, const uint64_t *pcs, uint32_t depth,
                  uint64_t value, uint32_t state);

/* timer.c / perfevent.c / papi.c: arm and disarm the source on the calling thread. */
int hp_timer_start(hp_sample_thread *st, pid_t tid);
/* The clock a thread's samples are weighed by, read once as its sampling starts (on the thread
 * itself): its CPU clock when st->cpu_time, else the monotonic clock. */
void hp_sample_clock_start(hp_sample_thread *st);
void hp_timer_stop(hp_sample_thread *st);
int hp_timer_is_ours(const siginfo_t *si);
int hp_perf_open_check(void);        /* can the configured perf event be opened here? errno-style */
int hp_perf_start(hp_sample_thread *st, pid_t tid);
void hp_perf_stop(hp_sample_thread *st);
int hp_papi_init(const char *name, char *why, unsigned whylen);
int hp_papi_start(hp_sample_thread *st);
void hp_papi_stop(hp_sample_thread *st);     /* async-signal-safe: only stops recording */
int hp_papi_resume(hp_sample_thread *st);   /* async-signal-safe: records again after hp_papi_stop (a failed exec) */
void hp_papi_release(hp_sample_thread *st);  /* at thread end: frees the event set */

/* handler.c */
void hp_sample_handler(int sig, siginfo_t *si, void *uc);
/* Record one sample of the calling thread from the interrupted context `uc` (also PAPI's callback). */
void hp_sample_take(void *uc);
/* Samples that arrived on a thread without hyprof state (process-wide). */
extern volatile uint64_t hp_drops_no_thread_state;

/* unwind.c */
void hp_unwind_init(void);
/* Fill pcs (pc[0] = interrupted PC) following the stop rule, and cfas with each frame's canonical
 * frame address (0 where unknown); returns depth; sets *failed when the unwinder gave up before the
 * stop frame, *truncated when the fixed cap was hit. */
uint32_t hp_unwind(void *uc, uintptr_t stack_addr, hp_sample_thread *st, uint64_t *pcs, uint64_t *cfas,
                   int *failed, int *truncated);

/* cfi.c, async-signal-safe, inside hp_maps_reader_enter / _leave. Before an unwind: 1 when the
 * table may be used (it is emptied if the loaded objects changed since it was filled), 0 when not
 * (no snapshot, a dlclose under way). */
int hp_cfi_prepare(hp_sample_thread *st);
/* Compute the rule of pc into its slot (without HP_CFI_OK when libunwind must unwind the frame). */
void hp_cfi_fill(uintptr_t pc, hp_cfi_rule *slot);

/* The rule of pc from the thread's table, computed on a miss. */
static inline const hp_cfi_rule *hp_cfi_lookup(hp_sample_thread *st, uintptr_t pc) {
  hp_cfi_rule *slot = &st->work->cfi_cache[((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> (64 - HP_CFI_CACHE_BITS)];
  if (__builtin_expect(slot->pc != pc, 0)) hp_cfi_fill(pc, slot);
  return slot;
}

/* maps.c */
void hp_maps_snapshot(void);           /* not async-signal-safe: take outside handlers */
/* Retake the snapshot when objects were loaded or unloaded since it was taken (cheap otherwise: one
 * step of dl_iterate_phdr). NOT async-signal-safe: at thread start and before a dump at exit or at a
 * flush; calls of dl_iterate_phdr outside our handler refresh it too. */
void hp_maps_refresh(void);
int hp_maps_is_startup(uintptr_t pc);  /* async-signal-safe */
int hp_maps_is_self(uintptr_t pc);     /* in hyprof's own code; async-signal-safe */
void hp_maps_write(hp_buf *b);         /* async-signal-safe */
void hp_maps_hooks_init(void);
/* Async-signal-safe, around every use of the snapshot (an unwind in the handler; is_self and
 * write take it themselves): no snapshot is unmapped, nor a module by dlclose, while one is inside. */
void hp_maps_reader_enter(void);
void hp_maps_reader_leave(void);
void hp_maps_fork_child(void);         /* the child's reader count starts at 0 */
/* The loaded object containing address a in the current snapshot, or NULL (async-signal-safe). */
const struct dl_phdr_info *hp_maps_object_of(uintptr_t a);
/* The same for the code a thread is about to run (a start routine), also while a dlclose is under
 * way: that code's object is mapped and stays so (maps.c). Inside hp_maps_reader_enter/leave. */
const struct dl_phdr_info *hp_maps_object_of_running(uintptr_t a);
/* The current snapshot's generation (it changes whenever objects were loaded or unloaded), or 0
 * when there is none or a dlclose is under way (async-signal-safe). */
uint64_t hp_maps_generation(void);
/* For the interposed dl_iterate_phdr inside our handler: iterate the snapshot. */
int hp_maps_iterate_snapshot(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data);

/* moved.c: executable file mappings of /proc/self/maps that `keep` accepts (async-signal-safe). */
#define HP_MOVED_PATH 512
typedef struct {
  uint64_t start, end, offset;
  char path[HP_MOVED_PATH];
} hp_moved_map;
uint32_t hp_moved_read(hp_moved_map *out, uint32_t max, int (*keep)(uint64_t start, uint64_t end));

/* node.c: in a Node process (hp_node_process, core/runtime.h), create V8's perf map privately before
 * V8 does, when it is asked for one. Not for signal handlers. */
void hp_node_prepare_perf_map(void);

/* sigchain.c */
void hp_sigchain_init(void);
/* Install our handler for hp_scfg.signo through the real sigaction. */
int hp_sigchain_install(void);
/* Hand a signal that is not ours to the program's handler (or its default action). */
void hp_sigchain_forward(int sig, siginfo_t *si, void *uc);
/* 1 once our handler owns the sampling signal (and the program's other handlers are wrapped). */
int hp_sigchain_active(void);
/* Signal deliveries on the calling thread, counted by the handlers that run on it: `own`, the
 * sampling signals our handler took as its own (handler.c); `program`, the signals that reached a
 * handler of the program (the trampoline and the forward path, sigchain.c). Only this thread's
 * handlers write them, only this thread reads them (waits.c), so plain volatile accesses suffice. */
typedef struct hp_sig_counts {
  volatile unsigned long own;
  volatile unsigned long program;
} hp_sig_counts;
extern __thread hp_sig_counts hp_sigcounts __attribute__((tls_model("initial-exec")));

#endif
