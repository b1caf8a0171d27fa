/* Names resolved once per call site: linked with -Wl,--wrap for the name look-up and the by-name
 * entry points, so the program counts its own calls of them (the runtime's calls inside libhyprof
 * are not wrapped). A literal name is looked up once per call site however often the site runs
 * (hyprof.h's macros keep the handle), also through TAU_START; a name made at run time goes to the
 * by-name functions every time. Prints "lookups <n> by-name <n>". */
#include <TAU.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif
static long lookups, by_name;
hyprof_event_t __real_hyprof_event(const char *name, const char *group);
void __real_hyprof_start_named(const char *name);
void __real_hyprof_stop_named(const char *name);
hyprof_event_t __wrap_hyprof_event(const char *name, const char *group) {
  lookups++;
  return __real_hyprof_event(name, group);
}
void __wrap_hyprof_start_named(const char *name) {
  by_name++;
  __real_hyprof_start_named(name);
}
void __wrap_hyprof_stop_named(const char *name) {
  by_name++;
  __real_hyprof_stop_named(name);
}
#ifdef __cplusplus
}
#endif

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  for (int i = 0; i < n; i++) {
    hyprof_start_named("literal");
    hyprof_stop_named("literal");
    TAU_START("tau start");
    TAU_STOP("tau start");
  }
  char name[32];
  snprintf(name, sizeof name, "made at run time %d", n % 2);
  for (int i = 0; i < n; i++) {
    hyprof_start_named(name);
    hyprof_stop_named(name);
  }
  printf("lookups %ld by-name %ld\n", lookups, by_name);
  return 0;
}
