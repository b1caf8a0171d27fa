/* Event registry. Events are stored in chunks allocated once and never moved or freed, so the
 * probes, the dump (even from a signal handler) and the sampler read them without a lock. Their
 * names live as long, packed in blocks of text (no allocation of its own per name: a program with a
 * million dynamic phases has a million names), and equal groups share one copy. */
#include "events.h"
#include "fold.h"

#include <stddef.h>

#include "hyprof.h"

/* hyprof.h's call-site macros read an event's throttled byte through their own view of its start. */
_Static_assert(offsetof(hp_event, throttled) == offsetof(struct hyprof_event_state_, throttled_),
               "hyprof.h's hyprof_event_state_ must match hp_event");

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BITS 10
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 4096 /* 4 million events */
#define HASH_SIZE 65536

static hp_event *chunks[MAX_CHUNKS];
static uint32_t count;          /* published with release order after the event is complete */
static hp_event *buckets[HASH_SIZE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t root_id = UINT32_MAX;

/* Text of names and groups, under the lock: blocks of TEXT_BLOCK bytes, each starting with the
 * previous block's address (all reachable from `text`: a leak checker sees them kept, not lost); a
 * longer string gets a block of its own. */
#define TEXT_BLOCK 65536
static char *text;
static size_t text_used = TEXT_BLOCK;
/* The distinct groups, for sharing: few in a program (TAU_USER, TAU_PHASE, ...). */
#define GROUP_BUCKETS 64
static const char *groups[GROUP_BUCKETS][8];

static char *text_copy(const char *s) {
  size_t n = strlen(s) + 1;
  size_t head = sizeof(char *);
  if (n > TEXT_BLOCK - head) {
    char *own = malloc(head + n);
    if (!own) return NULL;
    if (text) {   /* linked behind the current block, which stays current */
      memcpy(own, text, head);
      memcpy(text, &own, head);
    } else {
      memset(own, 0, head);
      text = own;
      text_used = TEXT_BLOCK;
    }
    return memcpy(own + head, s, n);
  }
  if (text_used + n > TEXT_BLOCK) {
    char *block = malloc(TEXT_BLOCK);
    if (!block) return NULL;
    memcpy(block, &text, head);
    text = block;
    text_used = head;
  }
  char *at = memcpy(text + text_used, s, n);
  text_used += n;
  return at;
}

/* One copy per distinct group; a group beyond the kept ones gets its own copy. */
static const char *group_copy(const char *g) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = g; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  const char **b = groups[h & (GROUP_BUCKETS - 1)];
  size_t i = 0;
  for (; i < sizeof groups[0] / sizeof groups[0][0] && b[i]; i++)
    if (strcmp(b[i], g) == 0) return b[i];
  char *copy = text_copy(g);
  if (copy && i < sizeof groups[0] / sizeof groups[0][0]) b[i] = copy;
  return copy;
}

static uint64_t hash_key(const char *name, const char *group, unsigned kind) {
  uint64_t h = 1469598103934665603ull ^ kind;
  for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;
  for (const char *p = group; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

hp_event *hp_event_get(uint32_t id) {
  if (id >= __atomic_load_n(&count, __ATOMIC_ACQUIRE)) return NULL;
  return &chunks[id >> CHUNK_BITS][id & (CHUNK_SIZE - 1)];
}

uint32_t hp_event_count(void) { return __atomic_load_n(&count, __ATOMIC_ACQUIRE); }

hp_event *hp_event_intern(const char *name, const char *group, enum hp_event_kind kind, uint32_t base) {
  if (!group) group = "TAU_USER";
  uint64_t h = hash_key(name, group, kind);
  size_t b = h & (HASH_SIZE - 1);
  pthread_mutex_lock(&lock);
  for (hp_event *e = buckets[b]; e; e = e->hash_next) {
    if (e->kind == kind && strcmp(e->name, name) == 0 && strcmp(e->group, group) == 0) {
      pthread_mutex_unlock(&lock);
      return e;
    }
  }
  hp_event *e = NULL;
  uint32_t id = count;
  uint32_t c = id >> CHUNK_BITS;
  if (c < MAX_CHUNKS && !chunks[c]) chunks[c] = calloc(CHUNK_SIZE, sizeof(hp_event));
  const char *n = c < MAX_CHUNKS && chunks[c] ? text_copy(name) : NULL, *g = n ? group_copy(group) : NULL;
  if (n && g) {
    e = &chunks[c][id & (CHUNK_SIZE - 1)];
    e->id = id;
    e->base = kind == HP_KIND_PARAM ? base : id;
    e->kind = (uint8_t)kind;
    /* functions are matched by their symbol once registered (functions.c): their name is an address */
    if (hp_fold_series && kind != HP_KIND_PARAM && kind != HP_KIND_ROOT && kind != HP_KIND_FUNCTION) e->fold = hp_fold_match(n);
    e->name = n;
    e->group = g;
    e->hash_next = buckets[b];
    buckets[b] = e;
    if (kind == HP_KIND_ROOT) root_id = id;
    __atomic_store_n(&count, id + 1, __ATOMIC_RELEASE);
  }   /* else the copied text stays unused: only when memory cannot be had */
  pthread_mutex_unlock(&lock);
  return e;
}

uint32_t hp_event_root(void) { return root_id; }

void hp_events_lock(void) { pthread_mutex_lock(&lock); }
void hp_events_unlock(void) { pthread_mutex_unlock(&lock); }
void hp_events_reset_lock_in_child(void) { pthread_mutex_init(&lock, NULL); }

hp_event *hp_param_intern(const hp_event *base, const hp_event *current, const char *name, long long value) {
  char spec[1024], group[300], key[300];
  size_t blen = strlen(base->name);
  /* TAU_PARAM | <the timer's group>, without TAU_PHASE (a specialised phase is no phase: TAU's form) */
  const char *g = base->group, *ph = strstr(g, "|TAU_PHASE");
  if (ph && ph[10] == 0)
    snprintf(group, sizeof group, "TAU_PARAM | %.*s", (int)(ph - g), g);
  else
    snprintf(group, sizeof group, "TAU_PARAM | %s", g);
  if (!current || current == base) {
    snprintf(spec, sizeof spec, "%s  [ <%s> = <%lld> ]  ", base->name, name, value);
  } else {
    /* Only the specialisations after the timer's own name are searched: the name may hold anything. */
    snprintf(key, sizeof key, "[ <%s> = <", name);
    const char *at = strncmp(current->name, base->name, blen) == 0 ? strstr(current->name + blen, key) : NULL;
    const char *end = at ? strstr(at + strlen(key), "> ]") : NULL;
    if (end)
      snprintf(spec, sizeof spec, "%.*s%lld%s", (int)(at + strlen(key) - current->name), current->name, value, end);
    else
      snprintf(spec, sizeof spec, "%s[ <%s> = <%lld> ]  ", current->name, name, value);
  }
  return hp_event_intern(spec, group, HP_KIND_PARAM, base->id);
}
