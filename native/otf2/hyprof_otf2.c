/* hyprof-otf2: the trace files of a run (native/core/trace.c) -> one OTF2 archive, through the OTF2
 * library (docs/trace.md has the conventions it follows: names, system tree, locations, regions,
 * attributes, metrics, lost counts).
 *
 *   hyprof-otf2 PLAN
 *   hyprof-otf2 --check TRACE-FILE...   (read and check only: the resolve's first pass)
 *   hyprof-otf2 --pcs TRACE-FILE      (the program counters of its samples, for the resolve to name)
 *
 * PLAN is written by `hyprof resolve` (src/resolve/trace-plan.ts): which trace files, the profile
 * numbering of their processes and threads, and every event's name as the TAU profile names it (the
 * resolve computes those: instrumented functions named from their addresses, OpenMP constructs after
 * their source). One line per item, fields separated by tabs, `\\`, `\t`, `\n` escaped:
 *   archive DIR                       the archive goes to DIR/traces.otf2, DIR/traces.def, DIR/traces/
 *   metric NAME                       each extra metric of the records, in order
 *   process FILE NODE CONTEXT RANK HOST   (RANK -1: not an MPI rank)
 *   thread INDEX NAME                 a thread of the last process (its profile thread number)
 *   region ID PARADIGM ROLE GROUP FILE LINE NAME   an event of the last process
 *   param ID TYPE NAME VALUE          a parameter of the last region (TYPE i: INT64, s: STRING)
 *   sampling SOURCE PERIOD            the last process's sampling source and period (ns, or events)
 *   spc PC RET                        a program counter of the last process's traced samples (hex; RET
 *                                     1 when it is a caller's return address), named by the sframe
 *                                     lines after it, innermost first (none: hyprof's own code)
 *   sframe OMP FUNCTION FILE LINE     a frame of the last spc (OMP 1: in the OpenMP runtime)
 *   samples_lost THREAD N             samples of the last process's thread that the trace lacks
 *   gpuname RAW NAME                  a GPU activity's name as CUPTI gave it and as the profile shows it
 *                                     (`[GPU] saxpy` for `_Z5saxpyifPKfPf`)
 * Events the plan does not name (registered after the raw file was written: a run killed after a
 * flush) are named from the trace file's own definitions, and said.
 *
 * Prints one line per location written on stdout (`location <process> <thread> <events> <lost>`),
 * warnings on stderr (`hyprof-otf2: ...`); exits 1 with one line on stderr when a trace file is
 * damaged or the archive cannot be written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "gpu_lanes.h"
#include "trace_file.h"

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("hyprof-otf2: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("hyprof-otf2: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory");
  return q;
}

static char *xstrdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d) die("out of memory");
  return d;
}

/* ---- strings: OTF2 string definitions, deduplicated ---- */

typedef struct strtab {
  char **s;
  uint32_t n, room;
  uint32_t *hash; /* open addressing: index + 1, 0 = empty */
  uint32_t hcap;
} strtab;

static uint64_t fnv(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static uint32_t intern(strtab *t, const char *s) {
  if (t->n * 2 >= t->hcap) {
    uint32_t cap = t->hcap ? t->hcap * 2 : 1024;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) die("out of memory");
    for (uint32_t i = 0; i < t->n; i++) {
      uint32_t k = (uint32_t)fnv(t->s[i]) & (cap - 1);
      while (h[k]) k = (k + 1) & (cap - 1);
      h[k] = i + 1;
    }
    free(t->hash);
    t->hash = h;
    t->hcap = cap;
  }
  uint32_t k = (uint32_t)fnv(s) & (t->hcap - 1);
  for (; t->hash[k]; k = (k + 1) & (t->hcap - 1))
    if (strcmp(t->s[t->hash[k] - 1], s) == 0) return t->hash[k] - 1;
  if (t->n == t->room) {
    t->room = t->room ? t->room * 2 : 256;
    t->s = xrealloc(t->s, t->room * sizeof *t->s);
  }
  t->s[t->n] = xstrdup(s);
  t->hash[k] = t->n + 1;
  return t->n++;
}

static strtab strings;

/* ---- the plan ---- */

typedef struct param {
  char *name;
  int is_int;
  int64_t i;
  char *s;
} param;

typedef struct region_def {
  int known;
  uint32_t region; /* OTF2 region id */
  param *params;
  uint32_t n_params;
} region_def;

typedef struct thread_def {
  uint32_t index;
  char *name;
} thread_def;

typedef struct process_def {
  char *file;
  long node, context, rank;
  char *host;
  thread_def *threads;
  uint32_t n_threads;
  region_def *regions; /* by event id */
  uint32_t n_regions;
  struct sample_names *samples; /* its samples' frames (the plan's spc / sframe lines), NULL: none */
  char **gpu_raw, **gpu_name;   /* the plan's gpuname lines */
  uint32_t n_gpu;
} process_def;

typedef struct region_out {
  uint32_t name, group, file, line;
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
} region_out;

static process_def *procs;
static uint32_t n_procs;
static char **metric_names;
static uint32_t n_metrics;
static region_out *regions;
static uint32_t n_regions;
static strtab region_keys; /* name \x1f group \x1f paradigm -> region id (same order as regions) */

typedef struct attr_out {
  uint32_t name;
  OTF2_Type type;
} attr_out;
static attr_out *attrs;
static uint32_t n_attrs;

static uint32_t attribute(const char *pname, OTF2_Type type) {
  char key[1100];
  snprintf(key, sizeof key, "param:%s", pname);
  uint32_t name = intern(&strings, key);
  for (uint32_t i = 0; i < n_attrs; i++)
    if (attrs[i].name == name && attrs[i].type == type) return i;
  attrs = xrealloc(attrs, (n_attrs + 1) * sizeof *attrs);
  attrs[n_attrs] = (attr_out){name, type};
  return n_attrs++;
}

static uint32_t region_for(const char *name, const char *group, OTF2_Paradigm paradigm, OTF2_RegionRole role,
                           const char *file, uint32_t line) {
  char *key = xrealloc(NULL, strlen(name) + strlen(group) + 16);
  sprintf(key, "%s\x1f%s\x1f%d", name, group, (int)paradigm);
  uint32_t before = region_keys.n, id = intern(&region_keys, key);
  free(key);
  if (id == before) {
    regions = xrealloc(regions, (n_regions + 1) * sizeof *regions);
    regions[n_regions++] = (region_out){intern(&strings, name), intern(&strings, group), intern(&strings, file ? file : ""),
                                        line, role, paradigm};
  }
  return id;
}

/* ---- samples: calling-context samples (docs/trace.md, "Samples") ----
 * A sample record holds the program counters of its innermost frames (native/core/trace.h,
 * HP_TREC_SAMPLE). The resolve names them as the profile names sampled code (the plan's spc / sframe
 * lines: inlined functions are frames of their own, hyprof's own frames are left out, the OpenMP
 * runtime's outermost frames too); here each chain becomes a path of the calling context tree, whose
 * nodes are a region (the function: group TAU_SAMPLE, paradigm SAMPLING) and a source code location
 * (the sampled or calling line), the outermost frame's parent none, and each sample a
 * CallingContextSample of its innermost node, from the interrupt generator of its process's source. */

static void check(OTF2_ErrorCode e, const char *what);

typedef struct sample_frame {
  uint32_t region, scl;
  int omp;
} sample_frame;

typedef struct sample_pc {
  uint64_t key;           /* pc << 1 | ret; 0 = empty slot */
  uint32_t first, n;      /* its frames in sample_names.frames */
} sample_pc;

typedef struct sample_names {
  sample_pc *pcs;         /* open addressing by key */
  uint32_t n_pcs, cap_pcs;
  sample_frame *frames;
  uint32_t n_frames;
  uint32_t generator;     /* its interrupt generator, OTF2_UNDEFINED_UINT32 before its sampling line */
  uint64_t last_key;      /* the last spc line's, whose sframe lines follow */
  uint64_t *lost;         /* samples_lost: [thread, n] pairs */
  uint32_t n_lost;
} sample_names;

static strtab scl_keys;              /* "file \x1f line" -> source code location id */
static uint32_t *scl_file, *scl_line;
static strtab cc_keys;               /* "parent,region,scl" -> calling context id */
static uint32_t *cc_region, *cc_scl, *cc_parent;
static strtab ig_keys;               /* "source \x1f period" -> interrupt generator id */
static uint32_t *ig_name;
static uint64_t *ig_period;
static int *ig_count_mode;

static uint32_t sample_scl(const char *file, uint32_t line) {
  char *key = xrealloc(NULL, strlen(file) + 16);
  sprintf(key, "%s\x1f%u", file, line);
  uint32_t before = scl_keys.n, id = intern(&scl_keys, key);
  free(key);
  if (id == before) {
    scl_file = xrealloc(scl_file, scl_keys.n * sizeof *scl_file);
    scl_line = xrealloc(scl_line, scl_keys.n * sizeof *scl_line);
    scl_file[id] = intern(&strings, file);
    scl_line[id] = line;
  }
  return id;
}

static uint32_t sample_cc(uint32_t parent, uint32_t region, uint32_t scl) {
  char key[48];
  snprintf(key, sizeof key, "%u,%u,%u", parent, region, scl);
  uint32_t before = cc_keys.n, id = intern(&cc_keys, key);
  if (id == before) {
    cc_region = xrealloc(cc_region, cc_keys.n * sizeof *cc_region);
    cc_scl = xrealloc(cc_scl, cc_keys.n * sizeof *cc_scl);
    cc_parent = xrealloc(cc_parent, cc_keys.n * sizeof *cc_parent);
    cc_region[id] = region;
    cc_scl[id] = scl;
    cc_parent[id] = parent;
  }
  return id;
}

/* The interrupt generator of a sampling source: time based for the timers and perf's clocks (the
 * period in ns), count based for the counters (the period in events). */
static uint32_t sample_generator(const char *source, uint64_t period) {
  char key[160];
  snprintf(key, sizeof key, "%.100s\x1f%llu", source, (unsigned long long)period);
  uint32_t before = ig_keys.n, id = intern(&ig_keys, key);
  if (id == before) {
    ig_name = xrealloc(ig_name, ig_keys.n * sizeof *ig_name);
    ig_period = xrealloc(ig_period, ig_keys.n * sizeof *ig_period);
    ig_count_mode = xrealloc(ig_count_mode, ig_keys.n * sizeof *ig_count_mode);
    char name[160];
    snprintf(name, sizeof name, "sampling: %.100s", source);
    ig_name[id] = intern(&strings, name);
    ig_period[id] = period;
    ig_count_mode[id] = !(strncmp(source, "itimer", 6) == 0 || !strcmp(source, "task-clock") || !strcmp(source, "cpu-clock"));
  }
  return id;
}

static sample_names *sample_names_of(process_def *p) {
  if (!p->samples) {
    p->samples = xrealloc(NULL, sizeof *p->samples);
    memset(p->samples, 0, sizeof *p->samples);
    p->samples->generator = OTF2_UNDEFINED_UINT32;
  }
  return p->samples;
}

/* The slot of key in sn's table (found, or the empty one where it goes). */
static sample_pc *sample_pc_slot(sample_names *sn, uint64_t key) {
  if ((sn->n_pcs + 1) * 2 > sn->cap_pcs) {
    uint32_t cap = sn->cap_pcs ? sn->cap_pcs * 2 : 256;
    sample_pc *t = calloc(cap, sizeof *t);
    if (!t) die("out of memory");
    for (uint32_t i = 0; i < sn->cap_pcs; i++) {
      if (!sn->pcs[i].key) continue;
      uint32_t k = (uint32_t)((sn->pcs[i].key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
      while (t[k].key) k = (k + 1) & (cap - 1);
      t[k] = sn->pcs[i];
    }
    free(sn->pcs);
    sn->pcs = t;
    sn->cap_pcs = cap;
  }
  uint32_t k = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (sn->cap_pcs - 1);
  while (sn->pcs[k].key && sn->pcs[k].key != key) k = (k + 1) & (sn->cap_pcs - 1);
  return &sn->pcs[k];
}

static void sample_frame_add(sample_names *sn, const char *function, const char *file, uint32_t line, int omp) {
  sn->frames = xrealloc(sn->frames, (sn->n_frames + 1) * sizeof *sn->frames);
  /* a frame without a place (a placeholder such as `<OpenMP barrier wait>`, an unresolved address)
   * has no source code location, as the profile gives it none */
  uint32_t scl = !*file && !line ? OTF2_UNDEFINED_SOURCE_CODE_LOCATION : sample_scl(file, line);
  sn->frames[sn->n_frames++] = (sample_frame){region_for(function, "TAU_SAMPLE", OTF2_PARADIGM_SAMPLING, OTF2_REGION_ROLE_FUNCTION, file, 0),
                                              scl, omp};
}

/* The frames of pc (ret: a return address) in process p: the plan's, else one unnamed frame (a run
 * the resolve could not name: no raw file, or a pc it was not told of). */
static const sample_pc *sample_pc_named(process_def *p, uint64_t pc, int ret) {
  sample_names *sn = sample_names_of(p);
  uint64_t key = pc << 1 | (uint64_t)(ret != 0);
  if (!key) key = 2; /* pc 0 as a return address: keys are never 0 */
  sample_pc *slot = sample_pc_slot(sn, key);
  if (!slot->key) {
    char name[64];
    snprintf(name, sizeof name, "UNRESOLVED ADDR 0x%llx", (unsigned long long)pc);
    slot->key = key;
    slot->first = sn->n_frames;
    slot->n = 1;
    sn->n_pcs++;
    sample_frame_add(sn, name, "", 0, 0);
  }
  return slot;
}

/* A plan line of the samples (spc, sframe, sampling, samples_lost); 0 when it is none of them. */
static int sample_plan_line(process_def *p, char **f, int n) {
  if (!p) return 0;
  if (!strcmp(f[0], "sampling") && n == 3) {
    sample_names_of(p)->generator = sample_generator(f[1], strtoull(f[2], NULL, 10));
  } else if (!strcmp(f[0], "spc") && n == 3) {
    sample_names *sn = sample_names_of(p);
    uint64_t pc = strtoull(f[1], NULL, 16), key = pc << 1 | (uint64_t)(atoi(f[2]) != 0);
    if (!key) key = 2;
    sample_pc *slot = sample_pc_slot(sn, key);
    if (!slot->key) sn->n_pcs++;
    *slot = (sample_pc){key, sn->n_frames, 0};
    sn->last_key = key;
  } else if (!strcmp(f[0], "sframe") && n == 5) {
    sample_names *sn = sample_names_of(p);
    if (!sn->last_key) return 0; /* no spc line before it */
    sample_frame_add(sn, f[2], f[3], (uint32_t)atol(f[4]), atoi(f[1]) != 0);
    sample_pc_slot(sn, sn->last_key)->n++; /* its frames are the last in the table */
  } else if (!strcmp(f[0], "samples_lost") && n == 3) {
    sample_names *sn = sample_names_of(p);
    sn->lost = xrealloc(sn->lost, (sn->n_lost + 1) * 2 * sizeof *sn->lost);
    sn->lost[2 * sn->n_lost] = strtoull(f[1], NULL, 10);
    sn->lost[2 * sn->n_lost + 1] = strtoull(f[2], NULL, 10);
    sn->n_lost++;
  } else {
    return 0;
  }
  return 1;
}

/* Samples the trace of process p's thread lacks (the runtime's count, from the plan). */
static uint64_t samples_lost_of(process_def *p, uint32_t thread) {
  if (!p->samples) return 0;
  for (uint32_t i = 0; i < p->samples->n_lost; i++)
    if (p->samples->lost[2 * i] == thread) return p->samples->lost[2 * i + 1];
  return 0;
}

/* A sample record as a CallingContextSample: its frames named, the chain's path in the tree. */
static void write_sample(OTF2_EvtWriter *w, process_def *p, const uint64_t *rec, uint64_t ts) {
  uint32_t n_pcs = (uint32_t)tf_record_words(rec) - 2;
  sample_frame chain[TF_SAMPLE_MAX_FRAMES * 16];
  uint32_t n = 0;
  for (uint32_t i = 0; i < n_pcs; i++) {
    const sample_pc *sp = sample_pc_named(p, rec[2 + i], i > 0);
    for (uint32_t k = 0; k < sp->n && n < sizeof chain / sizeof *chain; k++) chain[n++] = p->samples->frames[sp->first + k];
  }
  /* a worker thread's chain starts at the program's code, not in the OpenMP runtime's thread loop */
  while (n > 1 && chain[n - 1].omp) n--;
  if (n == 0) {
    sample_frame_add(p->samples, "UNRESOLVED UNKNOWN", "", 0, 0);
    chain[n++] = p->samples->frames[--p->samples->n_frames];
  }
  uint32_t cc = OTF2_UNDEFINED_CALLING_CONTEXT;
  for (uint32_t i = n; i-- > 0;) cc = sample_cc(cc, chain[i].region, chain[i].scl);
  uint32_t ig = p->samples->generator;
  if (ig == OTF2_UNDEFINED_UINT32) ig = p->samples->generator = sample_generator("unknown", 0);
  check(OTF2_EvtWriter_CallingContextSample(w, NULL, ts, cc, n, ig), "calling context sample");
}

/* The definitions the samples made: source code locations, calling contexts (parents first: a
 * context's id is larger than its parent's), interrupt generators. */
static void write_sample_defs(OTF2_GlobalDefWriter *g) {
  for (uint32_t i = 0; i < scl_keys.n; i++) check(OTF2_GlobalDefWriter_WriteSourceCodeLocation(g, i, scl_file[i], scl_line[i]), "source code location");
  for (uint32_t i = 0; i < cc_keys.n; i++)
    check(OTF2_GlobalDefWriter_WriteCallingContext(g, i, cc_region[i], cc_scl[i], cc_parent[i]), "calling context");
  for (uint32_t i = 0; i < ig_keys.n; i++)
    check(OTF2_GlobalDefWriter_WriteInterruptGenerator(g, i, ig_name[i], ig_count_mode[i] ? OTF2_INTERRUPT_GENERATOR_MODE_COUNT : OTF2_INTERRUPT_GENERATOR_MODE_TIME,
                                                       OTF2_BASE_DECIMAL, ig_count_mode[i] ? 0 : -9, ig_period[i]),
          "interrupt generator");
}

/* hyprof-otf2 --pcs FILE: each distinct program counter of its sample records, with whether it is a
 * return address (a caller's frame), `<hex>\t<0|1>` per line, for the resolve to name. */
static int print_sample_pcs(const char *path) {
  tf_file f;
  char err[1024];
  if (tf_read(path, &f, err, sizeof err) != 0) die("%s", err);
  sample_names seen = {0};
  for (size_t k = 0; k < f.n_threads; k++) {
    const tf_thread *t = &f.threads[k];
    for (size_t at = 0; at < t->n_words; at += tf_record_words(&t->rec[at])) {
      const uint64_t *rec = &t->rec[at];
      if (tf_kind(rec) != TF_SAMPLE) continue;
      for (size_t i = 0; i + 2 < tf_record_words(rec); i++) {
        uint64_t key = rec[2 + i] << 1 | (i > 0);
        if (!key) continue;
        sample_pc *slot = sample_pc_slot(&seen, key);
        if (slot->key) continue;
        slot->key = key;
        seen.n_pcs++;
        printf("%llx\t%d\n", (unsigned long long)rec[2 + i], i > 0);
      }
    }
  }
  free(seen.pcs);
  tf_free(&f);
  return 0;
}

/* Undo the plan's escapes in place. */
static void unescape(char *s) {
  char *o = s;
  for (; *s; s++) {
    if (*s == '\\' && s[1]) {
      s++;
      *o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
    } else {
      *o++ = *s;
    }
  }
  *o = 0;
}

static int split(char *line, char **f, int max) {
  int n = 0;
  f[n++] = line;
  for (char *p = line; *p && n < max; p++)
    if (*p == '\t') {
      *p = 0;
      f[n++] = p + 1;
    }
  for (int i = 0; i < n; i++) unescape(f[i]);
  return n;
}

static OTF2_Paradigm paradigm_of(const char *p) {
  if (!strcmp(p, "mpi")) return OTF2_PARADIGM_MPI;
  if (!strcmp(p, "openmp")) return OTF2_PARADIGM_OPENMP;
  return OTF2_PARADIGM_USER;
}

static char *archive_dir;

static void read_plan(const char *path) {
  FILE *in = fopen(path, "r");
  if (!in) die("%s: cannot read the plan: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  size_t lineno = 0;
  while ((len = getline(&line, &cap, in)) >= 0) {
    lineno++;
    if (len && line[len - 1] == '\n') line[--len] = 0;
    if (!len) continue;
    char *f[10];
    int n = split(line, f, 10);
    process_def *p = n_procs ? &procs[n_procs - 1] : NULL;
    if (!strcmp(f[0], "hyprof-otf2")) continue;
    if (!strcmp(f[0], "archive") && n == 2) {
      archive_dir = xstrdup(f[1]);
    } else if (!strcmp(f[0], "metric") && n == 2) {
      metric_names = xrealloc(metric_names, (n_metrics + 1) * sizeof *metric_names);
      metric_names[n_metrics++] = xstrdup(f[1]);
    } else if (!strcmp(f[0], "process") && n == 6) {
      procs = xrealloc(procs, (n_procs + 1) * sizeof *procs);
      procs[n_procs++] = (process_def){xstrdup(f[1]), atol(f[2]), atol(f[3]), atol(f[4]), xstrdup(f[5]), NULL, 0, NULL, 0, NULL, NULL, NULL, 0};
    } else if (!strcmp(f[0], "thread") && n == 3 && p) {
      p->threads = xrealloc(p->threads, (p->n_threads + 1) * sizeof *p->threads);
      p->threads[p->n_threads++] = (thread_def){(uint32_t)atol(f[1]), xstrdup(f[2])};
    } else if (!strcmp(f[0], "region") && n == 8 && p) {
      uint32_t id = (uint32_t)atol(f[1]);
      if (id >= 100000000u) die("%s:%zu: event id out of range", path, lineno);
      if (id >= p->n_regions) {
        p->regions = xrealloc(p->regions, (id + 1) * sizeof *p->regions);
        memset(p->regions + p->n_regions, 0, (id + 1 - p->n_regions) * sizeof *p->regions);
        p->n_regions = id + 1;
      }
      OTF2_RegionRole role = !strcmp(f[3], "code") ? OTF2_REGION_ROLE_CODE : OTF2_REGION_ROLE_FUNCTION;
      p->regions[id].known = 1;
      p->regions[id].region = region_for(f[7], f[4], paradigm_of(f[2]), role, f[5], (uint32_t)atol(f[6]));
    } else if (!strcmp(f[0], "param") && n == 5 && p) {
      uint32_t id = (uint32_t)atol(f[1]);
      if (id >= p->n_regions || !p->regions[id].known) die("%s:%zu: a parameter of an event not named before", path, lineno);
      region_def *r = &p->regions[id];
      r->params = xrealloc(r->params, (r->n_params + 1) * sizeof *r->params);
      param *q = &r->params[r->n_params++];
      q->name = xstrdup(f[3]);
      q->is_int = !strcmp(f[2], "i");
      q->i = q->is_int ? strtoll(f[4], NULL, 10) : 0;
      q->s = q->is_int ? NULL : xstrdup(f[4]);
    } else if (!strcmp(f[0], "gpuname") && n == 3 && p) {
      p->gpu_raw = xrealloc(p->gpu_raw, (p->n_gpu + 1) * sizeof *p->gpu_raw);
      p->gpu_name = xrealloc(p->gpu_name, (p->n_gpu + 1) * sizeof *p->gpu_name);
      p->gpu_raw[p->n_gpu] = xstrdup(f[1]);
      p->gpu_name[p->n_gpu++] = xstrdup(f[2]);
    } else if (sample_plan_line(p, f, n)) {
      /* samples: their frames, source and losses */
    } else {
      die("%s:%zu: not a plan line", path, lineno);
    }
  }
  free(line);
  fclose(in);
  if (!archive_dir) die("%s: no archive line", path);
}

/* ---- OTF2 ---- */

static OTF2_FlushType pre_flush(void *data, OTF2_FileType type, OTF2_LocationRef loc, void *cb, bool final) {
  (void)data; (void)type; (void)loc; (void)cb; (void)final;
  return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *data, OTF2_FileType type, OTF2_LocationRef loc) {
  (void)data; (void)type; (void)loc;
  return 0;
}
static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

static void check(OTF2_ErrorCode e, const char *what) {
  if (e != OTF2_SUCCESS) die("cannot write the OTF2 archive in %s (%s): %s", archive_dir, what, OTF2_Error_GetDescription(e));
}

typedef struct location_out {
  uint64_t id;
  uint32_t name;
  uint32_t group;   /* its process (index in procs) */
  uint32_t lgroup;  /* its OTF2 location group: the process's, or for a GPU stream its device's */
  OTF2_LocationType type;
  uint32_t thread;  /* its thread index in the process */
  uint64_t events;
  uint64_t lost;
  uint32_t lost_reason;
} location_out;

static location_out *locs;
static uint32_t n_locs;

/* The region of event `ev` of process p (file f): the plan's, else from the trace's definitions. */
static uint32_t region_of(process_def *p, tf_file *f, uint32_t ev, uint32_t *unnamed) {
  if (ev < p->n_regions && p->regions[ev].known) return p->regions[ev].region;
  if (ev >= p->n_regions) {
    p->regions = xrealloc(p->regions, (ev + 1) * sizeof *p->regions);
    memset(p->regions + p->n_regions, 0, (ev + 1 - p->n_regions) * sizeof *p->regions);
    p->n_regions = ev + 1;
  }
  char name[64];
  const tf_event *e = ev < f->n_events && f->events[ev].name ? &f->events[ev] : NULL;
  if (!e) snprintf(name, sizeof name, "(event %u: not named in the trace)", ev);
  (*unnamed)++;
  p->regions[ev].known = 1;
  p->regions[ev].region = region_for(e ? e->name : name, e ? e->group : "TAU_USER", OTF2_PARADIGM_USER, OTF2_REGION_ROLE_FUNCTION, "", 0);
  return p->regions[ev].region;
}

/* ---- MPI communicators and message events (native/mpi/tracing.c) ----
 * Each process numbers its communicators (0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, then in the order it
 * made them) and defines each once with its members as ranks of MPI_COMM_WORLD (COMM records, in
 * chunks). One OTF2 Comm per distinct communicator of the run: the k-th communicator with a given
 * member list in one process is the k-th with that list in every member (communicators are made
 * collectively, in the same order by their members). */

typedef struct comm_local {
  int32_t *members; /* world ranks; NULL: not defined */
  uint32_t n, got;
} comm_local;

static strtab comm_keys;        /* "k|r0,r1,..." -> global comm id */
static uint32_t *comm_first_local; /* per global comm: the local number it had where first seen */
static int32_t **comm_members;  /* per global comm */
static uint32_t *comm_size;
static uint32_t **comm_map;     /* per process: local number -> global id + 1 (0: none) */
static uint32_t *comm_map_n;

static void comms_read(tf_file *files) {
  comm_map = xrealloc(NULL, (n_procs ? n_procs : 1) * sizeof *comm_map);
  comm_map_n = xrealloc(NULL, (n_procs ? n_procs : 1) * sizeof *comm_map_n);
  for (uint32_t pi = 0; pi < n_procs; pi++) {
    comm_local *loc = NULL;
    uint32_t n_loc = 0;
    tf_file *f = &files[pi];
    for (size_t k = 0; k < f->n_threads; k++) {
      const tf_thread *t = &f->threads[k];
      for (size_t at = 0; at < t->n_words; at += tf_record_words(&t->rec[at])) {
        const uint64_t *rec = &t->rec[at];
        if (tf_kind(rec) != TF_MPI_COMM) continue;
        uint64_t id = tf_value(rec);
        uint32_t size = (uint32_t)rec[2], first = (uint32_t)(rec[2] >> 32), words = (uint32_t)tf_record_words(rec) - 3;
        if (id > 1000000 || size == 0 || size > 100000000u || first >= size) continue;
        if (id >= n_loc) {
          loc = xrealloc(loc, (id + 1) * sizeof *loc);
          memset(loc + n_loc, 0, (id + 1 - n_loc) * sizeof *loc);
          n_loc = (uint32_t)id + 1;
        }
        comm_local *c = &loc[id];
        if (!c->members) {
          c->members = xrealloc(NULL, size * sizeof *c->members);
          c->n = size;
        }
        for (uint32_t i = 0; i < 2 * words && first + i < c->n; i++) {
          c->members[first + i] = (int32_t)(uint32_t)(rec[3 + i / 2] >> (32 * (i % 2)));
          c->got++;
        }
      }
    }
    comm_map[pi] = xrealloc(NULL, (n_loc ? n_loc : 1) * sizeof **comm_map);
    comm_map_n[pi] = n_loc;
    strtab seen = {0}; /* member lists of this process, in its numbering's order */
    uint32_t *times = NULL;
    for (uint32_t id = 0; id < n_loc; id++) {
      comm_local *c = &loc[id];
      comm_map[pi][id] = 0;
      if (!c->members || c->got < c->n) continue;
      size_t cap = 16 + 12 * (size_t)c->n;
      char *key = xrealloc(NULL, cap), *o = key;
      for (uint32_t i = 0; i < c->n; i++) o += snprintf(o, cap - (size_t)(o - key), "%s%d", i ? "," : "", c->members[i]);
      uint32_t before = seen.n, at = intern(&seen, key);
      if (at == before) {
        times = xrealloc(times, seen.n * sizeof *times);
        times[at] = 0;
      }
      uint32_t k = times[at]++;
      char *gkey = xrealloc(NULL, cap + 16);
      snprintf(gkey, cap + 16, "%u|%s", k, key);
      uint32_t gbefore = comm_keys.n, g = intern(&comm_keys, gkey);
      if (g == gbefore) {
        comm_first_local = xrealloc(comm_first_local, comm_keys.n * sizeof *comm_first_local);
        comm_members = xrealloc(comm_members, comm_keys.n * sizeof *comm_members);
        comm_size = xrealloc(comm_size, comm_keys.n * sizeof *comm_size);
        comm_first_local[g] = id;
        comm_members[g] = c->members;
        comm_size[g] = c->n;
        c->members = NULL; /* kept by the global comm */
      }
      comm_map[pi][id] = g + 1;
      free(key);
      free(gkey);
    }
    for (uint32_t id = 0; id < n_loc; id++) free(loc[id].members);
    free(loc);
    free(times);
    for (uint32_t i = 0; i < seen.n; i++) free(seen.s[i]);
    free(seen.s);
    free(seen.hash);
  }
}

/* The OTF2 Comm of process pi's communicator number `local`, OTF2_UNDEFINED_COMM when it has none. */
static OTF2_CommRef comm_of(uint32_t pi, uint64_t local) {
  if (local >= comm_map_n[pi] || !comm_map[pi][local]) return OTF2_UNDEFINED_COMM;
  return comm_map[pi][local] - 1;
}

/* One MPI record as its OTF2 event: 1 written, 0 nothing to write (a COMM definition), -1 left out
 * (a message on a communicator the trace does not define). */
static int write_mpi(OTF2_EvtWriter *w, uint32_t pi, const uint64_t *rec, uint64_t ts) {
  uint64_t v = tf_value(rec);
  uint32_t peer, tag;
  switch (tf_kind(rec)) {
    case TF_MPI_SEND:
    case TF_MPI_RECV:
    case TF_MPI_ISEND:
    case TF_MPI_IRECV: {
      OTF2_CommRef c = comm_of(pi, v);
      if (c == OTF2_UNDEFINED_COMM) return -1;
      peer = (uint32_t)rec[2];
      tag = (uint32_t)(rec[2] >> 32);
      uint64_t bytes = rec[3];
      switch (tf_kind(rec)) {
        case TF_MPI_SEND: check(OTF2_EvtWriter_MpiSend(w, NULL, ts, peer, c, tag, bytes), "MPI send"); break;
        case TF_MPI_RECV: check(OTF2_EvtWriter_MpiRecv(w, NULL, ts, peer, c, tag, bytes), "MPI receive"); break;
        case TF_MPI_ISEND: check(OTF2_EvtWriter_MpiIsend(w, NULL, ts, peer, c, tag, bytes, rec[4]), "MPI isend"); break;
        default: check(OTF2_EvtWriter_MpiIrecv(w, NULL, ts, peer, c, tag, bytes, rec[4]), "MPI irecv"); break;
      }
      return 1;
    }
    case TF_MPI_ISEND_DONE: check(OTF2_EvtWriter_MpiIsendComplete(w, NULL, ts, v), "MPI isend complete"); return 1;
    case TF_MPI_IRECV_REQUEST: check(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, ts, v), "MPI irecv request"); return 1;
    case TF_MPI_COLL_BEGIN: check(OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, ts), "MPI collective begin"); return 1;
    case TF_MPI_COLL_END: {
      /* written even on a communicator not defined (an intercommunicator): its begin was */
      int32_t root = (int32_t)(uint32_t)(rec[2] >> 32);
      check(OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, ts, (OTF2_CollectiveOp)(uint32_t)rec[2], comm_of(pi, v),
                                            root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, rec[3], rec[4]),
            "MPI collective end");
      return 1;
    }
    default: return 0;
  }
}

/* ---- OpenMP: thread teams, tasks, locks (native/ompt/otrace.c; docs/trace.md, "OpenMP") ----
 * A team instance (one parallel region as run: its encountering thread's index << 32 | its count)
 * has its members from their TEAM_BEGIN records (number in team, size). One OTF2 thread-team Comm
 * (paradigm OPENMP) per distinct member list of the run, its group's members being indices into the
 * OPENMP COMM_LOCATIONS group (every location, in location order): a pool that runs the same threads
 * in every region has one Comm. A team instance none of whose members began it (count 0: the initial
 * task of a thread, tasks created outside any parallel region) is the team of its one thread. A task
 * keeps the runtime's identity: (its team's Comm, its creator's number in the team, the creator's
 * count of tasks created), unique since a number in a Comm is one location. A lock is numbered per
 * process by its wait id; acquisitionOrder counts its acquisitions in time order across threads. */

typedef struct u64map {
  uint64_t *key;
  uint32_t *val;
  uint8_t *used;
  uint32_t n, cap;
} u64map;

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

/* The value slot of `key`, inserted with `fresh` when absent. */
static uint32_t *u64map_at(u64map *m, uint64_t key, uint32_t fresh) {
  if (m->n * 2 >= m->cap) {
    u64map b = {0};
    b.cap = m->cap ? m->cap * 2 : 64;
    b.key = xrealloc(NULL, b.cap * sizeof *b.key);
    b.val = xrealloc(NULL, b.cap * sizeof *b.val);
    b.used = calloc(b.cap, 1);
    if (!b.used) die("out of memory");
    for (uint32_t i = 0; i < m->cap; i++)
      if (m->used[i]) *u64map_at(&b, m->key[i], m->val[i]) = m->val[i];
    free(m->key);
    free(m->val);
    free(m->used);
    *m = b;
  }
  uint32_t i = (uint32_t)mix64(key) & (m->cap - 1);
  for (; m->used[i]; i = (i + 1) & (m->cap - 1))
    if (m->key[i] == key) return &m->val[i];
  m->used[i] = 1;
  m->key[i] = key;
  m->val[i] = fresh;
  m->n++;
  return &m->val[i];
}

static void u64map_free(u64map *m) {
  free(m->key);
  free(m->val);
  free(m->used);
  memset(m, 0, sizeof *m);
}

typedef struct omp_team {
  uint32_t size;     /* from TEAM_BEGIN; 0: none seen */
  uint32_t *members; /* global location index per number in the team; UINT32_MAX: not recorded */
} omp_team;

typedef struct omp_acq {
  uint64_t wait_id, ts;
  uint32_t thread, seq;
} omp_acq;

static strtab omp_comm_keys;     /* member lists "l0,l1,..." -> OpenMP team Comm j */
static uint32_t **omp_comm_members;
static uint32_t *omp_comm_size;
static u64map *omp_team_comm;    /* per process: team instance -> j + 1 (0: an incomplete team) */
static u64map *omp_lock_id;      /* per process: wait id -> lock id */
static uint32_t omp_n_locks;
static uint32_t ***omp_orders;   /* per process and thread: acquisition order of its k-th acquire */
static uint32_t *omp_loc_base;   /* per process: global index of its first location */
static uint64_t omp_incomplete;  /* team instances with members not recorded */

static int by_lock_time(const void *a, const void *b) {
  const omp_acq *x = a, *y = b;
  if (x->wait_id != y->wait_id) return x->wait_id < y->wait_id ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void omp_read(tf_file *files) {
  uint32_t np = n_procs ? n_procs : 1;
  omp_team_comm = calloc(np, sizeof *omp_team_comm);
  omp_lock_id = calloc(np, sizeof *omp_lock_id);
  omp_orders = calloc(np, sizeof *omp_orders);
  omp_loc_base = calloc(np, sizeof *omp_loc_base);
  if (!omp_team_comm || !omp_lock_id || !omp_orders || !omp_loc_base) die("out of memory");
  uint32_t base = 0;
  for (uint32_t pi = 0; pi < n_procs; pi++) {
    tf_file *f = &files[pi];
    omp_loc_base[pi] = base;
    base += (uint32_t)f->n_threads;
    u64map inst = {0};
    omp_team *teams = NULL;
    uint32_t n_teams = 0;
    omp_acq *acq = NULL;
    size_t n_acq = 0, acq_room = 0;
    omp_orders[pi] = calloc(f->n_threads ? f->n_threads : 1, sizeof **omp_orders);
    if (!omp_orders[pi]) die("out of memory");
    for (size_t k = 0; k < f->n_threads; k++) {
      const tf_thread *t = &f->threads[k];
      uint32_t seq = 0;
      for (size_t at = 0; at < t->n_words; at += tf_record_words(&t->rec[at])) {
        const uint64_t *rec = &t->rec[at];
        uint32_t kind = tf_kind(rec);
        if (tf_omp_words(kind) < 0) continue;
        if (kind == TF_OMP_LOCK_ACQUIRE) {
          if (n_acq == acq_room) {
            acq_room = acq_room ? acq_room * 2 : 256;
            acq = xrealloc(acq, acq_room * sizeof *acq);
          }
          acq[n_acq++] = (omp_acq){rec[2], rec[0], (uint32_t)k, seq++};
          continue;
        }
        if (kind == TF_OMP_LOCK_RELEASE) continue;
        uint32_t *ix = u64map_at(&inst, rec[2], n_teams);
        if (*ix == n_teams) {
          teams = xrealloc(teams, (n_teams + 1) * sizeof *teams);
          teams[n_teams++] = (omp_team){0, NULL};
        }
        if (kind == TF_OMP_TEAM_BEGIN) {
          omp_team *tm = &teams[*ix];
          uint32_t rank = (uint32_t)rec[3], size = (uint32_t)(rec[3] >> 32);
          if (size > 1000000u || rank >= size) continue;
          if (size > tm->size) {
            tm->members = xrealloc(tm->members, size * sizeof *tm->members);
            for (uint32_t i = tm->size; i < size; i++) tm->members[i] = UINT32_MAX;
            tm->size = size;
          }
          tm->members[rank] = omp_loc_base[pi] + (uint32_t)k;
        }
      }
      omp_orders[pi][k] = xrealloc(NULL, (seq ? seq : 1) * sizeof ***omp_orders);
    }
    /* Each team instance's Comm. */
    for (uint32_t c = 0; c < inst.cap; c++) {
      if (!inst.used[c]) continue;
      uint64_t id = inst.key[c];
      omp_team *tm = &teams[inst.val[c]];
      if (!tm->size) { /* the initial task of thread `id >> 32`: a team of one */
        for (size_t k = 0; k < f->n_threads; k++)
          if (f->threads[k].index == (uint32_t)(id >> 32)) {
            tm->members = xrealloc(NULL, sizeof *tm->members);
            tm->members[0] = omp_loc_base[pi] + (uint32_t)k;
            tm->size = 1;
          }
      }
      int complete = tm->size > 0;
      for (uint32_t i = 0; i < tm->size; i++)
        if (tm->members[i] == UINT32_MAX) complete = 0;
      uint32_t *slot = u64map_at(&omp_team_comm[pi], id, 0);
      if (!complete) {
        omp_incomplete++;
        continue;
      }
      size_t cap = 16 + 12 * (size_t)tm->size;
      char *key = xrealloc(NULL, cap), *o = key;
      for (uint32_t i = 0; i < tm->size; i++) o += snprintf(o, cap - (size_t)(o - key), "%s%u", i ? "," : "", tm->members[i]);
      uint32_t before = omp_comm_keys.n, j = intern(&omp_comm_keys, key);
      free(key);
      if (j == before) {
        omp_comm_members = xrealloc(omp_comm_members, omp_comm_keys.n * sizeof *omp_comm_members);
        omp_comm_size = xrealloc(omp_comm_size, omp_comm_keys.n * sizeof *omp_comm_size);
        omp_comm_members[j] = tm->members;
        omp_comm_size[j] = tm->size;
        tm->members = NULL; /* kept by the Comm */
      }
      *slot = j + 1;
    }
    for (uint32_t i = 0; i < n_teams; i++) free(teams[i].members);
    free(teams);
    u64map_free(&inst);
    /* Locks: ids, and each acquisition's order among the lock's acquisitions (time, then thread). */
    qsort(acq, n_acq, sizeof *acq, by_lock_time);
    uint32_t order = 0;
    for (size_t i = 0; i < n_acq; i++) {
      if (i == 0 || acq[i].wait_id != acq[i - 1].wait_id) {
        order = 0;
        if (*u64map_at(&omp_lock_id[pi], acq[i].wait_id, omp_n_locks) == omp_n_locks) omp_n_locks++;
      }
      omp_orders[pi][acq[i].thread][acq[i].seq] = order++;
    }
    free(acq);
  }
}

/* One location's state while its OpenMP records are written. */
typedef struct omp_loc {
  uint32_t acquires; /* acquisitions written so far (index into its orders) */
  u64map held;       /* wait id -> order of its acquisition held now */
} omp_loc;

/* One OpenMP record as its OTF2 event: 1 written, -1 left out (its team is incomplete, or a release
 * of a lock it never acquired). */
static int write_omp(OTF2_EvtWriter *w, uint32_t pi, uint32_t k, omp_loc *st, const uint64_t *rec, uint64_t ts) {
  uint32_t kind = tf_kind(rec);
  if (kind == TF_OMP_LOCK_ACQUIRE || kind == TF_OMP_LOCK_RELEASE) {
    uint32_t lock = *u64map_at(&omp_lock_id[pi], rec[2], UINT32_MAX);
    if (kind == TF_OMP_LOCK_ACQUIRE) {
      if (lock == UINT32_MAX) return -1;
      uint32_t order = omp_orders[pi][k][st->acquires++];
      *u64map_at(&st->held, rec[2], order) = order;
      check(OTF2_EvtWriter_ThreadAcquireLock(w, NULL, ts, OTF2_PARADIGM_OPENMP, lock, order), "OpenMP lock acquire");
    } else {
      uint32_t order = lock == UINT32_MAX ? UINT32_MAX : *u64map_at(&st->held, rec[2], UINT32_MAX);
      if (order == UINT32_MAX) return -1;
      *u64map_at(&st->held, rec[2], UINT32_MAX) = UINT32_MAX;
      check(OTF2_EvtWriter_ThreadReleaseLock(w, NULL, ts, OTF2_PARADIGM_OPENMP, lock, order), "OpenMP lock release");
    }
    return 1;
  }
  if (kind == TF_OMP_FORK) {
    check(OTF2_EvtWriter_ThreadFork(w, NULL, ts, OTF2_PARADIGM_OPENMP, (uint32_t)tf_value(rec)), "OpenMP fork");
    return 1;
  }
  if (kind == TF_OMP_JOIN) {
    check(OTF2_EvtWriter_ThreadJoin(w, NULL, ts, OTF2_PARADIGM_OPENMP), "OpenMP join");
    return 1;
  }
  uint32_t j = *u64map_at(&omp_team_comm[pi], rec[2], 0);
  if (!j) return -1;
  OTF2_CommRef comm = comm_keys.n + j - 1;
  uint32_t creator = (uint32_t)rec[3], gen = (uint32_t)(rec[3] >> 32);
  switch (kind) {
    case TF_OMP_TEAM_BEGIN: check(OTF2_EvtWriter_ThreadTeamBegin(w, NULL, ts, comm), "OpenMP team begin"); break;
    case TF_OMP_TEAM_END: check(OTF2_EvtWriter_ThreadTeamEnd(w, NULL, ts, comm), "OpenMP team end"); break;
    case TF_OMP_TASK_CREATE: check(OTF2_EvtWriter_ThreadTaskCreate(w, NULL, ts, comm, creator, gen), "OpenMP task create"); break;
    case TF_OMP_TASK_SWITCH: check(OTF2_EvtWriter_ThreadTaskSwitch(w, NULL, ts, comm, creator, gen), "OpenMP task switch"); break;
    default: check(OTF2_EvtWriter_ThreadTaskComplete(w, NULL, ts, comm, creator, gen), "OpenMP task complete"); break;
  }
  return 1;
}

/* The OpenMP definitions: the COMM_LOCATIONS group of every location, then per team Comm its group. */
static void omp_write_defs(OTF2_GlobalDefWriter *g, uint32_t s_locs, const uint32_t *team_name) {
  if (!omp_comm_keys.n) return;
  uint32_t gbase = comm_keys.n ? comm_keys.n + 1 : 0; /* after the MPI groups */
  /* The host threads only (GPU streams are not OpenMP's), in order: omp_loc_base counts them so. */
  uint64_t *all = xrealloc(NULL, (n_locs ? n_locs : 1) * sizeof *all);
  uint32_t n_all = 0;
  for (uint32_t i = 0; i < n_locs; i++)
    if (locs[i].type == OTF2_LOCATION_TYPE_CPU_THREAD) all[n_all++] = locs[i].id;
  check(OTF2_GlobalDefWriter_WriteGroup(g, gbase, s_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                        OTF2_GROUP_FLAG_NONE, n_all, all), "OpenMP locations group");
  free(all);
  for (uint32_t j = 0; j < omp_comm_keys.n; j++) {
    uint64_t *m = xrealloc(NULL, omp_comm_size[j] * sizeof *m);
    for (uint32_t i = 0; i < omp_comm_size[j]; i++) m[i] = omp_comm_members[j][i];
    check(OTF2_GlobalDefWriter_WriteGroup(g, gbase + 1 + j, team_name[j], OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                          OTF2_GROUP_FLAG_NONE, omp_comm_size[j], m), "OpenMP team group");
    check(OTF2_GlobalDefWriter_WriteComm(g, comm_keys.n + j, team_name[j], gbase + 1 + j, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
          "OpenMP team comm");
    free(m);
  }
}

/* ---- GPU activity (the CUDA layer's records, gpu_lanes.c; docs/trace.md, "GPU") ----
 * Kernels, copies and sets go on a location of their own per GPU stream (ACCELERATOR_STREAM, in an
 * ACCELERATOR location group per device of the process, created by the process's group), each an
 * Enter / Leave of its region `[GPU] <name>` (paradigm CUDA, the profile's event name). A
 * synchronisation is the host waiting for the GPU: an Enter / Leave on the launching thread's
 * location, inside what that thread was doing. */

static gpu_trace *gpus;          /* per process */
static uint32_t **gpu_regions;   /* per process: slot -> region + 1 (0: not made yet) */
typedef struct gpu_group {
  uint32_t proc, device;
} gpu_group;
static gpu_group *gpu_groups;    /* OTF2 location group n_procs + j */
static uint32_t n_gpu_groups;

static uint32_t gpu_region(uint32_t pi, uint32_t slot) {
  uint32_t *r = &gpu_regions[pi][slot];
  if (!*r) {
    const gpu_slot *s = &gpus[pi].slots[slot];
    const process_def *p = &procs[pi];
    const char *shown = NULL;
    for (uint32_t i = 0; i < p->n_gpu && !shown; i++)
      if (!strcmp(p->gpu_raw[i], s->name)) shown = p->gpu_name[i];
    char fallback[sizeof s->name + 8];
    if (!shown) { /* recorded after the raw file was written: CUPTI's name */
      snprintf(fallback, sizeof fallback, "[GPU] %s", s->name);
      shown = fallback;
    }
    OTF2_RegionRole role = s->kind == GPU_MEMCPY || s->kind == GPU_MEMSET ? OTF2_REGION_ROLE_DATA_TRANSFER : OTF2_REGION_ROLE_FUNCTION;
    *r = region_for(shown, "GPU", OTF2_PARADIGM_CUDA, role, "", 0) + 1;
  }
  return *r - 1;
}

static void gpu_read(tf_file *files, uint64_t *t_min, uint64_t *t_max) {
  gpus = xrealloc(NULL, (n_procs ? n_procs : 1) * sizeof *gpus);
  gpu_regions = xrealloc(NULL, (n_procs ? n_procs : 1) * sizeof *gpu_regions);
  for (uint32_t pi = 0; pi < n_procs; pi++) {
    gpu_trace *g = &gpus[pi];
    gpu_collect(&files[pi], g);
    gpu_regions[pi] = calloc(g->n_slots ? g->n_slots : 1, sizeof **gpu_regions);
    if (!gpu_regions[pi]) die("out of memory");
    if (g->last) {
      if (g->first < *t_min) *t_min = g->first;
      if (g->last > *t_max) *t_max = g->last;
    }
    if (g->undefined) warn("%s: %" PRIu64 " GPU records of an activity the trace does not define left out", files[pi].path, g->undefined);
    if (g->unplaced)
      warn("%s: %" PRIu64 " GPU synchronisations whose launching thread is unknown left out of the trace (the profile has them)",
           files[pi].path, g->unplaced);
  }
}

/* The location group of process pi's GPU `device`. */
static uint32_t gpu_group_of(uint32_t pi, uint32_t device) {
  for (uint32_t j = 0; j < n_gpu_groups; j++)
    if (gpu_groups[j].proc == pi && gpu_groups[j].device == device) return n_procs + j;
  gpu_groups = xrealloc(gpu_groups, (n_gpu_groups + 1) * sizeof *gpu_groups);
  gpu_groups[n_gpu_groups] = (gpu_group){pi, device};
  return n_procs + n_gpu_groups++;
}

/* A host thread's synchronisations, merged into its records as they are written. */
typedef struct sync_state {
  const gpu_host *h;
  size_t next;
  int open;
  uint64_t open_end;
  uint32_t region;
  uint64_t cut;     /* left early: a region of the thread's own entered or left inside one */
} sync_state;

/* Write the synchronisations that begin by `ts`, before the thread's record at ts. One still open
 * is left at ts when the record is an Enter or Leave of the thread's own (OTF2's nesting: GPU and
 * host clocks agree to a few µs, so a wait may seem to outlast the call it was in). */
static void syncs_until(OTF2_EvtWriter *w, uint32_t pi, sync_state *st, uint64_t ts, int region_event, uint64_t *last,
                        uint64_t *events) {
  if (!st->h) return;
  for (;;) {
    if (st->open && st->open_end <= ts) {
      uint64_t at = st->open_end > *last ? st->open_end : *last;
      check(OTF2_EvtWriter_Leave(w, NULL, at, st->region), "leave");
      (*events)++;
      *last = at;
      st->open = 0;
    }
    if (st->next >= st->h->n || st->h->iv[st->next].start > ts) break;
    const gpu_interval *v = &st->h->iv[st->next++];
    if (st->open) { /* overlapping waits on one thread (clock jitter): one wait */
      if (v->end > st->open_end) st->open_end = v->end;
      continue;
    }
    uint64_t at = v->start > *last ? v->start : *last;
    st->region = gpu_region(pi, v->slot);
    check(OTF2_EvtWriter_Enter(w, NULL, at, st->region), "enter");
    (*events)++;
    *last = at;
    st->open = 1;
    st->open_end = v->end > at ? v->end : at;
  }
  if (st->open && region_event) {
    check(OTF2_EvtWriter_Leave(w, NULL, ts, st->region), "leave");
    (*events)++;
    *last = ts;
    st->open = 0;
    st->cut++;
  }
}

/* Process pi's GPU streams, one location each, after its host threads. */
static void gpu_write_lanes(OTF2_Archive *archive, uint32_t pi, uint64_t *next_loc) {
  const gpu_trace *g = &gpus[pi];
  for (size_t l = 0; l < g->n_lanes; l++) {
    const gpu_lane *gl = &g->lanes[l];
    char lname[128];
    snprintf(lname, sizeof lname, "GPU %u context %u stream %u", gl->device, gl->context, gl->stream);
    uint32_t lgroup = gpu_group_of(pi, gl->device);
    locs = xrealloc(locs, (n_locs + 1) * sizeof *locs);
    location_out *lo = &locs[n_locs++];
    *lo = (location_out){(*next_loc)++, intern(&strings, lname), pi, lgroup, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, UINT32_MAX, 0, 0,
                         intern(&strings, "")};
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, lo->id);
    if (!w) die("cannot write the OTF2 archive in %s (event writer)", archive_dir);
    uint64_t last = 0, moved = 0;
    for (size_t i = 0; i < gl->n; i++) {
      const gpu_interval *v = &gl->iv[i];
      uint64_t start = v->start, end = v->end;
      if (start < last) { /* began before the one before it ended: one stream runs one at a time */
        start = last;
        moved++;
      }
      if (end < start) end = start;
      uint32_t region = gpu_region(pi, v->slot);
      check(OTF2_EvtWriter_Enter(w, NULL, start, region), "enter");
      check(OTF2_EvtWriter_Leave(w, NULL, end, region), "leave");
      lo->events += 2;
      last = end;
    }
    check(OTF2_Archive_CloseEvtWriter(archive, w), "close event writer");
    if (moved)
      warn("%s: %s: %" PRIu64 " GPU activities that began before the one before them ended moved to its end", procs[pi].file, lname, moved);
    printf("location\t%u\tgpu\t%" PRIu64 "\t0\n", pi, lo->events);
  }
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--check")) {
    /* hyprof-otf2 --check FILE...: every trace file read and checked, nothing written */
    for (int i = 2; i < argc; i++) {
      tf_file f;
      char err[1024];
      if (tf_read(argv[i], &f, err, sizeof err) != 0) die("%s", err);
      tf_free(&f);
    }
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "--pcs")) return print_sample_pcs(argv[2]);
  if (argc != 2) {
    fprintf(stderr, "usage: hyprof-otf2 PLAN | hyprof-otf2 --check TRACE-FILE... | hyprof-otf2 --pcs TRACE-FILE (written and run by hyprof resolve; docs/trace.md)\n");
    return 2;
  }
  read_plan(argv[1]);
  /* Every trace file read and checked before a byte of the archive is written. */
  tf_file *files = xrealloc(NULL, (n_procs ? n_procs : 1) * sizeof *files);
  uint64_t t_min = UINT64_MAX, t_max = 0;
  for (uint32_t i = 0; i < n_procs; i++) {
    char err[1024];
    if (tf_read(procs[i].file, &files[i], err, sizeof err) != 0) die("%s", err);
    if (files[i].extra != n_metrics)
      die("%s: its records hold %u extra metric values, the profile %u: not a trace of this profile", procs[i].file, files[i].extra, n_metrics);
    for (size_t k = 0; k < files[i].n_threads; k++) {
      const tf_thread *t = &files[i].threads[k];
      if (t->n) {
        if (t->first_ns < t_min) t_min = t->first_ns;
        if (t->last_ns > t_max) t_max = t->last_ns;
      }
      if (t->end_ns > t_max) t_max = t->end_ns;
    }
  }
  if (t_min == UINT64_MAX) t_min = t_max = 0;
  comms_read(files);
  omp_read(files);
  gpu_read(files, &t_min, &t_max);
  if (omp_incomplete)
    warn("%" PRIu64 " OpenMP team instances have members whose records are missing: their team and task events are left out",
         omp_incomplete);

  OTF2_Archive *archive = OTF2_Archive_Open(archive_dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive) die("cannot create the OTF2 archive %s/traces.otf2 (does it exist already?)", archive_dir);
  check(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL), "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
  check(OTF2_Archive_SetCreator(archive, "hyprof"), "creator");
  check(OTF2_Archive_OpenEvtFiles(archive), "event files");

  OTF2_AttributeList *al = OTF2_AttributeList_New();
  uint32_t metric_base = 0; /* metric class i = metric_base + i; member i = i */
  OTF2_Type u64_type = OTF2_TYPE_UINT64;
  uint64_t next_loc = 0;
  for (uint32_t pi = 0; pi < n_procs; pi++) {
    process_def *p = &procs[pi];
    tf_file *f = &files[pi];
    uint32_t unnamed = 0;
    uint64_t no_comm = 0;
    for (size_t k = 0; k < f->n_threads; k++) {
      tf_thread *t = &f->threads[k];
      const char *tname = NULL;
      for (uint32_t j = 0; j < p->n_threads; j++)
        if (p->threads[j].index == t->index) tname = p->threads[j].name;
      char lname[256];
      if (tname && *tname) snprintf(lname, sizeof lname, "thread %u \"%s\"", t->index, tname);
      else snprintf(lname, sizeof lname, "thread %u", t->index);
      locs = xrealloc(locs, (n_locs + 1) * sizeof *locs);
      location_out *lo = &locs[n_locs++];
      *lo = (location_out){next_loc++, intern(&strings, lname), pi, pi, OTF2_LOCATION_TYPE_CPU_THREAD, t->index, 0, t->lost, 0};
      OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, lo->id);
      if (!w) die("cannot write the OTF2 archive in %s (event writer)", archive_dir);
      /* The records, nested as recorded; a leave that is not the innermost open region's closes the
       * regions above it (as the runtime's own misuse handling did), one with no open region is
       * left out and counted. Times never go back on a location: a record earlier than the one
       * before it (the time-stamp counter of another core, a few ns behind) is moved to it. */
      uint32_t *stack = NULL;
      size_t depth = 0, room = 0;
      uint64_t last = 0, moved = 0, stray = 0, omp_out = 0;
      omp_loc omp = {0};
      sync_state syncs = {gpu_host_of(&gpus[pi], t->index), 0, 0, 0, 0, 0};
      for (size_t at = 0; at < t->n_words; at += tf_record_words(&t->rec[at])) {
        const uint64_t *rec = &t->rec[at];
        uint32_t ev = (uint32_t)(rec[1] & 0xFFFFFFFFu), kind = tf_kind(rec);
        if (kind == TF_GPU_DEF || kind == TF_GPU) continue; /* on the GPU's locations (gpu_write_lanes) */
        uint64_t ts = rec[0];
        if (ts < last) {
          ts = last;
          moved++;
        }
        syncs_until(w, pi, &syncs, ts, kind == TF_ENTER || kind == TF_LEAVE, &last, &lo->events);
        last = ts;
        if (kind == TF_SAMPLE) { /* samples: calling-context samples (above) */
          write_sample(w, p, rec, ts);
          lo->events++;
          continue;
        }
        if (tf_omp_words(kind) >= 0) {
          if (write_omp(w, pi, (uint32_t)k, &omp, rec, ts) > 0) lo->events++;
          else omp_out++;
          continue;
        }
        if (kind > TF_LEAVE) {
          int w_rc = write_mpi(w, pi, rec, ts);
          if (w_rc > 0) lo->events++;
          else if (w_rc < 0) no_comm++;
          continue;
        }
        uint32_t region = region_of(p, f, ev, &unnamed);
        if (kind == 1) {
          if (depth == room) {
            room = room ? room * 2 : 64;
            stack = xrealloc(stack, room * sizeof *stack);
          }
          stack[depth++] = ev;
          OTF2_AttributeList *attr = NULL;
          region_def *rd = &p->regions[ev];
          if (rd->n_params) {
            attr = al;
            for (uint32_t q = 0; q < rd->n_params; q++) {
              param *pa = &rd->params[q];
              if (pa->is_int) OTF2_AttributeList_AddInt64(al, attribute(pa->name, OTF2_TYPE_INT64), pa->i);
              else OTF2_AttributeList_AddStringRef(al, attribute(pa->name, OTF2_TYPE_STRING), intern(&strings, pa->s));
            }
          }
          check(OTF2_EvtWriter_Enter(w, attr, ts, region), "enter");
          lo->events++;
        } else {
          size_t at = depth;
          while (at > 0 && stack[at - 1] != ev) at--;
          if (at == 0) {
            stray++;
            continue;
          }
          while (depth >= at) {
            check(OTF2_EvtWriter_Leave(w, NULL, ts, region_of(p, f, stack[depth - 1], &unnamed)), "leave");
            lo->events++;
            depth--;
          }
        }
        for (uint32_t m = 0; m < f->extra; m++) {
          OTF2_MetricValue v = {.unsigned_int = rec[2 + m]};
          check(OTF2_EvtWriter_Metric(w, NULL, ts, metric_base + m, 1, &u64_type, &v), "metric");
          lo->events++;
        }
      }
      /* Regions open at the end close where the profile closed them (the dump's time, or the
       * thread's end), or at the last record when the run ended without either (killed). */
      uint64_t end = t->end_ns > last ? t->end_ns : last;
      syncs_until(w, pi, &syncs, end, 1, &last, &lo->events);
      uint64_t syncs_after = syncs.h ? syncs.h->n - syncs.next : 0;
      while (depth > 0) {
        check(OTF2_EvtWriter_Leave(w, NULL, end, region_of(p, f, stack[--depth], &unnamed)), "leave");
        lo->events++;
      }
      free(stack);
      u64map_free(&omp.held);
      check(OTF2_Archive_CloseEvtWriter(archive, w), "close event writer");
      if (!t->closed_by_dump)
        warn("%s: thread %u: the trace has no end (the run was killed?): kept up to its last written block, %zu records, "
             "regions open then closed at its last record; what the thread recorded after that block is lost",
             f->path, t->index, t->n);
      else if (t->ran_after_dump)
        warn("%s: thread %u: the trace goes on after the last dump (the run was killed after a flush?): kept up to its "
             "last written block; what the thread recorded after it is lost", f->path, t->index);
      if (t->missing_blocks) warn("%s: thread %u: %u blocks of records are missing (not written)", f->path, t->index, t->missing_blocks);
      if (t->lost) warn("%s: thread %u: %" PRIu64 " records could not be written by the runtime (counted in the profile)", f->path, t->index, t->lost);
      if (stray) warn("%s: thread %u: %" PRIu64 " leave records with no open region left out", f->path, t->index, stray);
      if (no_comm) warn("%s: thread %u: %" PRIu64 " MPI records on a communicator the trace does not define left out", f->path, t->index, no_comm);
      if (omp_out)
        warn("%s: thread %u: %" PRIu64 " OpenMP records left out (a team whose members' records are missing, or a lock "
             "released that the thread did not acquire in the trace)", f->path, t->index, omp_out);
      if (moved) warn("%s: thread %u: %" PRIu64 " timestamps behind the one before moved up to it", f->path, t->index, moved);
      if (syncs.cut)
        warn("%s: thread %u: %" PRIu64 " GPU synchronisations end where the thread entered or left a region of its own (the GPU's "
             "clock put their end a little later)", f->path, t->index, syncs.cut);
      if (syncs_after)
        warn("%s: thread %u: %" PRIu64 " GPU synchronisations after the thread's end left out", f->path, t->index, syncs_after);
      uint64_t samples_lost = samples_lost_of(p, t->index);
      if (samples_lost)
        warn("%s: thread %u: %" PRIu64 " samples of the profile are not in the trace (its buffer was full: a region ran longer "
             "than HYPROF_TRACE_BUFFER_KB holds samples without a probe)", f->path, t->index, samples_lost);
      lo->lost_reason = intern(&strings, !t->closed_by_dump || t->ran_after_dump ? "the run ended without a final dump (killed)"
                                         : t->lost ? "the runtime could not write some records (see the profile's drops)" : "");
      printf("location\t%u\t%u\t%" PRIu64 "\t%" PRIu64 "\n", pi, t->index, lo->events, t->lost);
    }
    gpu_write_lanes(archive, pi, &next_loc);
    if (unnamed) warn("%s: %u events not named by the profile: named from the trace file's own definitions", f->path, unnamed);
    if (f->cut_bytes) warn("%s: its last %" PRIu64 " bytes are a block cut short (the run ended while writing it): left out", f->path, f->cut_bytes);
  }
  OTF2_AttributeList_Delete(al);
  check(OTF2_Archive_CloseEvtFiles(archive), "close event files");

  /* Local definitions: none of their own (all are global), but every location has its file. */
  check(OTF2_Archive_OpenDefFiles(archive), "definition files");
  for (uint32_t i = 0; i < n_locs; i++) {
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, locs[i].id);
    if (!dw) die("cannot write the OTF2 archive in %s (definition writer)", archive_dir);
    check(OTF2_Archive_CloseDefWriter(archive, dw), "close definition writer");
  }
  check(OTF2_Archive_CloseDefFiles(archive), "close definition files");

  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
  if (!g) die("cannot write the OTF2 archive in %s (global definitions)", archive_dir);
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, t_min, t_max - t_min, OTF2_UNDEFINED_TIMESTAMP), "clock");
  /* Strings used below are interned first, then all written. */
  uint32_t s_node = intern(&strings, "node");
  uint32_t *host_node = xrealloc(NULL, (n_procs ? n_procs : 1) * sizeof *host_node);
  uint32_t *group_name = xrealloc(NULL, (n_procs ? n_procs : 1) * sizeof *group_name);
  strtab hosts = {0};
  for (uint32_t i = 0; i < n_procs; i++) {
    host_node[i] = intern(&hosts, procs[i].host);
    char name[128];
    if (procs[i].rank >= 0) snprintf(name, sizeof name, "rank %ld", procs[i].rank);
    else snprintf(name, sizeof name, "process %ld.%ld", procs[i].node, procs[i].context);
    group_name[i] = intern(&strings, name);
  }
  uint32_t *gpu_group_name = xrealloc(NULL, (n_gpu_groups ? n_gpu_groups : 1) * sizeof *gpu_group_name);
  for (uint32_t j = 0; j < n_gpu_groups; j++) {
    char name[160];
    snprintf(name, sizeof name, "%s GPU %u", strings.s[group_name[gpu_groups[j].proc]], gpu_groups[j].device);
    gpu_group_name[j] = intern(&strings, name);
  }
  uint32_t *host_str = xrealloc(NULL, (hosts.n ? hosts.n : 1) * sizeof *host_str);
  for (uint32_t i = 0; i < hosts.n; i++) host_str[i] = intern(&strings, hosts.s[i]);
  uint32_t *metric_str = xrealloc(NULL, (n_metrics ? n_metrics : 1) * sizeof *metric_str);
  for (uint32_t m = 0; m < n_metrics; m++) metric_str[m] = intern(&strings, metric_names[m]);
  uint32_t s_lost = intern(&strings, "hyprof:lost_events"), s_reason = intern(&strings, "hyprof:lost_reason");
  uint32_t s_empty = intern(&strings, "");
  uint32_t s_lost_samples = intern(&strings, "hyprof:lost_samples");
  /* MPI: the ranks' locations (their thread 0), then per communicator a group of world ranks. */
  uint32_t s_mpi_locs = intern(&strings, "MPI ranks"), *comm_name = NULL;
  if (comm_keys.n) {
    comm_name = xrealloc(NULL, comm_keys.n * sizeof *comm_name);
    for (uint32_t g = 0; g < comm_keys.n; g++) {
      char name[64];
      if (comm_first_local[g] == 0) snprintf(name, sizeof name, "MPI_COMM_WORLD");
      else if (comm_first_local[g] == 1) snprintf(name, sizeof name, "MPI_COMM_SELF");
      else snprintf(name, sizeof name, "MPI communicator %u", g);
      comm_name[g] = intern(&strings, name);
    }
  }
  uint32_t s_omp_locs = intern(&strings, "OpenMP threads"), *team_name = xrealloc(NULL, (omp_comm_keys.n ? omp_comm_keys.n : 1) * sizeof *team_name);
  for (uint32_t j = 0; j < omp_comm_keys.n; j++) {
    char name[64];
    snprintf(name, sizeof name, "OpenMP team %u", j);
    team_name[j] = intern(&strings, name);
  }
  for (uint32_t i = 0; i < strings.n; i++) check(OTF2_GlobalDefWriter_WriteString(g, i, strings.s[i]), "string");
  for (uint32_t i = 0; i < hosts.n; i++)
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, i, host_str[i], s_node, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "system tree");
  for (uint32_t i = 0; i < n_procs; i++)
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, i, group_name[i], OTF2_LOCATION_GROUP_TYPE_PROCESS, host_node[i],
                                                  OTF2_UNDEFINED_LOCATION_GROUP), "location group");
  for (uint32_t j = 0; j < n_gpu_groups; j++) /* a process's GPU device: created by the process */
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, n_procs + j, gpu_group_name[j], OTF2_LOCATION_GROUP_TYPE_ACCELERATOR,
                                                  host_node[gpu_groups[j].proc], gpu_groups[j].proc), "location group");
  for (uint32_t i = 0; i < n_locs; i++)
    check(OTF2_GlobalDefWriter_WriteLocation(g, locs[i].id, locs[i].name, locs[i].type, locs[i].events, locs[i].lgroup), "location");
  for (uint32_t i = 0; i < n_regions; i++) {
    region_out *r = &regions[i];
    check(OTF2_GlobalDefWriter_WriteRegion(g, i, r->name, r->name, r->group, r->role, r->paradigm, OTF2_REGION_FLAG_NONE, r->file,
                                           r->line, r->line ? r->line : 0), "region");
  }
  for (uint32_t i = 0; i < n_attrs; i++) check(OTF2_GlobalDefWriter_WriteAttribute(g, i, attrs[i].name, s_empty, attrs[i].type), "attribute");
  write_sample_defs(g);
  if (comm_keys.n) {
    long max_rank = -1;
    for (uint32_t i = 0; i < n_procs; i++)
      if (procs[i].rank > max_rank) max_rank = procs[i].rank;
    uint64_t *members = xrealloc(NULL, (size_t)(max_rank + 1) * sizeof *members);
    for (long r = 0; r <= max_rank; r++) members[r] = OTF2_UNDEFINED_LOCATION;
    for (uint32_t i = 0; i < n_locs; i++) {
      if (locs[i].type != OTF2_LOCATION_TYPE_CPU_THREAD) continue;
      long r = procs[locs[i].group].rank;
      if (r >= 0 && (locs[i].thread == 0 || members[r] == OTF2_UNDEFINED_LOCATION)) members[r] = locs[i].id;
    }
    check(OTF2_GlobalDefWriter_WriteGroup(g, 0, s_mpi_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                          (uint32_t)(max_rank + 1), members), "group");
    free(members);
    for (uint32_t c = 0; c < comm_keys.n; c++) {
      uint64_t *ranks = xrealloc(NULL, comm_size[c] * sizeof *ranks);
      for (uint32_t i = 0; i < comm_size[c]; i++) ranks[i] = (uint64_t)(uint32_t)comm_members[c][i];
      check(OTF2_GlobalDefWriter_WriteGroup(g, 1 + c, comm_name[c], OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                            comm_size[c], ranks), "group");
      check(OTF2_GlobalDefWriter_WriteComm(g, c, comm_name[c], 1 + c, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
      free(ranks);
    }
  }
  omp_write_defs(g, s_omp_locs, team_name);
  for (uint32_t m = 0; m < n_metrics; m++) {
    check(OTF2_GlobalDefWriter_WriteMetricMember(g, m, metric_str[m], metric_str[m], OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START,
                                                 OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, s_empty), "metric member");
    OTF2_MetricMemberRef member = m;
    check(OTF2_GlobalDefWriter_WriteMetricClass(g, metric_base + m, 1, &member, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU), "metric class");
  }
  for (uint32_t i = 0; i < n_locs; i++) {
    OTF2_AttributeValue v = {.uint64 = locs[i].lost};
    check(OTF2_GlobalDefWriter_WriteLocationProperty(g, locs[i].id, s_lost, OTF2_TYPE_UINT64, v), "location property");
    OTF2_AttributeValue why = {.stringRef = locs[i].lost_reason};
    check(OTF2_GlobalDefWriter_WriteLocationProperty(g, locs[i].id, s_reason, OTF2_TYPE_STRING, why), "location property");
    uint64_t samples_lost = samples_lost_of(&procs[locs[i].group], locs[i].thread);
    if (samples_lost) { /* samples the profile has and the trace lacks (a full buffer, trace.c) */
      OTF2_AttributeValue sl = {.uint64 = samples_lost};
      check(OTF2_GlobalDefWriter_WriteLocationProperty(g, locs[i].id, s_lost_samples, OTF2_TYPE_UINT64, sl), "location property");
    }
  }
  check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "close global definitions");
  check(OTF2_Archive_Close(archive), "close");
  for (uint32_t i = 0; i < n_procs; i++) {
    tf_free(&files[i]);
    gpu_free(&gpus[i]);
  }
  return 0;
}
