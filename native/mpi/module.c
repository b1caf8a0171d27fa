/* The MPI layer as a module of the core: it registers itself when its library is loaded into an MPI
 * program (libhyprof_mpi.so, preloaded by `hyprof run` or linked), times every wrapped call as a
 * timer of the core, counts each call site (the return address into the program, per context of
 * the call), and writes the call sites as the MPI section of the raw file (docs/raw-format.md).
 *
 * It lives in a shared object of its own (it must be compiled with the MPI implementation's
 * compiler), so it is not in native/modules.c: it registers late, through core/ext_module.h, and
 * reaches the core only through those exported functions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ext.h"
#include "mpi_int.h"

#define HP_SEC_MPI 10u
#define SITES 1024          /* call sites kept per thread (power of two); more are counted */

typedef struct site {
  uint64_t context;         /* the MPI call's context (its event under the caller's context) */
  uint64_t pc;              /* return address into the caller */
  uint64_t bias;            /* load bias of the object holding pc */
  const char *path;         /* that object's file */
  uint32_t event;
  volatile uint32_t used;   /* published last */
  uint64_t calls, ns;
} site;

typedef struct hp_mpi_thread {
  int depth;                /* inside a measured MPI call: calls made inside it pass through */
  uint32_t index;           /* the core's thread index */
  uint32_t n_sites;
  uint64_t sites_dropped;
  site sites[SITES];
  struct hp_mpi_thread *next;
} hp_mpi_thread;

static int active;                               /* registered with a running core */
static uint32_t event_ids[HP_MPI_N];             /* id + 1; 0 = not registered yet */
static hp_mpi_thread *threads;                   /* every thread that made an MPI call */
static char exe_path[PATH_MAX];
static char library[256];
static const char *thread_level = "";
static __thread hp_mpi_thread *tls __attribute__((tls_model("initial-exec")));

static hp_mpi_thread *self(void) {
  hp_mpi_thread *m = tls;
  if (m) return m;
  hp_thread *t = hyprof_ext_thread_current();
  if (!t) return NULL;
  m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->index = t->index;
  hp_mpi_thread *head = __atomic_load_n(&threads, __ATOMIC_RELAXED);
  do m->next = head;
  while (!__atomic_compare_exchange_n(&threads, &head, m, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  tls = m;
  return m;
}

static uint32_t event_of(enum hp_mpi_ev ev) {
  uint32_t id = __atomic_load_n(&event_ids[ev], __ATOMIC_ACQUIRE);
  if (id) return id - 1;
  id = hyprof_ext_event(hp_mpi_event_names[ev], "MPI", 0);
  if (id == HYPROF_EXT_NO_EVENT) return id;
  __atomic_store_n(&event_ids[ev], id + 1, __ATOMIC_RELEASE);
  return id;
}

int hp_mpi_begin(hp_mpi_call *c, enum hp_mpi_ev ev, uintptr_t where, uintptr_t cfa) {
  if (!active) return 0;
  hp_mpi_thread *m = tls;
  if (m && m->depth) return 0;
  uint32_t id = event_of(ev);
  if (id == HYPROF_EXT_NO_EVENT) return 0;
  uint64_t context = 0;
  if (!hyprof_ext_enter(id, cfa, &context)) return 0;
  if (!m && !(m = self())) {
    hyprof_ext_leave(id);
    return 0;
  }
  m->depth = 1;
  c->event = id;
  c->context = context;
  c->site = where;
  return 1;
}

/* The object holding pc and its load bias, for symbolizing the call site later (without sampling
 * the raw file has no memory map). Once per new call site, never on a signal path. */
static void locate(site *s) {
  Dl_info info;
  struct link_map *lm = NULL;
  s->path = "";
  if (!dladdr1((void *)(uintptr_t)(s->pc - 1), &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return;
  s->bias = lm->l_addr;
  s->path = lm->l_name && lm->l_name[0] ? lm->l_name : exe_path;
}

static void count_site(hp_mpi_thread *m, const hp_mpi_call *c, uint64_t ns) {
  uint64_t h = (c->context ^ (c->site * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
  for (uint32_t probe = 0, i = (uint32_t)(h >> 40) & (SITES - 1); probe < SITES / 2; probe++, i = (i + 1) & (SITES - 1)) {
    site *s = &m->sites[i];
    if (s->used) {
      if (s->context != c->context || s->pc != c->site) continue;
      s->calls++;
      s->ns += ns;
      return;
    }
    s->context = c->context;
    s->pc = c->site;
    s->event = c->event;
    s->calls = 1;
    s->ns = ns;
    locate(s);
    __atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
    m->n_sites++;
    return;
  }
  m->sites_dropped++;
}

void hp_mpi_end(const hp_mpi_call *c) {
  hp_mpi_thread *m = tls;
  uint64_t ns = hyprof_ext_leave(c->event);
  if (!m) return;
  count_site(m, c, ns);
  m->depth = 0;
}

void hp_mpi_after_init(int thread_level_provided) {
  int rank = -1, size = 0;
  if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
    return;
  hyprof_ext_set_rank(rank, size);
  hp_tr_after_init();
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (PMPI_Get_library_version && PMPI_Get_library_version(text, &len) == MPI_SUCCESS) {
    text[len < (int)sizeof text ? len : (int)sizeof text - 1] = 0;
    text[strcspn(text, "\n,")] = 0; /* the first line: "Open MPI v4.1.4" */
    snprintf(library, sizeof library, "%s", text);
    hyprof_ext_meta_add("MPI Library", library);
  }
  switch (thread_level_provided) {
    case MPI_THREAD_SINGLE: thread_level = "MPI_THREAD_SINGLE"; break;
    case MPI_THREAD_FUNNELED: thread_level = "MPI_THREAD_FUNNELED"; break;
    case MPI_THREAD_SERIALIZED: thread_level = "MPI_THREAD_SERIALIZED"; break;
    case MPI_THREAD_MULTIPLE: thread_level = "MPI_THREAD_MULTIPLE"; break;
    default: thread_level = ""; break;
  }
  if (thread_level[0]) hyprof_ext_meta_add("MPI Thread Level", thread_level);
  MPI_Comm parent = MPI_COMM_NULL;
  if (PMPI_Comm_get_parent && PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL)
    hyprof_ext_note("this process was started by MPI_Comm_spawn: its ranks are numbered in its own "
                    "MPI_COMM_WORLD and would collide with its parent job's files; give it another HYPROF_DIR");
}

/* ---- the raw file: the MPI section (docs/raw-format.md, tag 10) ---- */

static uint32_t write_drops(const hp_thread *t, hp_buf *b) {
  for (hp_mpi_thread *m = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); m; m = m->next) {
    if (m->index != t->index || !m->sites_dropped) continue;
    hyprof_ext_buf_str(b, "mpi_call_sites_not_kept");
    hyprof_ext_buf_u64(b, m->sites_dropped);
    return 1;
  }
  return 0;
}

static void write_sections(hp_buf *b) {
  hp_mpi_thread *list = __atomic_load_n(&threads, __ATOMIC_ACQUIRE);
  if (!list) return;
  size_t at = hyprof_ext_section_begin(b, HP_SEC_MPI);
  size_t n_at = b->len;
  hyprof_ext_buf_u32(b, 0);
  uint32_t n = 0;
  for (hp_mpi_thread *m = list; m; m = m->next) {
    for (uint32_t i = 0; i < SITES; i++) {
      const site *s = &m->sites[i];
      if (!__atomic_load_n(&s->used, __ATOMIC_ACQUIRE)) continue;
      hyprof_ext_buf_u32(b, m->index);
      hyprof_ext_buf_u32(b, s->event);
      hyprof_ext_buf_u64(b, s->context);
      hyprof_ext_buf_u64(b, s->pc);
      hyprof_ext_buf_u64(b, s->bias);
      hyprof_ext_buf_str(b, s->path);
      hyprof_ext_buf_u64(b, s->calls);
      hyprof_ext_buf_u64(b, s->ns);
      n++;
    }
  }
  hyprof_ext_buf_patch_u32(b, n_at, n);
  hyprof_ext_section_end(b, at);
}

static void fork_child(hp_thread *t) {
  /* Only the forking thread goes on; its call sites are the parent's. */
  hp_mpi_thread *m = tls;
  if (m) {
    memset(m->sites, 0, sizeof m->sites);
    m->n_sites = 0;
    m->sites_dropped = 0;
    m->next = NULL;
    m->index = t ? t->index : 0;
  }
  __atomic_store_n(&threads, m, __ATOMIC_RELEASE);
}

static void process_start(void) {
  ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
  exe_path[n > 0 ? n : 0] = 0;
}

static const hp_module hp_mpi_module = {
  .name = "mpi",
  .thread_slot = HP_NO_SLOT,
  .process_start = process_start,
  .fork_child = fork_child,
  .write_drops = write_drops,
  .write_sections = write_sections,
};

/* Loaded into a process: take part only where there is MPI (the PMPI functions are weak references,
 * NULL in a program without MPI, and in mpirun) and where HYPROF_MPI is not off. */
__attribute__((constructor)) static void load(void) {
  if (!PMPI_Init) return;
  if (!hyprof_ext_env_bool("HYPROF_MPI", NULL, 1)) {
    hyprof_ext_meta_add("HYPROF_MPI", "off");
    return;
  }
  active = hyprof_ext_module_register(&hp_mpi_module);
  if (active) hp_cm_enable();
}
