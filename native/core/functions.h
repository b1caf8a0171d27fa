/* Compiler-instrumented functions (-finstrument-functions): the per-process table code address ->
 * decision. The hooks (__cyg_profile_func_enter / _exit, probe.c) look the function up without a lock;
 * its first call registers it under a lock: decided once by the selective instrumentation file
 * (select.h), and, when measured, given an event of kind HP_KIND_FUNCTION named `@0x<address>`. The
 * resolver names it after the run from the FUNCTIONS section (docs/raw-format.md). */
#ifndef HP_FUNCTIONS_H
#define HP_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "thread.h"

typedef struct hp_func {
  uintptr_t addr;        /* 0: a free slot; published last, with release order */
  hp_event *event;       /* NULL when the function is not measured (excluded) */
} hp_func;

#define HP_FUNC_BITS 16  /* slots; at most half are used, so probes stay short */
extern hp_func hp_func_table[1u << HP_FUNC_BITS];

/* The function at addr, or NULL before its first call. Lock-free. */
static inline __attribute__((always_inline)) const hp_func *hp_func_find(uintptr_t addr) {
  const uint32_t mask = (1u << HP_FUNC_BITS) - 1;
  uint32_t i = (uint32_t)(((uint64_t)addr * 0x9E3779B97F4A7C15ull) >> (64 - HP_FUNC_BITS));
  for (;; i = (i + 1) & mask) {
    const hp_func *f = &hp_func_table[i];
    uintptr_t a = __atomic_load_n(&f->addr, __ATOMIC_ACQUIRE);
    if (__builtin_expect(a == addr, 1)) return f;
    if (!a) return NULL;
  }
}

/* Register the function at addr on its first call (t is the calling thread, not inside the tool).
 * NULL when the table is full (counted, said once). */
const hp_func *hp_func_register(hp_thread *t, uintptr_t addr);
/* The symbol name of a function event (kind HP_KIND_FUNCTION) into out; 0 when unknown. */
int hp_func_symbol(const hp_event *e, char *out, size_t cap);
/* The symbol of the function holding `addr` (a construct's code address), as above. */
int hp_func_symbol_at(uintptr_t addr, char *out, size_t cap);
/* The FUNCTIONS section of the raw file (dump.c). Async-signal-safe. */
struct hp_buf;
void hp_func_write_section(struct hp_buf *b);
/* Fork child: the registration lock may have been held by a thread that does not exist there. */
void hp_func_reset_lock_in_child(void);

#endif
