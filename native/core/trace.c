/* Event tracing: the per-thread buffers and the trace file (trace.h; layout in docs/raw-format.md,
 * "Trace file").
 *
 * The file is written as the run goes, by appends of whole blocks (O_APPEND: one write(2) of a block
 * is one append, so the blocks of threads never interleave):
 * - RECORDS: a thread's full buffer (its `gen`-th), written by the thread itself from the probe;
 * - SNAPSHOT: the records of a thread not yet written, copied by a dump (exit, flush, signal, exec);
 *   a later RECORDS block of the same gen holds them again and wins;
 * - DEFS: the events registered since the last DEFS block (id, kind, base, name, group), written after
 *   every block of records, so that a file cut by SIGKILL still names what it holds.
 * The reader takes, per thread and gen, the RECORDS block, else the longest SNAPSHOT: a run killed at
 * any moment leaves every block written before (docs/trace.md, "Reliability").
 *
 * Signal safety: the record path (hp_trace_put) and everything a dump calls use only stores into
 * this thread's buffer, write(2), mmap(2) and atomics; no lock, no malloc, no stdio. The buffer is
 * allocated at the thread's start (not in a handler).
 */
#define _GNU_SOURCE
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "events.h"
#include "meta.h"
#include "metrics.h"
#include "runtime.h"
#include "writer.h"

int hp_trace_on;
uint32_t hp_trace_extra;

#define BLOCK_MAGIC 0x42545048u /* "HPTB" */
enum { BLOCK_RECORDS = 1, BLOCK_SNAPSHOT = 2, BLOCK_DEFS = 3 };
#define BLOCK_ENDED 1u

static int fd = -1;               /* the trace file (atomic: a forked child opens it on first use) */
static int open_state;           /* forked child: 1 the file is still to be opened, 2 being opened */
static uint32_t buffer_bytes;
static char file_path[4400];
static char file_base[256];      /* the file's name without the directory, for the metadata */
static uint32_t defs_done;       /* events whose DEFS are claimed (written or being written) */
static uint64_t write_failures;  /* failed block writes, all threads (atomic) */
static int write_errno;          /* the first failed write's errno */

/* ---- CRC-32C (Castagnoli), incremental ----
 * Not the raw file's zlib CRC-32 (writer.c): every byte of the trace passes through it, and CRC-32C
 * has an instruction on x86-64 (SSE 4.2: 8 bytes per instruction against about 8 instructions per
 * byte for a table), which keeps the check of a full buffer a small part of recording it (bench/trace.ts).
 * The table is the fallback where the instruction is missing, made at process start. */

static uint32_t crc_table[256];
static int crc_hw;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
#if defined(__x86_64__)
  __builtin_cpu_init();
  crc_hw = __builtin_cpu_supports("sse4.2");
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_more_hw(uint32_t c, const uint8_t *p, size_t n) {
  uint64_t c64 = c;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c64 = __builtin_ia32_crc32di(c64, w);
  }
  c = (uint32_t)c64;
  for (; n; p++, n--) c = __builtin_ia32_crc32qi(c, *p);
  return c;
}
#endif

static uint32_t crc_more(uint32_t c, const uint8_t *p, size_t n) {
#if defined(__x86_64__)
  if (crc_hw) return crc_more_hw(c, p, n);
#endif
  for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c;
}

/* The header of a block whose payload is the `len` bytes after it. The CRC covers the header's last
 * 24 bytes (flags, tid, end, lost) and the payload. Payloads of other threads' buffers are read with
 * acquire loads (read_payload), never by plain loads. */
static void put_header(uint8_t *h, uint32_t kind, uint32_t thread, uint32_t gen, uint32_t len, uint32_t flags,
                       uint32_t tid, uint64_t end_ns, uint64_t lost) {
  uint32_t w[6] = {BLOCK_MAGIC, kind, thread, gen, len, 0};
  memcpy(h + 24, &flags, 4);
  memcpy(h + 28, &tid, 4);
  memcpy(h + 32, &end_ns, 8);
  memcpy(h + 40, &lost, 8);
  uint32_t c = crc_more(0xFFFFFFFFu, h + 24, 24);
  c = crc_more(c, h + HP_TRACE_BLOCK_HEADER, len) ^ 0xFFFFFFFFu;
  w[5] = c;
  memcpy(h, w, 24);
}

static int write_all(const uint8_t *p, size_t n) {
  int to = __atomic_load_n(&fd, __ATOMIC_ACQUIRE);
  while (n) {
    ssize_t w = write(to, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int e = w < 0 ? errno : ENOSPC, none = 0;
      __atomic_compare_exchange_n(&write_errno, &none, e, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      __atomic_fetch_add(&write_failures, 1, __ATOMIC_RELAXED);
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int ensure_file(void);

/* ---- event definitions ---- */

static size_t str_size(const char *s) { return 4 + (s ? strlen(s) : 0); }

static uint8_t *put_str(uint8_t *p, const char *s) {
  uint32_t n = s ? (uint32_t)strlen(s) : 0;
  memcpy(p, &n, 4);
  if (n) memcpy(p + 4, s, n);
  return p + 4 + n;
}

/* Write the definitions of the events registered since the last call (any thread, or a dump): the
 * range is claimed first, so two writers never write the same events. Async-signal-safe. A range
 * whose block cannot be made or written leaves those events unnamed in the file: the reader says so,
 * and names them from the raw file when there is one. */
static void write_defs(void) {
  if (!ensure_file()) return;
  uint32_t from = __atomic_load_n(&defs_done, __ATOMIC_ACQUIRE), to;
  do {
    to = hp_event_count();
    if (to <= from) return;
  } while (!__atomic_compare_exchange_n(&defs_done, &from, to, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  size_t len = 0;
  for (uint32_t i = from; i < to; i++) {
    hp_event *e = hp_event_get(i);
    len += 12 + str_size(e ? e->name : NULL) + str_size(e ? e->group : NULL);
  }
  size_t total = HP_TRACE_BLOCK_HEADER + len;
  void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return;
  uint8_t *p = (uint8_t *)m + HP_TRACE_BLOCK_HEADER;
  for (uint32_t i = from; i < to; i++) {
    hp_event *e = hp_event_get(i);
    uint32_t id = i, base = e ? e->base : i;
    uint8_t kind[4] = {e ? e->kind : 0, 0, 0, 0};
    memcpy(p, &id, 4);
    memcpy(p + 4, kind, 4);
    memcpy(p + 8, &base, 4);
    p = put_str(p + 12, e ? e->name : NULL);
    p = put_str(p, e ? e->group : NULL);
  }
  put_header(m, BLOCK_DEFS, 0, from, (uint32_t)len, 0, 0, 0, 0);
  write_all(m, total);
  munmap(m, total);
}

/* ---- the file ---- */

static void append(char *dst, size_t cap, const char *s) {
  size_t n = strlen(dst);
  while (*s && n + 1 < cap) dst[n++] = *s++;
  dst[n] = 0;
}

static void append_u64(char *dst, size_t cap, uint64_t v) {
  char tmp[24];
  int n = 0;
  do tmp[n++] = (char)('0' + v % 10);
  while ((v /= 10));
  char out[24];
  int j = 0;
  while (n) out[j++] = tmp[--n];
  out[j] = 0;
  append(dst, cap, out);
}

/* `hyprof.<host>.<pid>.<start µs>.trace`: the raw file's name (dump.c) with `.trace` for `.raw`. */
static void name_file(void) {
  struct utsname u;
  file_base[0] = 0;
  append(file_base, sizeof file_base, "hyprof.");
  append(file_base, sizeof file_base, uname(&u) == 0 ? u.nodename : "host");
  append(file_base, sizeof file_base, ".");
  append_u64(file_base, sizeof file_base, (uint64_t)hp_rt.pid);
  append(file_base, sizeof file_base, ".");
  append_u64(file_base, sizeof file_base, hp_rt.start_wall_ns / 1000);
  append(file_base, sizeof file_base, ".trace");
  file_path[0] = 0;
  append(file_path, sizeof file_path, hp_cfg.raw_dir);
  append(file_path, sizeof file_path, "/");
  append(file_path, sizeof file_path, file_base);
}

/* Create the named file and write its header; publish fd. Async-signal-safe (mkdir, open, write). */
static int open_file(void) {
  if (!hp_rt.under_run) mkdir(hp_cfg.raw_dir, 0777); /* as the dump does (dump.c) */
  int f = open(file_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (f < 0) return -1;
  __atomic_store_n(&fd, f, __ATOMIC_RELEASE);
  /* The file's header: magic, version, extra metric values per record, pid, start. */
  uint8_t h[32] = "HYPROFTR";
  uint32_t version = 1, extra = hp_trace_extra;
  int64_t pid = hp_rt.pid;
  uint64_t start = hp_rt.start_wall_ns;
  memcpy(h + 8, &version, 4);
  memcpy(h + 12, &extra, 4);
  memcpy(h + 16, &pid, 8);
  memcpy(h + 24, &start, 8);
  if (write_all(h, sizeof h) != 0) {
    __atomic_store_n(&fd, -1, __ATOMIC_RELEASE);
    close(f);
    return -1;
  }
  return 0;
}

/* The file is open (1) or cannot be (0). A forked child opens its file on its first write, not at
 * the fork: the fork-and-exec of a shell (system, popen) whose child enters no timer writes no raw
 * file (dump.c), and must leave no trace file either. The first writer opens it; another thread
 * (or a signal handler) that finds it being opened waits a bounded while, then counts its records
 * lost rather than hang. Async-signal-safe. */
static int ensure_file(void) {
  if (__atomic_load_n(&fd, __ATOMIC_ACQUIRE) >= 0) return 1;
  int pending = 1;
  if (__atomic_compare_exchange_n(&open_state, &pending, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    if (open_file() != 0) { /* said once (the state is never 1 again); its records are counted lost */
      static const char a[] = "hyprof: HYPROF_TRACE: cannot create the trace file ", b[] = "; this process's trace is lost\n";
      ssize_t w = write(2, a, sizeof a - 1);
      w = write(2, file_path, strlen(file_path));
      w = write(2, b, sizeof b - 1);
      (void)w;
    }
    __atomic_store_n(&open_state, 0, __ATOMIC_RELEASE);
  } else {
    for (int i = 0; i < 1000000 && __atomic_load_n(&open_state, __ATOMIC_ACQUIRE) == 2; i++) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
  }
  return __atomic_load_n(&fd, __ATOMIC_ACQUIRE) >= 0;
}

void hp_trace_process_start(void) {
  if (!hp_env_bool("HYPROF_TRACE", "TAU_TRACE", 0)) return;
  const char *fmt = getenv("TAU_TRACE_FORMAT");
  if (fmt && *fmt && strcasecmp(fmt, "otf2") != 0)
    hp_warn("TAU_TRACE_FORMAT=%s: hyprof writes traces in OTF2 only (TAU_TRACE_FORMAT=otf2)", fmt);
  buffer_bytes = (uint32_t)hp_env_long("HYPROF_TRACE_BUFFER_KB", NULL, 1024, 4, 1024 * 1024) * 1024u;
  hp_trace_extra = hp_n_metrics > 1 ? hp_n_metrics - 1 : 0;
  crc_init();
  name_file();
  if (open_file() != 0) {
    int e = errno;
    hp_warn("HYPROF_TRACE: cannot create the trace file %s (%s); no trace is recorded, the profile is", file_path, strerror(e));
    hp_meta_add("hyprof Trace", "off: the trace file could not be created");
    return;
  }
  hp_meta_add("hyprof Trace", file_base);
  __atomic_store_n(&hp_trace_on, 1, __ATOMIC_RELEASE);
}

/* ---- per thread ---- */

static void lose(hp_trace_buf *b, uint64_t n, uint32_t why) {
  __atomic_store_n(&b->lost, b->lost + n, __ATOMIC_RELAXED);
  __atomic_fetch_or(&b->lost_why, why, __ATOMIC_RELAXED);
}

static uint32_t record_size(void) { return 16 + 8 * hp_trace_extra; }

/* Hand the thread's buffer to write(2) as block `gen` (flags: BLOCK_ENDED for its last), then
 * start the next gen empty. On the thread itself. */
static void write_buffer(hp_thread *t, hp_trace_buf *b, uint32_t flags, uint64_t end_ns) {
  uint32_t len = b->len;
  if (len == 0 && !flags) return;
  put_header(b->mem, BLOCK_RECORDS, t->index, b->gen, len, flags, (uint32_t)t->tid, end_ns, b->lost);
  if (!ensure_file() || write_all(b->mem, HP_TRACE_BLOCK_HEADER + (size_t)len) != 0) lose(b, len / record_size(), HP_TRACE_LOST_WRITE);
  /* gen first, then len: a dump that read the old len and copies meanwhile sees gen moved (seqlock) */
  __atomic_store_n(&b->gen, b->gen + 1, __ATOMIC_RELEASE);
  __atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
  write_defs();
}

void hp_trace_put_slow(hp_thread *t, uint32_t kind, uint32_t event, uint64_t ns) {
  hp_trace_buf *b = t->trace;
  if (!b) return; /* the thread's state was made before tracing started: nothing to count it in */
  if (!b->mem) {
    lose(b, 1, __atomic_load_n(&b->ended, __ATOMIC_RELAXED) ? HP_TRACE_LOST_ENDED : HP_TRACE_LOST_MEMORY);
    return;
  }
  uint32_t size = record_size();
  if (b->len + size > b->cap) write_buffer(t, b, 0, 0);
  uint64_t v[HP_MAX_METRICS] = {0};
  if (hp_trace_extra) hp_metrics_read(t, v); /* metric 0 is TIME: `ns` */
  uint32_t len = b->len;
  uint64_t *r = (uint64_t *)(b->mem + HP_TRACE_BLOCK_HEADER + len);
  __atomic_store_n(&r[0], ns, __ATOMIC_RELEASE);
  __atomic_store_n(&r[1], (uint64_t)event | ((uint64_t)hp_trace_extra << 48) | ((uint64_t)kind << 56), __ATOMIC_RELEASE);
  for (uint32_t m = 0; m < hp_trace_extra; m++) __atomic_store_n(&r[2 + m], v[m + 1], __ATOMIC_RELEASE);
  __atomic_store_n(&b->len, len + size, __ATOMIC_RELEASE);
}

void hp_trace_put_words(hp_thread *t, uint32_t kind, uint64_t value, const uint64_t *payload, uint32_t n, uint64_t ns) {
  hp_trace_buf *b = t->trace;
  if (!b) return;
  if (!b->mem) {
    lose(b, 1, __atomic_load_n(&b->ended, __ATOMIC_RELAXED) ? HP_TRACE_LOST_ENDED : HP_TRACE_LOST_MEMORY);
    return;
  }
  uint32_t size = 16 + 8 * n;
  if (n > HP_TREC_MAX_WORDS || size > b->cap) { /* never with the runtime's kinds and a buffer of >= 4 KiB */
    lose(b, 1, HP_TRACE_LOST_MEMORY);
    return;
  }
  if (b->len + size > b->cap) write_buffer(t, b, 0, 0);
  uint32_t len = b->len;
  uint64_t *r = (uint64_t *)(b->mem + HP_TRACE_BLOCK_HEADER + len);
  __atomic_store_n(&r[0], ns, __ATOMIC_RELEASE);
  __atomic_store_n(&r[1], (value & 0xFFFFFFFFFFFFull) | ((uint64_t)n << 48) | ((uint64_t)kind << 56), __ATOMIC_RELEASE);
  for (uint32_t i = 0; i < n; i++) __atomic_store_n(&r[2 + i], payload[i], __ATOMIC_RELEASE);
  __atomic_store_n(&b->len, len + size, __ATOMIC_RELEASE);
}

/* ---- samples (the sampling signal handler's records) ----
 *
 * Samples go into the same buffer as the thread's enters and leaves, so they are in time order with
 * them by construction and drained with them (a full buffer written by the next probe, a dump's
 * snapshot). Sharing the buffer with the probes is safe without a lock because the two never
 * overlap, argued step by step:
 *  1. Only the owning thread writes its buffer: the probes run on it, and the sampling signal is
 *     delivered to the thread it samples (SIGEV_THREAD_ID / F_OWNER_TID; the handler finds its
 *     state with hp_thread_current(), its own). A dump on another thread only reads (a seqlock on
 *     gen, hp_trace_dump_thread), as it does while a probe writes.
 *  2. Every other writer of the buffer (hp_trace_put, _put_slow, _put_words, write_buffer, thread
 *     start, end and fork) runs with t->in_tool set: set before its first access, with a signal
 *     fence after the store, and cleared after its last, with a signal fence before (thread.h).
 *  3. The handler calls hp_trace_sample only when it read in_tool clear (handler.c returns before,
 *     counting the sample `in_tool`). A signal interrupts the thread between two of its
 *     instructions: in_tool clear then means no writer is between its first and last access (the
 *     fences keep the compiler from moving those accesses across the in_tool stores), so the
 *     handler sees len and the records consistent, and the writer's next access, after the handler
 *     returned, reads len afresh (its load comes after its in_tool store and fence) and sees the
 *     sample's stores (same thread).
 *  4. The handler is not re-entered: every asynchronous signal is blocked while it runs
 *     (sigchain.c), and a dump in a signal handler on this thread sets in_tool first.
 *  5. The handler never writes a block out (no system call here): a sample that does not fit is
 *     counted in samples_lost, and the thread's next probe writes the full buffer as usual. So a
 *     region that runs longer than the buffer holds samples without a probe loses the later ones,
 *     counted and said (docs/trace.md).
 *  6. Stores are release stores, records first and len last, as hp_trace_put's: a dump on another
 *     thread that reads the new len sees the sample's words.
 * No allocation, no lock, no system call: loads and stores into this thread's buffer. */
void hp_trace_sample(hp_thread *t, uint64_t ns, const uint64_t *pcs, uint32_t depth) {
  hp_trace_buf *b = t->trace;
  if (!b || depth == 0) return;
  if (depth > HP_TRACE_SAMPLE_FRAMES) depth = HP_TRACE_SAMPLE_FRAMES;
  uint32_t size = 16 + 8 * depth, len = b->len;
  if (!b->mem || len + size > b->cap || __atomic_load_n(&b->ended, __ATOMIC_RELAXED)) {
    __atomic_store_n(&b->samples_lost, b->samples_lost + 1, __ATOMIC_RELAXED);
    return;
  }
  uint64_t *r = (uint64_t *)(b->mem + HP_TRACE_BLOCK_HEADER + len);
  __atomic_store_n(&r[0], ns, __ATOMIC_RELEASE);
  __atomic_store_n(&r[1], ((uint64_t)depth << 48) | ((uint64_t)HP_TREC_SAMPLE << 56), __ATOMIC_RELEASE);
  for (uint32_t i = 0; i < depth; i++) __atomic_store_n(&r[2 + i], pcs[i], __ATOMIC_RELEASE);
  __atomic_store_n(&b->len, len + size, __ATOMIC_RELEASE);
}

void hp_trace_thread_start(hp_thread *t) {
  if (!__atomic_load_n(&hp_trace_on, __ATOMIC_ACQUIRE)) return;
  hp_trace_buf *b = calloc(1, sizeof *b);
  if (!b) return;
  void *m = mmap(NULL, HP_TRACE_BLOCK_HEADER + (size_t)buffer_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m != MAP_FAILED) {
    b->mem = m;
    b->cap = buffer_bytes;
  }
  __atomic_store_n(&t->trace, b, __ATOMIC_RELEASE);
  /* The root (".TAU application") is open from the thread's start, as in the profile. */
  hp_trace_put(t, HP_TREC_ENTER, t->frames[0].event, t->frames[0].start_ns);
}

void hp_trace_thread_end(hp_thread *t) {
  hp_trace_buf *b = t->trace;
  if (!b || !b->mem) return;
  write_buffer(t, b, BLOCK_ENDED, t->stop_mono_ns);
  __atomic_store_n(&b->ended, 1, __ATOMIC_RELEASE);
}

static void release_mem(void *p, size_t len) { munmap(p, len); }

void hp_trace_thread_compact(hp_thread *t) {
  hp_trace_buf *b = t->trace;
  if (!b || !b->mem || !__atomic_load_n(&b->ended, __ATOMIC_ACQUIRE)) return;
  struct hp_retired *r = hp_thread_retire_record();
  if (!r) return; /* kept: a dump may be reading it */
  uint8_t *mem = b->mem;
  __atomic_store_n(&b->cap, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&b->mem, NULL, __ATOMIC_RELEASE);
  hp_thread_retire(r, mem, HP_TRACE_BLOCK_HEADER + (size_t)buffer_bytes, release_mem);
}

void hp_trace_fork_child(hp_thread *t) {
  if (!hp_trace_on) return;
  int parent = __atomic_load_n(&fd, __ATOMIC_ACQUIRE);
  __atomic_store_n(&fd, -1, __ATOMIC_RELEASE);
  if (parent >= 0) close(parent); /* the parent's file */
  __atomic_store_n(&defs_done, 0, __ATOMIC_RELAXED);
  name_file();
  __atomic_store_n(&open_state, 1, __ATOMIC_RELEASE); /* opened on its first write: ensure_file */
  hp_meta_add("hyprof Trace", file_base);
  hp_trace_buf *b = t ? t->trace : NULL;
  if (!b) return;
  /* The parent writes the records made before the fork; the child's open frames were restarted at
   * the fork (thread.c): entered again then. */
  b->gen = 0;
  b->len = 0;
  b->lost = 0;
  b->lost_why = 0;
  b->samples_lost = 0;
  for (int32_t i = 0; i <= t->top; i++) {
    hp_trace_put(t, HP_TREC_ENTER, t->frames[i].event, t->frames[i].start_ns);
    if (t->frames[i].param_event != HP_NO_EVENT) hp_trace_put(t, HP_TREC_ENTER, t->frames[i].param_event, t->frames[i].param_start_ns);
  }
}

/* ---- dumps ---- */

/* The dump's copy of one buffer (mmap'ed at the first dump, kept: a dump may run in a handler). */
static uint8_t *snap;
static size_t snap_size;

void hp_trace_dump_thread(const hp_thread *t, uint64_t end_ns) {
  if (!__atomic_load_n(&hp_trace_on, __ATOMIC_ACQUIRE)) return;
  hp_trace_buf *b = __atomic_load_n(&((hp_thread *)t)->trace, __ATOMIC_ACQUIRE);
  if (!b || __atomic_load_n(&b->ended, __ATOMIC_ACQUIRE)) return; /* its last block is written */
  if (!snap) {
    snap_size = HP_TRACE_BLOCK_HEADER + (size_t)buffer_bytes;
    void *m = mmap(NULL, snap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    snap = m;
  }
  /* One moment's records (a seqlock on gen): a buffer written out meanwhile is read again, a bounded
   * number of times; a thread that fills buffers that fast has written them itself. */
  for (int tries = 0; tries < 1000; tries++) {
    uint32_t gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
    uint8_t *mem = __atomic_load_n(&b->mem, __ATOMIC_ACQUIRE);
    uint32_t len = __atomic_load_n(&b->len, __ATOMIC_ACQUIRE);
    if (!mem || len > buffer_bytes) return;
    const uint64_t *src = (const uint64_t *)(mem + HP_TRACE_BLOCK_HEADER);
    uint64_t *dst = (uint64_t *)(snap + HP_TRACE_BLOCK_HEADER);
    for (uint32_t i = 0; i < len / 8; i++) dst[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != gen) continue;
    put_header(snap, BLOCK_SNAPSHOT, t->index, gen, len, 0, (uint32_t)t->tid, end_ns, __atomic_load_n(&b->lost, __ATOMIC_RELAXED));
    if (ensure_file()) write_all(snap, HP_TRACE_BLOCK_HEADER + (size_t)len);
    write_defs();
    return;
  }
}

void hp_trace_add_metadata(void) {
  if (!hp_trace_on) return;
  uint64_t failures = __atomic_load_n(&write_failures, __ATOMIC_RELAXED);
  if (failures) hp_meta_add_long("hyprof Trace Blocks Not Written", (long long)failures);
}

uint32_t hp_trace_write_drops(const hp_thread *t, hp_buf *b) {
  hp_trace_buf *tb = __atomic_load_n(&((hp_thread *)t)->trace, __ATOMIC_ACQUIRE);
  uint64_t lost = tb ? __atomic_load_n(&tb->lost, __ATOMIC_RELAXED) : 0;
  uint64_t samples = tb ? __atomic_load_n(&tb->samples_lost, __ATOMIC_RELAXED) : 0;
  uint32_t n = 0;
  if (lost) {
    hp_buf_str(b, "trace_records_lost");
    hp_buf_u64(b, lost);
    n++;
  }
  if (samples) { /* samples in the profile that the trace lacks (hp_trace_sample) */
    hp_buf_str(b, "trace_samples_lost");
    hp_buf_u64(b, samples);
    n++;
  }
  return n;
}
