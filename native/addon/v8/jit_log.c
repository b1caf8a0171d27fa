/* The JIT code event log (jit_log.h) and the module that writes it into the raw file.
 *
 * Memory: one anonymous mapping of HP_JIT_LOG_BYTES, reserved without swap (MAP_NORESERVE): pages
 * cost memory only once records reach them. A record is taken with one atomic add on the write
 * offset and marked pending at once (its header: its length, type PENDING), filled, then published
 * by storing its final header (length and type in one u64) with release; the dump reads headers with
 * acquire, writes a pending record as PENDING (zeros: it is not finished) and goes on after it. It
 * stops only at a header still 0: a record taken an instant ago, not yet marked (the two stores
 * follow each other). So neither the
 * handler nor the dump takes a lock, and the dump (possibly in a signal handler) only reads memory.
 * A full log drops records and counts them (written in the section, reported by resolve).
 *
 * The runtime is reached through its exported hyprof_ext_ functions (core/ext_module.h), found with
 * dlsym: in the preloaded libhyprof.so under `hyprof run`, else in the Node addon that the program
 * loaded (its path is given). This object links with neither: it is built per Node ABI, they are not.
 */
#define _GNU_SOURCE
#include "jit_log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "core/ext_module.h"

#define HP_JIT_LOG_BYTES ((size_t)256 << 20)
#define HP_SEC_JIT 12

static uint8_t *log_base;
static _Atomic size_t log_next;      /* offset of the next record to reserve */
static _Atomic uint64_t log_dropped; /* records that did not fit */
static atomic_int log_state;         /* 0 not tried, 1 mapped, -1 failed */

int hp_jit_log_open(void) {
  int s = atomic_load_explicit(&log_state, memory_order_acquire);
  if (s != 0) return s > 0;
  void *p = mmap(NULL, HP_JIT_LOG_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    atomic_store_explicit(&log_state, -1, memory_order_release);
    return 0;
  }
  /* Two isolates starting at once: one mapping wins, the other is given back. */
  uint8_t *expected = NULL;
  if (!__atomic_compare_exchange_n(&log_base, &expected, (uint8_t *)p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    munmap(p, HP_JIT_LOG_BYTES);
  atomic_store_explicit(&log_state, 1, memory_order_release);
  return 1;
}

void *hp_jit_log_reserve(size_t payload) {
  size_t need = 8 + ((payload + 7) & ~(size_t)7);
  size_t at = atomic_fetch_add_explicit(&log_next, need, memory_order_relaxed);
  if (at + need > HP_JIT_LOG_BYTES) {
    atomic_fetch_add_explicit(&log_dropped, 1, memory_order_relaxed);
    return NULL;
  }
  __atomic_store_n((uint64_t *)(log_base + at), ((uint64_t)HP_JIT_PENDING << 32) | (uint32_t)need, __ATOMIC_RELEASE);
  return log_base + at + 8;
}

void hp_jit_log_commit(void *payload, size_t len, uint32_t type) {
  uint64_t header = ((uint64_t)type << 32) | (uint32_t)(8 + ((len + 7) & ~(size_t)7));
  __atomic_store_n((uint64_t *)((uint8_t *)payload - 8), header, __ATOMIC_RELEASE);
}

/* ---- the runtime's side ---- */

static struct {
  int (*module_register)(const hp_module *);
  size_t (*section_begin)(hp_buf *, uint32_t);
  void (*section_end)(hp_buf *, size_t);
  void (*buf_u64)(hp_buf *, uint64_t);
} rt;

/* Section JIT (docs/raw-format.md): u64 records dropped, u64 bytes, then the records as they lie in
 * the log (each a multiple of 8 bytes, written as u64 words), a pending one as PENDING and zeros.
 * Signal-safe: reads memory, writes through the core's buffer functions. */
static void write_jit_section(hp_buf *b) {
  size_t end = atomic_load_explicit(&log_next, memory_order_acquire);
  if (end > HP_JIT_LOG_BYTES) end = HP_JIT_LOG_BYTES;
  size_t used = 0;
  while (used + 8 <= end) {
    uint64_t header = __atomic_load_n((uint64_t *)(log_base + used), __ATOMIC_ACQUIRE);
    uint32_t len = (uint32_t)header;
    if (header == 0 || len < 8 || used + len > end) break;
    used += len;
  }
  size_t at = rt.section_begin(b, HP_SEC_JIT);
  rt.buf_u64(b, atomic_load_explicit(&log_dropped, memory_order_relaxed));
  rt.buf_u64(b, used);
  for (size_t i = 0; i < used;) {
    /* Read again: a record pending in the walk above may be published since; its length is the same. */
    uint64_t header = __atomic_load_n((uint64_t *)(log_base + i), __ATOMIC_ACQUIRE);
    uint32_t len = (uint32_t)header;
    int pending = (uint32_t)(header >> 32) == HP_JIT_PENDING;
    rt.buf_u64(b, pending ? ((uint64_t)HP_JIT_PENDING << 32) | len : header);
    for (size_t w = 8; w < len; w += 8) {
      uint64_t word = 0;
      if (!pending) memcpy(&word, log_base + i + w, 8);
      rt.buf_u64(b, word);
    }
    i += len;
  }
  rt.section_end(b, at);
}

static const hp_module jit_module = {
    .name = "v8-jit",
    .thread_slot = HP_NO_SLOT,
    .write_sections = write_jit_section,
};

static int find_runtime(void *handle) {
  rt.module_register = (int (*)(const hp_module *))dlsym(handle, "hyprof_ext_module_register");
  rt.section_begin = (size_t(*)(hp_buf *, uint32_t))dlsym(handle, "hyprof_ext_section_begin");
  rt.section_end = (void (*)(hp_buf *, size_t))dlsym(handle, "hyprof_ext_section_end");
  rt.buf_u64 = (void (*)(hp_buf *, uint64_t))dlsym(handle, "hyprof_ext_buf_u64");
  return rt.module_register && rt.section_begin && rt.section_end && rt.buf_u64;
}

static pthread_mutex_t join_lock = PTHREAD_MUTEX_INITIALIZER;
static int join_tried;
static const char *join_result;

/* Once per process (each JavaScript thread asks): the first answer is kept. The lock is this
 * function's own; neither the handler nor the dump takes it. */
const char *hp_jit_log_join_runtime(const char *runtime) {
  pthread_mutex_lock(&join_lock);
  if (!join_tried) {
    join_tried = 1;
    join_result = NULL;
    if (!hp_jit_log_open()) {
      join_result = "the JIT code log could not be mapped";
    } else if (!find_runtime(RTLD_DEFAULT)) {
      /* No preloaded libhyprof.so (when there is one, the addon's calls go there too: core/ext.h). */
      void *h = runtime ? dlopen(runtime, RTLD_LAZY | RTLD_NOLOAD) : NULL;
      if (!h || !find_runtime(h)) join_result = "no hyprof runtime is loaded in this process";
    }
    if (!join_result && !rt.module_register(&jit_module)) join_result = "measurement is off in this process";
  }
  const char *r = join_result;
  pthread_mutex_unlock(&join_lock);
  return r;
}
