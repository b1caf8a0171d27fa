/* The selective instrumentation file: parsing, and the decision for one function name. */
#include "select.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "meta.h"

#define MAX_FILE_BYTES (16u << 20)

enum { LIST_EXCLUDE, LIST_INCLUDE, LIST_FILE_EXCLUDE, LIST_FILE_INCLUDE, N_LISTS };
static const char *const list_names[N_LISTS] = {"EXCLUDE_LIST", "INCLUDE_LIST", "FILE_EXCLUDE_LIST", "FILE_INCLUDE_LIST"};

typedef struct list {
  char **items;
  size_t n, cap;
} list;

static list lists[N_LISTS];

/* TAU's source-instrumentation sections (BEGIN_INSTRUMENT_SECTION: loops, I/O, memory, ...), which
 * compiler instrumentation cannot apply: what they ask for, said once when the file is loaded
 * ("loops, io (lines 4-7)"). */
static char unapplied[240];
static int unapplied_full;

/* Appends while there is room for the text and a final " ...". */
static void unapplied_add(const char *text) {
  size_t n = strlen(unapplied), len = strlen(text);
  if (unapplied_full) return;
  if (n + len + 5 > sizeof unapplied) {
    strcat(unapplied, " ...");
    unapplied_full = 1;
    return;
  }
  memcpy(unapplied + n, text, len + 1);
}

static int list_add(list *l, const char *s, size_t len) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    char **items = realloc(l->items, cap * sizeof *items);
    if (!items) return 0;
    l->items = items;
    l->cap = cap;
  }
  char *c = malloc(len + 1);
  if (!c) return 0;
  memcpy(c, s, len);
  c[len] = 0;
  l->items[l->n++] = c;
  return 1;
}

static void lists_clear(void) {
  for (int i = 0; i < N_LISTS; i++) {
    for (size_t j = 0; j < lists[i].n; j++) free(lists[i].items[j]);
    free(lists[i].items);
    lists[i] = (list){0};
  }
}

int hp_select_match(const char *p, const char *s) { return hp_glob_match(p, s, '#'); }

int hp_glob_match(const char *p, const char *s, char wild) {
  /* Iterative glob with one backtrack point: linear in practice, never recursive. */
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (*p == wild || *p == '*') {
      star = p++;
      resume = s;
    } else if (*p == *s) {
      p++;
      s++;
    } else if (star) {
      p = star + 1;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (*p == wild || *p == '*') p++;
  return *p == 0;
}

/* One line without its end and surrounding blanks. */
static void trim(const char **b, const char **e) {
  while (*b < *e && isspace((unsigned char)**b)) (*b)++;
  while (*e > *b && isspace((unsigned char)(*e)[-1])) (*e)--;
}

static int keyword(const char *b, const char *e, const char *word) {
  size_t n = strlen(word);
  return (size_t)(e - b) == n && memcmp(b, word, n) == 0;
}

int hp_select_parse(const char *text, char *err, size_t errcap) {
  lists_clear();
  unapplied[0] = 0;
  unapplied_full = 0;
  int open = -1, in_section = 0, line = 0, open_line = 0, commands = 0;
  const char *p = text;
  while (*p) {
    const char *b = p, *e = strchr(p, '\n');
    if (!e) e = p + strlen(p);
    p = *e ? e + 1 : e;
    line++;
    trim(&b, &e);
    if (b == e) continue;
    if (in_section) { /* TAU's source-instrumentation commands: not for compiler instrumentation */
      char piece[48];
      if (keyword(b, e, "END_INSTRUMENT_SECTION")) {
        in_section = 0;
        snprintf(piece, sizeof piece, "%s(lines %d-%d)", commands ? " " : "", open_line, line);
        unapplied_add(piece);
      } else if (*b != '#') { /* the command's first word: loops, io, memory, file=..., ... */
        const char *w = b;
        while (w < e && !isspace((unsigned char)*w)) w++;
        snprintf(piece, sizeof piece, "%s%.*s", commands++ ? ", " : "", (int)(w - b > 24 ? 24 : w - b), b);
        unapplied_add(piece);
      }
      continue;
    }
    if (keyword(b, e, "BEGIN_INSTRUMENT_SECTION")) {
      if (open >= 0) goto nested;
      if (unapplied[0]) unapplied_add("; ");
      in_section = 1;
      commands = 0;
      open_line = line;
      continue;
    }
    if ((size_t)(e - b) > 6 && (!memcmp(b, "BEGIN_", 6) || !memcmp(b, "END_", 4))) {
      int begin = b[0] == 'B';
      const char *name = b + (begin ? 6 : 4);
      int which = -1;
      for (int i = 0; i < N_LISTS; i++)
        if (keyword(name, e, list_names[i])) which = i;
      if (which < 0) {
        snprintf(err, errcap, "line %d: unknown section '%.*s'", line, (int)(e - b), b);
        return 0;
      }
      if (begin) {
        if (open >= 0) goto nested;
        open = which;
        open_line = line;
      } else if (open != which) {
        snprintf(err, errcap, "line %d: END_%s without BEGIN_%s", line, list_names[which], list_names[which]);
        return 0;
      } else {
        open = -1;
      }
      continue;
    }
    if (*b == '#') continue; /* a comment (a leading wildcard is written in quotes) */
    if (open < 0) {
      snprintf(err, errcap, "line %d: '%.*s' is outside every BEGIN_..._LIST / END_..._LIST", line,
               (int)(e - b > 80 ? 80 : e - b), b);
      return 0;
    }
    if (e - b >= 2 && *b == '"' && e[-1] == '"') {
      b++;
      e--;
    }
    if (!list_add(&lists[open], b, (size_t)(e - b))) {
      snprintf(err, errcap, "line %d: out of memory", line);
      return 0;
    }
  }
  if (open >= 0 || in_section) {
    snprintf(err, errcap, "line %d: BEGIN_%s has no END_%s", open_line, open >= 0 ? list_names[open] : "INSTRUMENT_SECTION",
             open >= 0 ? list_names[open] : "INSTRUMENT_SECTION");
    return 0;
  }
  return 1;
nested:
  snprintf(err, errcap, "line %d: a list begins inside BEGIN_%s (line %d), which has no END yet", line,
           open >= 0 ? list_names[open] : "INSTRUMENT_SECTION", open_line);
  return 0;
}

void hp_select_load(void) {
  const char *used;
  const char *path = hp_env("HYPROF_SELECT_FILE", "TAU_SELECT_FILE", &used);
  if (!path) return;
  hp_meta_add("HYPROF_SELECT_FILE", path);
  char *text = NULL, err[300];
  FILE *f = fopen(path, "re");
  if (!f) {
    hp_warn("%s=%s: cannot read the selective instrumentation file: %s; it is not used, every function is measured",
            used, path, strerror(errno));
    hp_meta_add("hyprof Select File", "not used: unreadable");
    return;
  }
  text = calloc(1, MAX_FILE_BYTES + 1);
  size_t n = text ? fread(text, 1, MAX_FILE_BYTES + 1, f) : 0;
  int read_error = ferror(f);
  fclose(f);
  if (!text || read_error || n > MAX_FILE_BYTES || memchr(text, 0, n)) {
    hp_warn("%s=%s: %s; it is not used, every function is measured", used, path,
            !text ? "out of memory" : read_error ? "cannot read the selective instrumentation file"
                                    : n > MAX_FILE_BYTES ? "the selective instrumentation file is larger than 16 MiB"
                                                         : "the selective instrumentation file is not text");
    free(text);
    hp_meta_add("hyprof Select File", "not used: unreadable");
    return;
  }
  if (!hp_select_parse(text, err, sizeof err)) {
    lists_clear();
    hp_warn("%s: %s; the selective instrumentation file is not used, every function is measured", path, err);
    hp_meta_add("hyprof Select File", "not used: syntax error");
  } else {
    char said[200];
    snprintf(said, sizeof said, "routines: %zu excluded, %zu included; files (applied when compiling): %zu excluded, %zu included",
             lists[LIST_EXCLUDE].n, lists[LIST_INCLUDE].n, lists[LIST_FILE_EXCLUDE].n, lists[LIST_FILE_INCLUDE].n);
    hp_meta_add("hyprof Select File", said);
    if (unapplied[0]) {
      hp_warn("%s: BEGIN_INSTRUMENT_SECTION is TAU's source instrumentation, which hyprof does not apply: %s; "
              "the routine lists are applied", path, unapplied);
      hp_meta_add("hyprof Select File not applied", unapplied);
    }
  }
  free(text);
}

int hp_select_needs_names(void) { return lists[LIST_EXCLUDE].n || lists[LIST_INCLUDE].n; }

static int in_list(const list *l, const char *const *names, int n_names) {
  for (size_t i = 0; i < l->n; i++)
    for (int j = 0; j < n_names; j++)
      if (names[j] && hp_select_match(l->items[i], names[j])) return 1;
  return 0;
}

/* The names a list entry may be written with: the symbol; a C++ symbol demangled, with and without its
 * parameters; a gfortran symbol as Fortran names it (module::routine, routine). */
int hp_select_wants(const char *symbol) {
  if (!hp_select_needs_names()) return 1;
  if (!symbol) return lists[LIST_INCLUDE].n == 0; /* unnamed: only an include list leaves it out */
  const char *names[4] = {symbol, NULL, NULL, NULL};
  char *demangled = NULL, bare[512], fortran[512];
  if (symbol[0] == '_' && symbol[1] == 'Z') {
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    static demangle_fn demangle;
    if (!demangle) demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int status = -1;
    if (demangle) demangled = demangle(symbol, NULL, NULL, &status);
    if (demangled && status == 0) {
      names[1] = demangled;
      const char *paren = strchr(demangled, '(');
      if (paren && (size_t)(paren - demangled) < sizeof bare) {
        memcpy(bare, demangled, (size_t)(paren - demangled));
        bare[paren - demangled] = 0;
        names[2] = bare;
      }
    }
  } else {
    const char *mod = strstr(symbol, "_MOD_");
    size_t len = strlen(symbol);
    if (symbol[0] == '_' && symbol[1] == '_' && mod && len < sizeof fortran) {
      snprintf(fortran, sizeof fortran, "%.*s::%s", (int)(mod - symbol - 2), symbol + 2, mod + 5);
      names[1] = fortran;
      names[2] = mod + 5;
    } else if (len > 1 && len < sizeof bare && symbol[len - 1] == '_') {
      memcpy(bare, symbol, len - 1);
      bare[len - 1] = 0;
      names[1] = bare;
    }
  }
  int wanted;
  if (in_list(&lists[LIST_INCLUDE], names, 4))
    wanted = 1; /* TAU: an entry both included and excluded is included */
  else if (lists[LIST_INCLUDE].n)
    wanted = 0;
  else
    wanted = !in_list(&lists[LIST_EXCLUDE], names, 4);
  free(demangled);
  return wanted;
}
