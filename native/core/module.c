/* Calling the modules (module.h). The modules taking part are those of hp_modules whose thread slot
 * is valid and not taken by an earlier one, chosen once at runtime start, and after that those a
 * shared object of its own registers late (hp_module_register_late: the MPI layer). The set only
 * grows: an entry is complete before the count that covers it is published (release / acquire), so a
 * dump in a signal handler walks it without a lock. Module changes, thread creation and fork hold
 * one recursive lock, so a late module sees every thread exactly once (module.h). */
#define _GNU_SOURCE
#include "module.h"

#include <pthread.h>

#include "config.h"
#include "runtime.h"

const hp_sample_hook *volatile hp_sample_state_hook;

#define MAX_MODULES 16

static const hp_module *active[MAX_MODULES];
static unsigned n_active;
static const hp_module *slot_owner[HP_MODULE_SLOTS];
/* Recursive: a module's process_start or thread_start may create the calling thread's state. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void hp_modules_lock(void) { pthread_mutex_lock(&lock); }
void hp_modules_unlock(void) { pthread_mutex_unlock(&lock); }
void hp_modules_reset_lock_in_child(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&lock, &a);
  pthread_mutexattr_destroy(&a);
}

static unsigned count(void) { return __atomic_load_n(&n_active, __ATOMIC_ACQUIRE); }

/* Under the lock. Returns 1 when m takes part. */
static int admit(const hp_module *m) {
  int slot = m->thread_slot;
  unsigned n = n_active;
  for (unsigned i = 0; i < n; i++)
    if (active[i] == m) return 0; /* registered twice: once is enough */
  if (n == MAX_MODULES) {
    hp_warn("internal: more than %d modules; '%s' is left out", MAX_MODULES, m->name);
    return 0;
  }
  if (slot != HP_NO_SLOT && (slot < 0 || slot >= HP_MODULE_SLOTS || slot_owner[slot])) {
    hp_warn("internal: module '%s' asks for thread slot %d, which %s; it is left out", m->name, slot,
            slot < 0 || slot >= HP_MODULE_SLOTS ? "does not exist" : "another module has");
    return 0;
  }
  if (slot != HP_NO_SLOT) slot_owner[slot] = m;
  active[n] = m;
  __atomic_store_n(&n_active, n + 1, __ATOMIC_RELEASE);
  return 1;
}

void hp_modules_process_start(void) {
  hp_modules_lock();
  unsigned first = n_active;
  for (const hp_module *const *m = hp_modules; *m; m++) admit(*m);
  for (unsigned i = first; i < n_active; i++)
    if (active[i]->process_start) active[i]->process_start();
  hp_modules_unlock();
}

int hp_module_register_late(const hp_module *m) {
  if (!m || !hp_init()) return 0;
  hp_modules_lock();
  int ok = admit(m);
  if (ok) {
    if (m->process_start) m->process_start();
    /* Threads that exist already (the lock keeps new ones out until this is done; those get it in
     * hp_modules_thread_start). Called here, on the registering thread: module.h. */
    if (m->thread_start)
      for (hp_thread *t = hp_thread_list(); t; t = t->next)
        if (!__atomic_load_n(&t->ended, __ATOMIC_ACQUIRE)) m->thread_start(t);
  }
  hp_modules_unlock();
  return ok;
}

void hp_modules_thread_start(hp_thread *t) {
  unsigned n = count();
  for (unsigned i = 0; i < n; i++)
    if (active[i]->thread_start) active[i]->thread_start(t);
}

void hp_modules_thread_end(hp_thread *t) {
  for (unsigned i = count(); i-- > 0;)
    if (active[i]->thread_end) active[i]->thread_end(t);
}

void hp_modules_fork_child(hp_thread *t) {
  unsigned n = count();
  for (unsigned i = 0; i < n; i++)
    if (active[i]->fork_child) active[i]->fork_child(t);
}

void hp_modules_before_dump(int why) {
  unsigned n = count();
  for (unsigned i = 0; i < n; i++)
    if (active[i]->before_dump) active[i]->before_dump(why);
}

void hp_modules_exec_failed(hp_thread *t) {
  unsigned n = count();
  for (unsigned i = 0; i < n; i++)
    if (active[i]->exec_failed) active[i]->exec_failed(t);
}

void hp_modules_add_metadata(void) {
  unsigned n = count();
  for (unsigned i = 0; i < n; i++)
    if (active[i]->add_metadata) active[i]->add_metadata();
}

uint32_t hp_modules_write_drops(const hp_thread *t, hp_buf *b) {
  uint32_t sum = 0;
  unsigned n = count();
  for (unsigned i = 0; i < n; i++)
    if (active[i]->write_drops) sum += active[i]->write_drops(t, b);
  return sum;
}

void hp_modules_write_sections(hp_buf *b) {
  unsigned n = count();
  for (unsigned i = 0; i < n; i++)
    if (active[i]->write_sections) active[i]->write_sections(b);
}
