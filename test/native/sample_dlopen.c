/* The runtime loaded late with dlopen (as a plugin or the Node addon would be): the main thread's
 * entry is then unknown to hyprof, so samples of the root context must unwind to the end of the
 * stack and drop libc's start-up frames (__libc_start_call_main, __libc_start_main, _start), ending
 * at main. argv[1] is the path of libhyprof.so. */
#include <dlfcn.h>
#include <stdio.h>
#include "sample_common.h"

__attribute__((noinline)) void late_spin(int ms) { SPIN_BODY(ms); }
__attribute__((noinline)) void late_work(int ms) { late_spin(ms); __asm__ volatile("" ::: "memory"); }

int main(int argc, char **argv) {
  void *h = dlopen(argc > 1 ? argv[1] : "libhyprof.so", RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  void (*flush)(void) = (void (*)(void))dlsym(h, "hyprof_flush");
  late_work(400);
  if (flush) flush();
  return 0;
}
