/* A program that spends its time reading the clock: clock_gettime in a loop for half a second, which
 * the C library answers from the kernel's vDSO without a system call. */
#include <stdio.h>
#include <time.h>

int main(void) {
  struct timespec start, now;
  long calls = 0;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
    calls++;
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 500000000L);
  printf("clock_loop: %ld calls\n", calls);
  return 0;
}
