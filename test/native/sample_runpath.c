/* A program that dlopens its plugin "libplug.so" by bare name, found through the program's own
 * RUNPATH (-Wl,-rpath,<dir>): glibc applies the RUNPATH of dlopen's caller, so a runtime that wraps
 * dlopen would make the load fail. Not linked with hyprof (run with LD_PRELOAD). The plugin runs on
 * the main thread right after the load (the memory map hyprof keeps does not know it yet), then on a
 * thread started afterwards (thread start refreshes the map: full stacks). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static void (*work)(int);

static void *body(void *arg) {
  (void)arg;
  work(300);
  __asm__ volatile("" ::: "memory");
  return NULL;
}

int main(void) {
  void *h = dlopen("libplug.so", RTLD_NOW);
  if (!h) {
    printf("%s\n", dlerror());
    return 2;
  }
  printf("loaded\n");
  work = (void (*)(int))dlsym(h, "plug_work");
  if (!work) return 3;
  work(200);
  pthread_t th;
  pthread_create(&th, NULL, body, NULL);
  pthread_join(th, NULL);
  return 0;
}
