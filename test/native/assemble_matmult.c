/* The reference program's shape (shared/reference/tau): main, five iterations (phases or regions),
 * matrixMultiply specialised by size, a recursive function, a user event. Built by the assembly
 * tests, run under the runtime, its raw file resolved and compared with TAU's names and groups. */
#include <stdlib.h>
#include <string.h>
#include <hyprof.h>

static double *matrix_create(int n) { return calloc((size_t)n * n, sizeof(double)); }

__attribute__((noinline)) static double multiply(double a, double b) { return a * b; }

__attribute__((noinline)) static void matrixMultiply(double *a, double *b, double *c, int n) {
  hyprof_event_t e = hyprof_event("matrixMultiply", NULL);
  hyprof_start(e);
  hyprof_param("size", n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += multiply(a[i * n + k], b[k * n + j]);
      c[i * n + j] = s;
    }
  hyprof_stop(e);
}

__attribute__((noinline)) static int recurse(int depth) {
  hyprof_start_named("recurse");
  int r = depth > 0 ? recurse(depth - 1) + 1 : 0;
  hyprof_stop_named("recurse");
  return r;
}

int main(int argc, char **argv) {
  int phases = argc > 1 && strcmp(argv[1], "phases") == 0;
  int size = argc > 2 ? atoi(argv[2]) : 64;
  hyprof_event_t m = hyprof_event("main", NULL);
  hyprof_user_event_t ue = hyprof_user_event("matrix size");
  hyprof_start(m);
  for (int it = 0; it < 5; it++) {
    char name[32];
    strcpy(name, "Iteration ");
    name[10] = (char)('0' + it);
    name[11] = 0;
    if (phases) hyprof_phase_start(name); else hyprof_start_named(name);
    for (int s = size; s <= size * 2; s *= 2) {
      double *a = matrix_create(s), *b = matrix_create(s), *c = matrix_create(s);
      matrixMultiply(a, b, c, s);
      hyprof_user_event_trigger(ue, s);
      free(a); free(b); free(c);
    }
    if (phases) hyprof_phase_stop(name); else hyprof_stop_named(name);
  }
  recurse(3);
  hyprof_stop(m);
  return 0;
}
