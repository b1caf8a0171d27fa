/* Throttling: the configuration, and what happens once to a timer that meets TAU's rule. */
#include "throttle.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "events.h"
#include "functions.h"
#include "meta.h"

uint64_t hp_throttle_numcalls = UINT64_MAX;
uint64_t hp_throttle_percall_ns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long throttled_count;

void hp_throttle_read(void) {
  int on = hp_env_bool("HYPROF_THROTTLE", "TAU_THROTTLE", 1);
  long numcalls = hp_env_long("HYPROF_THROTTLE_NUMCALLS", "TAU_THROTTLE_NUMCALLS", 100000, 1, 1000000000000L);
  long percall = hp_env_long("HYPROF_THROTTLE_PERCALL", "TAU_THROTTLE_PERCALL", 10, 0, 1000000000L);
  hp_throttle_numcalls = on ? (uint64_t)numcalls : UINT64_MAX;
  hp_throttle_percall_ns = (uint64_t)percall * 1000;
  /* The configuration in force, under hyprof's names and TAU's (as init.c does for the others). */
  hp_meta_add("HYPROF_THROTTLE", on ? "on" : "off");
  hp_meta_add("TAU_THROTTLE", on ? "on" : "off");
  hp_meta_add_long("HYPROF_THROTTLE_NUMCALLS", numcalls);
  hp_meta_add_long("TAU_THROTTLE_NUMCALLS", numcalls);
  hp_meta_add_long("HYPROF_THROTTLE_PERCALL", percall);
  hp_meta_add_long("TAU_THROTTLE_PERCALL", percall);
}

void hp_throttle_event(uint32_t id, uint64_t calls, uint64_t incl_ns) {
  hp_event *e = hp_event_get(id);
  if (!e || e->kind == HP_KIND_ROOT) return;
  uint8_t no = 0;
  if (!__atomic_compare_exchange_n(&e->throttled, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&lock);
  hp_meta_add_long("hyprof Throttled Timers", ++throttled_count);
  pthread_mutex_unlock(&lock);
  /* A compiler-instrumented function's event is named by its address until the run is resolved: the
   * symbol table names it here, for this one line. */
  char name[512], sym[400];
  const char *at = strstr(e->name, " @0x"); /* an OpenMP construct's, named by its code address */
  unsigned long long addr;
  if (e->kind == HP_KIND_FUNCTION && hp_func_symbol(e, name, sizeof name)) {
  } else if (at && sscanf(at, " @0x%llx", &addr) == 1 && hp_func_symbol_at((uintptr_t)addr, sym, sizeof sym)) {
    snprintf(name, sizeof name, "%.*s in %s", (int)(at - e->name), e->name, sym);
  } else {
    snprintf(name, sizeof name, "%s", e->name);
  }
  hp_warn("throttled '%s' after %llu calls of %.3f us each (TAU_THROTTLE_NUMCALLS=%llu, TAU_THROTTLE_PERCALL=%llu): "
          "it is no longer measured, its time goes to its caller; TAU_THROTTLE=0 measures every call",
          name, (unsigned long long)calls, (double)incl_ns / 1000.0 / (double)calls,
          (unsigned long long)hp_throttle_numcalls, (unsigned long long)(hp_throttle_percall_ns / 1000));
}
