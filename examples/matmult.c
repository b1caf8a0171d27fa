/* The example of the TAU hybrid-profiling paper, instrumented with hyprof:
 * five outer iterations, each a dynamic phase ("Iteration 0" ... "Iteration 4"); in each, three
 * matrix products of sizes 128, 256 and 512; matrixMultiply is a parameter profile on the size, so
 * its time — and the samples inside it — are kept apart per size.
 *
 *   cc -O2 -g $(npx hyprof config --cflags) matmult.c $(npx hyprof config --libs) -o matmult
 *   npx hyprof run -- ./matmult          (probes + sampling: a hybrid profile)
 *   ./matmult                            (probes only; the profile is written at exit)
 *
 * MATMULT_SCALE=k multiplies the number of iterations by k (for benchmarks). */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>

static double multiply(double a, double b) { return a * b; }
static double add(double a, double b) { return a + b; }

static double *matrix_create(int n) {
  double *m = malloc(sizeof(double) * (size_t)n * (size_t)n);
  for (int i = 0; i < n * n; i++) m[i] = (double)(i % 17) / 7.0;
  return m;
}

static void matrix_free(double *m) { free(m); }

/* noinline keeps the function (and its samples) visible at -O2. */
__attribute__((noinline)) static void matrixMultiply(const double *a, const double *b, double *c, int n) {
  hyprof_start_named("matrixMultiply");
  hyprof_param("size", n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double sum = 0.0;
      for (int k = 0; k < n; k++) sum = add(sum, multiply(a[i * n + k], b[k * n + j]));
      c[i * n + j] = sum;
    }
  hyprof_stop_named("matrixMultiply");
}

int main(void) {
  static const int sizes[] = {128, 256, 512};
  const char *scale_env = getenv("MATMULT_SCALE");
  int iterations = 5 * (scale_env ? atoi(scale_env) : 1);
  if (iterations < 1) iterations = 5;
  hyprof_start_named("main");
  double checksum = 0.0;
  for (int it = 0; it < iterations; it++) {
    char phase[32];
    snprintf(phase, sizeof phase, "Iteration %d", it);
    hyprof_phase_start(phase);
    for (int s = 0; s < 3; s++) {
      int n = sizes[s];
      double *a = matrix_create(n), *b = matrix_create(n), *c = matrix_create(n);
      matrixMultiply(a, b, c, n);
      checksum += c[n + 1];
      matrix_free(a);
      matrix_free(b);
      matrix_free(c);
    }
    hyprof_phase_stop(phase);
  }
  hyprof_stop_named("main");
  printf("matmult: %d iterations, checksum %.6f\n", iterations, checksum);
  return 0;
}
