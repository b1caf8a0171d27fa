/* PAPI counter overflow as a sampling source (HYPROF_SAMPLE_SOURCE=PAPI_TOT_CYC etc.), built only
 * when PAPI is installed (HYPROF_HAVE_PAPI). PAPI owns its overflow signal and hands us the
 * interrupted context through its callback; hp_sample_take does the rest exactly as for timers.
 * Many machines (these VMs included) expose no hardware counters: hp_papi_init then explains why and
 * the caller falls back to the wall timer. */
#ifdef HYPROF_HAVE_PAPI
#define _GNU_SOURCE
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../core/clock.h"
#include "sample_int.h"

static int papi_code;

static void papi_overflow(int set, void *address, long long vector, void *context) {
  (void)set; (void)address; (void)vector;
  hp_sample_take(context);
}

static int build_set(hp_sample_thread *st, char *why, unsigned whylen) {
  int set = PAPI_NULL, rc;
  if ((rc = PAPI_create_eventset(&set)) != PAPI_OK ||
      (rc = PAPI_add_event(set, papi_code)) != PAPI_OK ||
      (rc = PAPI_overflow(set, papi_code, (int)hp_scfg.period_ns, 0, papi_overflow)) != PAPI_OK ||
      (rc = PAPI_start(set)) != PAPI_OK) {
    if (why) snprintf(why, whylen, "%s", PAPI_strerror(rc));
    if (set != PAPI_NULL) {
      PAPI_cleanup_eventset(set);
      PAPI_destroy_eventset(&set);
    }
    return -1;
  }
  if (st) st->papi_set = set;
  else {
    long long v;
    PAPI_stop(set, &v);
    PAPI_overflow(set, papi_code, 0, 0, papi_overflow);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
  }
  return 0;
}

/* Once, at process init: can the named event be counted with overflow here? */
int hp_papi_init(const char *name, char *why, unsigned whylen) {
  int rc = PAPI_library_init(PAPI_VER_CURRENT);
  if (rc != PAPI_VER_CURRENT) {
    snprintf(why, whylen, "PAPI_library_init failed: %s", rc > 0 ? "version mismatch" : PAPI_strerror(rc));
    return -1;
  }
  if ((rc = PAPI_thread_init(pthread_self)) != PAPI_OK) {
    snprintf(why, whylen, "PAPI_thread_init failed: %s", PAPI_strerror(rc));
    return -1;
  }
  if ((rc = PAPI_event_name_to_code((char *)name, &papi_code)) != PAPI_OK) {
    snprintf(why, whylen, "PAPI does not know the event: %s", PAPI_strerror(rc));
    return -1;
  }
  if ((rc = PAPI_query_event(papi_code)) != PAPI_OK) {
    snprintf(why, whylen, "the event is not available on this machine: %s", PAPI_strerror(rc));
    return -1;
  }
  return build_set(NULL, why, whylen);
}

int hp_papi_start(hp_sample_thread *st) {
  if (PAPI_register_thread() != PAPI_OK) return -1;
  hp_sample_clock_start(st);   /* a runtime service thread's samples weigh its CPU time */
  st->active = 1;
  if (build_set(st, NULL, 0) != 0) {
    st->active = 0;
    return -1;
  }
  return 0;
}

/* After a failed exec (sample.c): the event set was never stopped, so the thread's samples are only
 * taken again. Async-signal-safe. */
int hp_papi_resume(hp_sample_thread *st) {
  if (st->papi_set < 0) return -1;
  st->last_ns = hp_now_ns();
  st->active = 1;
  return 0;
}

/* Not async-signal-safe (PAPI takes locks): at a signal-time dump only `active` is cleared and the
 * overflow callback then drops samples. */
void hp_papi_stop(hp_sample_thread *st) {
  st->active = 0;
}

void hp_papi_release(hp_sample_thread *st) {
  st->active = 0;
  if (st->papi_set >= 0) {
    long long v;
    int set = st->papi_set;
    st->papi_set = -1;
    PAPI_stop(set, &v);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    PAPI_unregister_thread();
  }
}
#else
typedef int hp_papi_not_built; /* PAPI is not installed: counters come from perf_event only */
#endif
