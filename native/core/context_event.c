/* Context events (TAU_CONTEXT_EVENT): an atomic user event triggered under the running timers is
 * recorded twice, under its own name and under "<name> : <path>", the path of the running timers
 * ("a => b => c", innermost last, at most HYPROF_CALLPATH_DEPTH / TAU_CALLPATH_DEPTH of them), which
 * is how TAU names them. The specialised event is found through a small table keyed by the base
 * event and the running context, so the name is built once per (event, context). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "events.h"
#include "hyprof.h"
#include "probe.h"
#include "runtime.h"
#include "userevent.h"

#define CACHE_SLOTS 4096

static struct {
  uint64_t context;
  uint32_t base;
  hyprof_user_event_t specialised;
} cache[CACHE_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *frame_name(const hp_frame *f) {
  hp_event *e = hp_event_get(f->param_event != HP_NO_EVENT ? f->param_event : f->event);
  return e ? e->name : "?";
}

/* "<base> : <path>" of the running frames, or NULL without memory. */
static char *context_name(const hp_thread *t, const char *base) {
  int32_t top = t->top;
  int32_t depth = hp_cfg.callpath_depth > 0 ? hp_cfg.callpath_depth : 1;
  int32_t low = top - depth + 1 > 0 ? top - depth + 1 : 0;
  size_t n = strlen(base) + 4;
  for (int32_t i = low; i <= top; i++) n += strlen(frame_name(&t->frames[i])) + 4;
  char *s = malloc(n);
  if (!s) return NULL;
  char *p = s;
  p += strlen(strcpy(p, base));
  p += strlen(strcpy(p, " : "));
  for (int32_t i = low; i <= top; i++) {
    if (i > low) p += strlen(strcpy(p, " => "));
    p += strlen(strcpy(p, frame_name(&t->frames[i])));
  }
  return s;
}

HP_EXPORT void hyprof_context_event_trigger(hyprof_user_event_t ue, double value) {
  hp_thread *t = hp_thread_self();
  if (!t || !ue || hp_probes_off()) return;
  uint32_t base = (uint32_t)((uintptr_t)ue - 1);
  uint64_t context = t->frames[t->top].context;
  size_t slot = (size_t)((context ^ (base * 0x9E3779B97F4A7C15ull)) % CACHE_SLOTS);
  hyprof_user_event_t specialised = NULL;
  pthread_mutex_lock(&lock);
  if (cache[slot].specialised && cache[slot].context == context && cache[slot].base == base) specialised = cache[slot].specialised;
  pthread_mutex_unlock(&lock);
  if (!specialised) {
    const char *name = hp_user_event_name(base);
    char *full = name ? context_name(t, name) : NULL;
    if (full) {
      specialised = hyprof_user_event(full);
      free(full);
    }
    if (specialised) {
      pthread_mutex_lock(&lock);
      cache[slot].context = context;
      cache[slot].base = base;
      cache[slot].specialised = specialised;
      pthread_mutex_unlock(&lock);
    }
  }
  hyprof_user_event_trigger(ue, value);
  if (specialised) hyprof_user_event_trigger(specialised, value);
}
