#ifndef HP_USEREVENT_H
#define HP_USEREVENT_H
#include <stdint.h>
#include "thread.h"
uint32_t hp_user_event_count(void);
const char *hp_user_event_name(uint32_t id);
/* Entry i of thread t's user statistics `us` (its table as loaded by the reader) as of one moment,
 * into out; 0 when the entry is unused. Async-signal-safe: for a dump on any thread. `*stuck`: set
 * when the tries ran out (the writer is held mid-write), and then read once (the caller keeps it
 * across a thread's entries, so a stuck thread costs the bound once). */
int hp_user_stat_read(const hp_thread *t, const hp_user_stat *us, uint32_t i, hp_user_stat *out, int *stuck);
#endif
