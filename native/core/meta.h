/* Process metadata (key/value strings written to the INFO section and on to the TAU profile).
 * Stored in a fixed static arena, so adding is async-signal-safe (no malloc). */
#ifndef HP_META_H
#define HP_META_H

/* Adds or replaces `key`. Silently truncates if the arena is full (then counted in the key
 * "hyprof metadata dropped"). */
void hp_meta_add(const char *key, const char *value);
void hp_meta_add_long(const char *key, long long value);
/* hp_meta_add for additions while the program runs, from any thread (hyprof_metadata): excludes a
 * dump reading the arena meanwhile (meta.c). Inside a dump on the calling thread (a module's
 * add_metadata) it adds directly; elsewhere it may wait for a dump: not in a signal handler. */
void hp_meta_add_live(const char *key, const char *value);
void hp_meta_add_long_live(const char *key, long long value);
unsigned hp_meta_count(void);
void hp_meta_get(unsigned i, const char **key, const char **value);

#endif
