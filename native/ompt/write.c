/* The OMPT section of the raw file (docs/raw-format.md, tag 9): construct addresses for naming, and
 * per thread the sample-based blame metrics, the overhead classes of each parallel region, the task
 * statistics and the lock release sites. Async-signal-safe: reads the tables as published. */
#include <unistd.h>

#include "../core/clock.h"
#include "ompt_int.h"

void hp_ompt_write_sections(hp_buf *b) {
#ifdef HYPROF_ADDON
  (void)b;
#else
  if (!__atomic_load_n(&hp_omp_active, __ATOMIC_ACQUIRE)) return;
  uint64_t now = hp_now_ns();
  size_t at = hp_buf_section_begin(b, HP_SEC_OMPT);
  hp_buf_u32(b, 3); /* layout of this section */
  hp_buf_u32(b, HP_OMP_HIST_SUB);
  hp_buf_u32(b, (uint32_t)hp_omp_level);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  hp_buf_u32(b, cores > 0 ? (uint32_t)cores : 1);
  hp_buf_u32(b, __atomic_load_n(&hp_omp_max_team, __ATOMIC_RELAXED));
  hp_buf_str(b, hp_omp_runtime);
  hp_buf_u64(b, hp_omp_unreleased_wait_ns());
  hp_buf_u64(b, __atomic_load_n(&hp_omp_wait_table_full, __ATOMIC_RELAXED));

  uint32_t n = hp_omp_codeptr_count();
  hp_buf_u32(b, n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ev, kind;
    uint64_t cp;
    hp_omp_codeptr_get(i, &ev, &kind, &cp);
    hp_buf_u32(b, ev);
    hp_buf_u32(b, kind);
    hp_buf_u64(b, cp);
  }

  /* One head for the count and the records: a thread that joins the list in between (pushed at its
   * head) would make one record more than counted. */
  hp_omp_thread *head = hp_omp_thread_list();
  uint32_t nt = 0;
  for (hp_omp_thread *o = head; o; o = o->next) nt++;
  hp_buf_u32(b, nt);
  for (hp_omp_thread *o = head; o; o = o->next) {
    hp_buf_u32(b, o->t->index);
    hp_buf_u64(b, o->dispatch_ns);
    hp_buf_u64(b, o->dispatch_count);
    hp_buf_u64(b, o->starve_ns);
    hp_buf_u64(b, o->blame_full + o->table_full + o->overflow);

    uint32_t c = 0;
    for (uint32_t i = 0; i < HP_OMP_BLAME; i++) c += __atomic_load_n(&o->blame[i].context, __ATOMIC_ACQUIRE) != 0;
    hp_buf_u32(b, c);
    for (uint32_t i = 0, w = 0; i < HP_OMP_BLAME && w < c; i++) {
      const hp_omp_blame *x = &o->blame[i];
      if (!__atomic_load_n(&x->context, __ATOMIC_ACQUIRE)) continue;
      w++;
      hp_buf_u64(b, x->context);
      hp_buf_u64(b, x->samples);
      hp_buf_u64(b, x->work_ns);
      hp_buf_u64(b, x->idle_ns);
      hp_buf_u64(b, x->overhead_ns);
      hp_buf_u64(b, x->lockwait_ns);
      hp_buf_u64(b, x->other_ns);
      hp_buf_f64(b, x->work_per_working);
      hp_buf_u64(b, x->lock_blame_ns);
      hp_buf_u64(b, x->work_samples);
      hp_buf_u64(b, x->overhead_samples);
      hp_buf_f64(b, x->per_working);
      hp_buf_u64(b, x->lock_blame_samples);
    }

    /* A wait still open at the dump (a worker released from the region's last barrier after the
     * encountering thread went on to exit): counted up to the region's end, as its end would. */
    hp_omp_region open_wait = {0};
    uint64_t *open_class = NULL;
    int32_t nw = __atomic_load_n(&o->in_wait, __ATOMIC_RELAXED);
    const hp_omp_itask *cur = o->nitasks > 0 && o->nitasks <= HP_OMP_LEVELS ? &o->itasks[o->nitasks - 1] : NULL;
    if (nw > 0 && nw <= HP_OMP_WAITS && cur && cur->region_event != HP_NO_EVENT) {
      uint64_t end = now;
      if (cur->par) {
        uint64_t e = __atomic_load_n(&cur->par->end_ns, __ATOMIC_RELAXED);
        if (e >= cur->par_begin_ns && e < now) end = e;
      }
      uint64_t begin = o->waits[nw - 1].begin_ns, tasks = o->task_ns - o->waits[nw - 1].task_ns_at_begin;
      uint64_t d = end > begin ? end - begin : 0;
      open_wait.event = cur->region_event;
      open_class = hp_omp_wait_class(o, &open_wait, o->waits[nw - 1].kind);
      if (open_class) *open_class = d > tasks ? d - tasks : 0;
    }

    c = 0;
    for (uint32_t i = 0; i < HP_OMP_REGIONS; i++) c += o->regions[i].event != UINT32_MAX;
    hp_buf_u32(b, c);
    for (uint32_t i = 0, w = 0; i < HP_OMP_REGIONS && w < c; i++) {
      const hp_omp_region *r = &o->regions[i];
      if (r->event == UINT32_MAX) continue;
      w++;
      const hp_omp_region *ow = open_class && open_wait.event == r->event ? &open_wait : NULL;
      /* Implicit tasks still open: libomp ends a worker's implicit task only at the next fork, so
       * the last region's is open at exit; it counts up to the region's end. */
      uint64_t count = r->count, exec = r->exec_ns;
      for (int32_t k = 0; k < o->nitasks && k < HP_OMP_LEVELS; k++) {
        const hp_omp_itask *it = &o->itasks[k];
        if (it->region_event != r->event) continue;
        uint64_t end = now;
        if (it->par) {
          uint64_t e = __atomic_load_n(&it->par->end_ns, __ATOMIC_RELAXED);
          if (e >= it->par_begin_ns && e < now) end = e;
        }
        count++;
        exec += end > it->begin_ns ? end - it->begin_ns : 0;
      }
      hp_buf_u32(b, r->event);
      hp_buf_u64(b, count);
      hp_buf_u64(b, exec);
      hp_buf_u64(b, r->sync_ns + (ow ? ow->sync_ns : 0));
      hp_buf_u64(b, r->imbalance_ns + (ow ? ow->imbalance_ns : 0));
      hp_buf_u64(b, r->limpar_ns + (ow ? ow->limpar_ns : 0));
      hp_buf_u64(b, r->mgmt_ns);
    }

    c = 0;
    for (uint32_t i = 0; i < HP_OMP_TASKS; i++) c += __atomic_load_n(&o->tasks[i].event, __ATOMIC_ACQUIRE) != UINT32_MAX;
    hp_buf_u32(b, c);
    for (uint32_t i = 0, w = 0; i < HP_OMP_TASKS && w < c; i++) {
      const hp_omp_taskstat *s = &o->tasks[i];
      if (__atomic_load_n(&s->event, __ATOMIC_ACQUIRE) == UINT32_MAX) continue;
      w++;
      hp_buf_u32(b, s->event);
      hp_buf_u64(b, s->created);
      hp_buf_u64(b, s->executed);
      hp_buf_u64(b, s->sum_ns);
      hp_buf_u64(b, s->max_ns);
      hp_buf_u64(b, s->executed ? s->min_ns : 0);
      hp_buf_u64(b, s->spawned);
      hp_buf_f64(b, s->sum_sq);
      uint32_t nb = 0;
      for (int h = 0; h < HP_OMP_HIST; h++) nb += s->hist[h] != 0;
      hp_buf_u32(b, nb); /* the histogram's non-empty buckets: (bucket, count) */
      for (uint32_t h = 0; h < HP_OMP_HIST; h++) {
        if (!s->hist[h]) continue;
        hp_buf_u32(b, h);
        hp_buf_u64(b, s->hist[h]);
      }
    }

    c = 0;
    for (uint32_t i = 0; i < HP_OMP_RELEASES; i++) c += o->releases[i].count != 0;
    hp_buf_u32(b, c);
    for (uint32_t i = 0, w = 0; i < HP_OMP_RELEASES && w < c; i++) {
      const hp_omp_release *r = &o->releases[i];
      if (!r->count) continue;
      w++;
      hp_buf_u64(b, (uint64_t)(uintptr_t)r->codeptr);
      hp_buf_u64(b, r->blame_ns);
      hp_buf_u64(b, r->count);
    }
  }
  hp_buf_section_end(b, at);
#endif
}
