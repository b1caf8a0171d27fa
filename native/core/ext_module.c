/* The exported entry points of ext_module.h (a module in another shared object: the MPI layer).
 * Thin wrappers over the core's own functions; the timer pair is in probe.c, beside the fast path. */
#include "ext_module.h"

#include "config.h"
#include "meta.h"
#include "clock.h"
#include "runtime.h"
#include "trace.h"

HP_EXPORT int hyprof_ext_module_register(const hp_module *m) { return hp_module_register_late(m); }

HP_EXPORT void hyprof_ext_set_rank(int rank, int size) {
  if (!hp_init() || rank < 0) return;
  if (hp_rt.rank_from_env && hp_rt.node != rank)
    hp_warn("the launcher's environment said rank %d, MPI_Comm_rank says %d: writing as rank %d", hp_rt.node, rank,
            rank);
  hp_rt.node = rank;
  hp_rt.mpi_rank = 1;
  if (size > 0) hp_rt.world_size = size;
  hp_meta_add_long_live("MPI Rank", rank);
  hp_meta_add_live("MPI Rank Source", "MPI_Comm_rank");
  if (hp_rt.world_size > 0) hp_meta_add_long_live("MPI World Size", hp_rt.world_size);
}

HP_EXPORT void hyprof_ext_meta_add(const char *key, const char *value) { hp_meta_add_live(key, value); }
HP_EXPORT void hyprof_ext_note(const char *text) { hp_warn("%s", text); }
HP_EXPORT int hyprof_ext_env_bool(const char *name, const char *alias, int dflt) {
  return hp_env_bool(name, alias, dflt);
}

HP_EXPORT hp_thread *hyprof_ext_thread_current(void) { return hp_thread_current(); }
HP_EXPORT hp_thread *hyprof_ext_thread_list(void) { return hp_thread_list(); }

HP_EXPORT size_t hyprof_ext_section_begin(hp_buf *b, uint32_t tag) { return hp_buf_section_begin(b, tag); }
HP_EXPORT void hyprof_ext_section_end(hp_buf *b, size_t at) { hp_buf_section_end(b, at); }
HP_EXPORT void hyprof_ext_buf_u32(hp_buf *b, uint32_t v) { hp_buf_u32(b, v); }
HP_EXPORT void hyprof_ext_buf_u64(hp_buf *b, uint64_t v) { hp_buf_u64(b, v); }
HP_EXPORT void hyprof_ext_buf_str(hp_buf *b, const char *s) { hp_buf_str(b, s); }
HP_EXPORT void hyprof_ext_buf_patch_u32(hp_buf *b, size_t offset, uint32_t v) { hp_buf_patch_u32(b, offset, v); }

HP_EXPORT int hyprof_ext_trace_on(void) { return __atomic_load_n(&hp_trace_on, __ATOMIC_ACQUIRE); }

HP_EXPORT void hyprof_ext_trace(uint32_t kind, uint64_t value, const uint64_t *payload, uint32_t n) {
  if (!__atomic_load_n(&hp_trace_on, __ATOMIC_ACQUIRE)) return;
  hp_thread *t = hp_thread_current();
  if (!t) return;
  hp_tool_enter(t);
  hp_trace_put_words(t, kind, value, payload, n, hp_now_ns());
  hp_tool_leave(t);
}
