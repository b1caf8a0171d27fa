/* The address table of compiler-instrumented functions: registration (once per function, under a
 * lock) and the FUNCTIONS section of the raw file. */
#include "functions.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "fold.h"
#include "meta.h"
#include "select.h"
#include "symtab.h"
#include "writer.h"

hp_func hp_func_table[1u << HP_FUNC_BITS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t used, measured, excluded, not_kept;
static int select_loaded;

const hp_func *hp_func_register(hp_thread *t, uintptr_t addr) {
  /* Inside the tool: the hooks of instrumented functions this may reach (a program's own malloc, say)
   * return at once, so registration never recurses. */
  hp_tool_enter(t);
  pthread_mutex_lock(&lock);
  const hp_func *found = hp_func_find(addr);
  if (found) goto out;
  if (!select_loaded) {
    select_loaded = 1;
    hp_select_load();
  }
  if ((used + 1) * 2 > (1u << HP_FUNC_BITS)) {
    if (!not_kept++)
      hp_warn("more than %u compiler-instrumented functions were called; the others are not measured (counted in the "
              "metadata as 'hyprof Functions Not Kept')", (1u << HP_FUNC_BITS) / 2);
    hp_meta_add_long_live("hyprof Functions Not Kept", not_kept);
    goto out;
  }
  int wanted = 1;
  if (hp_select_needs_names()) {
    char name[512];
    wanted = hp_select_wants(hp_symtab_name(addr, name, sizeof name) ? name : NULL);
  }
  hp_event *e = NULL;
  if (wanted) {
    char name[32];
    snprintf(name, sizeof name, "@0x%llx", (unsigned long long)addr);
    e = hp_event_intern(name, "TAU_DEFAULT", HP_KIND_FUNCTION, 0);
    measured++;
    /* HYPROF_FOLD names functions by their symbols: the event's own name is its address (fold.h) */
    char sym[512];
    if (e && hp_fold_series && hp_symtab_name(addr, sym, sizeof sym)) __atomic_store_n(&e->fold, hp_fold_match(sym), __ATOMIC_RELAXED);
  } else {
    excluded++;
    hp_meta_add_long_live("hyprof Functions Excluded", excluded);
  }
  const uint32_t mask = (1u << HP_FUNC_BITS) - 1;
  uint32_t i = (uint32_t)(((uint64_t)addr * 0x9E3779B97F4A7C15ull) >> (64 - HP_FUNC_BITS));
  while (hp_func_table[i].addr) i = (i + 1) & mask;
  hp_func *f = &hp_func_table[i];
  f->event = e;
  __atomic_store_n(&f->addr, addr, __ATOMIC_RELEASE);
  used++;
  found = f;
out:
  pthread_mutex_unlock(&lock);
  hp_tool_leave(t);
  return found;
}

int hp_func_symbol(const hp_event *e, char *out, size_t cap) {
  unsigned long long addr;
  if (e->kind != HP_KIND_FUNCTION || sscanf(e->name, "@0x%llx", &addr) != 1) return 0;
  return hp_func_symbol_at((uintptr_t)addr, out, cap);
}

int hp_func_symbol_at(uintptr_t addr, char *out, size_t cap) {
  pthread_mutex_lock(&lock);
  int ok = hp_symtab_name(addr, out, cap);
  pthread_mutex_unlock(&lock);
  return ok;
}

void hp_func_write_section(hp_buf *b) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < (1u << HP_FUNC_BITS); i++)
    if (__atomic_load_n(&hp_func_table[i].addr, __ATOMIC_ACQUIRE) && hp_func_table[i].event) n++;
  if (!n) return; /* programs without compiler instrumentation write no section */
  size_t at = hp_buf_section_begin(b, HP_SEC_FUNCTIONS);
  size_t count_at = b->len;
  hp_buf_u32(b, n);
  uint32_t written = 0;
  for (uint32_t i = 0; i < (1u << HP_FUNC_BITS); i++) {
    const hp_func *f = &hp_func_table[i];
    uintptr_t a = __atomic_load_n(&f->addr, __ATOMIC_ACQUIRE);
    if (!a || !f->event) continue;
    hp_buf_u32(b, f->event->id);
    hp_buf_u64(b, a);
    written++;
  }
  hp_buf_patch_u32(b, count_at, written); /* functions registered meanwhile are in the next count */
  hp_buf_section_end(b, at);
}

void hp_func_reset_lock_in_child(void) { pthread_mutex_init(&lock, NULL); }
