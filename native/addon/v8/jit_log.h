/* The log of V8's JIT code events (docs/node.md, "JavaScript frames in samples"): an append-only
 * sequence of records in memory mapped once per process, written by the code event handler
 * (jit_events.cc) on V8's threads and copied whole into the raw file's JIT section at each dump
 * (jit_log.c, a module that registers late with the runtime). Record layouts: docs/raw-format.md. */
#ifndef HP_JIT_LOG_H
#define HP_JIT_LOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* HP_JIT_PENDING: a record reserved, not committed yet (its header holds its length at once). */
/* CODE and RANGE (lines only) are what earlier versions wrote; CODE_POS and RANGE_POS add V8's
 * source positions, which tell apart functions on one line (docs/raw-format.md). */
enum { HP_JIT_CODE = 1, HP_JIT_MOVE = 2, HP_JIT_REMOVE = 3, HP_JIT_RANGE = 4, HP_JIT_PENDING = 5, HP_JIT_CODE_POS = 6, HP_JIT_RANGE_POS = 7 };

/* Map the log (once per process). 1 when it is there. */
int hp_jit_log_open(void);
/* Space for a record of `payload` bytes (rounded up to 8) after its 8-byte header, or NULL when the
 * log is full (counted). Any thread, no lock: the space is taken with one atomic add. */
void *hp_jit_log_reserve(size_t payload);
/* Publish a record reserved above: its final header is stored last (release). Until then the header
 * says HP_JIT_PENDING with the record's length, so a dump that reads the log meanwhile skips it
 * (written as PENDING, zeros) and goes on to the records after it. */
void hp_jit_log_commit(void *payload, size_t payload_len, uint32_t type);

/* Join the runtime of this process as a module that writes the JIT section. `runtime`: the path of
 * the object whose hyprof_ext_ functions to use when the process has no preloaded libhyprof.so (the
 * Node addon), or NULL. Returns NULL when joined (or joined before), else why not (static text). */
const char *hp_jit_log_join_runtime(const char *runtime);

#ifdef __cplusplus
}
#endif

#endif
