/* Regions by name, every way a name reaches the probes: literals (resolved once per call site by
 * hyprof.h's macros), names built at run time, a literal passed through an inline function's
 * parameter (one call site in the source, different names at run time), TAU.h's TAU_START and phase
 * macros, the function called through a pointer, and one literal call site first reached by four
 * threads at once. Counts are known; the test checks them in the profile. Compiled as C and C++. */
#include <TAU.h>
#include <pthread.h>
#include <stdio.h>

static inline __attribute__((always_inline)) void wrapped(const char *name) {
  hyprof_start_named(name);
  hyprof_stop_named(name);
}

static pthread_barrier_t barrier;

static void *worker(void *arg) {
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < 1000; i++) {
    hyprof_start_named("threaded");
    hyprof_stop_named("threaded");
  }
  return arg;
}

int main(void) {
  hyprof_start_named("main");
  for (int i = 0; i < 3; i++) {
    hyprof_start_named("literal");
    hyprof_stop_named("literal");
  }
  for (int i = 0; i < 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "dynamic %d", i % 2);
    hyprof_start_named(name);
    hyprof_start_named("inside dynamic");
    hyprof_stop_named("inside dynamic");
    hyprof_stop_named(name);
    snprintf(name, sizeof name, "Iteration %d", i);
    hyprof_phase_start(name);
    hyprof_phase_stop(name);
  }
  wrapped("wrapped a");
  wrapped("wrapped b");
  wrapped("wrapped b");
  for (int i = 0; i < 2; i++) {
    TAU_START("tau start");
    TAU_STOP("tau start");
  }
  TAU_STATIC_PHASE_START("static phase");
  TAU_STATIC_PHASE_STOP("static phase");
  void (*start)(const char *) = hyprof_start_named;
  void (*stop)(const char *) = hyprof_stop_named;
  start("through a pointer");
  stop("through a pointer");

  pthread_t t[4];
  pthread_barrier_init(&barrier, NULL, 4);
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  hyprof_stop_named("main");
  return 0;
}
