/* The second file of instr_app.c (a file exclude list can leave it out). */
__attribute__((noinline)) static long util_square(long x) { return x * x; }

__attribute__((noinline)) long util_sum(long n) {
  long s = 0;
  for (long i = 0; i < n; i += 5) s += util_square(i);
  return s;
}
