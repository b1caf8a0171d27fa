/* Writing what sampling measured into the raw file (docs/raw-format.md): the SAMPLING section,
 * MAPS (maps.c), one SAMPLES section per thread that took samples, the per-thread drop entries of
 * THREAD sections, and the metadata (effective configuration under hyprof's and TAU's names,
 * TAU's per-thread sample counters). All of it may run inside a SIGTERM handler: no malloc, no
 * stdio (numbers are formatted by hand), only reads of memory that is never freed. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "../core/meta.h"
#include "../core/thread.h"
#include "sample_int.h"

const char *const hp_drop_names[HP_DROP_NREASONS] = {
  "in_tool", "table_full", "unwind_failed", "unwind_truncated", "after_stop",
};

/* The number of metrics the core records (value[n_metrics] per sample record). Weak so the module
 * stays linkable against a core that only ever records TIME. */
extern uint32_t hp_metric_count(void) __attribute__((weak));

static uint32_t n_metrics(void) { return hp_metric_count ? hp_metric_count() : 1; }

static const char *signal_name(int sig, char *buf) {
  switch (sig) {
    case SIGPROF: return "SIGPROF";
    case SIGALRM: return "SIGALRM";
    case SIGVTALRM: return "SIGVTALRM";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGIO: return "SIGIO";
    default: break;
  }
  strcpy(buf, "SIG");
  char *p = buf + 3;
  int n = sig, k = 0;
  char tmp[12];
  do tmp[k++] = (char)('0' + n % 10); while ((n /= 10) && k < 11);
  while (k) *p++ = tmp[--k];
  *p = 0;
  return buf;
}

void hp_sample_write_sections(hp_buf *b) {
  int on = hp_sample_is_on();
  size_t at = hp_buf_section_begin(b, HP_SEC_SAMPLING);
  hp_buf_u32(b, on ? 1 : 0);
  hp_buf_str(b, hp_scfg.source[0] ? hp_scfg.source : "itimer-wall");
  hp_buf_u64(b, hp_scfg.period_ns);
  hp_buf_u32(b, (uint32_t)hp_scfg.unwind);
  hp_buf_u32(b, hp_scfg.unwind_depth);
  hp_buf_str(b, hp_scfg.unwinder == HP_UNW_FP ? "fp" : "libunwind");
  hp_buf_i32(b, hp_scfg.signo);
  hp_buf_section_end(b, at);
  hp_maps_write(b); /* with sampling off too: OpenMP construct addresses resolve through it */
  if (!on) return;

  uint32_t nm = n_metrics();
  for (hp_thread *t = hp_dump_thread_list(); t; t = t->next) {
    const hp_sample_thread *st = hp_sample_of_acquire(t);
    if (!st) continue;
    uint32_t n = __atomic_load_n(&st->n_recs, __ATOMIC_ACQUIRE);
    if (n == 0) continue;
    at = hp_buf_section_begin(b, HP_SEC_SAMPLES);
    hp_buf_u32(b, t->index);
    hp_buf_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
      const hp_srec *r = &st->recs[i];
      hp_buf_u64(b, r->context);
      hp_buf_u64(b, hp_read(&r->count));
      hp_buf_u64(b, hp_read(&r->value));
      for (uint32_t m = 1; m < nm; m++) hp_buf_u64(b, 0);   /* only TIME is known per sample */
      hp_buf_u32(b, r->state);
      hp_buf_u32(b, r->depth);
      for (uint32_t d = 0; d < r->depth; d++) hp_buf_u64(b, st->pcs[r->pc_off + d]);
    }
    hp_buf_section_end(b, at);
  }
}

/* A fixed set of entries per sampled thread (zeros included). The process-wide "no_thread_state"
 * goes with thread 0. Returns the number of entries written. */
uint32_t hp_sample_write_drops(const hp_thread *t, hp_buf *b) {
  if (!hp_sample_is_on()) return 0;
  uint32_t n = 0;
  const hp_sample_thread *st = hp_sample_of_acquire(t);
  if (st)
    for (int i = 0; i < HP_DROP_NREASONS; i++, n++) {
      hp_buf_str(b, hp_drop_names[i]);
      hp_buf_u64(b, hp_read(&st->drops[i]));
    }
  if (t->index == 0) {
    hp_buf_str(b, "no_thread_state");
    hp_buf_u64(b, __atomic_load_n(&hp_drops_no_thread_state, __ATOMIC_RELAXED));
    n++;
  }
  return n;
}

/* ---------- metadata ---------- */

static char *put_u64(char *p, uint64_t v) {
  char tmp[24];
  int k = 0;
  do tmp[k++] = (char)('0' + v % 10); while ((v /= 10) && k < 23);
  while (k) *p++ = tmp[--k];
  *p = 0;
  return p;
}

static void meta_u64(const char *key, uint64_t v) {
  char buf[24];
  put_u64(buf, v);
  hp_meta_add(key, buf);
}

static void meta_thread(const char *prefix, uint32_t index, uint64_t v) {
  char key[96];
  size_t n = strlen(prefix);
  if (n > sizeof key - 12) return;
  memcpy(key, prefix, n);
  put_u64(key + n, index);
  meta_u64(key, v);
}

void hp_sample_add_metadata(void) {
  int on = hp_sample_is_on();
  char sig[16];
  hp_meta_add("TAU_SAMPLING", on ? "on" : "off");
  hp_meta_add("HYPROF_SAMPLING", on ? "1" : "0");
  if (!on) return;
  meta_u64("TAU_EBS_PERIOD", hp_scfg.period_us);
  meta_u64("HYPROF_PERIOD_US", hp_scfg.period_us);
  hp_meta_add("TAU_EBS_SOURCE", hp_scfg.source);
  hp_meta_add("HYPROF_SAMPLE_SOURCE", hp_scfg.source);
  hp_meta_add("TAU_EBS_UNWIND", hp_scfg.unwind ? "on" : "off");
  hp_meta_add("HYPROF_UNWIND", hp_scfg.unwind ? "1" : "0");
  if (hp_scfg.unwind_depth == 0) hp_meta_add("TAU_EBS_UNWIND_DEPTH", "auto");
  else meta_u64("TAU_EBS_UNWIND_DEPTH", hp_scfg.unwind_depth);
  meta_u64("HYPROF_UNWIND_DEPTH", hp_scfg.unwind_depth);
  hp_meta_add("HYPROF_UNWINDER", hp_scfg.unwinder == HP_UNW_FP ? "fp" : "libunwind");
  hp_meta_add("HYPROF_SIGNAL", signal_name(hp_scfg.signo, sig));
  hp_service_add_metadata();
  meta_u64("HYPROF_SAMPLE_TABLE", hp_scfg.table_entries);

  uint64_t total[HP_DROP_NREASONS] = {0}, taken = 0;
  for (hp_thread *t = hp_thread_list(); t; t = t->next) {
    const hp_sample_thread *st = hp_sample_of_acquire(t);
    if (!st) continue;
    uint64_t th_taken = hp_read(&st->taken), in_tool = hp_read(&st->drops[HP_DROP_IN_TOOL]);
    taken += th_taken;
    for (int i = 0; i < HP_DROP_NREASONS; i++) total[i] += hp_read(&st->drops[i]);
    meta_thread("TAU_EBS_SAMPLES_TAKEN_", t->index, th_taken);
    meta_thread("TAU_EBS_SAMPLES_DROPPED_TAU_", t->index, in_tool);
    meta_thread("TAU_EBS_SAMPLES_DROPPED_SUSPENDED_", t->index, 0);
  }
  meta_u64("hyprof samples taken", taken);
  for (int i = 0; i < HP_DROP_NREASONS; i++) {
    char key[64] = "hyprof samples dropped ";
    strcat(key, hp_drop_names[i]);
    meta_u64(key, total[i]);
  }
  meta_u64("hyprof samples dropped no_thread_state",
           __atomic_load_n(&hp_drops_no_thread_state, __ATOMIC_RELAXED));
}
