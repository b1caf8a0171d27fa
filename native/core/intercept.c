/* Interposed entry points, so that every thread is measured from its start and unwinding knows where
 * each thread's own code begins:
 *  - __libc_start_main: the main thread's root frame ends at `main` (never in libc's start-up code);
 *  - pthread_create: threads the program creates get their state (and sampling) at once, with the
 *    start routine as the outermost frame (in a Node process only the threads that run JavaScript,
 *    from when they say so: node_threads.c).
 * They take effect when libhyprof.so is preloaded or linked (-lhyprof); inside the Node addon they
 * are not reached, and threads are then measured from their first probe. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "runtime.h"

/* The stack pointer of the calling function at this point: the CFA its callee will have. */
#if defined(__x86_64__)
#define READ_SP(sp) __asm__ volatile("mov %%rsp, %0" : "=r"(sp))
#elif defined(__aarch64__)
#define READ_SP(sp) __asm__ volatile("mov %0, sp" : "=r"(sp))
#else
#define READ_SP(sp) (sp = (uintptr_t)__builtin_frame_address(0))
#endif

typedef int (*main_fn)(int, char **, char **);
typedef int (*libc_start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static main_fn real_main;
static volatile int keep_frame; /* written after the call, so the call is never a tail call */

static int main_trampoline(int argc, char **argv, char **envp) {
  uintptr_t sp;
  READ_SP(sp);
  hp_thread *t = hp_thread_current();
  if (t) {
    /* `main`'s CFA is sp: frames of main's callees have CFA <= sp - 1 < CFA(main). */
    t->entry_stack_addr = sp - 1;
    t->frames[0].stack_addr = sp - 1;
  }
  int r = real_main(argc, argv, envp);
  __atomic_store_n(&keep_frame, r, __ATOMIC_RELAXED);
  return r;
}

HP_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                                void (*rtld_fini)(void), void *stack_end) {
  libc_start_main_fn real = (libc_start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  real_main = main;
  return real(hp_init() ? main_trampoline : main, argc, argv, init, fini, rtld_fini, stack_end);
}

struct start_args {
  void *(*routine)(void *);
  void *arg;
};

static void *thread_trampoline(void *p) {
  struct start_args a = *(struct start_args *)p;
  free(p);
  uintptr_t sp;
  READ_SP(sp);
  hp_tls_start_routine = (void *)a.routine;   /* this thread's own TLS, read by thread_start below */
  if (hp_thread_measured_from_start()) hp_thread_create(sp - 1);
  else hp_thread_remember_entry(sp - 1);
  void *r = a.routine(a.arg);
  __atomic_store_n(&keep_frame, 1, __ATOMIC_RELAXED);
  return r;
}

HP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *), void *arg) {
  static pthread_create_fn real;
  if (!real) real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
  struct start_args *a = hp_init() ? malloc(sizeof *a) : NULL;
  if (!a) return real(thread, attr, routine, arg);
  a->routine = routine;
  a->arg = arg;
  int rc = real(thread, attr, thread_trampoline, a);
  if (rc != 0) free(a);
  return rc;
}

/* Preloaded or linked: measure from the start, on the main thread. Not in the Node addon: its copy
 * of the runtime starts on first use, and not at all when libhyprof.so is preloaded (native/core/ext.h). */
#ifndef HYPROF_ADDON
__attribute__((constructor)) static void start_main_thread(void) {
  if (hp_init()) hp_thread_create(0);
}
#endif
