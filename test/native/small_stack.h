/* For test programs: run `handler` for SIGUSR1 on a small alternate signal stack (SIGSTKSZ) with an
 * inaccessible page below it, and raise SIGUSR1. What the handler does (and what it calls into the
 * runtime) must fit on that stack, or the program ends with SIGSEGV. */
#ifndef TEST_SMALL_STACK_H
#define TEST_SMALL_STACK_H
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void raise_on_small_stack(void (*handler)(int)) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *alt = mmap(NULL, page + SIGSTKSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (alt == MAP_FAILED || mprotect(alt, page, PROT_NONE) != 0) abort();
  stack_t ss = {.ss_sp = alt + page, .ss_size = SIGSTKSZ, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  raise(SIGUSR1);
}

#endif
