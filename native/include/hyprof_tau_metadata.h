/* TAU's structured metadata macros (TAU_METADATA_STRING / _INTEGER / _DOUBLE / _NULL / _TRUE /
 * _FALSE / _OBJECT / _ARRAY, TAU_STRUCTURED_METADATA), included by TAU.h.
 *
 * A value is built in the program as TAU builds it (objects and arrays hold the values put into
 * them, by reference) and written as one metadata entry when TAU_STRUCTURED_METADATA names it:
 * scalars as TAU writes them (an integer "%d", a double "%f", NULL, TRUE, FALSE, a string as it
 * is), an object or an array as JSON text (TAU nests XML elements instead, which TAU's profile
 * readers flatten; a JSON value keeps the structure in one attribute). Values live as long as the
 * program, as in TAU. Not for signal handlers (they allocate). docs/tau-api.md. */
#ifndef HYPROF_TAU_METADATA_H
#define HYPROF_TAU_METADATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyprof.h>

enum { HYPROF_TAU_META_STRING, HYPROF_TAU_META_INTEGER, HYPROF_TAU_META_DOUBLE, HYPROF_TAU_META_NULL,
       HYPROF_TAU_META_TRUE, HYPROF_TAU_META_FALSE, HYPROF_TAU_META_OBJECT, HYPROF_TAU_META_ARRAY };

typedef struct hyprof_tau_meta {
  int kind;
  char *text;                     /* a scalar as TAU writes it */
  int count, capacity;            /* an object's members, an array's length */
  char **keys;                    /* an object's names */
  struct hyprof_tau_meta **items; /* an object's or an array's values (NULL: not put yet) */
} hyprof_tau_meta_t;

static inline void *hyprof_tau_meta_alloc_(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) {
    fputs("hyprof: out of memory building TAU structured metadata\n", stderr);
    abort();
  }
  return p;
}

static inline char *hyprof_tau_meta_strdup_(const char *s) {
  size_t n = strlen(s ? s : "") + 1;
  char *d = (char *)hyprof_tau_meta_alloc_(n);
  memcpy(d, s ? s : "", n);
  return d;
}

static inline hyprof_tau_meta_t *hyprof_tau_meta_new_(int kind, const char *text) {
  hyprof_tau_meta_t *v = (hyprof_tau_meta_t *)hyprof_tau_meta_alloc_(sizeof *v);
  v->kind = kind;
  v->text = hyprof_tau_meta_strdup_(text);
  return v;
}

static inline hyprof_tau_meta_t *hyprof_tau_meta_integer_(int value) {
  char buf[16];
  snprintf(buf, sizeof buf, "%d", value);
  return hyprof_tau_meta_new_(HYPROF_TAU_META_INTEGER, buf);
}

static inline hyprof_tau_meta_t *hyprof_tau_meta_double_(double value) {
  char buf[352]; /* "%f" of DBL_MAX is 316 characters */
  snprintf(buf, sizeof buf, "%f", value);
  return hyprof_tau_meta_new_(HYPROF_TAU_META_DOUBLE, buf);
}

static inline void hyprof_tau_meta_grow_(hyprof_tau_meta_t *v, int need) {
  if (need <= v->capacity) return;
  int cap = v->capacity ? v->capacity : 4;
  while (cap < need) cap *= 2;
  hyprof_tau_meta_t **items = (hyprof_tau_meta_t **)hyprof_tau_meta_alloc_(sizeof *items * (size_t)cap);
  char **keys = (char **)hyprof_tau_meta_alloc_(sizeof *keys * (size_t)cap);
  if (v->count) {
    memcpy(items, v->items, sizeof *items * (size_t)v->count);
    memcpy(keys, v->keys, sizeof *keys * (size_t)v->count);
  }
  free(v->items);
  free(v->keys);
  v->items = items;
  v->keys = keys;
  v->capacity = cap;
}

static inline void hyprof_tau_meta_object_put_(hyprof_tau_meta_t *object, const char *name, hyprof_tau_meta_t *value) {
  if (!object || object->kind != HYPROF_TAU_META_OBJECT) return;
  hyprof_tau_meta_grow_(object, object->count + 1);
  object->keys[object->count] = hyprof_tau_meta_strdup_(name);
  object->items[object->count++] = value;
}

static inline hyprof_tau_meta_t *hyprof_tau_meta_object_(const char *name, hyprof_tau_meta_t *value) {
  hyprof_tau_meta_t *o = hyprof_tau_meta_new_(HYPROF_TAU_META_OBJECT, "");
  hyprof_tau_meta_object_put_(o, name, value);
  return o;
}

static inline hyprof_tau_meta_t *hyprof_tau_meta_array_(int length) {
  hyprof_tau_meta_t *a = hyprof_tau_meta_new_(HYPROF_TAU_META_ARRAY, "");
  hyprof_tau_meta_grow_(a, length > 0 ? length : 0);
  a->count = length > 0 ? length : 0;
  return a;
}

/* An index outside the array's length is a program error TAU does not check; hyprof says so. */
static inline void hyprof_tau_meta_array_put_(hyprof_tau_meta_t *array, int index, hyprof_tau_meta_t *value) {
  if (!array || array->kind != HYPROF_TAU_META_ARRAY) return;
  if (index < 0 || index >= array->count) {
    fprintf(stderr, "hyprof: TAU_METADATA_ARRAY_PUT: index %d outside the array's length %d; ignored\n", index, array->count);
    return;
  }
  array->items[index] = value;
}

/* JSON text of a value into a growing buffer. */
typedef struct { char *s; size_t n, cap; } hyprof_tau_meta_buf_t;

static inline void hyprof_tau_meta_put_(hyprof_tau_meta_buf_t *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *s2 = (char *)hyprof_tau_meta_alloc_(cap);
    if (b->n) memcpy(s2, b->s, b->n);
    free(b->s);
    b->s = s2;
    b->cap = cap;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

static inline void hyprof_tau_meta_json_string_(hyprof_tau_meta_buf_t *b, const char *s) {
  hyprof_tau_meta_put_(b, "\"", 1);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c;
      hyprof_tau_meta_put_(b, esc, 2);
    } else if (c < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", c);
      hyprof_tau_meta_put_(b, esc, 6);
    } else {
      hyprof_tau_meta_put_(b, (const char *)&c, 1);
    }
  }
  hyprof_tau_meta_put_(b, "\"", 1);
}

/* depth: an object put into itself (directly or not) would recurse for ever; cut at 64 levels. */
static inline void hyprof_tau_meta_json_(hyprof_tau_meta_buf_t *b, const hyprof_tau_meta_t *v, int depth) {
  if (!v || depth > 64) {
    hyprof_tau_meta_put_(b, "null", 4);
    return;
  }
  switch (v->kind) {
    case HYPROF_TAU_META_STRING: hyprof_tau_meta_json_string_(b, v->text); break;
    case HYPROF_TAU_META_NULL: hyprof_tau_meta_put_(b, "null", 4); break;
    case HYPROF_TAU_META_TRUE: hyprof_tau_meta_put_(b, "true", 4); break;
    case HYPROF_TAU_META_FALSE: hyprof_tau_meta_put_(b, "false", 5); break;
    case HYPROF_TAU_META_OBJECT:
    case HYPROF_TAU_META_ARRAY: {
      int object = v->kind == HYPROF_TAU_META_OBJECT;
      hyprof_tau_meta_put_(b, object ? "{" : "[", 1);
      for (int i = 0; i < v->count; i++) {
        if (i) hyprof_tau_meta_put_(b, ",", 1);
        if (object) {
          hyprof_tau_meta_json_string_(b, v->keys[i]);
          hyprof_tau_meta_put_(b, ":", 1);
        }
        hyprof_tau_meta_json_(b, v->items[i], depth + 1);
      }
      hyprof_tau_meta_put_(b, object ? "}" : "]", 1);
      break;
    }
    default: hyprof_tau_meta_put_(b, v->text, strlen(v->text)); break; /* numbers */
  }
}

static inline void hyprof_tau_structured_metadata_(const char *name, const hyprof_tau_meta_t *v) {
  if (!v) return;
  if (v->kind != HYPROF_TAU_META_OBJECT && v->kind != HYPROF_TAU_META_ARRAY) {
    hyprof_metadata(name, v->text);
    return;
  }
  hyprof_tau_meta_buf_t b = {0, 0, 0};
  hyprof_tau_meta_json_(&b, v, 0);
  hyprof_metadata(name, b.s);
  free(b.s);
}

#define TAU_METADATA_STRING(var, str) hyprof_tau_meta_t *var = hyprof_tau_meta_new_(HYPROF_TAU_META_STRING, (str))
#define TAU_METADATA_INTEGER(var, value) hyprof_tau_meta_t *var = hyprof_tau_meta_integer_(value)
#define TAU_METADATA_DOUBLE(var, value) hyprof_tau_meta_t *var = hyprof_tau_meta_double_(value)
#define TAU_METADATA_NULL(var) hyprof_tau_meta_t *var = hyprof_tau_meta_new_(HYPROF_TAU_META_NULL, "NULL")
#define TAU_METADATA_TRUE(var) hyprof_tau_meta_t *var = hyprof_tau_meta_new_(HYPROF_TAU_META_TRUE, "TRUE")
#define TAU_METADATA_FALSE(var) hyprof_tau_meta_t *var = hyprof_tau_meta_new_(HYPROF_TAU_META_FALSE, "FALSE")
#define TAU_METADATA_OBJECT(var, name, value) hyprof_tau_meta_t *var = hyprof_tau_meta_object_((name), (value))
#define TAU_METADATA_OBJECT_PUT(object, name, value) hyprof_tau_meta_object_put_((object), (name), (value))
#define TAU_METADATA_ARRAY(var, length) hyprof_tau_meta_t *var = hyprof_tau_meta_array_(length)
#define TAU_METADATA_ARRAY_PUT(array, index, value) hyprof_tau_meta_array_put_((array), (index), (value))
#define TAU_STRUCTURED_METADATA(name, value) hyprof_tau_structured_metadata_((name), (value))

#endif
