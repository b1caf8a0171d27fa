/* The OpenMP records of the event trace (HYPROF_TRACE: docs/trace.md, "OpenMP"; record layout in
 * core/trace.h, HP_TREC_OMP_*). The OMPT callbacks call these after their own work, on the calling
 * thread, into that thread's trace buffer through hp_trace_put_words: stores only, no lock, no
 * allocation (the buffer is the thread's own; a full one is written out by the thread itself).
 *
 * Identities, so that the writer (native/otf2/hyprof_otf2.c) can make OTF2's thread-team
 * communicators and task identities without any shared counter here:
 * - a team instance (one parallel region as run) is named by its encountering thread's index and
 *   that thread's count of regions encountered: index << 32 | count; count 0 stands for the thread's
 *   initial task (a team of one: tasks created outside any parallel region);
 * - each member records its number in the team and the team's size at its implicit task's begin,
 *   which gives the writer the team's members;
 * - a task is (its team instance, its creating thread's number in that team, the creating thread's
 *   count of tasks created): OTF2's (thread team, creating thread, generation number).
 * Each record takes its own time at the moment it is made, so that it falls between the Enter /
 * Leave records of the same callback in time order (times never go back on a thread). */
#include "../core/clock.h"
#include "../core/trace.h"
#include "ompt_int.h"

uint64_t hp_omp_tr_new_team(hp_omp_thread *o) { return (uint64_t)o->t->index << 32 | ++o->team_seq; }

uint64_t hp_omp_tr_team_of(const hp_omp_thread *o, uint32_t *rank) {
  if (o->nitasks > 0) {
    const hp_omp_itask *it = &o->itasks[o->nitasks - 1];
    *rank = it->rank;
    return it->team;
  }
  *rank = 0;
  return (uint64_t)o->t->index << 32; /* the initial task: a team of one */
}

void hp_omp_tr_fork(hp_omp_thread *o, uint64_t team, uint32_t requested) {
  hp_trace_put_2(o->t, HP_TREC_OMP_FORK, requested, team, 0, 1, hp_now_ns());
}

void hp_omp_tr_join(hp_omp_thread *o, uint64_t team) { hp_trace_put_2(o->t, HP_TREC_OMP_JOIN, 0, team, 0, 1, hp_now_ns()); }

void hp_omp_tr_team(hp_omp_thread *o, int begin, uint64_t team, uint32_t rank, uint32_t size) {
  if (begin) hp_trace_put_2(o->t, HP_TREC_OMP_TEAM_BEGIN, 0, team, (uint64_t)rank | (uint64_t)size << 32, 2, hp_now_ns());
  else hp_trace_put_2(o->t, HP_TREC_OMP_TEAM_END, 0, team, 0, 1, hp_now_ns());
}

void hp_omp_tr_task(hp_omp_thread *o, uint32_t kind, const hp_omp_task *k) {
  hp_trace_put_2(o->t, kind, 0, k->team, (uint64_t)k->creator_rank | (uint64_t)k->gen << 32, 2, hp_now_ns());
}

void hp_omp_tr_lock(hp_omp_thread *o, uint32_t kind, int mutex_kind, uint64_t wait_id) {
  hp_trace_put_2(o->t, kind, (uint64_t)(uint32_t)mutex_kind, wait_id, 0, 1, hp_now_ns());
}
