/* Reading a trace file: see trace_file.h. The whole file is read into memory once (a converter run,
 * not the measured program). */
#include "trace_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 48
#define MAGIC 0x42545048u
enum { BLOCK_RECORDS = 1, BLOCK_SNAPSHOT = 2, BLOCK_DEFS = 3 };
#define BLOCK_ENDED 1u

static uint32_t crc_table[256];

static uint32_t crc_more(uint32_t c, const uint8_t *p, size_t n) {
  if (!crc_table[1])
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t v = i;
      for (int k = 0; k < 8; k++) v = v & 1 ? 0x82F63B78u ^ (v >> 1) : v >> 1; /* CRC-32C, as trace.c */
      crc_table[i] = v;
    }
  for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c;
}

static uint32_t u32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t u64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

typedef struct block {
  uint32_t kind, thread, gen, len, flags, tid;
  uint64_t end_ns, lost;
  size_t at;     /* offset of the header */
  size_t order;  /* position in the file */
} block;

static int by_thread_gen(const void *a, const void *b) {
  const block *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->gen != y->gen) return x->gen < y->gen ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static int fail(char *err, size_t cap, const char *path, size_t at, const char *what) {
  snprintf(err, cap, "%s: offset %zu: %s: this trace file is damaged; it is not converted", path, at, what);
  return -1;
}

/* A string of a DEFS block (u32 length, bytes); NULL past `end`. */
static char *take_str(const uint8_t **p, const uint8_t *end) {
  if (end - *p < 4) return NULL;
  uint32_t n = u32(*p);
  if ((size_t)(end - *p - 4) < n) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  memcpy(s, *p + 4, n);
  s[n] = 0;
  *p += 4 + n;
  return s;
}

int tf_read(const char *path, tf_file *f, char *err, size_t cap) {
  memset(f, 0, sizeof *f);
  f->path = path;
  if (cap) err[0] = 0;
  FILE *in = fopen(path, "rb");
  if (!in) {
    snprintf(err, cap, "%s: cannot read the trace file: %s", path, strerror(errno));
    return -1;
  }
  uint8_t *data = NULL;
  size_t size = 0, room = 0;
  for (;;) {
    if (size == room) {
      room = room ? room * 2 : 1 << 20;
      uint8_t *d = realloc(data, room);
      if (!d) {
        free(data);
        fclose(in);
        snprintf(err, cap, "%s: out of memory reading the trace file", path);
        return -1;
      }
      data = d;
    }
    size_t got = fread(data + size, 1, room - size, in);
    size += got;
    if (got == 0) break;
  }
  fclose(in);
  int rc = -1;
  block *blocks = NULL;
  size_t n_blocks = 0, blocks_room = 0;
  if (size < 32 || memcmp(data, "HYPROFTR", 8) != 0) {
    fail(err, cap, path, 0, "not a hyprof trace file (no HYPROFTR header)");
    goto out;
  }
  if (u32(data + 8) != 1) {
    fail(err, cap, path, 8, "unknown trace file version");
    goto out;
  }
  f->extra = u32(data + 12);
  if (f->extra > 8) {
    fail(err, cap, path, 12, "more extra metric values per record than the runtime writes");
    goto out;
  }
  memcpy(&f->pid, data + 16, 8);
  f->start_wall_ns = u64(data + 24);
  for (size_t at = 32; at < size;) {
    if (size - at < HEADER || size - at - HEADER < u32(data + at + 16)) {
      if (size - at >= 4 && u32(data + at) != MAGIC) {
        fail(err, cap, path, at, "not a trace block");
        goto out;
      }
      f->cut_bytes = size - at; /* the last block, cut short: the run ended while it was written */
      break;
    }
    const uint8_t *h = data + at;
    block b = {u32(h + 4), u32(h + 8), u32(h + 12), u32(h + 16), u32(h + 24), u32(h + 28), u64(h + 32), u64(h + 40), at, n_blocks};
    if (u32(h) != MAGIC) {
      fail(err, cap, path, at, "not a trace block");
      goto out;
    }
    uint32_t c = crc_more(0xFFFFFFFFu, h + 24, 24);
    c = crc_more(c, h + HEADER, b.len) ^ 0xFFFFFFFFu;
    if (c != u32(h + 20)) {
      fail(err, cap, path, at, "block checksum mismatch");
      goto out;
    }
    if (b.kind == BLOCK_DEFS) {
      const uint8_t *p = h + HEADER, *end = p + b.len;
      while (p < end) {
        if (end - p < 12) {
          fail(err, cap, path, (size_t)(p - data), "event definition cut short");
          goto out;
        }
        uint32_t id = u32(p);
        uint8_t kind = p[4];
        uint32_t base = u32(p + 8);
        p += 12;
        char *name = take_str(&p, end), *group = name ? take_str(&p, end) : NULL;
        if (!group || id > 100000000u) {
          free(name);
          fail(err, cap, path, (size_t)(p - data), "event definition malformed");
          goto out;
        }
        if (id >= f->n_events) {
          size_t n = id + 1 > f->n_events * 2 ? id + 1 : f->n_events * 2;
          tf_event *e = realloc(f->events, n * sizeof *e);
          if (!e) {
            free(name);
            free(group);
            goto out;
          }
          memset(e + f->n_events, 0, (n - f->n_events) * sizeof *e);
          f->events = e;
          f->n_events = n;
        }
        tf_event *e = &f->events[id];
        free(e->name);
        free(e->group);
        *e = (tf_event){id, kind, base, name, group};
      }
    } else if (b.kind == BLOCK_RECORDS || b.kind == BLOCK_SNAPSHOT) {
      /* Records of their own sizes (trace_file.h), each of a known kind with the words that kind has. */
      const uint8_t *p = h + HEADER;
      size_t r = 0;
      for (size_t off = 0; off < b.len; r++) {
        if (b.len - off < 16) {
          fail(err, cap, path, at + HEADER + off, "block length is not a whole number of records");
          goto out;
        }
        uint64_t w = u64(p + off + 8);
        uint32_t kind = (uint32_t)(w >> 56), more = (uint32_t)((w >> 48) & 0xFF);
        int ok = kind == TF_ENTER || kind == TF_LEAVE ? more == f->extra
                 : kind == TF_MPI_SEND || kind == TF_MPI_RECV ? more == 2
                 : kind == TF_MPI_ISEND || kind == TF_MPI_IRECV || kind == TF_MPI_COLL_END ? more == 3
                 : kind == TF_MPI_ISEND_DONE || kind == TF_MPI_IRECV_REQUEST || kind == TF_MPI_COLL_BEGIN ? more == 0
                 : kind == TF_MPI_COMM ? more >= 2
                 : tf_omp_words(kind) >= 0 ? more == (uint32_t)tf_omp_words(kind)
                 : tf_gpu_record_ok(kind, more) >= 0 ? tf_gpu_record_ok(kind, more)
                 : tf_sample_record_ok(kind, more);
        if (ok < 0) {
          char what[96];
          snprintf(what, sizeof what, "record %zu of the block has unknown kind %u", r, kind);
          fail(err, cap, path, at + HEADER + off, what);
          goto out;
        }
        if (!ok) {
          char what[96];
          snprintf(what, sizeof what, "record %zu of the block (kind %u) has %u words, not the kind's", r, kind, more);
          fail(err, cap, path, at + HEADER + off, what);
          goto out;
        }
        if ((b.len - off - 16) / 8 < more) {
          fail(err, cap, path, at + HEADER + off, "block length is not a whole number of records");
          goto out;
        }
        off += 16 + 8 * (size_t)more;
      }
      if (n_blocks == blocks_room) {
        blocks_room = blocks_room ? blocks_room * 2 : 64;
        block *nb = realloc(blocks, blocks_room * sizeof *nb);
        if (!nb) goto out;
        blocks = nb;
      }
      blocks[n_blocks++] = b;
    } else {
      fail(err, cap, path, at, "unknown block kind");
      goto out;
    }
    at += HEADER + b.len;
  }

  /* Per thread, in gen order: the RECORDS block of each gen, else its longest SNAPSHOT. */
  qsort(blocks, n_blocks, sizeof *blocks, by_thread_gen);
  for (size_t i = 0; i < n_blocks;) {
    size_t j = i;
    while (j < n_blocks && blocks[j].thread == blocks[i].thread) j++;
    tf_thread *t = realloc(f->threads, (f->n_threads + 1) * sizeof *t);
    if (!t) goto out;
    f->threads = t;
    t = &f->threads[f->n_threads++];
    memset(t, 0, sizeof *t);
    t->index = blocks[i].thread;
    size_t total = 0;
    for (size_t k = i; k < j; k++) total += blocks[k].len;
    t->rec = malloc(total ? total : 1);
    if (!t->rec) goto out;
    size_t last_snapshot_order = 0, last_records_order = 0;
    int have_snapshot = 0, have_records = 0;
    uint32_t expect = 0;
    for (size_t k = i; k < j;) {
      size_t g = k;
      const block *pick = NULL;
      while (g < j && blocks[g].gen == blocks[k].gen) {
        const block *b = &blocks[g];
        if (b->kind == BLOCK_RECORDS) pick = b;
        else if (!pick || (pick->kind == BLOCK_SNAPSHOT && b->len >= pick->len)) pick = b;
        if (b->kind == BLOCK_SNAPSHOT && (!have_snapshot || b->order > last_snapshot_order)) {
          have_snapshot = 1;
          last_snapshot_order = b->order;
          t->end_ns = b->end_ns;
        }
        if (b->kind == BLOCK_RECORDS && (!have_records || b->order > last_records_order)) {
          have_records = 1;
          last_records_order = b->order;
        }
        if (b->lost > t->lost) t->lost = b->lost;
        if (b->tid) t->tid = b->tid;
        g++;
      }
      if (pick->gen > expect) t->missing_blocks += pick->gen - expect;
      expect = pick->gen + 1;
      memcpy(t->rec + t->n_words, data + pick->at + HEADER, pick->len);
      for (size_t w = t->n_words; w < t->n_words + pick->len / 8; w += tf_record_words(t->rec + w)) {
        if (!t->n) t->first_ns = t->rec[w];
        t->last_ns = t->rec[w];
        t->n++;
      }
      t->n_words += pick->len / 8;
      if (pick->kind == BLOCK_RECORDS && (pick->flags & BLOCK_ENDED)) {
        t->ended = 1;
        t->end_ns = pick->end_ns;
      }
      k = g;
    }
    t->closed_by_dump = have_snapshot || t->ended;
    /* RECORDS written after the last dump's snapshot (a flush, then the run went on and was killed) */
    if (!t->ended && have_snapshot && have_records && last_records_order > last_snapshot_order) t->ran_after_dump = 1;
    i = j;
  }
  rc = 0;
out:
  if (rc != 0 && !err[0]) snprintf(err, cap, "%s: out of memory reading the trace file", path);
  free(blocks);
  free(data);
  if (rc != 0) tf_free(f);
  return rc;
}

void tf_free(tf_file *f) {
  for (size_t i = 0; i < f->n_threads; i++) free(f->threads[i].rec);
  free(f->threads);
  for (size_t i = 0; i < f->n_events; i++) {
    free(f->events[i].name);
    free(f->events[i].group);
  }
  free(f->events);
  f->threads = NULL;
  f->events = NULL;
  f->n_threads = f->n_events = 0;
}
