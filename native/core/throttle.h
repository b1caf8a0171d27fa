/* Throttling as TAU does it (TAU_THROTTLE, TAU_THROTTLE_NUMCALLS, TAU_THROTTLE_PERCALL): a timer
 * called more than NUMCALLS times whose inclusive time per call is below PERCALL microseconds stops
 * being measured. From then on its starts and stops are skipped (a flag on the event, read where the
 * event's id is read anyway; hyprof.h's call-site macros read it before calling in, so a throttled
 * probe costs a load and a branch), and its time goes to its caller; the profile names it
 * `<name> [THROTTLED]` in group TAU_DISABLE (the resolver renames it: docs/raw-format.md, EVENTS).
 * A frame of it started before it was throttled is still stopped by its stop when it is the innermost
 * one; otherwise (a recursive call on the stack) it is closed, without a warning, by the stop of the
 * timer below it.
 *
 * Calls are counted per context (the statistics the stop already updates), so the check costs one
 * compare of a count in a register with a global and a branch never taken below NUMCALLS. */
#ifndef HP_THROTTLE_H
#define HP_THROTTLE_H

#include <stdint.h>

#include "thread.h"

/* UINT64_MAX when throttling is off: the compare below never succeeds. */
extern uint64_t hp_throttle_numcalls;
extern uint64_t hp_throttle_percall_ns;

/* Read the configuration (hp_init, after hp_config_read) and record it in the metadata. */
void hp_throttle_read(void);
/* Throttle `event`: once, whatever the threads; prints one line naming it. */
void hp_throttle_event(uint32_t event, uint64_t calls, uint64_t incl_ns);

/* After a stop of `event` added to s: throttle it when TAU's rule says so. */
static inline __attribute__((always_inline)) void hp_throttle_check(uint32_t event, const hp_stat *s) {
  uint64_t limit; /* calls x PERCALL; past 2^64 every inclusive time is below it */
  if (__builtin_expect(s->calls > hp_throttle_numcalls, 0) &&
      (__builtin_mul_overflow(s->calls, hp_throttle_percall_ns, &limit) || s->metric[0].incl < limit))
    hp_throttle_event(event, s->calls, s->metric[0].incl);
}

/* Whether event e is throttled (set by another thread, once: a relaxed load suffices). */
#define HP_THROTTLED(e) __builtin_expect(__atomic_load_n(&(e)->throttled, __ATOMIC_RELAXED), 0)

#endif
