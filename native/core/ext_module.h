/* Exported entry points for a module that lives in a shared object of its own and reaches the core
 * from outside libhyprof.so: the MPI layer (libhyprof_mpi.so, native/mpi/), which must be compiled
 * with the MPI implementation's own compiler because MPI implementations differ in ABI. Everything
 * else of the core is hidden (-fvisibility=hidden); these are exported under hyprof_ext_ names, as
 * core/ext.h does for the Node addon, so that the one runtime of the process is the one they reach.
 *
 * The module is an ordinary hp_module (core/module.h): it includes the core's headers for the types
 * (hp_module, hp_thread, hp_buf) - the library is built from the same sources at the same time, so
 * the layouts agree - and calls the core only through the functions below. Not a public API. */
#ifndef HP_EXT_MODULE_H
#define HP_EXT_MODULE_H

#include <stdint.h>

#include "module.h"
#include "writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Take part as a module from now on (module.h, hp_module_register_late). 1 when it takes part; 0
 * when measurement is off in this process (HYPROF_DISABLE, an MPI launcher) or it was refused. */
int hyprof_ext_module_register(const hp_module *m);

/* This process is rank `rank` of `size` in MPI_COMM_WORLD (MPI_Init ran): node = rank from now on,
 * written with the INFO flag "MPI rank" and the metadata "MPI Rank", "MPI World Size". A rank that
 * differs from the one the launcher's environment gave is warned about once. */
void hyprof_ext_set_rank(int rank, int size);

/* Process metadata (hp_meta_add_live): excludes a dump on another thread meanwhile; within
 * add_metadata (a dump on the calling thread) it adds directly, async-signal-safe. */
void hyprof_ext_meta_add(const char *key, const char *value);
/* One line on stderr, "hyprof: <text>" (hp_warn). Not in a signal handler. */
void hyprof_ext_note(const char *text);
/* The configuration variable `name` (else its TAU alias, may be NULL) as a boolean; a malformed
 * value is warned about (hp_env_bool). */
int hyprof_ext_env_bool(const char *name, const char *alias, int dflt);

/* The calling thread's state, NULL when it has none (async-signal-safe: hp_thread_current); and the
 * first of the process's threads (hp_thread_list, walk with ->next). */
hp_thread *hyprof_ext_thread_current(void);
hp_thread *hyprof_ext_thread_list(void);

/* Enter / leave a timer for event `id` on the calling thread, the probe fast path with the stop
 * address of samples given (`cfa`, as in thread.h: samples inside unwind up to the frame holding it).
 * enter returns the start time (the core's clock, ns) and the timer's context in *context; leave
 * returns the inclusive time; both 0 when the thread is not measured. The pair must nest with the
 * thread's other timers. */
uint64_t hyprof_ext_enter(uint32_t id, uintptr_t cfa, uint64_t *context);
uint64_t hyprof_ext_leave(uint32_t id);

/* Tracing (core/trace.h): is a trace recorded (HYPROF_TRACE)? And a record of kind `kind` (an
 * HP_TREC_MPI_* kind) with `value` and n payload words on the calling thread, at the current time,
 * into its own trace buffer: lock-free, allocation-free. Nothing when the thread has no state or
 * tracing is off. Not in a signal handler. */
int hyprof_ext_trace_on(void);
void hyprof_ext_trace(uint32_t kind, uint64_t value, const uint64_t *payload, uint32_t n);

/* Writing a module's section of the raw file (writer.h), from write_sections. Async-signal-safe. */
size_t hyprof_ext_section_begin(hp_buf *b, uint32_t tag);
void hyprof_ext_section_end(hp_buf *b, size_t at);
void hyprof_ext_buf_u32(hp_buf *b, uint32_t v);
void hyprof_ext_buf_u64(hp_buf *b, uint64_t v);
void hyprof_ext_buf_str(hp_buf *b, const char *s);
void hyprof_ext_buf_patch_u32(hp_buf *b, size_t offset, uint32_t v);

#ifdef __cplusplus
}
#endif

#endif
