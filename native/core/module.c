/* Calling the modules (module.h). The modules taking part are fixed once, at runtime start: those of
 * hp_modules whose thread slot is valid and not taken by an earlier one. After that the set never
 * changes, so a dump in a signal handler walks it without a lock. */
#include "module.h"

#include "config.h"

const hp_sample_hook *volatile hp_sample_state_hook;

#define MAX_MODULES 16

static const hp_module *active[MAX_MODULES];
static unsigned n_active;

/* Runs inside hp_init's pthread_once, before any thread state exists: nothing else reads `active`
 * yet (thread starts and dumps come after hp_init). */
static void choose_modules(void) {
  const hp_module *slot_owner[HP_MODULE_SLOTS] = {0};
  for (const hp_module *const *m = hp_modules; *m; m++) {
    int slot = (*m)->thread_slot;
    if (n_active == MAX_MODULES) {
      hp_warn("internal: more than %d modules; '%s' is left out", MAX_MODULES, (*m)->name);
      continue;
    }
    if (slot != HP_NO_SLOT && (slot < 0 || slot >= HP_MODULE_SLOTS || slot_owner[slot])) {
      hp_warn("internal: module '%s' asks for thread slot %d, which %s; it is left out", (*m)->name, slot,
              slot < 0 || slot >= HP_MODULE_SLOTS ? "does not exist" : "another module has");
      continue;
    }
    if (slot != HP_NO_SLOT) slot_owner[slot] = *m;
    active[n_active++] = *m;
  }
}

void hp_modules_process_start(void) {
  choose_modules();
  for (unsigned i = 0; i < n_active; i++)
    if (active[i]->process_start) active[i]->process_start();
}

void hp_modules_thread_start(hp_thread *t) {
  for (unsigned i = 0; i < n_active; i++)
    if (active[i]->thread_start) active[i]->thread_start(t);
}

void hp_modules_thread_end(hp_thread *t) {
  for (unsigned i = n_active; i-- > 0;)
    if (active[i]->thread_end) active[i]->thread_end(t);
}

void hp_modules_fork_child(hp_thread *t) {
  for (unsigned i = 0; i < n_active; i++)
    if (active[i]->fork_child) active[i]->fork_child(t);
}

void hp_modules_before_dump(int why) {
  for (unsigned i = 0; i < n_active; i++)
    if (active[i]->before_dump) active[i]->before_dump(why);
}

void hp_modules_add_metadata(void) {
  for (unsigned i = 0; i < n_active; i++)
    if (active[i]->add_metadata) active[i]->add_metadata();
}

uint32_t hp_modules_write_drops(const hp_thread *t, hp_buf *b) {
  uint32_t n = 0;
  for (unsigned i = 0; i < n_active; i++)
    if (active[i]->write_drops) n += active[i]->write_drops(t, b);
  return n;
}

void hp_modules_write_sections(hp_buf *b) {
  for (unsigned i = 0; i < n_active; i++)
    if (active[i]->write_sections) active[i]->write_sections(b);
}
