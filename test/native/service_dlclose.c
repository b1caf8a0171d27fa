/* A runtime service thread created while another thread is inside dlclose (test/sampling-service-
 * dlclose.test.ts). Open MPI starts its progress thread (libopen-pal) during MPI_Init while it closes
 * the components it did not select; the new thread's start routine must still be found in its
 * library. Built three ways:
 *   -DSLOW_LIB:    a library whose destructor, run inside dlclose, waits until the service thread ran;
 *   -DSERVICE_LIB: libevent_hyprof_test.so (a runtime library by name), holding the start routine;
 *   else:          the program, which closes the first on one thread and meanwhile starts the second's
 *                  routine on a new thread. */
#include <semaphore.h>
#include <time.h>

#if defined(SLOW_LIB)
extern sem_t hp_test_in_dtor, hp_test_routine_ran;
__attribute__((destructor)) static void slow_close(void) {
  sem_post(&hp_test_in_dtor);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 5;   /* never hangs the test: without the service thread, the close goes on */
  sem_timedwait(&hp_test_routine_ran, &until);
}
#elif defined(SERVICE_LIB)
#include <poll.h>
#include <stddef.h>
extern sem_t hp_test_routine_ran;
void *hp_test_service(void *arg) {
  (void)arg;
  sem_post(&hp_test_routine_ran);
  poll(NULL, 0, 50);   /* waits, as a progress thread does */
  return NULL;
}
#else
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
sem_t hp_test_in_dtor, hp_test_routine_ran;

static void *closer(void *slow) {
  dlclose(slow);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  sem_init(&hp_test_in_dtor, 0, 0);
  sem_init(&hp_test_routine_ran, 0, 0);
  void *slow = dlopen(argv[1], RTLD_NOW);
  void *svc = dlopen(argv[2], RTLD_NOW);
  if (!slow || !svc) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  void *(*routine)(void *) = (void *(*)(void *))dlsym(svc, "hp_test_service");
  pthread_t c, s;
  pthread_create(&c, NULL, closer, slow);
  sem_wait(&hp_test_in_dtor);   /* the other thread is inside dlclose now */
  pthread_create(&s, NULL, routine, NULL);
  pthread_join(s, NULL);
  pthread_join(c, NULL);
  puts("done");
  return 0;
}
#endif
