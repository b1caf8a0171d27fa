/* The sampling module's interface to the core. Implemented in native/sample/.
 *
 * The core calls these at the points named; the sampling module reads the thread state of
 * native/core/thread.h from its signal handler, on the sampled thread only.
 */
#ifndef HP_SAMPLE_H
#define HP_SAMPLE_H

#include "../core/thread.h"
#include "../dump/writer.h"

/* Once, at runtime initialisation (after configuration is read), on the initialising thread. */
void hp_sample_process_init(void);
/* On a thread, right after its hp_thread was created (also for the main thread). */
void hp_sample_thread_start(hp_thread *t);
/* On a thread that is ending (its timer must be deleted before the thread is gone). */
void hp_sample_thread_end(hp_thread *t);
/* In a forked child, on the forking thread: the child has only that thread; timers of the parent's
 * other threads do not exist in the child. Restart sampling of this thread, clear copied samples. */
void hp_sample_after_fork_child(hp_thread *t);
/* Before the final dump: stop every timer so the tables stop changing. May run in a SIGTERM/SIGINT
 * handler: async-signal-safe. */
void hp_sample_stop_all(void);
/* Refresh the memory-map snapshot MAPS is written from, when objects were loaded or unloaded since
 * it was taken (cheap otherwise: one step of dl_iterate_phdr). NOT async-signal-safe: call it only
 * outside signal handlers, e.g. before a hyprof_flush dump. The sampling module itself refreshes at
 * thread start, at a normal exit and in dl_iterate_phdr calls outside its handler. */
void hp_sample_refresh_maps(void);
/* Write the SAMPLING, MAPS and one SAMPLES section per sampled thread. May run in a signal handler:
 * async-signal-safe, no malloc, no stdio. */
void hp_sample_write_sections(hp_buf *b);
/* Metadata for the INFO section (effective sampling configuration, drop totals); called at dump time,
 * append with hp_meta_add(). */
void hp_sample_add_metadata(void);
/* Per-thread drop counters (by reason) for the thread's THREAD section: how many (reason, count)
 * entries there are, then writing them (str reason, u64 count). Async-signal-safe. */
uint32_t hp_sample_drop_entries(const hp_thread *t);
void hp_sample_write_drops(const hp_thread *t, hp_buf *b);

#endif
