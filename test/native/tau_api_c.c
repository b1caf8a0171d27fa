/* TAU's C API as TAU's own C examples use it (timers by handle and by name, the profiler handle API
 * with its queries, static and dynamic phases, parameters, user and context events, metadata, a
 * global timer, the instrumentation switch), written against TAU.h alone: it must compile unchanged
 * under gcc and clang. What it prints is checked against the profile by test/tau-api.test.ts. */
#include <TAU.h>
#include <stdio.h>

static volatile double sink;

static void spin(int n) {
  double s = 0;
  for (int i = 1; i <= n; i++) s += 1.0 / i;
  sink += s;
}

TAU_GLOBAL_TIMER(io_timer, "io()", "", TAU_IO);

static void leaf(int x) {
  TAU_PROFILE_TIMER(t, "leaf()", "void (int)", TAU_USER);
  TAU_PROFILE_START(t);
  TAU_PROFILE_PARAM1L(x, "x");
  spin(20000);
  TAU_PROFILE_STOP(t);
}

static void with_events(int i) {
  TAU_PROFILE_TIMER(t, "with_events()", "", TAU_USER);
  TAU_REGISTER_EVENT(plain, "plain value");
  TAU_REGISTER_CONTEXT_EVENT(context, "context value");
  TAU_PROFILE_START(t);
  TAU_EVENT(plain, i);
  TAU_CONTEXT_EVENT(context, 10 * i);
  TAU_TRIGGER_EVENT("triggered", 2.0);
  TAU_TRIGGER_CONTEXT_EVENT("triggered in context", 3.0);
  TAU_PROFILE_STOP(t);
}

int main(int argc, char **argv) {
  TAU_PROFILE_INIT(argc, argv);
  TAU_PROFILE_SET_NODE(0);
  TAU_PROFILE_SET_CONTEXT(0);
  TAU_METADATA("Example Key", "example value");
  TAU_PROFILE_TIMER(mt, "main()", "int (int, char **)", TAU_DEFAULT);
  TAU_PROFILE_START(mt);

  TAU_PHASE_CREATE_STATIC(setup, "setup phase", "", TAU_USER);
  TAU_PHASE_START(setup);
  leaf(1);
  TAU_PHASE_STOP(setup);

  for (int i = 0; i < 3; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "Iteration %d", i);
    TAU_PHASE_CREATE_DYNAMIC(phase, buf, "", TAU_USER);
    TAU_PHASE_START(phase);
    leaf(2);
    with_events(i);
    TAU_PHASE_STOP(phase);
  }

  TAU_STATIC_PHASE_START("static phase by name");
  TAU_STATIC_PHASE_STOP("static phase by name");
  TAU_DYNAMIC_PHASE_START("dynamic phase by name");
  TAU_DYNAMIC_PHASE_STOP("dynamic phase by name");
  TAU_STATIC_TIMER_START("static timer");
  TAU_STATIC_TIMER_STOP("static timer");
  char dyn[32];
  snprintf(dyn, sizeof dyn, "dynamic timer %d", 7);
  TAU_DYNAMIC_TIMER_START(dyn);
  TAU_DYNAMIC_TIMER_STOP(dyn);
  TAU_START("by name");
  TAU_STOP("by name");

  void *ptr;
  TAU_PROFILER_CREATE(ptr, "created", "", TAU_USER);
  for (int i = 0; i < 4; i++) {
    TAU_PROFILER_START(ptr);
    leaf(3);
    TAU_PROFILER_STOP(ptr);
  }
  long calls = -1, child_calls = -1;
  double incl[MAX_TAU_COUNTERS], excl[MAX_TAU_COUNTERS];
  const char **counters;
  int ncounters = 0;
  TAU_PROFILER_GET_CALLS(ptr, &calls);
  TAU_PROFILER_GET_CHILD_CALLS(ptr, &child_calls);
  TAU_PROFILER_GET_INCLUSIVE_VALUES(ptr, &incl);
  TAU_PROFILER_GET_EXCLUSIVE_VALUES(ptr, &excl);
  TAU_PROFILER_GET_COUNTER_INFO(&counters, &ncounters);
  printf("created calls=%ld child_calls=%ld counters=%d %s incl_ge_excl=%d excl_positive=%d\n", calls, child_calls,
         ncounters, counters[0], incl[0] >= excl[0], excl[0] > 0);

  void *other;
  TAU_CREATE_PROFILER(other, "created too", "", TAU_USER);
  TAU_PROFILER_START(other);
  TAU_PROFILER_STOP(other);
  TAU_PROFILE_CREATE_DYNAMIC(dt, "created dynamic", "", TAU_USER);
  TAU_PROFILE_START(dt);
  TAU_PROFILE_STOP(dt);

  TAU_GLOBAL_TIMER_START(io_timer);
  leaf(4);
  TAU_GLOBAL_TIMER_STOP();

  /* Switched off: nothing of this is recorded. */
  TAU_DISABLE_INSTRUMENTATION();
  leaf(5);
  with_events(9);
  TAU_START("while off");
  TAU_STOP("while off");
  TAU_ENABLE_INSTRUMENTATION();
  /* Started before the switch, stopped while off: stopped, once. */
  TAU_START("spans the switch");
  TAU_DISABLE_INSTRUMENTATION();
  TAU_STOP("spans the switch");
  TAU_ENABLE_INSTRUMENTATION();

  TAU_DB_DUMP();
  TAU_PROFILE_STOP(mt);
  TAU_PROFILE_EXIT("done");
  return 0;
}
