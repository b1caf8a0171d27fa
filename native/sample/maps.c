/* The memory map of the process, kept as a snapshot that signal-time code can read.
 *
 * The dump may run in a SIGTERM handler, where dl_iterate_phdr (locks, may allocate) is not allowed,
 * so the loaded objects are snapshotted at init, after every dlclose (interposed here), and refreshed
 * when the set of loaded objects changed (glibc's dlpi_adds / dlpi_subs counters) at points that are
 * never in a signal handler: thread start, hp_maps_refresh (before a dump at a flush or at a normal
 * exit) and calls of dl_iterate_phdr outside our handler. dlopen is NOT interposed: glibc picks the
 * RUNPATH / $ORIGIN of dlopen's caller from its return address, which a wrapper would make
 * libhyprof's. A library dlopen'ed since the last refresh is therefore unknown to the handler's
 * unwinds until the next refresh (its samples keep a partial stack, counted unwind_failed). Build
 * ids are read at snapshot time from each object's PT_NOTE segments in memory. Snapshots are built
 * in fresh mmap'ed memory and published by one atomic compare-and-swap, never replacing a snapshot
 * of a later loader state. A replaced snapshot is retired, and unmapped by a later refresh that
 * finds no reader inside (every reader counts itself in `readers` before it loads `current`, all
 * sequentially consistent: a refresh that sees no reader after publishing knows that every later
 * reader loads the new one), so a reader in a signal handler never sees freed memory and
 * dlopen/dlclose cycles do not add up.
 *
 * The same snapshot serves libunwind inside the sampling handler: dl_iterate_phdr is interposed
 * and, on a thread that is inside our handler, answered from the snapshot without any lock (see
 * unwind.c). Everyone else gets glibc's dl_iterate_phdr.
 *
 * It also knows the address ranges of start-up code (the executable's _start, libc and the loader),
 * used to trim those frames from stacks whose thread entry is unknown. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <elf.h>
#include <limits.h>
#include <stddef.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "../core/thread.h"
#include "sample_int.h"

#define HP_VISIBLE __attribute__((visibility("default")))
#define MAX_STARTUP 16

typedef struct {
  struct dl_phdr_info info;   /* dlpi_name points into the snapshot's strings */
  const char *path;           /* what MAPS says: real path, "[vdso]" */
  const char *build_id;       /* hex, "" when none */
} snap_obj;

typedef struct {
  uint64_t start, end, bias;
  uint64_t file_offset, file_size; /* p_offset, p_filesz: what moved_origin needs, kept here because
                                    * an object's program headers go away with a dlclose */
  uint32_t obj;
  uint32_t exec;                   /* PF_X */
} snap_seg;

typedef struct snapshot {
  uint32_t n_objs, n_segs;
  snap_obj *objs;
  snap_seg *segs;
  uint32_t n_startup;
  uintptr_t startup[MAX_STARTUP][2];
  uint32_t n_self;             /* hyprof's own code (this library, or the addon it is built into) */
  uintptr_t self[MAX_STARTUP][2];
  uint64_t gen;                /* dlpi_adds + dlpi_subs when taken (both only grow) */
  int have_gen;                /* the loader reported them */
  int partial;                 /* objects were left out: the next refresh check retakes it */
  uint64_t serial;             /* 1, 2, ... in order of building: the generation readers compare */
  size_t map_len;              /* for munmap once retired */
  struct snapshot *retired_next;
} snapshot;

static snapshot *volatile current;
static snapshot *retired;            /* replaced snapshots not unmapped yet (a lock-free stack) */
static uint64_t serials;             /* snapshots built so far */
static volatile int changing;        /* dlclose in progress somewhere */
static volatile int readers;         /* inside a reader section: an unwind (it reads objects' memory), is_self, write */

typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
static iterate_fn real_iterate;
static int (*real_dlclose)(void *);
static void *libc_start_main;        /* found once: dlsym at every snapshot is not needed */
/* set while this thread builds a snapshot: dl_iterate_phdr calls made meanwhile (libunwind's, from
 * find_startup) must not start another one */
static __thread int refreshing __attribute__((tls_model("initial-exec")));

/* The loader's generation from a dl_iterate_phdr callback's info, when it reports one. */
static int info_gen(const struct dl_phdr_info *info, size_t size, uint64_t *gen) {
  if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 0;
  *gen = (uint64_t)info->dlpi_adds + (uint64_t)info->dlpi_subs;
  return 1;
}

static iterate_fn get_real_iterate(void) {
  if (!real_iterate) real_iterate = (iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
  return real_iterate;
}

/* ---------- building a snapshot (never in a signal handler) ---------- */

typedef struct {
  uint32_t objs, segs;
  size_t strings;
} sizes;

static int count_cb(struct dl_phdr_info *info, size_t size, void *data) {
  sizes *s = data;
  s->objs++;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) s->segs++;
  return 0;
}

typedef struct {
  snapshot *snap;
  uint32_t cap_objs, cap_segs;
  char *str;
  size_t str_left;
  uintptr_t vdso;
} filler;

static const char *put_str(filler *f, const char *s, size_t n) {
  if (n + 1 > f->str_left) return "";
  char *d = f->str;
  memcpy(d, s, n);
  d[n] = 0;
  f->str += n + 1;
  f->str_left -= n + 1;
  return d;
}

/* The GNU build id from the object's PT_NOTE segments, as it lies in memory. */
static void build_id_hex(const struct dl_phdr_info *info, char *out, size_t outlen) {
  static const char hex[] = "0123456789abcdef";
  out[0] = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
    const char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      size_t name_sz = (nh->n_namesz + 3) & ~3u, desc_sz = (nh->n_descsz + 3) & ~3u;
      const char *name = p + sizeof *nh, *desc = name + name_sz;
      if (desc + nh->n_descsz > end) break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          nh->n_descsz * 2 + 1 <= outlen) {
        for (uint32_t k = 0; k < nh->n_descsz; k++) {
          out[2 * k] = hex[(unsigned char)desc[k] >> 4];
          out[2 * k + 1] = hex[(unsigned char)desc[k] & 15];
        }
        out[nh->n_descsz * 2] = 0;
        return;
      }
      p = desc + desc_sz;
    }
  }
}

static int fill_cb(struct dl_phdr_info *info, size_t size, void *data) {
  filler *f = data;
  snapshot *s = f->snap;
  /* the loader lock is held for the whole iteration: the counters match the objects we see */
  if (s->n_objs == 0) s->have_gen = info_gen(info, size, &s->gen);
  uint32_t nseg = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) nseg += info->dlpi_phdr[i].p_type == PT_LOAD;
  if (s->n_objs >= f->cap_objs || s->n_segs + nseg > f->cap_segs) {
    s->partial = 1;   /* loaded since counting: the next refresh check retakes the snapshot */
    return 1;
  }
  snap_obj *o = &s->objs[s->n_objs];
  memset(o, 0, sizeof *o);
  size_t copy = size < sizeof o->info ? size : sizeof o->info;
  memcpy(&o->info, info, copy);
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  o->info.dlpi_name = put_str(f, name, strlen(name));
  char path[PATH_MAX];
  if (s->n_objs == 0 || (!*name && info->dlpi_addr == 0)) {
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    o->path = put_str(f, path, n > 0 ? (size_t)n : 0);
  } else if ((uintptr_t)info->dlpi_addr == f->vdso || strncmp(name, "linux-vdso", 10) == 0) {
    o->path = put_str(f, "[vdso]", 6);
  } else if (*name && realpath(name, path)) {
    o->path = put_str(f, path, strlen(path));
  } else {
    o->path = o->info.dlpi_name;
  }
  char bid[2 * 64 + 1];
  build_id_hex(info, bid, sizeof bid);
  o->build_id = put_str(f, bid, strlen(bid));
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    snap_seg *g = &s->segs[s->n_segs++];
    g->start = info->dlpi_addr + ph->p_vaddr;
    g->end = g->start + ph->p_memsz;
    g->bias = info->dlpi_addr;
    g->file_offset = ph->p_offset;
    g->file_size = ph->p_filesz;
    g->obj = s->n_objs;
    g->exec = (ph->p_flags & PF_X) != 0;
  }
  s->n_objs++;
  return 0;
}

static const snap_obj *obj_of(const snapshot *s, uintptr_t a) {
  for (uint32_t i = 0; i < s->n_segs; i++)
    if (a >= s->segs[i].start && a < s->segs[i].end) return &s->objs[s->segs[i].obj];
  return NULL;
}

static void add_ranges(uintptr_t (*to)[2], uint32_t *n, const snap_obj *o) {
  if (!o) return;
  for (int i = 0; i < o->info.dlpi_phnum && *n < MAX_STARTUP; i++) {
    const ElfW(Phdr) *ph = &o->info.dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    to[*n][0] = o->info.dlpi_addr + ph->p_vaddr;
    to[*n][1] = o->info.dlpi_addr + ph->p_vaddr + ph->p_memsz;
    (*n)++;
  }
}

static void add_exec_ranges(snapshot *s, const snap_obj *o) { add_ranges(s->startup, &s->n_startup, o); }

static void find_startup(snapshot *s) {
  /* libc (holds __libc_start_main, __libc_start_call_main, start_thread, clone) */
  void *lsm = __atomic_load_n(&libc_start_main, __ATOMIC_RELAXED);
  if (!lsm) {
    lsm = dlsym(RTLD_DEFAULT, "__libc_start_main");
    __atomic_store_n(&libc_start_main, lsm, __ATOMIC_RELAXED);
  }
  if (lsm) add_exec_ranges(s, obj_of(s, (uintptr_t)lsm));
  /* the loader (its _dl_start_user is the outermost frame while constructors run) */
  uintptr_t base = getauxval(AT_BASE);
  for (uint32_t i = 0; base && i < s->n_objs; i++)
    if ((uintptr_t)s->objs[i].info.dlpi_addr == base) add_exec_ranges(s, &s->objs[i]);
  /* the executable's _start: the procedure around the ELF entry point */
  uintptr_t entry = getauxval(AT_ENTRY);
  if (entry && s->n_startup < MAX_STARTUP) {
    unw_proc_info_t pi;
    uintptr_t lo = entry, hi = entry + 64;
    if (unw_get_proc_info_by_ip(unw_local_addr_space, entry, &pi, NULL) == 0 && pi.start_ip <= entry &&
        pi.end_ip > entry) {
      lo = pi.start_ip;
      hi = pi.end_ip;
    }
    s->startup[s->n_startup][0] = lo;
    s->startup[s->n_startup][1] = hi;
    s->n_startup++;
  }
}

static void snapshot_now(void);

typedef struct {
  int have;
  uint64_t gen;
} gen_probe;

/* Runtime work like any other: a sample landing in it is dropped as "in_tool" rather than
 * unwound (under ThreadSanitizer, whose deferred signals arrive inside its dl_iterate_phdr
 * interceptor, unwinding there would re-enter it). The caller's own in_tool state is kept. */
void hp_maps_snapshot(void) {
  hp_thread *t = hp_thread_current();
  sig_atomic_t was = t ? t->in_tool : 0;
  if (t) hp_tool_enter(t);
  int was_refreshing = refreshing;
  refreshing = 1;
  snapshot_now();
  refreshing = was_refreshing;
  if (t && !was) hp_tool_leave(t);
}

static void retire(snapshot *s) {
  snapshot *head = __atomic_load_n(&retired, __ATOMIC_RELAXED);
  do s->retired_next = head;
  while (!__atomic_compare_exchange_n(&retired, &head, s, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Unmap the retired snapshots when no reader is inside: one that entered before they were replaced
 * may still hold one; one that enters now loads the current snapshot. Otherwise they wait for the
 * next refresh. Never in a signal handler. */
static void reclaim(void) {
  snapshot *list = __atomic_exchange_n(&retired, NULL, __ATOMIC_ACQUIRE);
  if (!list) return;
  if (__atomic_load_n(&readers, __ATOMIC_SEQ_CST) != 0) {
    while (list) {
      snapshot *next = list->retired_next;
      retire(list);
      list = next;
    }
    return;
  }
  while (list) {
    snapshot *next = list->retired_next;
    munmap(list, list->map_len);
    list = next;
  }
}

/* Publish s unless a snapshot of a later loader state is already current (two threads refreshing
 * at once must not leave an older one, which may name unmapped objects, in place). */
static int publish(snapshot *s) {
  snapshot *cur = __atomic_load_n(&current, __ATOMIC_SEQ_CST);
  for (;;) {
    if (cur && cur->have_gen && s->have_gen && cur->gen > s->gen) return 0;
    if (__atomic_compare_exchange_n(&current, &cur, s, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      if (cur) retire(cur);
      return 1;
    }
  }
}

static void snapshot_now(void) {
  iterate_fn it = get_real_iterate();
  if (!it) return;
  sizes sz = {0, 0, 0};
  it(count_cb, &sz);
  uint32_t cap_objs = sz.objs + 16, cap_segs = sz.segs + 64;
  size_t strings = (size_t)cap_objs * (2 * PATH_MAX + 160);
  size_t len = sizeof(snapshot) + cap_objs * sizeof(snap_obj) + cap_segs * sizeof(snap_seg) + strings;
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return;
  snapshot *s = m;
  s->map_len = len;
  s->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
  s->objs = (snap_obj *)(s + 1);
  s->segs = (snap_seg *)(s->objs + cap_objs);
  filler f = {s, cap_objs, cap_segs, (char *)(s->segs + cap_segs), strings, getauxval(AT_SYSINFO_EHDR)};
  it(fill_cb, &f);
  find_startup(s);
  /* The runtime built into the program itself (benchmarks and tests compile it in) is not told
   * apart from the program by address: claiming the executable would count every sample of the
   * program as the tool's. Its probes and callbacks are still covered by the in_tool flag. */
  const snap_obj *self = obj_of(s, (uintptr_t)&hp_maps_is_self);
  if (self && self != &s->objs[0]) add_ranges(s->self, &s->n_self, self);
  /* The MPI layer is hyprof's own code too, in a library of its own (libhyprof_mpi.so, loaded with
   * this one: docs/mpi.md): found by its file name, so it counts before it registered. */
  for (uint32_t i = 0; i < s->n_objs; i++) {
    const char *base = strrchr(s->objs[i].path, '/');
    if (base && strncmp(base + 1, "libhyprof_mpi.so", 16) == 0) add_ranges(s->self, &s->n_self, &s->objs[i]);
  }
  if (!publish(s)) munmap(m, len);   /* never seen by anyone */
  reclaim();
}

static int gen_cb(struct dl_phdr_info *info, size_t size, void *data) {
  gen_probe *g = data;
  g->have = info_gen(info, size, &g->gen);
  return 1;   /* the first object is enough */
}

/* Does the current snapshot describe the loaded objects of generation (have, gen)? */
static int snapshot_stale(int have, uint64_t gen) {
  const snapshot *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
  if (!s) return 0;   /* sampling not initialised: nothing to refresh */
  return s->partial || !have || !s->have_gen || s->gen != gen;
}

/* Retake the snapshot when objects were loaded or unloaded since it was taken. Never in a signal
 * handler (the loader lock, mmap, realpath). */
static void refresh_if_changed(void) {
  if (refreshing || !__atomic_load_n(&current, __ATOMIC_ACQUIRE)) return;
  iterate_fn it = get_real_iterate();
  if (!it) return;
  gen_probe g = {0, 0};
  it(gen_cb, &g);
  if (snapshot_stale(g.have, g.gen)) hp_maps_snapshot();
}

static void scan_moved(void);
void hp_maps_refresh(void) {
  refresh_if_changed();
  scan_moved();
}

/* ---------- readers (async-signal-safe) ---------- */

static int in_ranges(const uintptr_t (*r)[2], uint32_t n, uintptr_t pc) {
  for (uint32_t i = 0; i < n; i++)
    if (pc >= r[i][0] && pc < r[i][1]) return 1;
  return 0;
}

/* Every reader of `current` is between hp_maps_reader_enter and _leave (reclaim above). */
static const snapshot *load_current(void) { return __atomic_load_n(&current, __ATOMIC_SEQ_CST); }

int hp_maps_is_startup(uintptr_t pc) {   /* inside an unwind: the caller is a reader */
  const snapshot *s = load_current();
  return s && in_ranges((const uintptr_t (*)[2])s->startup, s->n_startup, pc);
}

int hp_maps_is_self(uintptr_t pc) {
  hp_maps_reader_enter();
  const snapshot *s = load_current();
  int in = s && in_ranges((const uintptr_t (*)[2])s->self, s->n_self, pc);
  hp_maps_reader_leave();
  return in;
}

/* ---- moved copies of loaded code (moved.c): written as more segments of their object ----
 * V8 unmaps its copy of the builtins when node disposes the isolate, which a program that ends by
 * running out of work does before the exit dump: the copies are looked for at every refresh (thread
 * start, flush) and at the dump, and every one seen is kept (by path and file offset). One
 * scan at a time: a scan that finds another under way is skipped (no waiting, so no lock even when
 * the dump runs in a signal handler). */

#define MAX_MOVED 16
static hp_moved_map scanned[MAX_MOVED];
static hp_moved_map kept[MAX_MOVED];   /* every copy seen, by path and file offset */
static volatile uint32_t n_kept;
static const snapshot *moved_snap;     /* the snapshot of the scan under way */
static volatile int scanning;

static int outside_segments(uint64_t start, uint64_t end) {
  const snapshot *s = moved_snap;
  for (uint32_t i = 0; i < s->n_segs; i++)
    if (start < s->segs[i].end && end > s->segs[i].start) return 0;
  return 1;
}

/* The object a moved mapping copies (same path) and the bias that maps its addresses to the object's
 * own addresses: the file offset it maps lies in a PT_LOAD segment, at p_vaddr + (offset - p_offset). */
static int moved_origin(const snapshot *s, const hp_moved_map *m, uint32_t *obj, uint64_t *bias) {
  /* From the snapshot's own copy of the segments, never dlpi_phdr: the object may be dlclose'd. */
  for (uint32_t i = 0; i < s->n_segs; i++) {
    const snap_seg *g = &s->segs[i];
    const snap_obj *o = &s->objs[g->obj];
    if (!g->exec || !o->path || strcmp(o->path, m->path) != 0) continue;
    if (m->offset < g->file_offset || m->offset >= g->file_offset + g->file_size) continue;
    uint64_t vaddr = g->start - g->bias; /* p_vaddr */
    *obj = g->obj;
    *bias = m->start - (vaddr + (m->offset - g->file_offset));
    return 1;
  }
  return 0;
}

/* Async-signal-safe (moved.c reads with system calls only). Only in a Node process (V8 is what
 * maps such copies): reading /proc/self/maps at every thread start costs other programs for
 * nothing. */
static void scan_moved(void) {
  if (!hp_node_process_known() || __atomic_exchange_n(&scanning, 1, __ATOMIC_ACQUIRE)) return;
  hp_maps_reader_enter();
  const snapshot *s = load_current();
  if (!s) {
    hp_maps_reader_leave();
    __atomic_store_n(&scanning, 0, __ATOMIC_RELEASE);
    return;
  }
  moved_snap = s;
  uint32_t n = hp_moved_read(scanned, MAX_MOVED, outside_segments);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t obj, k = 0;
    uint64_t bias;
    if (!moved_origin(s, &scanned[i], &obj, &bias)) continue;
    while (k < n_kept && kept[k].start != scanned[i].start) k++;
    if (k == n_kept && n_kept < MAX_MOVED) {
      kept[k] = scanned[i];
      n_kept++;
    }
  }
  hp_maps_reader_leave();
  __atomic_store_n(&scanning, 0, __ATOMIC_RELEASE);
}

void hp_maps_write(hp_buf *b) {
  scan_moved();
  hp_maps_reader_enter();
  const snapshot *s = load_current();
  uint32_t extra = 0, objs[MAX_MOVED];
  uint64_t biases[MAX_MOVED];
  const hp_moved_map *which[MAX_MOVED];
  for (uint32_t i = 0; s && i < n_kept; i++)
    if (moved_origin(s, &kept[i], &objs[extra], &biases[extra])) which[extra++] = &kept[i];
  size_t at = hp_buf_section_begin(b, HP_SEC_MAPS);
  hp_buf_u32(b, (s ? s->n_segs : 0) + extra);
  for (uint32_t i = 0; s && i < s->n_segs; i++) {
    const snap_seg *g = &s->segs[i];
    hp_buf_u64(b, g->start);
    hp_buf_u64(b, g->end);
    hp_buf_u64(b, g->bias);
    hp_buf_str(b, s->objs[g->obj].path);
    hp_buf_str(b, s->objs[g->obj].build_id);
  }
  for (uint32_t i = 0; i < extra; i++) {
    hp_buf_u64(b, which[i]->start);
    hp_buf_u64(b, which[i]->end);
    hp_buf_u64(b, biases[i]);
    hp_buf_str(b, s->objs[objs[i]].path);
    hp_buf_str(b, s->objs[objs[i]].build_id);
  }
  hp_maps_reader_leave();
  hp_buf_section_end(b, at);
}

/* Around an unwind in the handler: while any reader is inside, dlclose waits before unmapping
 * (Dekker-style with sequentially consistent operations: either the handler sees `changing` and
 * uses no object, or dlclose sees the reader and waits for it). */
/* Fork child: only the forking thread goes on, and it is not inside a reader; readers counted on
 * the parent's other threads would keep every later dlclose waiting and every snapshot mapped. */
void hp_maps_fork_child(void) { __atomic_store_n(&readers, 0, __ATOMIC_SEQ_CST); }

void hp_maps_reader_enter(void) { __atomic_add_fetch(&readers, 1, __ATOMIC_SEQ_CST); }
void hp_maps_reader_leave(void) { __atomic_sub_fetch(&readers, 1, __ATOMIC_SEQ_CST); }

/* The snapshot's serial, not its address: a retired snapshot's memory may be reused by a later one. */
uint64_t hp_maps_generation(void) {
  const snapshot *s = load_current();
  if (!s || __atomic_load_n(&changing, __ATOMIC_SEQ_CST)) return 0;
  return s->serial;
}

const struct dl_phdr_info *hp_maps_object_of(uintptr_t a) {
  const snapshot *s = load_current();
  if (!s || __atomic_load_n(&changing, __ATOMIC_SEQ_CST)) return NULL;
  const snap_obj *o = obj_of(s, a);
  return o ? &o->info : NULL;
}

/* A thread's start routine while another thread is in dlclose (`changing`): Open MPI starts its
 * progress thread during MPI_Init while it closes the components it did not select, and the lookup
 * above then found nothing, so the thread was not told to be a service thread (about one run in
 * three). The routine's object cannot be the one being unloaded: the new thread is about to run
 * its code, loaded before the thread was created, so before the snapshot the caller just refreshed;
 * the snapshot's memory is kept while the caller is a reader (reclaim). Not in a signal handler. */
const struct dl_phdr_info *hp_maps_object_of_running(uintptr_t a) {
  const snapshot *s = load_current();
  if (!s) return NULL;
  const snap_obj *o = obj_of(s, a);
  return o ? &o->info : NULL;
}

int hp_maps_iterate_snapshot(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data) {
  const snapshot *s = load_current();
  if (!s || __atomic_load_n(&changing, __ATOMIC_SEQ_CST)) return 0;
  int r = 0;
  for (uint32_t i = 0; i < s->n_objs && r == 0; i++) {
    struct dl_phdr_info info = s->objs[i].info;   /* a copy: callbacks may not write the snapshot */
    r = cb(&info, sizeof info, data);
  }
  return r;
}

/* ---------- interposed loader functions ---------- */


/* Under ThreadSanitizer (a test build only) the interposer is left out: TSan intercepts
 * dl_iterate_phdr itself and calls it while initialising, before an instrumented function may run.
 * libunwind then uses the real one (with glibc's lock) on cache misses. */
#ifndef HP_TSAN
typedef struct {
  int (*cb)(struct dl_phdr_info *, size_t, void *);
  void *data;
  int seen, have;
  uint64_t gen;
} tramp;

/* The caller's callback, noting the loader's generation from the first object on the way. */
static int tramp_cb(struct dl_phdr_info *info, size_t size, void *data) {
  tramp *tr = data;
  if (!tr->seen) {
    tr->seen = 1;
    tr->have = info_gen(info, size, &tr->gen);
  }
  return tr->cb(info, size, tr->data);
}

/* Outside our handler (e.g. libunwind or a program walking the objects): the loader's counters
 * come with the first object, so a changed set of objects is noticed without a second walk. A
 * function of its own: its address-taken local must not be in dl_iterate_phdr itself, which
 * AddressSanitizer calls before its shadow memory (used by instrumented stack variables) exists. */
static __attribute__((noinline)) int iterate_and_refresh(iterate_fn it, int (*cb)(struct dl_phdr_info *, size_t, void *),
                                                         void *data) {
  tramp tr = {cb, data, 0, 0, 0};
  int r = it(tramp_cb, &tr);
  if (tr.seen && snapshot_stale(tr.have, tr.gen)) hp_maps_snapshot();
  return r;
}

HP_VISIBLE int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data) {
  hp_thread *t = hp_thread_current();
  hp_sample_thread *st = t ? hp_sample_of(t) : NULL;
  if (st && st->in_handler) return hp_maps_iterate_snapshot(cb, data);
  iterate_fn it = get_real_iterate();
  if (!it) return 0;
  if (refreshing || !__atomic_load_n(&current, __ATOMIC_ACQUIRE)) return it(cb, data);
  return iterate_and_refresh(it, cb, data);
}
#endif

HP_VISIBLE int dlclose(void *h) {
  if (!real_dlclose) real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
  if (!real_dlclose) return -1;
  /* objects of the current snapshot may be unmapped: unwinding inside our handler gets no objects
   * until the refreshed snapshot is published */
  __atomic_add_fetch(&changing, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&readers, __ATOMIC_SEQ_CST)) sched_yield();   /* unwinds take microseconds */
  int r = real_dlclose(h);
  if (__atomic_load_n(&current, __ATOMIC_ACQUIRE)) {
    refresh_if_changed();
    /* libunwind's global cache may hold unwind info of the unmapped object, which a library
     * loaded later at the same addresses would be unwound with: drop it before handlers may
     * use objects again */
    unw_flush_cache(unw_local_addr_space, 0, 0);
  }
  __atomic_sub_fetch(&changing, 1, __ATOMIC_ACQ_REL);
  return r;
}

/* mmap, interposed for one caller: V8, which maps the copy of node's embedded builtins next to its
 * JIT code with an mmap of node's own file (PROT_EXEC, a file descriptor) when it creates an isolate,
 * after the main thread started and before any JavaScript runs. Scanning at thread starts and dumps
 * only (as before) missed that copy in a program whose only measured thread is the main one (the
 * default HYPROF_NODE_THREADS=js without workers): V8 unmaps it again before the exit dump, and every
 * sample in a builtin stayed UNRESOLVED. So an executable file mapping made here is looked for at
 * once (scan_moved keeps it until the dump). Only executable mappings of a file in a Node process
 * scan: anonymous memory (V8's heap, malloc) and data files pass straight through. The loader maps
 * objects with its own internal mmap, which does not come here. Not in a signal handler (mmap is not
 * async-signal-safe); scan_moved is, and takes no lock, so a caller holding any lock is fine. */
#ifndef HP_TSAN /* TSan intercepts mmap itself, before its own runtime is set up: left out there */
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
static mmap_fn real_mmap, real_mmap64;
_Static_assert(sizeof(off_t) == 8, "mmap and mmap64 take the same offset (64-bit targets)");

static void *mmap_and_scan(mmap_fn *real, const char *name, void *addr, size_t len, int prot, int flags, int fd,
                           off_t off) {
  mmap_fn m = __atomic_load_n(real, __ATOMIC_RELAXED);
  if (!m) {
    m = (mmap_fn)dlsym(RTLD_NEXT, name);
    if (!m) {
      errno = ENOSYS;
      return MAP_FAILED;
    }
    __atomic_store_n(real, m, __ATOMIC_RELAXED);
  }
  void *r = m(addr, len, prot, flags, fd, off);
  if (r != MAP_FAILED && fd >= 0 && (prot & PROT_EXEC)) {
    int saved = errno;
    scan_moved();
    errno = saved;
  }
  return r;
}

/* Both symbols: node imports mmap64 (glibc's alias of mmap on 64-bit targets), other code mmap. Named
 * by assembler labels: with _FILE_OFFSET_BITS=64 (node-gyp's builds) the header renames `mmap` to
 * mmap64, so a plain definition would give one symbol twice. */
HP_VISIBLE void *hp_mmap_plain(void *addr, size_t len, int prot, int flags, int fd, off_t off) __asm__("mmap");
HP_VISIBLE void *hp_mmap_plain(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap_and_scan(&real_mmap, "mmap", addr, len, prot, flags, fd, off);
}
HP_VISIBLE void *hp_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) __asm__("mmap64");
HP_VISIBLE void *hp_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap_and_scan(&real_mmap64, "mmap64", addr, len, prot, flags, fd, off);
}
#endif /* HP_TSAN */

void hp_maps_hooks_init(void) {
  get_real_iterate();
  if (!real_dlclose) real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
  hp_maps_snapshot();
}
