/*
 * hyprof-otf2-read ANCHOR.otf2: an OTF2 archive, read through the OTF2 library's reader, turned into
 * the compact form hyprof's trace readers (src/trace/) load: the global definitions as JSON with
 * every name a string reference (the TypeScript side resolves them), then per location its events as
 * columns in time order. A stand-alone program, not part of the runtime: built by
 * scripts/build-otf2-read.sh only where libotf2 is installed.
 *
 * Output on standard output, little-endian (docs/trace-readers.md, "How an archive is read"):
 *   "HPTRIDX1"
 *   u32 length, definitions JSON
 *   per location, in the order of its Location definition:
 *     u32 location index, u32 n events, u32 n aux rows, u32 tail JSON length, (pad to 8)
 *     f64 time[n]   nanoseconds after the clock's global offset
 *     u8  kind[n]   (pad to 8)          the EV_* kinds below
 *     i32 a[n], i32 b[n] (pad to 8)     per kind, below
 *     f64 aux[4 × rows]                 per kind, below
 *     tail JSON: {"attrs": [[event, attribute, value]...], "open": n, "other": n}
 *   "HPTREND\0"
 *
 * Refused, one line on standard error naming the file and the place (events counted from 1, as OTF2
 * counts them), exit 1: an archive the library
 * cannot open or read, an event file that ends or breaks midway, a timestamp that goes back on a
 * location, a Leave that does not match the innermost Enter, a reference to an undefined region.
 */
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Event kinds; a, b and the aux row (4 doubles) per kind. */
enum {
  EV_ENTER = 0,       /* a region */
  EV_LEAVE,           /* a region */
  EV_SEND,            /* a peer rank, b aux: comm, tag, bytes, - */
  EV_RECV,            /* a peer rank, b aux: comm, tag, bytes, - */
  EV_ISEND,           /* a peer rank, b aux: comm, tag, bytes, request */
  EV_ISEND_COMPLETE,  /* b aux: -, -, -, request */
  EV_IRECV_REQUEST,   /* b aux: -, -, -, request */
  EV_IRECV,           /* a peer rank, b aux: comm, tag, bytes, request */
  EV_COLL_BEGIN,      /* - */
  EV_COLL_END,        /* a collective op, b aux: comm, root (-1 none), sent, received */
  EV_FORK,            /* a threads requested */
  EV_JOIN,            /* - */
  EV_TEAM_BEGIN,      /* a team comm */
  EV_TEAM_END,        /* a team comm */
  EV_TASK_CREATE,     /* a creating thread, b aux: team comm, generation, -, - */
  EV_TASK_SWITCH,     /* a creating thread, b aux: team comm, generation, -, - */
  EV_TASK_COMPLETE,   /* a creating thread, b aux: team comm, generation, -, - */
  EV_SAMPLE,          /* a calling context, b interrupt generator */
  EV_LOCK_ACQUIRE,    /* a lock id, b acquisition order */
  EV_LOCK_RELEASE,    /* a lock id, b acquisition order */
};

static const char *anchor;
static char place[4096]; /* what is being read, for the one-line refusal */
static char lib_message[1024];

static void refuse(const char *fmt, ...) {
  char what[2048];
  va_list va;
  va_start(va, fmt);
  vsnprintf(what, sizeof what, fmt, va);
  va_end(va);
  fprintf(stderr, "%s: %s%s%s\n", place[0] ? place : anchor, what, lib_message[0] ? ": " : "", lib_message);
  exit(1);
}

/* The library's own error messages become the reason of the refusal, not lines of their own. */
static OTF2_ErrorCode on_error(void *u, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                               const char *fmt, va_list va) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt ? fmt : "", va);
  snprintf(lib_message, sizeof lib_message, "%s%s%s", OTF2_Error_GetDescription(code), msg[0] ? ": " : "", msg);
  return code;
}

static void check(OTF2_ErrorCode e, const char *what) {
  if (e != OTF2_SUCCESS) {
    if (!lib_message[0]) snprintf(lib_message, sizeof lib_message, "%s", OTF2_Error_GetDescription(e));
    refuse("%s failed", what);
  }
}

/* A growable byte buffer (the JSON texts). */
struct buf {
  char *p;
  size_t n, cap;
};
static void put(struct buf *b, const void *d, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 4096;
    b->p = realloc(b->p, b->cap);
    if (!b->p) refuse("out of memory");
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void putf(struct buf *b, const char *fmt, ...) {
  char tmp[256];
  va_list va;
  va_start(va, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, va);
  va_end(va);
  put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
static void put_json_string(struct buf *b, const char *s) {
  put(b, "\"", 1);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      put(b, "\\", 1);
      put(b, s, 1);
    } else if (c < 0x20) {
      putf(b, "\\u%04x", c);
    } else {
      put(b, s, 1);
    }
  }
  put(b, "\"", 1);
}

/* Definitions, as JSON arrays of numbers (strings by reference). */
static struct buf defs_strings, defs_nodes, defs_groups_loc, defs_locs, defs_regions, defs_groups, defs_comms,
    defs_attrs, defs_ccs, defs_scls, defs_igs, defs_lprops;
static char clock_json[256];
static OTF2_LocationRef *locations;
static size_t nlocations, caplocations;
static uint64_t nregions_max; /* regions are refs 0..max-1; a larger ref in an event is undefined */
static unsigned char *region_defined;
static size_t region_defined_cap;
static uint64_t global_offset;

static void sep(struct buf *b) {
  if (b->n) put(b, ",", 1);
}

static OTF2_CallbackCode d_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt) {
  global_offset = off;
  snprintf(clock_json, sizeof clock_json, "{\"resolution\":%llu,\"offset\":%llu,\"length\":%llu}",
           (unsigned long long)res, (unsigned long long)off, (unsigned long long)len);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *s) {
  sep(&defs_strings);
  putf(&defs_strings, "[%u,", self);
  put_json_string(&defs_strings, s);
  put(&defs_strings, "]", 1);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                OTF2_SystemTreeNodeRef parent) {
  sep(&defs_nodes);
  putf(&defs_nodes, "[%u,%u,%u,%d]", self, name, cls, parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? -1 : (int)parent);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_lgroup(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name, OTF2_LocationGroupType t,
                                  OTF2_SystemTreeNodeRef node, OTF2_LocationGroupRef creator) {
  sep(&defs_groups_loc);
  putf(&defs_groups_loc, "[%u,%u,%u,%d,%d]", self, name, t, node == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? -1 : (int)node,
       creator == OTF2_UNDEFINED_LOCATION_GROUP ? -1 : (int)creator);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
                                    uint64_t events, OTF2_LocationGroupRef group) {
  sep(&defs_locs);
  putf(&defs_locs, "[%llu,%u,%u,%llu,%u]", (unsigned long long)self, name, t, (unsigned long long)events, group);
  if (nlocations == caplocations) {
    caplocations = caplocations * 2 + 16;
    locations = realloc(locations, caplocations * sizeof *locations);
    if (!locations) refuse("out of memory");
  }
  locations[nlocations++] = self;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                                  OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end) {
  sep(&defs_regions);
  putf(&defs_regions, "[%u,%u,%u,%u,%u,%u,%d,%u]", self, name, canon, desc, role, paradigm,
       file == OTF2_UNDEFINED_STRING ? -1 : (int)file, begin);
  if (self >= region_defined_cap) {
    size_t cap = (size_t)self * 2 + 64;
    region_defined = realloc(region_defined, cap);
    if (!region_defined) refuse("out of memory");
    memset(region_defined + region_defined_cap, 0, cap - region_defined_cap);
    region_defined_cap = cap;
  }
  region_defined[self] = 1;
  if (self + 1 > nregions_max) nregions_max = self + 1;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType t, OTF2_Paradigm p,
                                 OTF2_GroupFlag f, uint32_t n, const uint64_t *members) {
  sep(&defs_groups);
  putf(&defs_groups, "[%u,%u,%u,%u,[", self, name, t, p);
  for (uint32_t i = 0; i < n; i++) putf(&defs_groups, i ? ",%llu" : "%llu", (unsigned long long)members[i]);
  put(&defs_groups, "]]", 2);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                OTF2_CommRef parent, OTF2_CommFlag flags) {
  sep(&defs_comms);
  putf(&defs_comms, "[%u,%u,%u,%d]", self, name, group, parent == OTF2_UNDEFINED_COMM ? -1 : (int)parent);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef desc,
                                OTF2_Type t) {
  sep(&defs_attrs);
  putf(&defs_attrs, "[%u,%u,%u]", self, name, t);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_scl(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file, uint32_t line) {
  sep(&defs_scls);
  putf(&defs_scls, "[%u,%u,%u]", self, file, line);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_cc(void *u, OTF2_CallingContextRef self, OTF2_RegionRef region,
                              OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent) {
  sep(&defs_ccs);
  putf(&defs_ccs, "[%u,%u,%d,%d]", self, region, scl == OTF2_UNDEFINED_SOURCE_CODE_LOCATION ? -1 : (int)scl,
       parent == OTF2_UNDEFINED_CALLING_CONTEXT ? -1 : (int)parent);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_ig(void *u, OTF2_InterruptGeneratorRef self, OTF2_StringRef name,
                              OTF2_InterruptGeneratorMode mode, OTF2_Base base, int64_t exponent, uint64_t period) {
  sep(&defs_igs);
  putf(&defs_igs, "[%u,%u,%u,%u,%lld,%llu]", self, name, mode, base, (long long)exponent, (unsigned long long)period);
  return OTF2_CALLBACK_SUCCESS;
}
static void put_value(struct buf *b, OTF2_Type t, OTF2_AttributeValue v) {
  switch (t) {
    case OTF2_TYPE_INT8: putf(b, "%d", v.int8); break;
    case OTF2_TYPE_INT16: putf(b, "%d", v.int16); break;
    case OTF2_TYPE_INT32: putf(b, "%d", v.int32); break;
    case OTF2_TYPE_INT64: putf(b, "%lld", (long long)v.int64); break;
    case OTF2_TYPE_UINT8: putf(b, "%u", v.uint8); break;
    case OTF2_TYPE_UINT16: putf(b, "%u", v.uint16); break;
    case OTF2_TYPE_UINT32: putf(b, "%u", v.uint32); break;
    case OTF2_TYPE_UINT64: putf(b, "%llu", (unsigned long long)v.uint64); break;
    case OTF2_TYPE_FLOAT: putf(b, "%.9g", v.float32); break;
    case OTF2_TYPE_DOUBLE: putf(b, "%.17g", v.float64); break;
    /* A string value is its reference, as an object so the reader tells it from a number. */
    case OTF2_TYPE_STRING: putf(b, "{\"s\":%u}", v.stringRef); break;
    default: putf(b, "{\"ref\":%u,\"type\":%u}", v.uint32, t); break;
  }
}
static OTF2_CallbackCode d_lprop(void *u, OTF2_LocationRef loc, OTF2_StringRef name, OTF2_Type t,
                                 OTF2_AttributeValue v) {
  sep(&defs_lprops);
  putf(&defs_lprops, "[%llu,%u,", (unsigned long long)loc, name);
  put_value(&defs_lprops, t, v);
  put(&defs_lprops, "]", 1);
  return OTF2_CALLBACK_SUCCESS;
}

/* One location's events, as columns. */
static struct {
  double *time, *aux;
  uint8_t *kind;
  int32_t *a, *b;
  size_t n, cap, naux, capaux;
  OTF2_RegionRef *stack;
  size_t depth, capstack;
  uint64_t other, last;
  struct buf attrs;
} L;

static void grow(void **p, size_t size) {
  *p = realloc(*p, size);
  if (!*p) refuse("out of memory");
}

static size_t event(OTF2_TimeStamp t, uint64_t pos, int kind, int32_t a, int32_t b, OTF2_AttributeList *al) {
  if (t < L.last) refuse("event %llu: timestamp %llu goes back (the one before: %llu)", (unsigned long long)pos,
                         (unsigned long long)t, (unsigned long long)L.last);
  L.last = t;
  if (L.n == L.cap) {
    L.cap = L.cap * 2 + 4096;
    grow((void **)&L.time, L.cap * sizeof *L.time);
    grow((void **)&L.kind, L.cap);
    grow((void **)&L.a, L.cap * sizeof *L.a);
    grow((void **)&L.b, L.cap * sizeof *L.b);
  }
  L.time[L.n] = (double)(t - global_offset);
  L.kind[L.n] = (uint8_t)kind;
  L.a[L.n] = a;
  L.b[L.n] = b;
  uint32_t na = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
  for (uint32_t i = 0; i < na; i++) {
    OTF2_AttributeRef ref;
    OTF2_Type type;
    OTF2_AttributeValue v;
    if (OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &type, &v) != OTF2_SUCCESS) continue;
    sep(&L.attrs);
    putf(&L.attrs, "[%zu,%u,", L.n, ref);
    put_value(&L.attrs, type, v);
    put(&L.attrs, "]", 1);
  }
  return L.n++;
}
static int32_t aux(double x, double y, double z, double w) {
  if (L.naux == L.capaux) {
    L.capaux = L.capaux * 2 + 256;
    grow((void **)&L.aux, L.capaux * 4 * sizeof *L.aux);
  }
  double *row = L.aux + 4 * L.naux;
  row[0] = x, row[1] = y, row[2] = z, row[3] = w;
  return (int32_t)L.naux++;
}
#define EVT_ARGS OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *al

static OTF2_CallbackCode e_enter(EVT_ARGS, OTF2_RegionRef r) {
  if (r >= region_defined_cap || !region_defined[r]) refuse("event %llu: Enter of undefined region %u", (unsigned long long)pos, r);
  if (L.depth == L.capstack) {
    L.capstack = L.capstack * 2 + 64;
    grow((void **)&L.stack, L.capstack * sizeof *L.stack);
  }
  L.stack[L.depth++] = r;
  event(t, pos, EV_ENTER, (int32_t)r, 0, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_leave(EVT_ARGS, OTF2_RegionRef r) {
  if (L.depth == 0) refuse("event %llu: Leave of region %u with no region entered", (unsigned long long)pos, r);
  if (L.stack[L.depth - 1] != r)
    refuse("event %llu: Leave of region %u inside region %u (not the innermost one entered)", (unsigned long long)pos, r,
           L.stack[L.depth - 1]);
  L.depth--;
  event(t, pos, EV_LEAVE, (int32_t)r, 0, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_send(EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len) {
  event(t, pos, EV_SEND, (int32_t)peer, aux(c, tag, (double)len, -1), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_recv(EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len) {
  event(t, pos, EV_RECV, (int32_t)peer, aux(c, tag, (double)len, -1), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_isend(EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) {
  event(t, pos, EV_ISEND, (int32_t)peer, aux(c, tag, (double)len, (double)req), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_isend_complete(EVT_ARGS, uint64_t req) {
  event(t, pos, EV_ISEND_COMPLETE, -1, aux(-1, -1, -1, (double)req), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_irecv_request(EVT_ARGS, uint64_t req) {
  event(t, pos, EV_IRECV_REQUEST, -1, aux(-1, -1, -1, (double)req), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_irecv(EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) {
  event(t, pos, EV_IRECV, (int32_t)peer, aux(c, tag, (double)len, (double)req), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_coll_begin(EVT_ARGS) {
  event(t, pos, EV_COLL_BEGIN, 0, 0, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_coll_end(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent,
                                    uint64_t received) {
  event(t, pos, EV_COLL_END, op, aux(c, root == OTF2_UNDEFINED_UINT32 ? -1.0 : (double)root, (double)sent, (double)received), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_fork(EVT_ARGS, OTF2_Paradigm p, uint32_t n) {
  event(t, pos, EV_FORK, (int32_t)n, p, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_join(EVT_ARGS, OTF2_Paradigm p) {
  event(t, pos, EV_JOIN, 0, p, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_team_begin(EVT_ARGS, OTF2_CommRef team) {
  event(t, pos, EV_TEAM_BEGIN, (int32_t)team, 0, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_team_end(EVT_ARGS, OTF2_CommRef team) {
  event(t, pos, EV_TEAM_END, (int32_t)team, 0, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_task_create(EVT_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen) {
  event(t, pos, EV_TASK_CREATE, (int32_t)creator, aux(team, gen, -1, -1), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_task_switch(EVT_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen) {
  event(t, pos, EV_TASK_SWITCH, (int32_t)creator, aux(team, gen, -1, -1), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_task_complete(EVT_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen) {
  event(t, pos, EV_TASK_COMPLETE, (int32_t)creator, aux(team, gen, -1, -1), al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_sample(EVT_ARGS, OTF2_CallingContextRef cc, uint32_t unwind, OTF2_InterruptGeneratorRef ig) {
  event(t, pos, EV_SAMPLE, (int32_t)cc, ig == OTF2_UNDEFINED_INTERRUPT_GENERATOR ? -1 : (int32_t)ig, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_lock_acquire(EVT_ARGS, OTF2_Paradigm p, uint32_t lock, uint32_t order) {
  event(t, pos, EV_LOCK_ACQUIRE, (int32_t)lock, (int32_t)order, al);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_lock_release(EVT_ARGS, OTF2_Paradigm p, uint32_t lock, uint32_t order) {
  event(t, pos, EV_LOCK_RELEASE, (int32_t)lock, (int32_t)order, al);
  return OTF2_CALLBACK_SUCCESS;
}
/* Events hyprof does not draw or analyse (metrics, I/O, RMA, ...): counted, said by the reader. */
static OTF2_CallbackCode e_unknown(EVT_ARGS) {
  L.other++;
  return OTF2_CALLBACK_SUCCESS;
}

static void out(const void *p, size_t n) {
  if (n && fwrite(p, 1, n, stdout) != n) {
    place[0] = 0;
    lib_message[0] = 0;
    refuse("cannot write the index to standard output");
  }
}
static void out_u32(uint32_t v) { out(&v, 4); }
static size_t written;
static void out_counted(const void *p, size_t n) {
  out(p, n);
  written += n;
}
static void pad8(void) {
  static const char zeros[8];
  out_counted(zeros, (8 - written % 8) % 8);
}

static void put_array(struct buf *json, const char *key, struct buf *b) {
  putf(json, ",\"%s\":[", key);
  if (b->n) put(json, b->p, b->n);
  put(json, "]", 1);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: hyprof-otf2-read ANCHOR.otf2 > index\n");
    return 2;
  }
  anchor = argv[1];
  OTF2_Error_RegisterCallback(on_error, NULL);
  OTF2_Reader *r = OTF2_Reader_Open(anchor);
  if (!r) refuse("not an OTF2 archive the OTF2 library can open");
  check(OTF2_Reader_SetSerialCollectiveCallbacks(r), "setting up the reader");

  OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
  if (!gdr) refuse("no global definitions (the .def file beside it)");
  OTF2_GlobalDefReaderCallbacks *gc = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gc, d_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(gc, d_string);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(gc, d_node);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gc, d_lgroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gc, d_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gc, d_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gc, d_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(gc, d_comm);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gc, d_attr);
  OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(gc, d_scl);
  OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(gc, d_cc);
  OTF2_GlobalDefReaderCallbacks_SetInterruptGeneratorCallback(gc, d_ig);
  OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(gc, d_lprop);
  check(OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, gc, NULL), "registering the definition callbacks");
  uint64_t ndefs;
  snprintf(place, sizeof place, "%.4000s (global definitions)", anchor);
  check(OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &ndefs), "reading the global definitions");
  OTF2_GlobalDefReaderCallbacks_Delete(gc);
  if (!clock_json[0]) refuse("no ClockProperties definition");

  struct buf json = {0};
  putf(&json, "{\"clock\":%s", clock_json);
  put_array(&json, "strings", &defs_strings);
  put_array(&json, "nodes", &defs_nodes);
  put_array(&json, "locationGroups", &defs_groups_loc);
  put_array(&json, "locations", &defs_locs);
  put_array(&json, "regions", &defs_regions);
  put_array(&json, "groups", &defs_groups);
  put_array(&json, "comms", &defs_comms);
  put_array(&json, "attributes", &defs_attrs);
  put_array(&json, "sourceCodeLocations", &defs_scls);
  put_array(&json, "callingContexts", &defs_ccs);
  put_array(&json, "interruptGenerators", &defs_igs);
  put_array(&json, "locationProperties", &defs_lprops);
  put(&json, "}", 1);
  out_counted("HPTRIDX1", 8);
  out_u32((uint32_t)json.n);
  written += 4;
  out_counted(json.p, json.n);
  pad8();

  for (size_t i = 0; i < nlocations; i++) check(OTF2_Reader_SelectLocation(r, locations[i]), "selecting a location");
  /* The archive's directory: the anchor's path without ".otf2" (OTF2's layout), for naming event files. */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", anchor);
  size_t dl = strlen(dir);
  if (dl > 5 && strcmp(dir + dl - 5, ".otf2") == 0) dir[dl - 5] = 0;
  int has_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
  lib_message[0] = 0;
  check(OTF2_Reader_OpenEvtFiles(r), "opening the event files");
  OTF2_EvtReaderCallbacks *ec = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetUnknownCallback(ec, e_unknown);
  OTF2_EvtReaderCallbacks_SetEnterCallback(ec, e_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(ec, e_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(ec, e_send);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ec, e_recv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ec, e_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ec, e_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ec, e_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ec, e_irecv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ec, e_coll_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ec, e_coll_end);
  OTF2_EvtReaderCallbacks_SetThreadForkCallback(ec, e_fork);
  OTF2_EvtReaderCallbacks_SetThreadJoinCallback(ec, e_join);
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(ec, e_team_begin);
  OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(ec, e_team_end);
  OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(ec, e_task_create);
  OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(ec, e_task_switch);
  OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(ec, e_task_complete);
  OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(ec, e_sample);
  OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(ec, e_lock_acquire);
  OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(ec, e_lock_release);

  for (size_t i = 0; i < nlocations; i++) {
    OTF2_LocationRef loc = locations[i];
    snprintf(place, sizeof place, "%.4000s/%llu.evt", dir, (unsigned long long)loc);
    if (has_defs) {
      /* Local definitions carry the location's id mappings, which the reader applies to its events. */
      OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, loc);
      if (dr) {
        uint64_t n;
        check(OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n), "reading the local definitions");
        OTF2_Reader_CloseDefReader(r, dr);
      }
    }
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, loc);
    if (!er) refuse("cannot open the location's events");
    check(OTF2_Reader_RegisterEvtCallbacks(r, er, ec, NULL), "registering the event callbacks");
    L.n = L.naux = L.depth = 0;
    L.other = L.last = 0;
    L.attrs.n = 0;
    uint64_t n;
    check(OTF2_Reader_ReadAllLocalEvents(r, er, &n), "reading the events");
    OTF2_Reader_CloseEvtReader(r, er);

    struct buf tail = {0};
    put(&tail, "{\"attrs\":[", 10);
    if (L.attrs.n) put(&tail, L.attrs.p, L.attrs.n);
    putf(&tail, "],\"open\":%zu,\"other\":%llu}", L.depth, (unsigned long long)L.other);
    out_u32((uint32_t)i);
    out_u32((uint32_t)L.n);
    out_u32((uint32_t)L.naux);
    out_u32((uint32_t)tail.n);
    written += 16;
    pad8();
    out_counted(L.time, L.n * sizeof *L.time);
    out_counted(L.kind, L.n);
    pad8();
    out_counted(L.a, L.n * sizeof *L.a);
    out_counted(L.b, L.n * sizeof *L.b);
    pad8();
    out_counted(L.aux, L.naux * 4 * sizeof *L.aux);
    out_counted(tail.p, tail.n);
    pad8();
    free(tail.p);
  }
  place[0] = 0;
  OTF2_EvtReaderCallbacks_Delete(ec);
  if (has_defs) OTF2_Reader_CloseDefFiles(r);
  OTF2_Reader_CloseEvtFiles(r);
  OTF2_Reader_Close(r);
  out_counted("HPTREND", 8);
  if (fflush(stdout) != 0) refuse("cannot write the index to standard output");
  return 0;
}
