/* The event registry: (name, group, kind) -> small dense id, for the life of the process.
 * Registration locks; reading an event by id or handle never does (events live in fixed chunks that
 * never move). */
#ifndef HP_EVENTS_H
#define HP_EVENTS_H

#include <stdint.h>

enum hp_event_kind {
  HP_KIND_REGION = 0,
  HP_KIND_PHASE = 1,
  HP_KIND_PARAM = 2,
  HP_KIND_ROOT = 3,
  HP_KIND_OPENMP = 4,
  HP_KIND_FUNCTION = 5, /* a compiler-instrumented function, named by its code address (functions.h) */
};

typedef struct hp_event {
  uint32_t id;
  uint32_t base;      /* for HP_KIND_PARAM: the specialised timer; else id */
  uint8_t kind;
  uint8_t throttled;  /* set once, never cleared (throttle.h): starts are skipped from then on */
  uint8_t fold;       /* the fold series (1..) its instances belong to, 0 none (fold.h) */
  const char *name;
  const char *group;
  struct hp_event *hash_next;
  /* A Node async region's user events (ext.c, hyprof_ext_settled), registered at its first
   * settlement: its settle times, and the time so far of instances still unsettled at exit. */
  void *settle_ue, *unsettled_ue;
} hp_event;

/* Find or create. Returns NULL only when memory cannot be had (then counted). */
hp_event *hp_event_intern(const char *name, const char *group, enum hp_event_kind kind, uint32_t base);
/* The parameter specialisation of timer `base` by name = value, `current` being the timer's present
 * specialisation (NULL or `base` when it has none): TAU's `<timer>  [ <name> = <value> ]  `. A name
 * `current` already carries gets the new value in its place (the old value's interval is over); a new
 * name specialises further: `<timer>  [ <a> = <1> ]  [ <b> = <2> ]  `. */
hp_event *hp_param_intern(const hp_event *base, const hp_event *current, const char *name, long long value);
/* By id; NULL when out of range. Lock-free. */
hp_event *hp_event_get(uint32_t id);
/* Number of events registered so far. */
uint32_t hp_event_count(void);
/* The id of ".TAU application". */
uint32_t hp_event_root(void);
/* Fork support: hold / release the registry lock around fork(). */
void hp_events_lock(void);
void hp_events_unlock(void);
void hp_events_reset_lock_in_child(void);

#endif
