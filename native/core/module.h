/* The seam between the core and its modules (sampling, the OpenMP tool, and the next ones: MPI,
 * compiler instrumentation, counters). A module is one `hp_module`: a table of callbacks for the
 * core's lifecycle events and for the raw file. The core calls them; it never names a module.
 *
 * Which modules a build has is the list in native/modules.c (static data: see there why no
 * registration step runs at start-up). native/README.md has the picture and "how to add a module".
 *
 * Not on the seam, on purpose: the probe fast path (hyprof_start / hyprof_stop) and the sampling
 * signal handler make no module call. A module reads the core's state directly (thread.h, stack.h)
 * and keeps its per-thread data in its slot of hp_thread.module_data (one load from the thread
 * state, safe in a signal handler).
 */
#ifndef HP_MODULE_H
#define HP_MODULE_H

#include <stdint.h>

#include "runtime.h"
#include "thread.h"
#include "writer.h"

/* A module keeps no per-thread data in hp_thread.module_data. */
#define HP_NO_SLOT (-1)

/* Every callback may be NULL. "Signal-safe" means async-signal-safe: no malloc, no lock, no stdio. */
typedef struct hp_module {
  const char *name;   /* in messages */
  /* The index of hp_thread.module_data this module owns (a constant of the module's own; two modules
   * may not share one: the core leaves the second out, with a warning), or HP_NO_SLOT. */
  int thread_slot;

  /* Once, at runtime start (in hp_init, after the configuration and the process metadata, before
   * any thread state exists and before the core installs its exit and signal dumps), on the thread
   * that started the runtime. */
  void (*process_start)(void);
  /* On a thread, just after its state was created (the main thread too), inside the tool. */
  void (*thread_start)(hp_thread *t);
  /* On a thread that ends (its pthread key destructor), inside the tool. Modules in reverse order. */
  void (*thread_end)(hp_thread *t);
  /* On a thread that ended, after every thread_end, inside the tool: release the memory only a
   * running thread needs (through hp_thread_retire: a dump may be reading it), keep what this
   * module writes for the thread. Returns the bytes it keeps for the thread from then on. */
  size_t (*thread_compact)(hp_thread *t);
  /* In a forked child, on the forking thread, after the core reset its own state: only that thread
   * exists in the child. t is its state, NULL when it had none. */
  void (*fork_child)(hp_thread *t);

  /* At the start of every dump, once the dump is this thread's: stop what must not change while
   * the file is written (why != HP_DUMP_FLUSH; for HP_DUMP_EXEC only what would outlive the exec
   * on the calling thread), refresh what may be stale (why is HP_DUMP_EXIT or HP_DUMP_FLUSH).
   * Signal-safe when hp_dump_in_handler(why) (HP_DUMP_SIGNAL, HP_DUMP_EXEC, HP_DUMP_QUICK_EXIT:
   * exec and quick_exit may be called in a signal handler). */
  void (*before_dump)(int why);
  /* Add this module's entries to the process metadata (hp_meta_add). Signal-safe. */
  void (*add_metadata)(void);
  /* Write this module's drop counters of thread t, as entries (str reason, u64 count) of its THREAD
   * section; return how many were written. Signal-safe. */
  uint32_t (*write_drops)(const hp_thread *t, hp_buf *b);
  /* Write this module's own sections (tags documented in docs/raw-format.md). They come after the
   * THREAD and USER_EVENTS sections and before CONTEXTS and EVENTS, which therefore hold every
   * context and event these name. Signal-safe. */
  void (*write_sections)(hp_buf *b);
  /* An exec on thread t failed and returned, after the dump before it (why == HP_DUMP_EXEC, which
   * stops only what would outlive the exec on that thread): resume it. Signal-safe (the exec may
   * have been called in a signal handler): what cannot be, defer it. t may be NULL. Last, so
   * that a module built before it (the MPI layer's library) keeps the layout it knows. */
  void (*exec_failed)(hp_thread *t);
} hp_module;

/* The modules of this build, NULL-terminated, in the order they are called (native/modules.c). */
extern const hp_module *const hp_modules[];

/* One sample as the sampling module's handler took it, handed to the module that classifies samples
 * (the OpenMP tool: its thread state, blame bookkeeping, and the runtime's frames cut out of the call
 * path). Kept here, in the core, so that neither module includes the other. */
typedef struct hp_sample_view {
  hp_thread *t;
  uint64_t context;       /* the innermost frame's context */
  uint64_t value_ns;
  uintptr_t stop;         /* in/out (before the unwind): where the unwind stops, the innermost frame's
                             stack address (thread.h); a module may lower it */
  int leaf_only;          /* out (before the unwind): the interrupted PC is all the path will keep:
                             the handler does not unwind */
  uintptr_t pc;           /* the interrupted program counter */
  uint64_t *pcs;          /* in/out: the interrupted PC, then return addresses, outward */
  const uint64_t *cfas;   /* cfas[i]: canonical frame address of frame i (its caller's stack pointer
                             at the call), 0 when unknown */
  uint32_t depth;         /* in/out: frames in pcs (at most `capacity`) */
  uint32_t capacity;
  uintptr_t sp;           /* the interrupted stack pointer */
  uintptr_t stack_hi;     /* the end of the thread's stack (0: unknown) */
} hp_sample_view;

/* A program counter that names what a thread was doing instead of a code address (an OpenMP
 * runtime's frames replaced by "<OpenMP barrier wait>"): HP_PC_PLACEHOLDER | kind, kind < 256, above
 * every user-space address. The kinds are listed in docs/raw-format.md (SAMPLES). */
#define HP_PC_PLACEHOLDER 0xfff0000000000000ull

/* The classifying module's hook, set and cleared by that module; NULL otherwise. Both calls are
 * made on the sampled thread inside the signal handler and must be async-signal-safe. */
typedef struct hp_sample_hook {
  /* Before the unwind: may lower s->stop (pcs and cfas are not filled yet). */
  void (*before_unwind)(hp_sample_view *s);
  /* After the unwind: may rewrite pcs / depth; returns the sample's state (0 = none). */
  uint32_t (*after_unwind)(hp_sample_view *s);
} hp_sample_hook;

extern const hp_sample_hook *volatile hp_sample_state_hook;

/* A module of another shared object, after the core started (it starts the core first when needed).
 * Under the core's module lock: the module's slot is checked as at start; its process_start runs;
 * then its thread_start runs for every thread that exists and has not ended - on the registering
 * thread, not on that thread (unlike a thread_start at thread creation), so such a module must not
 * rely on running on `t` there. Threads created from then on call it as usual, each exactly once.
 * Returns 1 when the module takes part; 0 when measurement is off (HYPROF_DISABLE, a launcher), the
 * module was registered already, or its slot is taken. */
int hp_module_register_late(const hp_module *m);

/* ---- called by the core only ---- */

/* In hp_init: check the modules' slots, then every module's process_start. */
void hp_modules_process_start(void);
/* The module lock: held around a thread's creation (its listing and its modules' thread_start), a
 * late registration, and fork (so the child never inherits it held). Recursive. */
void hp_modules_lock(void);
void hp_modules_unlock(void);
void hp_modules_reset_lock_in_child(void);
void hp_modules_thread_start(hp_thread *t);
void hp_modules_thread_end(hp_thread *t);
size_t hp_modules_thread_compact(hp_thread *t);
void hp_modules_fork_child(hp_thread *t);
void hp_modules_before_dump(int why);
/* Every module's exec_failed, on the thread whose exec failed. */
void hp_modules_exec_failed(hp_thread *t);
void hp_modules_add_metadata(void);
uint32_t hp_modules_write_drops(const hp_thread *t, hp_buf *b);
void hp_modules_write_sections(hp_buf *b);

#endif
