/* Built without debug information beside symbolize_prog.c (built with it), for the symbol-region
 * tests: global and static functions of several sizes, so that llvm-symbolizer names their
 * addresses from the symbol table alone (a static one with this file's name, from its STT_FILE). */
static __attribute__((noinline)) int plain_static(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += (i * 7) ^ (s >> 2);
  return s;
}

__attribute__((noinline)) int plain_global(int n) {
  int s = 1;
  for (int i = 0; i < n; i++) s = s * 31 + plain_static(i & 15);
  return s;
}

int symlib_work(int n) {
  return plain_global(n) + plain_static(n);
}
