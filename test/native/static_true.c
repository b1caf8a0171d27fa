/* A program the runtime is never loaded into when built with -static: it ignores LD_PRELOAD. */
#include <stdio.h>

int main(void) {
  puts("static program ran");
  return 0;
}
