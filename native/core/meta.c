/* Process metadata in a static arena: adding needs no malloc, so the SIGTERM path can add the end
 * time and the sampling module its counters while the raw file is being built. */
#define _GNU_SOURCE
#include "meta.h"

#include <string.h>

#define META_MAX 512
#define META_ARENA (64 * 1024)

static struct {
  unsigned off_key, off_value;
} entries[META_MAX];
static unsigned n_entries;
static char arena[META_ARENA];
static unsigned arena_used;
static unsigned dropped;

static const char *at(unsigned off) { return arena + off; }

static int store(const char *s, unsigned *off) {
  size_t n = strlen(s) + 1;
  if (arena_used + n > META_ARENA) return 0;
  memcpy(arena + arena_used, s, n);
  *off = arena_used;
  arena_used += (unsigned)n;
  return 1;
}

void hp_meta_add(const char *key, const char *value) {
  if (!value) value = "";
  for (unsigned i = 0; i < n_entries; i++) {
    if (strcmp(at(entries[i].off_key), key) == 0) {
      char *old = arena + entries[i].off_value;
      if (strcmp(old, value) == 0) return;
      /* A value no longer than the old one (a timestamp, a count of the same width) is written in
       * place, so repeated flushes do not fill the arena. */
      if (strlen(value) <= strlen(old))
        memcpy(old, value, strlen(value) + 1);
      else if (!store(value, &entries[i].off_value))
        dropped++;
      return;
    }
  }
  unsigned k, v;
  if (n_entries >= META_MAX || !store(key, &k) || !store(value, &v)) {
    dropped++;
    return;
  }
  entries[n_entries].off_key = k;
  entries[n_entries].off_value = v;
  n_entries++;
}

/* Decimal without stdio: usable on the signal path. */
static void format_ll(char buf[32], long long value) {
  char tmp[32];
  unsigned long long u = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
  int n = 0;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  int j = 0;
  if (value < 0) buf[j++] = '-';
  while (n) buf[j++] = tmp[--n];
  buf[j] = 0;
}

void hp_meta_add_long(const char *key, long long value) {
  char buf[32];
  format_ll(buf, value);
  hp_meta_add(key, buf);
}

unsigned hp_meta_count(void) { return n_entries + (dropped ? 1 : 0); }

void hp_meta_get(unsigned i, const char **key, const char **value) {
  if (i < n_entries) {
    *key = at(entries[i].off_key);
    *value = at(entries[i].off_value);
    return;
  }
  static char count[32];
  format_ll(count, dropped);
  *key = "hyprof metadata dropped";
  *value = count;
}

/* ---- metadata added while the program runs ---- */

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "hyprof.h"
#include "runtime.h"

/* The runtime's own additions happen at start-up and inside dumps; those made while the program runs
 * (hyprof_metadata, from any thread at any time; the MPI layer's at MPI_Init; the OpenMP tool's; the
 * counters of compiler-instrumented functions) take the dump's ownership for the moment of the add: a dump on another
 * thread then waits for it (bounded, as for a flush), and two threads never add at once. SIGINT and
 * SIGTERM are held back meanwhile, so their dump never finds its own thread holding it. A dump under
 * way on this very thread (interrupted by a signal handler that adds) is stopped under us: the add goes
 * in directly. */
void hp_meta_add_live(const char *key, const char *value) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int me = (int)syscall(SYS_gettid);
  for (;;) {
    if (hp_dump_try_hold()) {
      hp_meta_add(key, value);
      hp_dump_release_hold();
      break;
    }
    if (hp_dump_owner() == me) {
      hp_meta_add(key, value);
      break;
    }
    struct timespec wait = {0, 100 * 1000};
    nanosleep(&wait, NULL);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void hp_meta_add_long_live(const char *key, long long value) {
  char buf[32];
  format_ll(buf, value);
  hp_meta_add_live(key, buf);
}

HP_EXPORT void hyprof_metadata(const char *name, const char *value) {
  if (!hp_init()) return;
  if (!name || !*name) {
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) hp_warn("hyprof_metadata: the name is empty; ignored (said once)");
    return;
  }
  hp_meta_add_live(name, value ? value : "");
}
