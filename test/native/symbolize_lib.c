/* A shared library for the symbolizer tests: one out-of-line function with a known line. */
__attribute__((noinline)) int symlib_work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += i * 3;  /* line 4 */
  return s;
}
