/* Preloaded by tests under programs that sleep whole seconds to make time visible (TAU's examples):
 * sleep() and usleep() wait a hundredth of what is asked, so the programs and their builds stay as
 * they are and a test takes seconds, not minutes. The wait is still a real one (nanosleep), so the
 * profile's times keep their proportions. */
#define _GNU_SOURCE
#include <time.h>
#include <unistd.h>

static void wait_ns(unsigned long long ns) {
  struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

unsigned int sleep(unsigned int seconds) {
  wait_ns(seconds * 10000000ull);
  return 0;
}

int usleep(useconds_t usec) {
  wait_ns(usec * 10ull);
  return 0;
}
