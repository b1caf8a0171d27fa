/* GPU activity in a process's trace file (the CUDA layer's records, trace_file.h TF_GPU_DEF / TF_GPU),
 * put in the order the OTF2 writer needs: kernels, copies and sets per GPU stream sorted by start
 * (one location each), synchronisations per launching host thread sorted by start (they are the host
 * waiting: regions on that thread's location). The records sit in the buffers of whichever threads
 * handed CUPTI's records over, stamped at that moment; their GPU times are in the payload. */
#include "gpu_lanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS_MAX (1u << 16) /* the CUDA layer has 4,096; a larger slot is a damaged record, left out */

static void *grow(void *p, size_t n, size_t size) {
  void *q = realloc(p, (n ? n : 1) * size);
  if (!q) {
    fputs("hyprof-otf2: out of memory\n", stderr);
    exit(1);
  }
  return q;
}

static void push(gpu_interval **iv, size_t *n, size_t *room, gpu_interval v) {
  if (*n == *room) {
    *room = *room ? *room * 2 : 64;
    *iv = grow(*iv, *room, sizeof **iv);
  }
  (*iv)[(*n)++] = v;
}

static int by_start(const void *a, const void *b) {
  const gpu_interval *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return 0;
}

static int by_stream(const void *a, const void *b) {
  const gpu_lane *x = a, *y = b;
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->context != y->context) return x->context < y->context ? -1 : 1;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return 0;
}

void gpu_collect(const tf_file *f, gpu_trace *g) {
  memset(g, 0, sizeof *g);
  /* Definitions first, from every thread: an activity may be in another thread's buffer than its
   * aggregate's definition. */
  for (size_t k = 0; k < f->n_threads; k++) {
    const tf_thread *t = &f->threads[k];
    for (size_t at = 0; at < t->n_words; at += tf_record_words(&t->rec[at])) {
      const uint64_t *rec = &t->rec[at];
      if (tf_kind(rec) != TF_GPU_DEF) continue;
      uint64_t slot = tf_value(rec);
      if (slot >= SLOTS_MAX) continue;
      if (slot >= g->n_slots) {
        g->slots = grow(g->slots, slot + 1, sizeof *g->slots);
        memset(g->slots + g->n_slots, 0, (slot + 1 - g->n_slots) * sizeof *g->slots);
        g->n_slots = slot + 1;
      }
      gpu_slot *s = &g->slots[slot];
      size_t words = tf_record_words(rec) - 5; /* time, word, three fields: the rest is the name */
      s->defined = 1;
      s->kind = (uint32_t)rec[2];
      s->device = (uint32_t)(rec[2] >> 32);
      s->context = (uint32_t)rec[3];
      s->stream = (uint32_t)(rec[3] >> 32);
      s->thread = (uint32_t)rec[4];
      memset(s->name, 0, sizeof s->name);
      memcpy(s->name, &rec[5], words * 8 < sizeof s->name - 1 ? words * 8 : sizeof s->name - 1);
    }
  }
  size_t *lane_room = NULL, *host_room = NULL;
  for (size_t k = 0; k < f->n_threads; k++) {
    const tf_thread *t = &f->threads[k];
    for (size_t at = 0; at < t->n_words; at += tf_record_words(&t->rec[at])) {
      const uint64_t *rec = &t->rec[at];
      if (tf_kind(rec) != TF_GPU) continue;
      uint64_t slot = tf_value(rec);
      if (slot >= g->n_slots || !g->slots[slot].defined) {
        g->undefined++;
        continue;
      }
      const gpu_slot *s = &g->slots[slot];
      gpu_interval v = {rec[2], rec[3] > rec[2] ? rec[3] : rec[2], rec[4], (uint32_t)slot};
      if (v.start < g->first || !g->first) g->first = v.start;
      if (v.end > g->last) g->last = v.end;
      if (s->kind == GPU_SYNC) {
        if (s->thread == UINT32_MAX) {
          g->unplaced++;
          continue;
        }
        size_t h = 0;
        while (h < g->n_hosts && g->hosts[h].thread != s->thread) h++;
        if (h == g->n_hosts) {
          g->hosts = grow(g->hosts, g->n_hosts + 1, sizeof *g->hosts);
          host_room = grow(host_room, g->n_hosts + 1, sizeof *host_room);
          g->hosts[g->n_hosts] = (gpu_host){s->thread, NULL, 0};
          host_room[g->n_hosts++] = 0;
        }
        push(&g->hosts[h].iv, &g->hosts[h].n, &host_room[h], v);
        continue;
      }
      size_t l = 0;
      while (l < g->n_lanes && !(g->lanes[l].device == s->device && g->lanes[l].context == s->context && g->lanes[l].stream == s->stream)) l++;
      if (l == g->n_lanes) {
        g->lanes = grow(g->lanes, g->n_lanes + 1, sizeof *g->lanes);
        lane_room = grow(lane_room, g->n_lanes + 1, sizeof *lane_room);
        g->lanes[g->n_lanes] = (gpu_lane){s->device, s->context, s->stream, NULL, 0};
        lane_room[g->n_lanes++] = 0;
      }
      push(&g->lanes[l].iv, &g->lanes[l].n, &lane_room[l], v);
    }
  }
  free(lane_room);
  free(host_room);
  for (size_t l = 0; l < g->n_lanes; l++) qsort(g->lanes[l].iv, g->lanes[l].n, sizeof *g->lanes[l].iv, by_start);
  qsort(g->lanes, g->n_lanes, sizeof *g->lanes, by_stream);
  for (size_t h = 0; h < g->n_hosts; h++) qsort(g->hosts[h].iv, g->hosts[h].n, sizeof *g->hosts[h].iv, by_start);
}

const gpu_host *gpu_host_of(const gpu_trace *g, uint32_t thread) {
  for (size_t h = 0; h < g->n_hosts; h++)
    if (g->hosts[h].thread == thread) return &g->hosts[h];
  return NULL;
}

void gpu_free(gpu_trace *g) {
  for (size_t l = 0; l < g->n_lanes; l++) free(g->lanes[l].iv);
  for (size_t h = 0; h < g->n_hosts; h++) free(g->hosts[h].iv);
  free(g->lanes);
  free(g->hosts);
  free(g->slots);
  memset(g, 0, sizeof *g);
}
